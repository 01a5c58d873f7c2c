// libFuzzer entry over the WebSocket opening handshake: the HTTP/1.1 head parser (size and
// field limits, ASCII rules) and both sides' validation (the server's of a request, the
// client's of a response). Built with the RecorderLink sources in one module by
// scripts/fuzz.sh. A trap or sanitizer report is a bug; a thrown HTTPUpgradeError or
// WebSocketError is the expected answer to garbage.

@_cdecl("LLVMFuzzerTestOneInput")
public func httpUpgradeFuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
  guard let start else { return 0 }
  let bytes = Array(UnsafeBufferPointer(start: start, count: count))
  let limits = HTTPUpgradeHead.Limits(maxHeadBytes: 1024, maxFields: 16)
  guard let (head, consumed) = try? HTTPUpgradeHead.parse(bytes, limits: limits) else { return 0 }
  precondition(consumed >= 4 && consumed <= bytes.count && consumed <= limits.maxHeadBytes)
  precondition(head.fields.count <= limits.maxFields)
  if let request = try? WebSocketHandshake.validate(head) {
    // An accepted request gets a 101 that our own client accepts for the same key.
    let response = WebSocketHandshake.response(to: request)
    guard let (answer, _) = try? HTTPUpgradeHead.parse(response) else {
      preconditionFailure("our 101 does not parse")
    }
    precondition((try? WebSocketHandshake.validateResponse(answer, key: request.key)) != nil)
  }
  _ = try? WebSocketHandshake.validateResponse(head, key: "dGhlIHNhbXBsZSBub25jZQ==")
  return 0
}
