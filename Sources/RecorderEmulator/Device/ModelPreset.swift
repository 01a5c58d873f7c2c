import RecorderProtocol

/// A whole product as the evidence describes it (`recorder emulate --model NAME`): the one
/// table of per-model emulator defaults. Each preset sets identity, firmware, portVersion and
/// advertising; options given beside it still override each item.
public enum ModelPreset: String, Sendable, CaseIterable {
  /// The V0095 Plaud Note of the captures (``DeviceConfiguration``'s defaults) [device].
  case note
  /// A Note Pro on V1.7.0, portVersion 20 (Mode B), serial 881… [client]. Its advertised name
  /// is not known: `Plaud Note Pro` [project]. Its payload keeps the project-code field (the
  /// vendor reads its portVersion at offset 18, as the Note's) [sdk-code].
  case notePro = "note-pro"
  /// A NotePin S on V1.2.7 (66055), portVersion 20 (Mode B), named `Plaud NotePin S`, whose
  /// payload has no project-code field: portVersion at offset 15 after an 18-digit serial
  /// [sdk-code][client]; company id 0x005D as an independent client reports for NotePins
  /// (unverified).
  case notePinS = "notepin-s"

  /// The product.
  public var model: RecorderModel {
    switch self {
    case .note: .note
    case .notePro: .notePro
    case .notePinS: .notePinS
    }
  }

  /// The HANDSHAKE's portVersion.
  public var portVersion: UInt16 {
    switch self {
    case .note: ProtocolDefaults.portVersion
    case .notePro, .notePinS: ProtocolDefaults.modeBPortVersion
    }
  }

  /// An example serial of the model's prefix (18 digits packed as 9 bytes on the newer
  /// models, §1).
  public var serial: String {
    switch self {
    case .note: "8881234567890123"
    case .notePro: "881234567890123456"
    case .notePinS: "882234567890123456"
    }
  }

  /// The advertised and GATT name.
  public var name: String {
    switch self {
    case .note: "PLAUD_NOTE"
    case .notePro: "Plaud Note Pro"
    case .notePinS: "Plaud NotePin S"
    }
  }

  public var firmware: FirmwareVersion {
    switch self {
    case .note: FirmwareVersion(type: 0x56, code: 95)
    case .notePro: FirmwareVersion(type: 0x56, code: 67_328)
    case .notePinS: FirmwareVersion(type: 0x56, code: 66_055)
    }
  }

  /// Whether the manufacturer payload starts with the `02 <projectCode>` field.
  public var advertisesProjectCode: Bool { self != .notePinS }

  public var companyID: UInt16 {
    self == .notePinS ? ManufacturerPayload.notePinCompanyID : ManufacturerPayload.noteCompanyID
  }

  /// A configuration of this model; every other parameter keeps its default.
  public var configuration: DeviceConfiguration {
    var configuration = DeviceConfiguration(
      model: model, firmware: firmware, portVersion: portVersion, serial: serial, name: name,
      companyID: companyID)
    configuration.advertisesProjectCode = advertisesProjectCode
    configuration.modeB.encryptsToOwnerKey = encryptsToOwnerKey
    return configuration
  }

  /// Whether its recordings are end-to-end encrypted to the owner's user key: the NotePin
  /// S's are (PROTOCOL.md §5, §9) [client]; the Note Pro's container is not settled (§5), so
  /// its preset keeps them plain (an E2EE Note Pro is `--e2ee-public-key`).
  public var encryptsToOwnerKey: Bool { self == .notePinS }

  /// Sets this preset's model, firmware, name, company id, advertising layout and E2EE rule in
  /// `configuration`, leaving portVersion and serial (which have options of their own) as
  /// they are.
  public func apply(to configuration: inout DeviceConfiguration) {
    configuration.model = model
    configuration.firmware = firmware
    configuration.name = name
    configuration.companyID = companyID
    configuration.advertisesProjectCode = advertisesProjectCode
    configuration.modeB.encryptsToOwnerKey = encryptsToOwnerKey
  }
}
