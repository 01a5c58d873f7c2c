// libFuzzer entry over the small HTTP server's request parser (the cloud emulator's input):
// head limits, request line, Content-Length and body bounds. Built with the RecorderWebSocket
// sources in one module by scripts/fuzz.sh. A trap or sanitizer report is a bug; a thrown
// HTTPMessageError is the expected answer to garbage.

@_cdecl("LLVMFuzzerTestOneInput")
public func httpRequestFuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
  guard let start else { return 0 }
  let bytes = Array(UnsafeBufferPointer(start: start, count: count))
  let limits = HTTPRequest.Limits(
    head: HTTPUpgradeHead.Limits(maxHeadBytes: 1024, maxFields: 16), maxBodyBytes: 512)
  guard let (request, consumed) = try? HTTPRequest.parse(bytes, limits: limits) else { return 0 }
  precondition(consumed <= bytes.count && request.body.count <= limits.maxBodyBytes)
  precondition(request.target.hasPrefix("/"))
  _ = request.query
  _ = request.path
  return 0
}
