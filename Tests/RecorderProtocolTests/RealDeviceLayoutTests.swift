import Testing

@testable import RecorderProtocol

/// Issue 19: layouts as a real V0095 Note sends them (PROTOCOL.md §1, §3), where they differ
/// from what the emulator used to assume.
@Suite("Real device layouts")
struct RealDeviceLayoutTests {
  /// PROTOCOL.md §1: the captured manufacturer payload after the company id `59 00`.
  static let capturedPayload =
    "02 78 03 04 56 5f 00 00 09 88 83 17 44 28 36 35 88 84 0a 00 04 da 6d a7 ce 01 01"

  static func bytes(_ text: String) -> [UInt8] {
    [UInt8](hex: text.replacingOccurrences(of: " ", with: "")) ?? []
  }

  @Test("the captured manufacturer payload parses: project 888, V0095, serial, portVersion 10")
  func capturedPayload() throws {
    let wire = Self.bytes(Self.capturedPayload)
    #expect(wire.count == 27)
    let payload = try ManufacturerPayload(decoding: wire)
    #expect(payload.projectCode == 888)
    #expect(payload.firmware.description == "V0095")
    #expect(payload.serial == "888317442836358884")
    #expect(payload.portVersion == 10)
    #expect(payload.reserved == [0xDA, 0x6D, 0xA7, 0xCE])
    #expect(payload.bindInfo == 1)
    #expect(payload.encoded == wire, "re-encodes byte for byte")
    let withCompany = try ManufacturerPayload(manufacturerData: [0x59, 0x00] + wire)
    #expect(withCompany == payload)
  }

  @Test("unknown trailing fields are skipped")
  func unknownTrailingFields() throws {
    let wire = Self.bytes(Self.capturedPayload) + [0x03, 0xAA, 0xBB, 0xCC, 0x00]
    let payload = try ManufacturerPayload(decoding: wire)
    #expect(payload.serial == "888317442836358884")
    #expect(payload.bindInfo == 1)
  }

  @Test("a payload cut after portVersion still identifies the serial")
  func missingTail() throws {
    let wire = Array(Self.bytes(Self.capturedPayload).prefix(20))
    let payload = try ManufacturerPayload(decoding: wire)
    #expect(payload.serial == "888317442836358884")
    #expect(payload.portVersion == 10)
  }

  @Test("the old 4-bytes-without-length layout no longer decodes as this one")
  func oldLayoutIsNotTheCapturedOne() throws {
    // What RecorderKit used to write: portVersion, then 4 bytes with no length byte.
    let old = Self.bytes("02 78 03 04 56 5f 00 00 01 07 0a 00 da 6d a7 ce 01 01")
    let payload = try? ManufacturerPayload(decoding: old)
    #expect(payload?.reserved != [0xDA, 0x6D, 0xA7, 0xCE])
  }

  // MARK: TIME_SYNC time zones (docs/time-sync.md)

  @Test(
    "TIME_SYNC encodes UTC offsets as floor hours + minutes 0-59 [project]",
    arguments: [
      (-12_600, Int8(-4), UInt8(30)),  // −03:30 Newfoundland
      (-34_200, -10, 30),  // −09:30 Marquesas
      (-1_800, -1, 30),  // −00:30
      (19_800, 5, 30),  // +05:30
      (20_700, 5, 45),  // +05:45
      (10_800, 3, 0),  // +03:00 (§11 vector 4)
      (0, 0, 0),
      (-18_000, -5, 0),
    ])
  func timeZoneFloor(offset: Int, hours: Int8, minutes: UInt8) {
    let request = TimeSyncRequest(
      unixSeconds: 1_775_395_281, utcOffsetSeconds: offset, encoding: .floorHours)
    #expect(request.tzHours == hours)
    #expect(request.tzMinutes == minutes)
    #expect(request.utcOffsetSeconds(encoding: .floorHours) == offset)
  }

  @Test("−03:30 in each alternative encoding, and back")
  func timeZoneAlternatives() {
    let offset = -12_600
    let expected: [(TimeZoneEncoding, Int8, UInt8)] = [
      (.floorHours, -4, 30), (.signMagnitude, -3, 30), (.signedMinutes, -3, 0xE2),
    ]
    for (encoding, hours, minutes) in expected {
      let request = TimeSyncRequest(unixSeconds: 0, utcOffsetSeconds: offset, encoding: encoding)
      #expect(request.tzHours == hours, "\(encoding)")
      #expect(request.tzMinutes == minutes, "\(encoding)")
      #expect(request.utcOffsetSeconds(encoding: encoding) == offset, "\(encoding)")
    }
    #expect(TimeZoneEncoding.projectDefault == .floorHours)
  }

  // MARK: DELETE reply as `001E` (PROTOCOL.md §3.3 as corrected)

  @Test("a `001E` frame with session and status decodes as the DELETE reply's fields")
  func deleteReplyAs001E() throws {
    let wire = Self.bytes("01 1e 00 58 66 d2 69 00")
    guard case .control(let control) = try Frame(decoding: wire, portVersion: 10) else {
      Issue.record("not a control frame")
      return
    }
    let message = try DeviceMessage(control, portVersion: 10)
    #expect(message == .deletedAs001E(SessionStatus(sessionId: 0x69D2_6658, status: 0)))
    #expect(message.encoded(portVersion: 10) == wire)
    // The empty `001E` is still SYNC_STOP's reply.
    guard case .control(let empty) = try Frame(decoding: [0x01, 0x1E, 0x00], portVersion: 10)
    else { return }
    #expect(try DeviceMessage(empty, portVersion: 10) == .syncStopped)
  }

  // MARK: Wi-Fi STOP (PROTOCOL.md §6)

  @Test("Wi-Fi STOP carries {session, scene}; a bare {} still decodes (without them)")
  func wifiStop() throws {
    let stop = WiFiPhoneMessage.stop(session: 1_775_395_282, scene: 1)
    #expect(stop.pdu().json.serialized == #"{"session":1775395282,"scene":1}"#)
    #expect(try WiFiPhoneMessage(decoding: stop.encoded()) == stop)
    let bare = WiFiPDU(type: WiFiPDUType.stop, json: .object([]))
    #expect(try WiFiPhoneMessage(bare) == .stop(session: nil, scene: nil))
  }
}
