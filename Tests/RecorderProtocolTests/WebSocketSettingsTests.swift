import Testing

@testable import RecorderProtocol

/// Issue 43: the device's WebSocket settings, `0010` / `0011` (PROTOCOL.md §3.4) [sdk-code].
@Suite("WebSocket settings (0010 / 0011)")
struct WebSocketSettingsTests {
  static func phone(_ bytes: [UInt8]) throws -> PhoneMessage {
    guard case .control(let control) = try Frame(decoding: bytes, portVersion: 20) else {
      throw FrameError.empty
    }
    return try PhoneMessage(control, portVersion: 20)
  }

  static func device(_ bytes: [UInt8]) throws -> DeviceMessage {
    guard case .control(let control) = try Frame(decoding: bytes, portVersion: 20) else {
      throw FrameError.empty
    }
    return try DeviceMessage(control, portVersion: 20)
  }

  @Test("§11 vector 21: `01 10 00 01 01` gets the URL; set pads to 64 / 16 bytes")
  func vector21() throws {
    #expect(try Self.phone([0x01, 0x10, 0x00, 0x01, 0x01]) == .webSocketSettings(.get(.url)))
    #expect(
      PhoneMessage.webSocketSettings(.get(.url)).encoded(portVersion: 20)
        == [0x01, 0x10, 0x00, 0x01, 0x01])
    let set = PhoneMessage.webSocketSettings(.set(.url, value: Array("ws://h/x".utf8)))
    let wire = set.encoded(portVersion: 20)
    #expect(wire.count == 5 + 64 && Array(wire[5..<13]) == Array("ws://h/x".utf8))
    #expect(wire[13...].allSatisfy { $0 == 0 })
    #expect(try Self.phone(wire) == set)
    let token = PhoneMessage.webSocketSettings(.set(.deviceToken, value: Array("abc".utf8)))
    #expect(token.encoded(portVersion: 20).count == 5 + 16)
    // The device's answer: type, then the value NUL-terminated in its field.
    let reply =
      [0x01, 0x11, 0x00, 0x01] + Array("ws://h/x".utf8) + [UInt8](repeating: 0, count: 56)
    #expect(
      try Self.device(reply)
        == .webSocketSetting(WebSocketSettingValue(type: .url, value: Array("ws://h/x".utf8))))
    // A token is never shown by the decoder.
    let secret = DeviceMessage.webSocketSetting(
      WebSocketSettingValue(type: .serverToken, value: Array("SECRET".utf8)))
    #expect(!secret.fields.description.contains("SECRET"))
  }

  @Test("malformed: type 0 or 4, op 3, a set value shorter than its field: typed errors")
  func malformed() {
    let cases: [[UInt8]] = [
      [0x01, 0x10, 0x00, 0x01, 0x00],
      [0x01, 0x10, 0x00, 0x01, 0x04],
      [0x01, 0x10, 0x00, 0x03, 0x01],
      [0x01, 0x10, 0x00, 0x02, 0x02, 0x41],
      [0x01, 0x10, 0x00, 0x01],
    ]
    for bytes in cases {
      #expect(throws: FrameError.self) { try Self.phone(bytes) }
    }
    #expect(throws: FrameError.self) { try Self.device([0x01, 0x11, 0x00, 0x00]) }
    #expect(throws: FrameError.self) { try Self.device([0x01, 0x11, 0x00]) }
  }
}
