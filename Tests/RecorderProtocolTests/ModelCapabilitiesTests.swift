import RecorderProtocol
import Testing

/// The capability table (`ModelCapabilities`): one row per model, and lookups that give the
/// answers the separate tables it replaced gave (`RecorderModel.withSerialPrefix`,
/// `CloudDeviceType`, `DeviceHotspot.ssidPrefix`, `OTADataFrame.dataLength/interval`,
/// `RecorderGATT.requestedMTU`), written out literally here.
@Suite("Model capability table")
struct ModelCapabilitiesTests {
  @Test("every model has exactly one row, and its row is the one of(model) returns")
  func oneRowPerModel() {
    for model in RecorderModel.allCases {
      #expect(ModelCapabilities.all.filter { $0.model == model }.count == 1, "\(model)")
      #expect(ModelCapabilities.of(model).model == model)
      #expect(model.capabilities == ModelCapabilities.of(model))
    }
    #expect(ModelCapabilities.all.count == RecorderModel.allCases.count)
    // No prefix belongs to two rows, and every row has one.
    let prefixes = ModelCapabilities.all.flatMap(\.serialPrefixes)
    #expect(Set(prefixes).count == prefixes.count)
    #expect(ModelCapabilities.all.allSatisfy { !$0.serialPrefixes.isEmpty })
  }

  /// One serial prefix and what each former table answered for it.
  struct PrefixCase: Sendable, CustomTestStringConvertible {
    var prefix: String
    var model: RecorderModel?
    var cloudType: String
    /// The SSID prefix at portVersion 10 and at 20.
    var ssid10: String
    var ssid20: String
    var otaData: Int
    var otaInterval: Duration?
    var testDescription: String { prefix.isEmpty ? "(empty)" : prefix }
  }

  static let prefixCases: [PrefixCase] = [
    PrefixCase(
      prefix: "888", model: .note, cloudType: "note", ssid10: "PLAUD", ssid20: "PLAUD",
      otaData: 80, otaInterval: .milliseconds(18)),
    PrefixCase(
      prefix: "880", model: .notePin, cloudType: "notepin", ssid10: "PLAUD", ssid20: "PLAUD",
      otaData: 80, otaInterval: .milliseconds(18)),
    PrefixCase(
      prefix: "881", model: .notePro, cloudType: "notepro", ssid10: "PLAUD", ssid20: "Plaud",
      otaData: 160, otaInterval: nil),
    PrefixCase(
      prefix: "882", model: .notePinS, cloudType: "notepins", ssid10: "Plaud", ssid20: "Plaud",
      otaData: 80, otaInterval: .milliseconds(18)),
    // 883 is a NotePin S [client]. The old tables disagreed on it: RecorderModel said NotePin
    // S, CloudDeviceType and CloudEmulator `note`, DeviceHotspot (with no model given)
    // `PLAUD`. The table follows the model (the vendor template's model file also types 883
    // `notepins`).
    PrefixCase(
      prefix: "883", model: .notePinS, cloudType: "notepins", ssid10: "Plaud", ssid20: "Plaud",
      otaData: 80, otaInterval: .milliseconds(18)),
    // Prefixes no model has: the vendor's "anything else" answers.
    PrefixCase(
      prefix: "884", model: nil, cloudType: "note", ssid10: "PLAUD", ssid20: "PLAUD",
      otaData: 80, otaInterval: .milliseconds(18)),
    PrefixCase(
      prefix: "889", model: nil, cloudType: "note", ssid10: "PLAUD", ssid20: "PLAUD",
      otaData: 80, otaInterval: .milliseconds(18)),
    PrefixCase(
      prefix: "000", model: nil, cloudType: "note", ssid10: "PLAUD", ssid20: "PLAUD",
      otaData: 80, otaInterval: .milliseconds(18)),
    PrefixCase(
      prefix: "123", model: nil, cloudType: "note", ssid10: "PLAUD", ssid20: "PLAUD",
      otaData: 80, otaInterval: .milliseconds(18)),
    // Not three digits: no model.
    PrefixCase(
      prefix: "ABC", model: nil, cloudType: "note", ssid10: "PLAUD", ssid20: "PLAUD",
      otaData: 80, otaInterval: .milliseconds(18)),
    PrefixCase(
      prefix: "+88", model: nil, cloudType: "note", ssid10: "PLAUD", ssid20: "PLAUD",
      otaData: 80, otaInterval: .milliseconds(18)),
    PrefixCase(
      prefix: "８８１", model: nil, cloudType: "note", ssid10: "PLAUD", ssid20: "PLAUD",
      otaData: 80, otaInterval: .milliseconds(18)),
    PrefixCase(
      prefix: "", model: nil, cloudType: "note", ssid10: "PLAUD", ssid20: "PLAUD",
      otaData: 80, otaInterval: .milliseconds(18)),
  ]

  @Test("by serial prefix: model, cloud type, SSID, OTA frames", arguments: prefixCases)
  func byPrefix(_ expected: PrefixCase) {
    let serial = expected.prefix + "4567890123456789"
    let row = ModelCapabilities.of(serial: serial)
    #expect(row?.model == expected.model)
    #expect(RecorderModel.of(serial: serial) == expected.model)
    if let number = UInt16(expected.prefix), expected.prefix.count == 3 {
      #expect(ModelCapabilities.withSerialPrefix(number)?.model == expected.model)
      #expect(RecorderModel.withSerialPrefix(number) == expected.model)
    }
    #expect(ModelCapabilities.cloudDeviceType(serial: serial) == expected.cloudType)
    #expect(
      ModelCapabilities.hotspotSSID(serial: serial, model: nil, portVersion: 10)
        == expected.ssid10 + "6789")
    #expect(
      ModelCapabilities.hotspotSSID(serial: serial, model: nil, portVersion: 20)
        == expected.ssid20 + "6789")
    let frames = ModelCapabilities.otaFrames(for: row?.model)
    #expect(frames.dataLength == expected.otaData)
    #expect(frames.slowDataLength == 80)
    #expect(frames.interval == expected.otaInterval)
    #expect(ModelCapabilities.requestedMTU(for: row?.model) == 255)
  }

  @Test("serials too short to hold a prefix name no model; nothing traps")
  func shortSerials() {
    for serial in ["", "8", "88", "88\u{0}", "\u{FFFF}88", "881"] {
      let row = ModelCapabilities.of(serial: serial)
      #expect(row?.model == (serial == "881" ? .notePro : nil), "\(serial.debugDescription)")
      _ = ModelCapabilities.hotspotSSID(serial: serial, model: nil, portVersion: 20)
      _ = ModelCapabilities.cloudDeviceType(serial: serial)
    }
    #expect(ModelCapabilities.hotspotSSID(serial: "", model: nil, portVersion: 20) == "PLAUD")
    #expect(ModelCapabilities.withSerialPrefix(0) == nil)
    #expect(ModelCapabilities.withSerialPrefix(UInt16.max) == nil)
  }

  @Test("SSID rule by model as HotspotName had it: Plaud for a Note Pro from 20 and a NotePin S")
  func ssidByModel() {
    let serial = "8811234567890123"
    let cases: [(RecorderModel, UInt16, String)] = [
      (.note, 10, "PLAUD0123"), (.note, 20, "PLAUD0123"),
      (.notePin, 10, "PLAUD0123"), (.notePin, 20, "PLAUD0123"),
      (.notePro, 10, "PLAUD0123"), (.notePro, 19, "PLAUD0123"),
      (.notePro, 20, "Plaud0123"), (.notePro, 21, "Plaud0123"),
      (.notePinS, 10, "Plaud0123"), (.notePinS, 20, "Plaud0123"),
    ]
    for (model, portVersion, ssid) in cases {
      // A model given wins over the serial's prefix.
      #expect(
        ModelCapabilities.hotspotSSID(serial: serial, model: model, portVersion: portVersion)
          == ssid, "\(model) \(portVersion)")
      #expect(model.capabilities.hotspotSSID.ssid(serial: serial, portVersion: portVersion) == ssid)
    }
    #expect(ModelCapabilities.hotspotSSID(serial: "ABC", model: nil, portVersion: 20) == "PLAUDABC")
  }

  @Test("by advertised name, case-insensitively; unknown names give nil")
  func byName() {
    #expect(ModelCapabilities.named("PLAUD_NOTE")?.model == .note)
    #expect(ModelCapabilities.named("plaud_note")?.model == .note)
    #expect(ModelCapabilities.named("Plaud NotePin S")?.model == .notePinS)
    #expect(ModelCapabilities.named("PLAUD NOTEPIN S")?.model == .notePinS)
    #expect(ModelCapabilities.named("Plaud Note Pro")?.model == .notePro)
    #expect(ModelCapabilities.named("Plaud") == nil)
    #expect(ModelCapabilities.named("") == nil)
    #expect(ModelCapabilities.named("PLAUD_NOTE ") == nil)
    #expect(ModelCapabilities.modeANoteName == "PLAUD_NOTE")
  }

  @Test("the rows' other columns, literally")
  func columns() {
    typealias Caps = ModelCapabilities
    #expect(
      Caps.all.map(\.displayName) == [
        "Plaud Note", "Plaud NotePin", "Plaud Note Pro", "Plaud NotePin S",
      ])
    #expect(RecorderModel.allCases.map(\.description) == Caps.all.map(\.displayName))
    #expect(Caps.all.map(\.cloudDeviceType) == ["note", "notepin", "notepro", "notepins"])
    #expect(RecorderModel.notePinS.cloudType == "notepins")
    #expect(Caps.all.map(\.serialPrefixes) == [[888], [880], [881], [882, 883]])
    #expect(Caps.all.map(\.security) == [.modeA, nil, .modeB, .modeB])
    #expect(Caps.modeBModels == [.notePro, .notePinS])
    #expect(Caps.all.map(\.recordingEncryption) == [.plain, nil, nil, .e2eePerSegment])
    #expect(Caps.all.map(\.audioContainer) == [.rawOpus, nil, nil, .rawOpus])
    #expect(Caps.all.map(\.wifiOnlyWhenDocked) == [nil, nil, nil, nil])
    #expect(Caps.all.map(\.usbVolume) == [USBVolume(label: "PLAUD_NOTE"), nil, nil, nil])
    #expect(Caps.usbVolumeLabel == "PLAUD_NOTE")
    #expect(
      Caps.all.map(\.mtu)
        == Array(repeating: MTUNeeds(requested: 255, minimumForSync: 93), count: 4))
    #expect(Caps.all.map(\.advertising.companyID) == [0x0059, 0x005D, 0x0059, 0x005D])
    #expect(Caps.all.map(\.advertising.carriesProjectCodeField) == [true, nil, true, false])
    #expect(
      Caps.all.map(\.advertising.name) == ["PLAUD_NOTE", nil, "Plaud Note Pro", "Plaud NotePin S"])
    #expect(ManufacturerPayload.noteCompanyID == 0x0059)
    #expect(ManufacturerPayload.notePinCompanyID == 0x005D)
  }

  @Test("a model sold with Mode A is named by name only for the token-in-clear rule")
  func modeBByName() {
    // Every model but the Note: a name that is not PLAUD_NOTE opens Mode B first.
    for row in ModelCapabilities.all {
      guard let name = row.advertising.name else { continue }
      #expect(
        ModelCapabilities.mayUseModeB(model: nil, portVersion: nil, name: name)
          == (row.model != .note), "\(name)")
    }
  }
}
