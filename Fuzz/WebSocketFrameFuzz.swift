// libFuzzer entry over the WebSocket parser (RFC 6455 framing, masking, fragmentation,
// control frames, close payloads, UTF-8, size limit). Built with the RecorderLink sources in
// one module by scripts/fuzz.sh. Byte 0 picks the role and the split point, so the stream
// arrives in two reads as a socket would deliver it. A trap or sanitizer report is a bug; a
// thrown WebSocketError is the expected answer to garbage.

@_cdecl("LLVMFuzzerTestOneInput")
public func webSocketFrameFuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
  guard let start, count > 0 else { return 0 }
  let bytes = Array(UnsafeBufferPointer(start: start, count: count))
  let role: WebSocketRole = bytes[0] & 1 == 0 ? .server : .client
  let stream = bytes.dropFirst()
  let cut = stream.startIndex + Int(bytes[0] >> 1) % (stream.count + 1)
  var parser = WebSocketParser(role: role, maxMessageSize: 2048)
  var events: [WebSocketEvent] = []
  parser.append(stream[..<cut])
  while let event = try? parser.next() { events.append(event) }
  parser.append(stream[cut...])
  while let event = try? parser.next() { events.append(event) }
  for event in events {
    // Whatever parses must re-encode (as the peer of `role` would) and parse to the same event.
    let frame: WebSocketFrame
    switch event {
    case .message(.binary(let payload)): frame = WebSocketFrame(opcode: .binary, payload: payload)
    case .message(.text(let text)): frame = WebSocketFrame(opcode: .text, payload: Array(text.utf8))
    case .ping(let payload): frame = WebSocketFrame(opcode: .ping, payload: payload)
    case .pong(let payload): frame = WebSocketFrame(opcode: .pong, payload: payload)
    case .close(let code, let reason):
      let payload =
        code == .noStatusReceived ? [] : WebSocketFrame.closePayload(code: code, reason: reason)
      frame = WebSocketFrame(opcode: .close, payload: payload)
    }
    var again = WebSocketParser(role: role, maxMessageSize: 2048)
    again.append(frame.encoded(maskingKey: role == .server ? [0xA5, 0x5A, 0x0F, 0xF0] : nil))
    precondition((try? again.next()) == event, "event did not survive re-encoding")
  }
  return 0
}
