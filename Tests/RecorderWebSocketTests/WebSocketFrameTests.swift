import TestSupport
import Testing

@testable import RecorderWebSocket

/// Feeds `bytes` to a parser of `role` and collects events until it needs more bytes.
private func events(
  _ bytes: [UInt8], role: WebSocketRole = .client, limit: Int = 1 << 20
) throws(WebSocketError) -> [WebSocketEvent] {
  var parser = WebSocketParser(role: role, maxMessageSize: limit)
  parser.append(bytes)
  var out: [WebSocketEvent] = []
  while let event = try parser.next() { out.append(event) }
  return out
}

private func failure(_ bytes: [UInt8], role: WebSocketRole = .client, limit: Int = 1 << 20)
  -> WebSocketError?
{
  do { _ = try events(bytes, role: role, limit: limit) } catch { return error }
  return nil
}

private let key: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]

/// A masked client frame with the raw first byte `first` (FIN, RSV, opcode) and `payload`.
private func clientFrame(_ first: UInt8, _ payload: [UInt8]) -> [UInt8] {
  var frame = WebSocketFrame(opcode: .binary, payload: payload).encoded(maskingKey: key)
  frame[0] = first
  return frame
}

@Suite("WebSocket frames (RFC 6455 §5): codec, parser, every malformed input")
struct WebSocketFrameTests {
  /// The examples of RFC 6455 §5.7, byte for byte.
  @Test func rfcExamples() throws {
    let hello = Array("Hello".utf8)
    #expect(WebSocketFrame(opcode: .text, payload: hello).encoded() == [0x81, 0x05] + hello)
    let masked: [UInt8] = [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]
    #expect(WebSocketFrame(opcode: .text, payload: hello).encoded(maskingKey: key) == masked)
    #expect(try events(masked, role: .server) == [.message(.text("Hello"))])
    let fragmented: [UInt8] = [0x01, 0x03, 0x48, 0x65, 0x6C, 0x80, 0x02, 0x6C, 0x6F]
    #expect(try events(fragmented) == [.message(.text("Hello"))])
    #expect(try events([0x89, 0x05] + hello) == [.ping(hello)])
    let pong: [UInt8] = [0x8A, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]
    #expect(try events(pong, role: .server) == [.pong(hello)])
    let b256 = WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 7, count: 256)).encoded()
    #expect(Array(b256.prefix(4)) == [0x82, 0x7E, 0x01, 0x00])
    let b64k = WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 7, count: 65536))
      .encoded()
    #expect(Array(b64k.prefix(10)) == [0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0])
  }

  /// The word-at-a-time masking agrees with the byte-by-byte definition of §5.3 at every
  /// length and start offset.
  @Test func maskingMatchesTheDefinition() {
    let key: [UInt8] = [0x01, 0x80, 0xFE, 0x7F]
    for count in 0..<40 {
      for start in 0...min(count, 9) {
        let original = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        var masked = original
        WebSocketFrame.applyMask(key, to: &masked, from: start)
        let expected = original.enumerated().map { index, byte in
          index < start ? byte : byte ^ key[(index - start) % 4]
        }
        #expect(masked == expected, "count \(count), start \(start)")
      }
    }
  }

  /// The three length encodings at their edges, masked and not, fed one byte at a time.
  @Test(arguments: [0, 1, 125, 126, 127, 65535, 65536, 70000])
  func lengthEdgesRoundTripByteByByte(_ count: Int) throws {
    let payload = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31) }
    for role in [WebSocketRole.server, .client] {
      let bytes = WebSocketFrame(opcode: .binary, payload: payload)
        .encoded(maskingKey: role == .server ? key : nil)
      let header = count <= 125 ? 2 : count <= 65535 ? 4 : 10
      #expect(bytes.count == header + (role == .server ? 4 : 0) + count)
      var parser = WebSocketParser(role: role)
      var got: [WebSocketEvent] = []
      let step = count > 1000 ? 997 : 1
      var index = 0
      while index < bytes.count {
        parser.append(bytes[index..<min(index + step, bytes.count)])
        index += step
        while let event = try parser.next() { got.append(event) }
        #expect(parser.isMidMessage == (index < bytes.count))
      }
      #expect(got == [.message(.binary(payload))])
    }
  }

  @Test func framingViolationsAreTypedErrors() {
    #expect(failure([0xC2, 0x00]) == .reservedBitsSet(4))
    #expect(failure([0x92, 0x00]) == .reservedBitsSet(1))
    for opcode: UInt8 in [3, 4, 5, 6, 7, 0xB, 0xC, 0xD, 0xE, 0xF] {
      #expect(failure([0x80 | opcode, 0x00]) == .unknownOpcode(opcode))
    }
    #expect(failure([0x82, 0x01, 0x00], role: .server) == .unmaskedClientFrame)
    #expect(failure(clientFrame(0x82, [1]), role: .client) == .maskedServerFrame)
    #expect(failure([0x82, 0x7E, 0x00, 0x7D]) == .nonMinimalLength(125))
    #expect(failure([0x82, 0x7F, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]) == .nonMinimalLength(65535))
    #expect(
      failure([0x82, 0x7F, 0x80, 0, 0, 0, 0, 0, 0, 0]) == .lengthTooLarge(0x8000_0000_0000_0000))
  }

  @Test func controlFrameRules() throws {
    #expect(
      failure([0x89, 0x7E, 0x00, 0x7E] + [UInt8](repeating: 0, count: 126))
        == .controlFrameTooLong(126))
    #expect(failure([0x88, 0x7E, 0x00, 0x7E]) == .controlFrameTooLong(126))
    #expect(failure([0x09, 0x00]) == .fragmentedControlFrame)
    #expect(failure([0x08, 0x02, 0x03, 0xE8]) == .fragmentedControlFrame)
    #expect(try events([0x89, 0x7D] + [UInt8](repeating: 1, count: 125)).count == 1)
    // Control frames may sit between the fragments of a message.
    let interleaved: [UInt8] =
      [0x02, 0x01, 0xAA] + [0x89, 0x01, 0x55] + [0x00, 0x01, 0xBB] + [0x8A, 0x00] + [
        0x80, 0x01, 0xCC,
      ]
    #expect(
      try events(interleaved) == [.ping([0x55]), .pong([]), .message(.binary([0xAA, 0xBB, 0xCC]))])
  }

  @Test func fragmentationRules() throws {
    #expect(failure([0x80, 0x01, 0x00]) == .unexpectedContinuation)
    #expect(failure([0x00, 0x01, 0x00]) == .unexpectedContinuation)
    #expect(failure([0x02, 0x01, 0x00, 0x82, 0x01, 0x00]) == .interleavedDataFrame)
    #expect(failure([0x01, 0x01, 0x41, 0x02, 0x00]) == .interleavedDataFrame)
    // Empty fragments are legal, and the opcode comes from the first frame.
    #expect(try events([0x01, 0x00, 0x00, 0x00, 0x80, 0x01, 0x41]) == [.message(.text("A"))])
    // A code point split across fragments is valid UTF-8 once reassembled.
    let euro: [UInt8] = [0xE2, 0x82, 0xAC]
    #expect(
      try events([0x01, 0x01, euro[0], 0x80, 0x02, euro[1], euro[2]]) == [.message(.text("€"))])
  }

  @Test func sizeLimitIsCheckedFromTheHeaderBeforeAllocating() {
    // Only the header has arrived, declaring 2^62 bytes: refused at once.
    #expect(
      failure([0x82, 0x7F, 0x40, 0, 0, 0, 0, 0, 0, 0], limit: 1024)
        == .messageTooBig(declared: 1 << 62, limit: 1024))
    #expect(
      failure([0x82, 0x7E, 0x04, 0x01], limit: 1024) == .messageTooBig(declared: 1025, limit: 1024))
    #expect(failure([0x82, 0x7E, 0x04, 0x00], limit: 1024) == nil)
    // Across fragments: 1000 held + a 100-byte continuation header is over 1024.
    let first = [0x02, 0x7E, 0x03, 0xE8] + [UInt8](repeating: 0, count: 1000)
    #expect(
      failure(first + [0x80, 0x64], limit: 1024) == .messageTooBig(declared: 1100, limit: 1024))
    #expect(failure(first + [0x80, 0x18] + [UInt8](repeating: 0, count: 24), limit: 1024) == nil)
  }

  @Test func utf8AndCloseRules() throws {
    #expect(failure([0x81, 0x02, 0xC0, 0xAF]) == .invalidUTF8Text)  // overlong
    #expect(failure([0x81, 0x03, 0xED, 0xA0, 0x80]) == .invalidUTF8Text)  // surrogate
    #expect(failure([0x81, 0x04, 0xF4, 0x90, 0x80, 0x80]) == .invalidUTF8Text)  // > U+10FFFF
    #expect(failure([0x81, 0x01, 0xE2]) == .invalidUTF8Text)  // truncated
    #expect(failure([0x88, 0x01, 0x03]) == .truncatedClosePayload)
    for code: UInt16 in [0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000, 65535] {
      #expect(
        failure([0x88, 0x02, UInt8(code >> 8), UInt8(code & 0xFF)]) == .invalidCloseCode(code))
    }
    for code: UInt16 in [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1013, 3000, 4999] {
      #expect(
        try events([0x88, 0x02, UInt8(code >> 8), UInt8(code & 0xFF)])
          == [.close(code: WebSocketCloseCode(rawValue: code), reason: "")])
    }
    #expect(try events([0x88, 0x00]) == [.close(code: .noStatusReceived, reason: "")])
    #expect(
      try events([0x88, 0x04, 0x03, 0xE8, 0x68, 0x69]) == [
        .close(code: .normalClosure, reason: "hi")
      ])
    #expect(failure([0x88, 0x03, 0x03, 0xE8, 0xFF]) == .invalidUTF8CloseReason)
  }

  @Test func closePayloadIsCutToFitAtACharacterBoundary() throws {
    let payload = WebSocketFrame.closePayload(
      code: .protocolError, reason: String(repeating: "é", count: 100))
    #expect(payload.count == 124)  // 2 + 61 × 2 bytes: one more "é" would pass 125
    let parsed = try WebSocketFrame.parseClosePayload(payload)
    #expect(parsed.code == .protocolError && parsed.reason == String(repeating: "é", count: 61))
  }

  @Test func eachErrorMapsToItsCloseCode() {
    #expect(WebSocketError.unmaskedClientFrame.closeCode == .protocolError)
    #expect(WebSocketError.invalidCloseCode(5).closeCode == .protocolError)
    #expect(WebSocketError.messageTooBig(declared: 2, limit: 1).closeCode == .messageTooBig)
    #expect(WebSocketError.invalidUTF8Text.closeCode == .invalidPayload)
    #expect(WebSocketError.invalidUTF8CloseReason.closeCode == .invalidPayload)
    #expect(WebSocketError.stalledMidFrame.closeCode == .policyViolation)
    #expect(WebSocketError.connectionLost.closeCode == nil)
  }

  @Test func aFailedParserStaysFailed() {
    var parser = WebSocketParser(role: .server)
    parser.append([0x82, 0x00])
    #expect(throws: WebSocketError.unmaskedClientFrame) { try parser.next() }
    parser.append(clientFrame(0x82, [1]))
    #expect(throws: WebSocketError.unmaskedClientFrame) { try parser.next() }
  }

  /// Seeded random messages, fragmented at random, with control frames between fragments,
  /// split into random reads: they come out whole and in order. Random garbage: an error or
  /// events, never a trap.
  @Test func randomStreamsReassembleAndGarbageNeverTraps() throws {
    let seed = TestSeed.current &+ 21
    var gen = Gen(seed: seed)
    for _ in 0..<300 {
      var wire: [UInt8] = []
      var expected: [WebSocketEvent] = []
      for _ in 0..<gen.int(1...5) {
        let text = gen.bool()
        let payload = text ? Array(gen.text(maxBytes: 300).utf8) : gen.bytes(0...3000)
        let pieces = gen.int(1...4)
        var start = 0
        for piece in 0..<pieces {
          let end = piece == pieces - 1 ? payload.count : gen.int(start...payload.count)
          let opcode: WebSocketOpcode = piece == 0 ? (text ? .text : .binary) : .continuation
          wire += WebSocketFrame(
            fin: piece == pieces - 1, opcode: opcode, payload: Array(payload[start..<end])
          )
          .encoded(maskingKey: gen.bytes(4...4))
          start = end
          if piece < pieces - 1 && gen.oneIn(3) {
            let ping = gen.bytes(0...125)
            wire += WebSocketFrame(opcode: .ping, payload: ping).encoded(
              maskingKey: gen.bytes(4...4))
            expected.append(.ping(ping))
          }
        }
        expected.append(
          .message(text ? .text(String(decoding: payload, as: UTF8.self)) : .binary(payload)))
      }
      var parser = WebSocketParser(role: .server)
      var got: [WebSocketEvent] = []
      var index = 0
      while index < wire.count {
        let end = min(wire.count, index + gen.int(1...700))
        parser.append(wire[index..<end])
        index = end
        while let event = try parser.next() { got.append(event) }
      }
      #expect(got == expected, "RECORDER_TEST_SEED=\(seed &- 21)")
    }
    for _ in 0..<20_000 {
      var parser = WebSocketParser(role: gen.bool() ? .server : .client, maxMessageSize: 4096)
      parser.append(gen.bytes(0...64))
      while let _ = try? parser.next() {}
    }
  }
}
