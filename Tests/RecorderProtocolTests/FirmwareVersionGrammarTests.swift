import RecorderProtocol
import TestSupport
import Testing

/// Issue 29 item 11: one strict grammar for firmware versions, both forms (`V0096`,
/// `V1.2.8`), with typed errors for everything else.
@Suite("Firmware version grammar")
struct FirmwareVersionGrammarTests {
  @Test("what the old parser let through is refused, each with its typed reason")
  func malformed() {
    let cases: [(String, FirmwareVersionError)] = [
      ("V+96", .notADigit(offset: 1)),
      ("V-0", .notADigit(offset: 1)),
      ("/0096", .noTypeLetter),
      (" 0096", .noTypeLetter),
      ("V 0096", .notADigit(offset: 1)),
      ("V0096 ", .notADigit(offset: 5)),
      ("V0096\n", .notADigit(offset: 5)),
      ("V00\u{0}96", .notADigit(offset: 3)),
      ("V\u{7}96", .notADigit(offset: 1)),
      ("\u{1B}[2J", .noTypeLetter),
      ("\u{0}0096", .noTypeLetter),
      ("0096", .noTypeLetter),
      ("", .empty),
      ("V", .emptyPart(offset: 1)),
      ("V١٢", .notADigit(offset: 1)),  // Arabic-Indic digits: not ASCII
      ("V０９６", .notADigit(offset: 1)),  // full-width digits
      ("ÄV0096", .noTypeLetter),
      ("V16777216", .outOfRange),
      ("V000000001", .tooManyDigits(limit: 8)),
      ("V00000000000000001", .tooLong(bytes: 18, limit: 16)),
      ("V1.2", .partCount(2)),
      ("V1.2.3.4", .partCount(4)),
      ("V1..2", .emptyPart(offset: 3)),
      ("V.1.2", .emptyPart(offset: 1)),
      ("V1.2.", .emptyPart(offset: 5)),
      ("V1.2.-8", .notADigit(offset: 5)),
      ("V1.2.+8", .notADigit(offset: 5)),
      ("V1.2.8 ", .notADigit(offset: 6)),
      ("V12345.1.1", .tooManyDigits(limit: 4)),
      ("V1,2,8", .notADigit(offset: 2)),
      ("V0x60", .notADigit(offset: 2)),
      ("V96e0", .notADigit(offset: 3)),
    ]
    for (text, error) in cases {
      #expect(throws: error, "\(text.debugDescription)") {
        try FirmwareVersionNumber(parsing: text)
      }
      #expect(FirmwareVersion(text) == nil, "\(text.debugDescription)")
    }
  }

  @Test(
    "both forms parse; the canonical text round-trips; a dotted one encodes as major<<16|minor<<8|patch"
  )
  func wellFormed() throws {
    #expect(try FirmwareVersionNumber(parsing: "V0096").form == .code(96))
    #expect(try FirmwareVersionNumber(parsing: "v96").description == "V0096")
    #expect(try FirmwareVersionNumber(parsing: "V16777215").form == .code(16_777_215))
    #expect(try FirmwareVersionNumber(parsing: "V00000000").form == .code(0))
    #expect(
      try FirmwareVersionNumber(parsing: "V1.2.8").form == .dotted(major: 1, minor: 2, patch: 8))
    #expect(try FirmwareVersionNumber(parsing: "v01.02.0008").description == "V1.2.8")
    #expect(try FirmwareVersionNumber(parsing: "V9999.9999.9999").description == "V9999.9999.9999")
    #expect(FirmwareVersion("V0096") == FirmwareVersion(type: 0x56, code: 96))
    #expect(FirmwareVersion("v0096") == FirmwareVersion(type: 0x56, code: 96))
    // New firmware's encoding, major<<16 | minor<<8 | patch (PROTOCOL.md §1).
    #expect(FirmwareVersion("V1.2.8") == FirmwareVersion(type: 0x56, code: 0x01_0208))
    #expect(FirmwareVersion("V255.255.255") == FirmwareVersion(type: 0x56, code: 0xFF_FFFF))
    #expect(FirmwareVersion("V1.2.256") == nil)
    #expect(throws: FirmwareVersionError.noDeviceEncoding) {
      try FirmwareVersion(parsing: "V256.0.0")
    }
    #expect(try FirmwareVersionNumber(parsing: "V1.2.8").deviceVersion?.code == 66056)
    #expect(try FirmwareVersionNumber(parsing: "V1.2.300").deviceVersion == nil)
    // Errors never echo the text (it may hold control characters).
    #expect(!"\(FirmwareVersionError.notADigit(offset: 1))".contains("\u{1B}"))
  }

  @Test("seeded: every canonical text parses back to itself, in both forms")
  func roundTrip() throws {
    var random = SplitMix64(seed: 0x29_0011)
    for _ in 0..<2000 {
      let type = UInt8(ascii: "A") + UInt8(random.next() % 26)
      let version =
        random.next() % 2 == 0
        ? FirmwareVersionNumber(type: type, code: UInt32(random.next() % 0x100_0000))
        : FirmwareVersionNumber(
          type: type, major: UInt16(random.next() % 10_000), minor: UInt16(random.next() % 10_000),
          patch: UInt16(random.next() % 10_000))
      #expect(try FirmwareVersionNumber(parsing: version.description) == version)
      if let device = version.deviceVersion {
        #expect(FirmwareVersion(device.description) == device)
      }
    }
  }

  @Test("comparison: by code, by parts, one of each form by device code; none across letters")
  func order() throws {
    func v(_ text: String) throws -> FirmwareVersionNumber {
      try FirmwareVersionNumber(parsing: text)
    }
    #expect(try v("V0001").order(relativeTo: v("V0095")) == .older)
    #expect(try v("V0095").order(relativeTo: v("v95")) == .same)
    #expect(try v("V0100").order(relativeTo: v("V0095")) == .newer)
    #expect(try v("V1.2.8").order(relativeTo: v("V1.10.0")) == .older)
    #expect(try v("V2.0.0").order(relativeTo: v("V1.99.99")) == .newer)
    #expect(try v("V1.2.8").order(relativeTo: v("V001.002.008")) == .same)
    // One of each form: by device code (V66055 is V1.2.7); none without an encoding.
    #expect(try v("V1.2.8").order(relativeTo: v("V0096")) == .newer)
    #expect(try v("V66055").order(relativeTo: v("V1.2.7")) == .same)
    #expect(try v("V0096").order(relativeTo: v("V1.2.7")) == .older)
    #expect(try v("V1.2.300").order(relativeTo: v("V0096")) == nil)
    #expect(try v("W0096").order(relativeTo: v("V0096")) == nil)
    let v95 = FirmwareVersion(type: 0x56, code: 95)
    #expect(FirmwareVersion(type: 0x56, code: 1).order(relativeTo: v95) == .older)
    #expect(FirmwareVersion(type: 0x56, code: 96).order(relativeTo: v95) == .newer)
    #expect(v95.order(relativeTo: v95) == .same)
    #expect(FirmwareVersion(type: 0x57, code: 96).order(relativeTo: v95) == nil)
  }

  @Test("§1 and §11 vector 22: codes from 65536 up show dotted (66055 = V1.2.7), smaller V%04d")
  func dottedDisplay() throws {
    #expect(FirmwareVersion(type: 0x56, code: 66055).description == "V1.2.7")
    #expect(FirmwareVersion(type: 0x56, code: 67328).description == "V1.7.0")
    #expect(FirmwareVersion(type: 0x56, code: 65536).description == "V1.0.0")
    #expect(FirmwareVersion(type: 0x56, code: 65535).description == "V65535")
    #expect(FirmwareVersion(type: 0x56, code: 95).description == "V0095")
    #expect(FirmwareVersion(type: 0x56, code: 255).description == "V0255")
    // Vector 22: the advertisement's version field `04 56 07 02 01`.
    let payload = ManufacturerPayload(
      projectCode: 882, firmware: FirmwareVersion(type: 0x56, code: 66055),
      serial: "8821234567890123", portVersion: 20)
    let encoded = payload.encoded
    let field: [UInt8] = [0x04, 0x56, 0x07, 0x02, 0x01]
    #expect((0...(encoded.count - 5)).contains { Array(encoded[$0..<$0 + 5]) == field })
    let decoded = try ManufacturerPayload(decoding: encoded)
    #expect(decoded.firmware.description == "V1.2.7")
    // Every dotted text of parts ≤ 255 parses to the code it shows as.
    for code: UInt32 in [65536, 66055, 0x01_0208, 0xFF_FFFF] {
      let version = FirmwareVersion(type: 0x56, code: code)
      #expect(FirmwareVersion(version.description) == version)
    }
  }
}
