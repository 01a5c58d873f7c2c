import RecorderProtocol
import TestSupport
import Testing

/// Issue 43 in RecorderProtocol: both manufacturer payload layouts of PROTOCOL.md §1 (with and
/// without the project-code field), the serial prefix that names the model, the parser's
/// defence against malformed payloads, 0-based Mode B chunks (§2, §9, §11 vectors 15–16), and
/// the capability table's handshake bounds and Mode B rule.
@Suite struct NewModelAdvertisingTests {
  static func bytes(_ hex: String) -> [UInt8] {
    [UInt8](hex: hex.replacingOccurrences(of: " ", with: "")) ?? []
  }

  /// A NotePin S payload: no project-code field, V1.2.7 (§11 vector 22), an 18-digit serial
  /// packed in 9 bytes, portVersion 20 at offset 15, the unknown field, bindInfo.
  static let notePinSPayload = bytes(
    "04 56 07 02 01 | 09 88 22 34 56 78 90 12 34 56 | 14 00 | 04 aa bb cc dd | 01 00"
      .replacingOccurrences(of: "|", with: ""))

  @Test("a NotePin S payload without the project-code field: portVersion at offset 15")
  func notePinSLayout() throws {
    let payload = try ManufacturerPayload(decoding: Self.notePinSPayload)
    #expect(Self.notePinSPayload[15] == 0x14)
    #expect(!payload.hasProjectCodeField)
    #expect(payload.serial == "882234567890123456")
    #expect(payload.portVersion == 20)
    #expect(payload.firmware == FirmwareVersion(type: 0x56, code: 66_055))
    #expect(payload.model == .notePinS)
    #expect(payload.projectCode == 882)
    #expect(payload.reserved == [0xAA, 0xBB, 0xCC, 0xDD])
    #expect(payload.bindInfo == 0)
    #expect(payload.encoded == Self.notePinSPayload)
    let withCompany = try ManufacturerPayload(
      manufacturerData: [0x5D, 0x00] + Self.notePinSPayload)
    #expect(withCompany == payload)
  }

  @Test("a Note Pro payload with the project-code field: portVersion at offset 18")
  func noteProLayout() throws {
    let wire = Self.bytes("02 71 03 04 56 00 07 01 09 88 12 34 56 78 90 12 34 56 14 00 01 01")
    #expect(wire[18] == 0x14)
    let payload = try ManufacturerPayload(decoding: wire)
    #expect(payload.hasProjectCodeField)
    #expect(payload.projectCode == 881)
    #expect(payload.model == .notePro)
    #expect(payload.portVersion == 20)
    #expect(payload.serial == "881234567890123456")
  }

  @Test(
    "the first three serial digits, when numeric, name the model over the project code",
    arguments: [
      ("882234567890123456", UInt16(888), RecorderModel?.some(.notePinS)),
      ("883234567890123456", 882, .notePinS),
      ("881234567890123456", 882, .notePro),
      ("888317442836358884", 888, .note),
      ("ABCDEFGHIJKL", 881, .notePro),
      ("999234567890123456", 888, nil),
    ])
  func serialPrefixNamesTheModel(serial: String, projectCode: UInt16, model: RecorderModel?) throws
  {
    let payload = ManufacturerPayload(
      projectCode: projectCode, firmware: FirmwareVersion(type: 0x56, code: 95), serial: serial,
      portVersion: 20)
    #expect(try ManufacturerPayload(decoding: payload.encoded).model == model)
  }

  @Test("malformed payloads of either layout are typed errors, never a crash")
  func malformed() {
    let cases: [[UInt8]] = [
      [],
      [0x02],
      [0x02, 0x78],
      [0x02, 0x78, 0x03],
      [0x05, 0x56, 0x07, 0x02, 0x01],  // neither the project-code nor the version field
      [0x04, 0x56, 0x07, 0x02],  // version cut short
      [0x04, 0x56, 0x07, 0x02, 0x01],  // no serial length
      [0x04, 0x56, 0x07, 0x02, 0x01, 0xC8, 0x88],  // serial longer than the payload
      Array(Self.notePinSPayload.prefix(16)),  // portVersion cut in half
      [0x02, 0x71, 0x03, 0x02, 0x56, 0x07],  // a version field of the wrong length
    ]
    for wire in cases {
      #expect(throws: FrameError.self, "\(wire)") { try ManufacturerPayload(decoding: wire) }
    }
  }

  @Test("seeded random payloads of both layouts decode or throw, and re-decode the same")
  func seededRandomPayloads() {
    let seed: UInt64 = 0x43_0009
    print("NewModelAdvertisingTests.seededRandomPayloads seed \(seed)")
    var random = SplitMix64(seed: seed)
    for round in 0..<5000 {
      var wire = round % 2 == 0 ? Self.notePinSPayload : [0x02, 0x71, 0x03] + Self.notePinSPayload
      let edits = Int(random.next() % 4)
      for _ in 0..<edits where !wire.isEmpty {
        let at = Int(random.next() % UInt64(wire.count))
        switch random.next() % 3 {
        case 0: wire[at] = UInt8(truncatingIfNeeded: random.next())
        case 1: wire.remove(at: at)
        default: wire = Array(wire.prefix(at))
        }
      }
      guard let payload = try? ManufacturerPayload(decoding: wire) else { continue }
      // What decoded is what re-encodes to a payload that decodes the same way.
      let again = try? ManufacturerPayload(decoding: payload.encoded)
      // A packed serial whose nibbles are not decimal comes back spelt as text.
      if payload.serial.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
        #expect(again?.serial == payload.serial, "seed \(seed) round \(round): \(wire)")
      }
      #expect(again?.portVersion == payload.portVersion, "seed \(seed) round \(round)")
    }
  }

  // MARK: - Mode B framing the phone sends (§2, §9)

  @Test("§11 vector 16: the 256-byte signature goes as FE10 chunks 0, 1, 2 of 3")
  func vector16() {
    let signature = (0..<256).map { UInt8(truncatingIfNeeded: $0) }
    let frames = PreHandshakeChunk.chunks(type: ModeB.signatureType, payload: signature)
      .map(\.encoded)
    #expect(
      frames.map { Array($0.prefix(4)) } == [
        [0x10, 0xFE, 3, 0], [0x10, 0xFE, 3, 1], [0x10, 0xFE, 3, 2],
      ])
    #expect(frames.map(\.count) == [104, 104, 60])
  }

  @Test("a receiver taking only 0-based chunks never completes a 1-based message")
  func zeroBasedReceiver() throws {
    let payload = Array(repeating: UInt8(7), count: 256)
    var strict = PreHandshakeAssembler(indexBase: .zero)
    var result: (type: UInt16, payload: [UInt8])?
    for chunk in PreHandshakeChunk.chunks(type: 0xFE10, payload: payload, indexBase: .zero) {
      result = try strict.add(chunk)
    }
    #expect(result?.payload == payload)
    let oneBased = PreHandshakeChunk.chunks(type: 0xFE10, payload: payload, indexBase: .one)
    _ = try strict.add(oneBased[0])
    _ = try strict.add(oneBased[1])
    #expect(throws: PreHandshakeError.indexOutOfRange(index: 3, count: 3)) {
      try strict.add(oneBased[2])
    }
    // The SDK's receiver takes a device's 1-based message too.
    var lenient = PreHandshakeAssembler()
    for chunk in oneBased { result = try lenient.add(chunk) }
    #expect(result?.payload == payload)
  }

  // MARK: - The capability table

  @Test("handshake bounds: Mode A 10 s; Mode B 20 s per FE11/FE12 reply and 15 s for 0001")
  func handshakeTimeouts() {
    for model in [RecorderModel.notePro, .notePinS, .note, nil] {
      let modeB = ModelCapabilities.handshakeTimeouts(for: model, security: .modeB)
      #expect(modeB.preHandshakeReply == .seconds(20))
      #expect(modeB.handshakeReply == .seconds(15))
      let modeA = ModelCapabilities.handshakeTimeouts(for: model, security: .modeA)
      #expect(modeA.handshakeReply == .seconds(10))
    }
    #expect(SecurityGeneration(portVersion: 19) == .modeA)
    #expect(SecurityGeneration(portVersion: 20) == .modeB)
  }

  @Test(
    "who may speak Mode B: portVersion ≥ 20; unknown: a Note Pro, NotePin S or any name but PLAUD_NOTE"
  )
  func mayUseModeB() {
    typealias Caps = ModelCapabilities
    #expect(Caps.mayUseModeB(model: .note, portVersion: 20, name: nil))
    #expect(!Caps.mayUseModeB(model: .note, portVersion: 10, name: "PLAUD_NOTE"))
    #expect(!Caps.mayUseModeB(model: .notePinS, portVersion: 10, name: "Plaud NotePin S"))
    #expect(Caps.mayUseModeB(model: .notePro, portVersion: nil, name: nil))
    #expect(Caps.mayUseModeB(model: nil, portVersion: nil, name: "Plaud NotePin S"))
    #expect(Caps.mayUseModeB(model: nil, portVersion: nil, name: nil))
    #expect(!Caps.mayUseModeB(model: nil, portVersion: nil, name: "plaud_note"))
  }
}
