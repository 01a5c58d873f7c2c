import Testing

@testable import RecorderProtocol

/// PROTOCOL.md §11: every published vector decodes to the typed value its "Meaning" column
/// states, and that value encodes back to exactly the captured bytes (portVersion 10).
@Suite("PROTOCOL.md §11 test vectors")
struct TestVectorTests {
  static let portVersion: UInt16 = 10

  static func bytes(_ text: String) -> [UInt8] {
    guard let bytes = [UInt8](hex: text) else {
      Issue.record("bad hex in test: \(text)")
      return []
    }
    return bytes
  }

  static func control(_ bytes: [UInt8]) throws -> ControlFrame {
    let frame = try Frame(decoding: bytes, portVersion: portVersion)
    guard case .control(let control) = frame else {
      Issue.record("expected a control frame, got \(frame.kindName)")
      throw FrameError.empty
    }
    return control
  }

  /// Decodes P→D bytes, checks the value, and encodes the value back to the bytes.
  func checkPhone(_ hex: String, _ expected: PhoneMessage) throws {
    let wire = Self.bytes(hex)
    let decoded = try PhoneMessage(Self.control(wire), portVersion: Self.portVersion)
    #expect(decoded == expected)
    #expect(expected.encoded(portVersion: Self.portVersion) == wire)
  }

  /// Decodes D→P bytes, checks the value, and encodes the value back to the bytes.
  func checkDevice(_ hex: String, _ expected: DeviceMessage) throws {
    let wire = Self.bytes(hex)
    let decoded = try DeviceMessage(Self.control(wire), portVersion: Self.portVersion)
    #expect(decoded == expected)
    #expect(expected.encoded(portVersion: Self.portVersion) == wire)
  }

  func checkFrame(_ wire: [UInt8], _ expected: Frame) throws {
    let decoded = try Frame(decoding: wire, portVersion: Self.portVersion)
    #expect(decoded == expected)
    #expect(expected.encoded(portVersion: Self.portVersion) == wire)
  }

  static let token = "0123456789abcdef0123456789abcdef"
  static let handshakeReplyTail = "0a 00 03 00 01 01 00 00 56 5f 00 00"

  @Test("#1 P→D HANDSHAKE hostType 2, bleVersion 0, appVerify 0")
  func vector1() throws {
    let hex = "01 01 00 02 00 00" + Array(Self.token.utf8).hexString
    let token = try #require(DeviceToken(Self.token))
    try checkPhone(
      hex, .handshake(HandshakeRequest(hostType: 2, bleVersion: 0, appVerify: 0, token: token)))
    guard case .handshake(let request) = try PhoneMessage(Self.control(Self.bytes(hex))) else {
      Issue.record("not a handshake")
      return
    }
    #expect(request.hostType == 2)
    #expect(request.bleVersion == 0)
    #expect(request.appVerify == 0)
    #expect(request.token.revealed == Self.token)
    #expect(request.secondStage == nil)
  }

  @Test("#2 D→P HANDSHAKE status 0, portVersion 10, +3:00, 1 ch, Wi-Fi 1, Ogg 0, V0095")
  func vector2() throws {
    let expected = HandshakeResponse(
      status: 0, portVersion: 10, tzHours: 3, tzMinutes: 0, audioChannels: 1, supportWifi: 1,
      noNsAgc: 0, oggAudio: 0, firmware: FirmwareVersion(type: UInt8(ascii: "V"), code: 95))
    try checkDevice("01 01 00 00 " + Self.handshakeReplyTail, .handshake(expected))
    #expect(expected.firmware?.description == "V0095")
    #expect(HandshakeStatus(rawValue: expected.status) == .ok)
  }

  @Test("#3 D→P HANDSHAKE status 1 (token mismatch)")
  func vector3() throws {
    let expected = HandshakeResponse(
      status: 1, portVersion: 10, tzHours: 3, tzMinutes: 0, audioChannels: 1, supportWifi: 1,
      noNsAgc: 0, oggAudio: 0, firmware: FirmwareVersion(type: UInt8(ascii: "V"), code: 95))
    try checkDevice("01 01 00 01 " + Self.handshakeReplyTail, .handshake(expected))
    #expect(HandshakeStatus(rawValue: expected.status) == .tokenMismatch)
  }

  @Test("#4 P→D TIME_SYNC 1775395281, +3 h 0 min")
  func vector4() throws {
    try checkPhone(
      "01 04 00 d1 61 d2 69 03 00",
      .timeSync(TimeSyncRequest(unixSeconds: 1_775_395_281, tzHours: 3, tzMinutes: 0)))
  }

  @Test("#5 D→P GET_STATE state 1, privacy 0, keyState 4, usb 0, scene 0, session 0")
  func vector5() throws {
    try checkDevice(
      "01 03 00 01 00 00 00 00 04 00 00 00 00 00 00",
      .state(
        DeviceState(
          state: 1, privacy: 0, keyState: 4, usb: 0, scene: 0, sessionId: 0, findMy: nil,
          soundPlusKey: nil, httpToken: nil)))
  }

  @Test("#6 D→P STORAGE free 62537465856, total 62537596928, remaining 919514000")
  func vector6() throws {
    try checkDevice(
      "01 06 00 00 00 86 8f 0e 00 00 00 00 00 88 8f 0e 00 00 00 90 ab ce 36 00 00 00 00",
      .storage(
        StorageInfo(
          freeBytes: 62_537_465_856, totalBytes: 62_537_596_928, remaining: 919_514_000)))
  }

  @Test("#7 P→D SETTINGS read setting 15")
  func vector7() throws {
    try checkPhone("01 08 00 01 0f 00", .settings(.read(setting: 15)))
  }

  @Test("#8 D→P SETTINGS setting 15 = 0")
  func vector8() throws {
    try checkDevice("01 08 00 0f 00 00 00 00 00", .setting(SettingValue(setting: 15, value: 0)))
  }

  @Test("#9 D→P BATTERY 100 % (one-byte form)")
  func vector9() throws {
    try checkDevice("01 09 00 64", .battery(BatteryStatus(level: 100, charging: nil)))
  }

  @Test("#10 P→D LIST tag 1775395282, after 0")
  func vector10() throws {
    try checkPhone(
      "01 1a 00 d2 61 d2 69 00 00 00 00",
      .list(ListRequest(requestTag: 1_775_395_282, afterSession: 0, onlyOne: nil)))
  }

  @Test("#11 P→D SYNC_START 0x69D26658, start 85120, end 88000")
  func vector11() throws {
    try checkPhone(
      "01 1c 00 58 66 d2 69 80 4c 01 00 c0 57 01 00",
      .syncStart(SyncStartRequest(sessionId: 0x69D2_6658, start: 85120, end: 88000)))
  }

  @Test("#12 D→P data 0x69D26658, offset 0, 80 bytes")
  func vector12() throws {
    let data = [UInt8](repeating: 0xAB, count: 80)
    let wire = Self.bytes("02 58 66 d2 69 00 00 00 00 50") + data
    let expected = BulkFrame(sessionId: 0x69D2_6658, offset: 0, data: data)
    try checkFrame(wire, .bulk(expected))
    #expect(!expected.isTerminal)
    #expect(expected.endCode == nil)
    #expect(wire.count == 90)
  }

  @Test("#13 D→P terminal, session 0x12345678, code 0")
  func vector13() throws {
    let expected = BulkFrame.terminal(sessionId: 0x1234_5678, code: 0)
    #expect(expected == BulkFrame(sessionId: 0x1234_5678, offset: 0xFFFF_FFFF, data: []))
    try checkFrame(Self.bytes("02 78 56 34 12 ff ff ff ff 00"), .bulk(expected))
    #expect(expected.isTerminal)
    #expect(expected.endCode == 0)
  }

  @Test("#14 D→P GET_NAME PLAUD_NOTE")
  func vector14() throws {
    let expected = DeviceName("PLAUD_NOTE", fieldWidth: 14)
    try checkDevice("01 6c 00 50 4c 41 55 44 5f 4e 4f 54 45 00 00 00 00", .name(expected))
    #expect(expected.name == "PLAUD_NOTE")
  }

  @Test("#15 D→P prehandshake 0xFE12, count 1, index 0 (0-based), chunk aa bb")
  func vector15() throws {
    try checkFrame(
      Self.bytes("12 fe 01 00 aa bb"),
      .preHandshake(PreHandshakeChunk(type: 0xFE12, count: 1, index: 0, chunk: [0xAA, 0xBB])))
  }

  /// The decoder names of §2 for the two frames `recorder decode` users see most.
  @Test("vectors describe themselves with the §2 field names")
  func describedFields() throws {
    let data = try Frame(decoding: Self.bytes("02 78 56 34 12 ff ff ff ff 00"))
    #expect(
      try data.describe(direction: .deviceToPhone) == [
        Field("kind", .text("bulk")), Field("sessionId", UInt32(0x1234_5678)),
        Field("offset", UInt32.max), Field("length", 0), Field("final", 1), Field("code", 0),
      ])
    let battery = try Frame(decoding: Self.bytes("01 09 00 64"))
    #expect(
      try battery.describe(direction: .deviceToPhone) == [
        Field("kind", .text("control")), Field("opcode", 9), Field("name", .text("BATTERY")),
        Field("level", 100),
      ])
  }
}
