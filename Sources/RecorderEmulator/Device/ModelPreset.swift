import RecorderProtocol

/// A whole product as the evidence describes it (`recorder emulate --model NAME`): the
/// emulator's defaults for one model. What the model can do (its prefix, name, company id,
/// advertising layout, security generation, E2EE) is its row of ``ModelCapabilities``; a preset
/// adds the firmware it was seen running. Options given beside it still override each item.
public enum ModelPreset: String, Sendable, CaseIterable {
  /// The V0095 Plaud Note of the captures (``DeviceConfiguration``'s defaults) [device].
  case note
  /// A Note Pro on V1.7.0, portVersion 20 (Mode B) [client] (``ModelCapabilities/notePro``).
  case notePro = "note-pro"
  /// A NotePin S on V1.2.7 (66055), portVersion 20 (Mode B), whose payload has no
  /// project-code field: portVersion at offset 15 after an 18-digit serial [sdk-code][client]
  /// (``ModelCapabilities/notePinS``).
  case notePinS = "notepin-s"

  /// The product.
  public var model: RecorderModel {
    switch self {
    case .note: .note
    case .notePro: .notePro
    case .notePinS: .notePinS
    }
  }

  /// The product's row of the capability table.
  public var capabilities: ModelCapabilities { model.capabilities }

  /// The HANDSHAKE's portVersion: 20 for a model sold with Mode B, else the V0095's.
  public var portVersion: UInt16 {
    capabilities.security == .modeB
      ? ProtocolDefaults.modeBPortVersion : ProtocolDefaults.portVersion
  }

  /// An example serial of the model's (first) prefix: 16 digits on the Note (the emulator's
  /// default serial), 18 digits packed as 9 bytes on the newer models (§1).
  public var serial: String {
    let prefix = capabilities.serialPrefixes.first ?? model.rawValue
    return String(prefix) + (self == .note ? "1234567890123" : "234567890123456")
  }

  /// The advertised and GATT name (the model's; its product name when none is known).
  public var name: String { capabilities.advertising.name ?? capabilities.displayName }

  public var firmware: FirmwareVersion {
    switch self {
    case .note: FirmwareVersion(type: 0x56, code: 95)
    case .notePro: FirmwareVersion(type: 0x56, code: 67_328)
    case .notePinS: FirmwareVersion(type: 0x56, code: 66_055)
    }
  }

  /// Whether the manufacturer payload starts with the `02 <projectCode>` field (the Note's
  /// layout when the model's is unknown).
  public var advertisesProjectCode: Bool {
    capabilities.advertising.carriesProjectCodeField ?? true
  }

  public var companyID: UInt16 { capabilities.advertising.companyID }

  /// A configuration of this model; every other parameter keeps its default.
  public var configuration: DeviceConfiguration {
    var configuration = DeviceConfiguration(
      model: model, firmware: firmware, portVersion: portVersion, serial: serial, name: name,
      companyID: companyID)
    configuration.advertisesProjectCode = advertisesProjectCode
    configuration.modeB.encryptsToOwnerKey = encryptsToOwnerKey
    return configuration
  }

  /// Whether its recordings are end-to-end encrypted to the owner's user key: when its row
  /// says E2EE per segment (the NotePin S, PROTOCOL.md §5, §9 [client]). A model whose
  /// encryption is unknown (the Note Pro's container is not settled, §5) keeps them plain (an
  /// E2EE Note Pro is `--e2ee-public-key`).
  public var encryptsToOwnerKey: Bool { capabilities.recordingEncryption == .e2eePerSegment }

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
