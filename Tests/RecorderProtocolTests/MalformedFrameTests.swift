import Foundation
import Testing

@testable import RecorderProtocol

/// One malformed input and the exact error PROTOCOL.md §2 says it must give.
struct MalformedCase: Sendable, CustomTestStringConvertible {
  var name: String
  var wire: [UInt8]
  var direction: Direction
  var portVersion: UInt16
  var error: FrameError

  init(
    _ name: String, _ hex: String, _ error: FrameError, from direction: Direction = .deviceToPhone,
    portVersion: UInt16 = 10, appending extra: [UInt8] = []
  ) {
    self.name = name
    self.wire = ([UInt8](hex: hex) ?? [0xEE]) + extra
    self.direction = direction
    self.portVersion = portVersion
    self.error = error
  }

  var testDescription: String { name }

  /// Decodes as far as the protocol goes: the frame, then a control payload as the message
  /// of `direction`.
  func decode() throws(FrameError) {
    let frame = try Frame(decoding: wire, portVersion: portVersion)
    guard case .control(let control) = frame else { return }
    switch direction {
    case .phoneToDevice: _ = try PhoneMessage(control, portVersion: portVersion)
    case .deviceToPhone: _ = try DeviceMessage(control, portVersion: portVersion)
    }
  }
}

private func zeros(_ count: Int) -> [UInt8] { [UInt8](repeating: 0, count: count) }
private func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }
private let entry10 = [UInt8](repeating: 0x11, count: 10)
private let tag8: [UInt8] = [1, 0, 0, 0, 2, 3, 0, 0]

/// Framing (§2): empty, unknown byte 0, shorter than the header, a length past the end.
let framingCases: [MalformedCase] = [
  MalformedCase("empty", "", .empty),
  MalformedCase("byte 0 = 0x00", "00 01 02", .unknownKind(0x00)),
  MalformedCase("byte 0 = 0x06", "06 00 00 00", .unknownKind(0x06)),
  MalformedCase("byte 0 = 0xFF", "ff", .unknownKind(0xFF)),
  MalformedCase("0x10 without FE is not prehandshake", "10 00 01 01", .unknownKind(0x10)),
  MalformedCase("0xFE first is not a kind", "fe 12 01 01", .unknownKind(0xFE)),
  MalformedCase(
    "control of 1 byte", "01", .truncated(field: "opcode", needed: 2, available: 0)),
  MalformedCase(
    "control of 2 bytes", "01 09", .truncated(field: "opcode", needed: 2, available: 1)),
  MalformedCase("bulk kind only", "02", .truncated(field: "sessionId", needed: 4, available: 0)),
  MalformedCase(
    "bulk of 9 bytes (header is 10)", "02 58 66 d2 69 00 00 00 00",
    .truncated(field: "length", needed: 1, available: 0)),
  MalformedCase(
    "bulk at portVersion 6 without len", "02 00 00 00 00",
    .truncated(field: "length", needed: 1, available: 0), portVersion: 6),
  MalformedCase(
    "bulk len 80 with 79 data bytes", "02 58 66 d2 69 00 00 00 00 50",
    .lengthPastEnd(field: "length", declared: 80, available: 79),
    appending: [UInt8](repeating: 0xAB, count: 79)),
  MalformedCase(
    "bulk len 255 with 3 data bytes", "02 01 00 00 00 00 00 00 00 ff aa bb cc",
    .lengthPastEnd(field: "length", declared: 255, available: 3)),
  MalformedCase(
    "OTA header short", "03 00 00", .truncated(field: "offset", needed: 4, available: 2)),
  MalformedCase(
    "OTA len 160 with 5 bytes", "03 00 00 00 00 a0 01 02 03 04 05",
    .lengthPastEnd(field: "length", declared: 160, available: 5)),
  MalformedCase("log kind only", "05", .truncated(field: "logType", needed: 1, available: 0)),
  MalformedCase(
    "log len 16 with 1 byte", "05 01 00 00 00 00 10 aa",
    .lengthPastEnd(field: "length", declared: 16, available: 1)),
  MalformedCase(
    "log without len", "05 01 00 00 00 00", .truncated(field: "length", needed: 1, available: 0)),
  MalformedCase(
    "prehandshake of 2 bytes", "12 fe", .truncated(field: "count", needed: 1, available: 0)),
  MalformedCase(
    "prehandshake of 3 bytes", "10 fe 01", .truncated(field: "index", needed: 1, available: 0)),
]

/// D→P payloads shorter than their layout, or with values the layout forbids (§3).
let deviceCases: [MalformedCase] = [
  MalformedCase(
    "HANDSHAKE reply of 3 bytes", "01 01 00 00 0a 00",
    .truncated(field: "handshake reply", needed: 4, available: 3)),
  MalformedCase(
    "HANDSHAKE reply empty", "01 01 00",
    .truncated(field: "handshake reply", needed: 4, available: 0)),
  MalformedCase(
    "GET_SERIAL shorter than 56", "01 02 00",
    .truncated(field: "serial", needed: 56, available: 10),
    appending: ascii("8881234567")),
  MalformedCase(
    "GET_SERIAL not UTF-8", "01 02 00 ff fe",
    .invalidField(field: "serial", reason: "not UTF-8"), appending: zeros(54)),
  MalformedCase(
    "GET_STATE of 4 bytes", "01 03 00 01 00 00 00",
    .truncated(field: "privacy", needed: 1, available: 0)),
  MalformedCase(
    "TIME_SYNC reply of 4 bytes", "01 04 00 d1 61 d2 69",
    .truncated(field: "tzHours", needed: 1, available: 0)),
  MalformedCase(
    "STORAGE of 7 bytes", "01 06 00", .truncated(field: "freeBytes", needed: 8, available: 7),
    appending: zeros(7)),
  MalformedCase(
    "STORAGE of 12 bytes", "01 06 00", .truncated(field: "totalBytes", needed: 8, available: 4),
    appending: zeros(12)),
  MalformedCase(
    "SETTINGS reply of 5 bytes", "01 08 00 0f 00 00 00 00",
    .truncated(field: "value", needed: 4, available: 3)),
  MalformedCase("BATTERY empty", "01 09 00", .truncated(field: "level", needed: 1, available: 0)),
  MalformedCase(
    "WIFI_OPEN reply with 3 password bytes", "01 0a 00 00 61 62 63",
    .truncated(field: "password", needed: 8, available: 3)),
  MalformedCase(
    "WIFI_CLOSE reply empty", "01 0d 00", .truncated(field: "status", needed: 1, available: 0)),
  MalformedCase(
    "GET_NAME not UTF-8", "01 6c 00 ff fe 41 00", .invalidField(field: "name", reason: "not UTF-8")
  ),
  MalformedCase(
    "GET_NAME with an overlong NUL (c0 80)", "01 6c 00 41 c0 80",
    .invalidField(field: "name", reason: "not UTF-8")),
  MalformedCase(
    "GET_NAME with a UTF-16 surrogate (ed a0 80)", "01 6c 00 ed a0 80 41",
    .invalidField(field: "name", reason: "not UTF-8")),
  MalformedCase(
    "GET_NAME past U+10FFFF (f4 90 80 80)", "01 6c 00 f4 90 80 80",
    .invalidField(field: "name", reason: "not UTF-8")),
  MalformedCase(
    "GET_NAME cut inside a character (e6 97)", "01 6c 00 41 e6 97 00",
    .invalidField(field: "name", reason: "not UTF-8")),
  MalformedCase(
    "REC_START event without status", "01 14 00 01 00 00 00 02 00 00 00",
    .truncated(field: "status", needed: 1, available: 0)),
  MalformedCase(
    "REC_PAUSE event without reason", "01 15 00 01 02 03 04",
    .truncated(field: "reason", needed: 1, available: 0)),
  MalformedCase(
    "LIST page header short", "01 1a 00 d2 61 d2 69 01 00",
    .truncated(field: "index", needed: 2, available: 0)),
  MalformedCase(
    "LIST page with a partial entry", "01 1a 00 d2 61 d2 69 02 00 00 00",
    .truncated(field: "entry", needed: 10, available: 3), appending: entry10 + [1, 2, 3]),
  MalformedCase(
    "LIST page at portVersion 1 with a partial entry", "01 1a 00 d2 61 d2 69 02 00 00 00",
    .truncated(field: "entry", needed: 8, available: 5), portVersion: 1,
    appending: zeros(8) + [1, 2, 3, 4, 5]),
  MalformedCase(
    "LIST page whose entries exceed total", "01 1a 00 d2 61 d2 69 01 00 00 00",
    .invalidField(field: "entries", reason: "2 entries after index 0 exceed total 1"),
    appending: entry10 + entry10),
  MalformedCase(
    "LIST page with index past total", "01 1a 00 d2 61 d2 69 03 00 05 00",
    .invalidField(field: "index", reason: "5 is past total 3")),
  MalformedCase(
    "SYNC head without status", "01 1c 00 58 66 d2 69",
    .truncated(field: "status", needed: 1, available: 0)),
  MalformedCase(
    "sync tail with 1 crc byte", "01 1d 00 58 66 d2 69 01",
    .truncated(field: "crc", needed: 2, available: 1)),
  MalformedCase(
    "DELETE reply short", "01 1f 00 58 66", .truncated(field: "sessionId", needed: 4, available: 2)),
  MalformedCase(
    "TAGS page with a partial tag", "01 26 00 01 00 00 00 01 00 00 00",
    .truncated(field: "tag", needed: 8, available: 5), appending: tag8 + [1, 2, 3, 4, 5]),
  MalformedCase(
    "TAGS page with 21 tags", "01 26 00 01 00 00 00 15 00 00 00",
    .invalidField(field: "tags", reason: "21 tags, at most 20 per frame"),
    appending: Array([[UInt8]](repeating: tag8, count: 21).joined())),
  MalformedCase(
    "FOTA status without status", "01 32 00 01 02 03 04",
    .truncated(field: "status", needed: 1, available: 0)),
  MalformedCase(
    "PACK_REQ without start", "01 34 00 01 00 00 00",
    .truncated(field: "start", needed: 4, available: 0)),
  MalformedCase(
    "OTA resume info without packetOk", "01 97 00 01",
    .truncated(field: "packetOk", needed: 1, available: 0),
    appending: zeros(16)),
  MalformedCase(
    "upload request without done", "01 71 00 01 00 00 00 00 10 00",
    .truncated(field: "done", needed: 1, available: 0)),
]

/// P→D payloads shorter than their layout, or with values the layout forbids (§3).
let phoneCases: [MalformedCase] = [
  MalformedCase(
    "HANDSHAKE token with a control character", "01 01 00 02 00 00",
    .invalidField(field: "token", reason: "not printable ASCII"), from: .phoneToDevice,
    appending: ascii(String(repeating: "7", count: 31)) + [0x07]),
  MalformedCase(
    "HANDSHAKE token with a non-ASCII byte", "01 01 00 02 00 00",
    .invalidField(field: "token", reason: "not printable ASCII"), from: .phoneToDevice,
    appending: [0xC3] + ascii(String(repeating: "7", count: 31))),
  MalformedCase(
    "HANDSHAKE token of 10 of 32 chars", "01 01 00 02 00 00",
    .truncated(field: "token", needed: 32, available: 10), from: .phoneToDevice,
    appending: ascii("0123456789")),
  MalformedCase(
    "HANDSHAKE token of 15 of 16 chars (portVersion 8)", "01 01 00 02 00 00",
    .truncated(field: "token", needed: 16, available: 15), from: .phoneToDevice, portVersion: 8,
    appending: ascii("012345678901234")),
  MalformedCase(
    "HANDSHAKE without bleVersion (portVersion 2)", "01 01 00 02",
    .truncated(field: "bleVersion", needed: 1, available: 0), from: .phoneToDevice, portVersion: 2),
  MalformedCase(
    "TIME_SYNC of 5 bytes", "01 04 00 d1 61 d2 69 03",
    .truncated(field: "tzMinutes", needed: 1, available: 0), from: .phoneToDevice),
  MalformedCase(
    "DEPAIR empty", "01 05 00", .truncated(field: "clearFiles", needed: 1, available: 0),
    from: .phoneToDevice),
  MalformedCase(
    "SETTINGS action 3", "01 08 00 03 0f 00",
    .invalidField(field: "action", reason: "3 is neither 1 (read) nor 2 (write)"),
    from: .phoneToDevice),
  MalformedCase(
    "SETTINGS action 0", "01 08 00 00 0f 00 00 00 00 00",
    .invalidField(field: "action", reason: "0 is neither 1 (read) nor 2 (write)"),
    from: .phoneToDevice),
  MalformedCase(
    "SETTINGS write without value", "01 08 00 02 0f 00",
    .truncated(field: "value", needed: 4, available: 0), from: .phoneToDevice),
  MalformedCase(
    "SETTINGS read with 1 setting byte", "01 08 00 01 0f",
    .truncated(field: "setting", needed: 2, available: 1), from: .phoneToDevice),
  MalformedCase(
    "WIFI_OPEN with 2 password bytes", "01 0a 00 00 31 32",
    .truncated(field: "password", needed: 8, available: 2), from: .phoneToDevice),
  MalformedCase(
    "SET_NAME not UTF-8", "01 6b 00 c3 28 00", .invalidField(field: "name", reason: "not UTF-8"),
    from: .phoneToDevice),
  MalformedCase(
    "REC_START without scene", "01 14 00 01", .truncated(field: "scene", needed: 1, available: 0),
    from: .phoneToDevice),
  MalformedCase(
    "REC_PAUSE without scene", "01 15 00 01 02 03 04",
    .truncated(field: "scene", needed: 1, available: 0), from: .phoneToDevice),
  MalformedCase(
    "LIST without afterSession", "01 1a 00 d2 61 d2 69",
    .truncated(field: "afterSession", needed: 4, available: 0), from: .phoneToDevice),
  MalformedCase(
    "SYNC_START without end", "01 1c 00 58 66 d2 69 80 4c 01 00",
    .truncated(field: "end", needed: 4, available: 0), from: .phoneToDevice),
  MalformedCase(
    "DELETE with 2 id bytes", "01 1e 00 58 66",
    .truncated(field: "sessionId", needed: 4, available: 2), from: .phoneToDevice),
  MalformedCase(
    "TAGS without to", "01 26 00 01 00 00 00 02 00 00 00",
    .truncated(field: "to", needed: 4, available: 0), from: .phoneToDevice),
  MalformedCase(
    "FOTA_PUSH without coprocessorVersion", "01 32 00",
    .truncated(field: "coprocessorVersion", needed: 4, available: 2), from: .phoneToDevice,
    appending: zeros(20)),
  MalformedCase(
    "FOTA_DONE without status", "01 33 00 01 02 03 04",
    .truncated(field: "status", needed: 1, available: 0), from: .phoneToDevice),
  MalformedCase(
    "upload begin with 1 total byte", "01 70 00 01 00",
    .truncated(field: "total", needed: 4, available: 1), from: .phoneToDevice),
  MalformedCase(
    "upload chunk header short", "01 72 00 01 00 00",
    .truncated(field: "offset", needed: 4, available: 2), from: .phoneToDevice),
  MalformedCase(
    "upload chunk size 10 with 2 bytes", "01 72 00 01 00 00 00 00 0a 00 aa bb",
    .lengthPastEnd(field: "size", declared: 10, available: 2), from: .phoneToDevice),
  MalformedCase(
    "upload check with 1 crc byte", "01 74 00 01 00",
    .truncated(field: "crc", needed: 2, available: 1),
    from: .phoneToDevice),
]

@Suite("Malformed input gives typed errors (PROTOCOL.md §2)")
struct MalformedFrameTests {
  @Test("framing", arguments: framingCases)
  func framing(_ input: MalformedCase) {
    check(input)
  }

  @Test("D→P payloads", arguments: deviceCases)
  func devicePayloads(_ input: MalformedCase) {
    check(input)
  }

  @Test("P→D payloads", arguments: phoneCases)
  func phonePayloads(_ input: MalformedCase) {
    check(input)
  }

  @Test("at least 25 distinct malformed inputs")
  func enoughCases() {
    let all = framingCases + deviceCases + phoneCases
    #expect(all.count >= 25)
    #expect(Set(all.map(\.name)).count == all.count)
    #expect(
      Set(all.map { $0.wire.hexString + $0.direction.rawValue + "\($0.portVersion)" }).count
        == all.count)
  }

  func check(_ input: MalformedCase) {
    #expect(throws: input.error, "\(input.name)") { try input.decode() }
    // `recorder decode` goes through describe: it must fail the same way.
    #expect(throws: input.error, "\(input.name) via describe") {
      let frame = try Frame(decoding: input.wire, portVersion: input.portVersion)
      _ = try frame.describe(direction: input.direction, portVersion: input.portVersion)
    }
    // An error never echoes the frame (it may hold a token).
    if input.wire.count >= 4 {
      #expect(!input.error.description.contains(input.wire.hexString))
    }
    #expect(!input.error.description.contains("\n"))
  }

  // MARK: Rules beyond "shorter than its layout"

  @Test("a length byte claiming 255 with 3 bytes present throws (never reads or allocates 255)")
  func lengthClaimPastEnd() {
    for kind: UInt8 in [0x02, 0x03, 0x05] {
      let header: [UInt8] =
        switch kind {
        case 0x02: [0x02, 1, 0, 0, 0, 0, 0, 0, 0]
        case 0x03: [0x03, 0, 0, 0, 0]
        default: [0x05, 1, 0, 0, 0, 0]
        }
      #expect(throws: FrameError.lengthPastEnd(field: "length", declared: 255, available: 3)) {
        _ = try Frame(decoding: header + [0xFF, 0xAA, 0xBB, 0xCC])
      }
    }
  }

  @Test("unknown opcodes decode as raw control frames, both ways, and re-encode")
  func unknownOpcodes() throws {
    let wire: [UInt8] = [0x01, 0x99, 0x99, 0x01, 0x02]
    let frame = try Frame(decoding: wire)
    let raw = ControlFrame(opcode: Opcode(0x9999), payload: [0x01, 0x02])
    #expect(frame == .control(raw))
    guard case .control(let control) = frame else { return }
    #expect(try PhoneMessage(control) == .unknown(raw))
    #expect(try DeviceMessage(control) == .unknown(raw))
    #expect(PhoneMessage.unknown(raw).encoded() == wire)
    #expect(DeviceMessage.unknown(raw).encoded() == wire)
    #expect(
      try frame.describe(direction: .phoneToDevice) == [
        Field("kind", .text("control")), Field("opcode", 0x9999), Field("name", .text("UNKNOWN")),
        Field("payload", .bytes([0x01, 0x02])),
      ])
    // Opcodes that exist only the other way are unknown too: 0021 is a D→P reply,
    // 0018 a P→D request.
    let ledReply = ControlFrame(opcode: .ledGetReply, payload: [1])
    #expect(try PhoneMessage(ledReply) == .unknown(ledReply))
    let ledGet = ControlFrame(opcode: .ledGet, payload: [])
    #expect(try DeviceMessage(ledGet) == .unknown(ledGet))
    // An unknown opcode with no payload at all (3 bytes) is still a frame.
    #expect(
      try Frame(decoding: [0x01, 0xFF, 0xFF]) == .control(ControlFrame(opcode: Opcode(0xFFFF))))
  }

  @Test("session 0x69D25AFE's data frames start 02 fe and decode as bulk, not prehandshake")
  func bulkStartingFE() throws {
    let wire: [UInt8] = [0x02, 0xFE, 0x5A, 0xD2, 0x69, 0x00, 0x00, 0x00, 0x00, 0x02, 0xAA, 0xBB]
    let frame = try Frame(decoding: wire)
    #expect(frame == .bulk(BulkFrame(sessionId: 1_775_393_534, offset: 0, data: [0xAA, 0xBB])))
    #expect(frame.kindName == "bulk")
    // The four Mode B types are prehandshake only with FE in byte 1.
    for low: UInt8 in [0x10, 0x11, 0x12, 0x20] {
      let chunk = try Frame(decoding: [low, 0xFE, 2, 0, 0x42])
      #expect(
        chunk
          == .preHandshake(
            PreHandshakeChunk(type: 0xFE00 | UInt16(low), count: 2, index: 0, chunk: [0x42])))
    }
  }

  @Test("bytes after a bulk, OTA or log frame's data are ignored")
  func extraBytesIgnored() throws {
    let bulk = try Frame(decoding: [0x02, 1, 0, 0, 0, 8, 0, 0, 0, 2, 0xAA, 0xBB, 0xCC, 0xDD])
    #expect(bulk == .bulk(BulkFrame(sessionId: 1, offset: 8, data: [0xAA, 0xBB])))
    let terminal = try Frame(decoding: [0x02, 1, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 1, 7, 0xEE])
    guard case .bulk(let end) = terminal else {
      Issue.record("not bulk")
      return
    }
    #expect(end.isTerminal)
    #expect(end.endCode == 7)
    let ota = try Frame(decoding: [0x03, 0, 1, 0, 0, 1, 0x55, 0x66])
    #expect(ota == .ota(OTADataFrame(offset: 256, data: [0x55])))
    let log = try Frame(decoding: [0x05, 3, 0, 0, 0, 0, 1, 0x55, 0x66])
    #expect(log == .log(LogFrame(logType: 3, offset: 0, data: [0x55])))
  }

  @Test("decoding reads slices and Data from their own start index")
  func slices() throws {
    let capture: [UInt8] = [0xEE, 0xEE, 0xEE, 0x01, 0x09, 0x00, 0x64, 0xEE]
    let battery = Frame.control(ControlFrame(opcode: .battery, payload: [0x64]))
    #expect(try Frame(decoding: capture[3..<7]) == battery)
    #expect(try Frame(decoding: Data(capture)[3..<7]) == battery)
    #expect(throws: FrameError.truncated(field: "opcode", needed: 2, available: 1)) {
      _ = try Frame(decoding: capture[3..<5])
    }
    #expect(throws: FrameError.empty) { _ = try Frame(decoding: capture[3..<3]) }
  }

  @Test("bulk frames below portVersion 7 have no session id")
  func bulkBeforeSessionIds() throws {
    let wire: [UInt8] = [0x02, 0x10, 0, 0, 0, 1, 0x99]
    #expect(
      try Frame(decoding: wire, portVersion: 6)
        == .bulk(BulkFrame(sessionId: nil, offset: 16, data: [0x99])))
    #expect(throws: FrameError.truncated(field: "offset", needed: 4, available: 2)) {
      _ = try Frame(decoding: wire, portVersion: 7)
    }
  }
}
