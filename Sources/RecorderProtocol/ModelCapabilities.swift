/// The product families, keyed by project code (PROTOCOL.md §1) [sdk]. What each can do is its
/// row of ``ModelCapabilities``.
public enum RecorderModel: UInt16, Sendable, CaseIterable, CustomStringConvertible {
  case note = 888
  case notePin = 880
  case notePro = 881
  case notePinS = 882

  /// This model's row of the capability table.
  public var capabilities: ModelCapabilities { ModelCapabilities.of(self) }

  /// The model a serial's first three digits name (``ModelCapabilities/serialPrefixes``); nil
  /// for a number no model has.
  public static func withSerialPrefix(_ prefix: UInt16) -> RecorderModel? {
    ModelCapabilities.withSerialPrefix(prefix)?.model
  }

  /// The model `serial`'s first three digits name, nil when they are not digits or name none.
  public static func of(serial: String) -> RecorderModel? {
    ModelCapabilities.of(serial: serial)?.model
  }

  /// The product's name (``ModelCapabilities/displayName``).
  public var description: String { capabilities.displayName }

  /// The cloud API's device type for this model (``ModelCapabilities/cloudDeviceType``).
  public var cloudType: String { capabilities.cloudDeviceType }
}

/// What a model can do: the one capability table (DESIGN.md), one row per ``RecorderModel``,
/// read by the SDK, the facade, the command-line tool and the emulator. Each value carries its
/// evidence level from PROTOCOL.md §0 in its row's comment; `nil` means nobody knows (no
/// source says), and a reader must not guess either way.
///
/// Look a row up by model (``of(_:)``), by serial (``of(serial:)``, the first three digits),
/// by serial prefix (``withSerialPrefix(_:)``) or by advertised name (``named(_:)``). What to do
/// for a recorder no row names (an unknown prefix, no serial yet) is in the `…(for:)` and
/// `…(serial:)` helpers below: the vendor SDK's "anything else" answers.
public struct ModelCapabilities: Sendable, Equatable, CustomStringConvertible {
  /// The row's key.
  public let model: RecorderModel
  /// The product's name for people.
  public let displayName: String
  /// The first three digits of this model's serials; the first is the one an example serial
  /// uses.
  public let serialPrefixes: [UInt16]
  /// How it advertises (PROTOCOL.md §1).
  public let advertising: AdvertisingTraits
  /// The cloud's device type (`type` in bind, unbind, binding, sn-sign and the firmware check,
  /// PROTOCOL.md §8).
  public let cloudDeviceType: String
  /// The SSID its hotspot raises when the WIFI_OPEN reply names none (PROTOCOL.md §6).
  public let hotspotSSID: HotspotSSIDRule
  /// The ATT MTU to ask for and the least a sync needs (PROTOCOL.md §1).
  public let mtu: MTUNeeds
  /// Mode A or Mode B as sold (PROTOCOL.md §9); nil: unknown. A device's advertised or
  /// reported portVersion decides over this (``SecurityGeneration/init(portVersion:)``).
  public let security: SecurityGeneration?
  /// How its recordings are encrypted at rest (PROTOCOL.md §5, §9); nil: unknown.
  public let recordingEncryption: RecordingEncryption?
  /// The audio container inside a recording (after any E2EE header is removed, PROTOCOL.md
  /// §5); nil: unknown. Readers still detect the format from content (§5 [sdk-code]): this
  /// says what to expect, never what to trust.
  public let audioContainer: AudioContainer?
  /// Whether its hotspot comes up only while it sits on its charging dock; nil: unknown (no
  /// source says, for any model).
  public let wifiOnlyWhenDocked: Bool?
  /// The mass-storage volume it offers over USB ("Access via USB"); nil: not known to offer one.
  public let usbVolume: USBVolume?
  /// How firmware `03` frames are sized and spaced (PROTOCOL.md §7).
  public let otaFrames: OTAFramePacing

  public var description: String { displayName }

  // MARK: - The rows

  /// The Plaud Note, the device of the captures (V0095, portVersion 10) [device].
  public static let note = ModelCapabilities(
    model: .note, displayName: "Plaud Note",
    // Serial field `888317442836358884` [device].
    serialPrefixes: [888],
    // `PLAUD_NOTE`, company id 0x0059, payload with the project-code field [device].
    advertising: AdvertisingTraits(
      name: "PLAUD_NOTE", companyID: 0x0059, carriesProjectCodeField: true),
    // "anything else `note`" [sdk].
    cloudDeviceType: "note",
    // `PLAUD` + last 4 [sdk].
    hotspotSSID: .prefix("PLAUD"),
    mtu: .vendor,
    // portVersion 10 [device].
    security: .modeA,
    // Raw Opus, no container, no header [device].
    recordingEncryption: .plain,
    audioContainer: .rawOpus,
    wifiOnlyWhenDocked: nil,
    // A FAT volume labelled `PLAUD_NOTE` on V0095; the vendor is removing it [device].
    usbVolume: USBVolume(label: "PLAUD_NOTE"),
    otaFrames: .paced)

  /// The Plaud NotePin (project code 880) [sdk]: known from the vendor's tables only.
  public static let notePin = ModelCapabilities(
    model: .notePin, displayName: "Plaud NotePin",
    serialPrefixes: [880],
    // Name unknown; company id 0x005D per an independent client (unverified); layout unknown.
    advertising: AdvertisingTraits(name: nil, companyID: 0x005D, carriesProjectCodeField: nil),
    // [sdk]
    cloudDeviceType: "notepin",
    // `PLAUD` + last 4: every model but a newer Note Pro and the NotePin S [sdk].
    hotspotSSID: .prefix("PLAUD"),
    mtu: .vendor,
    security: nil,
    recordingEncryption: nil,
    audioContainer: nil,
    wifiOnlyWhenDocked: nil,
    usbVolume: nil,
    // 80 bytes every 18 ms for every project code but 881 [sdk-code].
    otaFrames: .paced)

  /// The Plaud Note Pro (project code 881): V1.7.0, portVersion 20 [client].
  public static let notePro = ModelCapabilities(
    model: .notePro, displayName: "Plaud Note Pro",
    serialPrefixes: [881],
    // Its name is not known: `Plaud Note Pro` [project]; company id as the Note's [project];
    // its payload keeps the project-code field (the vendor reads its portVersion at offset 18,
    // as the Note's) [sdk-code].
    advertising: AdvertisingTraits(
      name: "Plaud Note Pro", companyID: 0x0059, carriesProjectCodeField: true),
    // [sdk]
    cloudDeviceType: "notepro",
    // `PLAUD` below portVersion 20, `Plaud` from it [sdk].
    hotspotSSID: .prefixByPortVersion(
      before: "PLAUD", from: ProtocolDefaults.modeBPortVersion, then: "Plaud"),
    mtu: .vendor,
    // Run end to end through Mode B [client].
    security: .modeB,
    // Not settled: its firmware holds `OpusHead`/`OpusTags` strings [client] (§5).
    recordingEncryption: nil,
    audioContainer: nil,
    wifiOnlyWhenDocked: nil,
    usbVolume: nil,
    // 160 data bytes (80 in slow mode) [sdk], unpaced (§7).
    otaFrames: OTAFramePacing(dataLength: 160, slowDataLength: 80, interval: nil))

  /// The Plaud NotePin S (project code 882; serials 882… and 883… [client]): V1.2.7,
  /// portVersion 20 [client].
  public static let notePinS = ModelCapabilities(
    model: .notePinS, displayName: "Plaud NotePin S",
    // 882 [sdk]; 883 [client], and the vendor template's model file [sdk-code].
    serialPrefixes: [882, 883],
    // `Plaud NotePin S` [sdk-code]; company id 0x005D per an independent client
    // (unverified); no project-code field [sdk-code].
    advertising: AdvertisingTraits(
      name: "Plaud NotePin S", companyID: 0x005D, carriesProjectCodeField: false),
    // The vendor README's [sdk] (its template's model file says `notepin` for 882 and
    // `notepins` for 883, VENDOR-API.md).
    cloudDeviceType: "notepins",
    // `Plaud` + last 4 [sdk].
    hotspotSSID: .prefix("Plaud"),
    mtu: .vendor,
    // Run end to end through Mode B [client].
    security: .modeB,
    // The 512-byte `PLAUD.AI` header, then raw 80-byte Opus frames once decrypted [client].
    recordingEncryption: .e2eePerSegment,
    audioContainer: .rawOpus,
    wifiOnlyWhenDocked: nil,
    usbVolume: nil,
    // 80 bytes every 18 ms (about 6 min for a 1.1 MB image) [sdk-code].
    otaFrames: .paced)

  /// Every row, one per ``RecorderModel``.
  public static let all: [ModelCapabilities] = [note, notePin, notePro, notePinS]

  // MARK: - Lookups

  /// The row of `model`.
  public static func of(_ model: RecorderModel) -> ModelCapabilities {
    switch model {
    case .note: note
    case .notePin: notePin
    case .notePro: notePro
    case .notePinS: notePinS
    }
  }

  /// The row whose ``serialPrefixes`` hold `prefix`; nil for a number no model has.
  public static func withSerialPrefix(_ prefix: UInt16) -> ModelCapabilities? {
    all.first { $0.serialPrefixes.contains(prefix) }
  }

  /// The row `serial`'s first three characters name; nil when they are not three digits or
  /// name no model.
  public static func of(serial: String) -> ModelCapabilities? {
    ManufacturerPayload.serialPrefix(serial).flatMap(withSerialPrefix)
  }

  /// The row whose advertised name is `name`, compared case-insensitively (upper-cased); nil
  /// for a name no row holds.
  public static func named(_ name: String) -> ModelCapabilities? {
    let wanted = name.uppercased()
    return all.first { $0.advertising.name?.uppercased() == wanted }
  }

  /// The row of `model` when given, else the one `serial`'s prefix names.
  public static func of(model: RecorderModel?, serial: String) -> ModelCapabilities? {
    model.map(of) ?? of(serial: serial)
  }

  /// The label of the USB volume a recorder mounts as: the first row's that offers one (only
  /// the Note is known to, `PLAUD_NOTE` [device]).
  public static let usbVolumeLabel: String = all.lazy.compactMap(\.usbVolume?.label).first ?? ""

  // MARK: - Answers for a recorder no row names

  /// The cloud's device type for `serial`: its model's, else `note` ("anything else", §8
  /// [sdk]).
  public static func cloudDeviceType(serial: String) -> String {
    of(serial: serial)?.cloudDeviceType ?? note.cloudDeviceType
  }

  /// The hotspot SSID of a device whose WIFI_OPEN reply names none (§6 [sdk]): the rule of
  /// `model` (or, with no model known, of the model `serial`'s prefix names; else `PLAUD`),
  /// then the serial's last four characters.
  public static func hotspotSSID(serial: String, model: RecorderModel?, portVersion: UInt16)
    -> String
  {
    let rule = of(model: model, serial: serial)?.hotspotSSID ?? HotspotSSIDRule.prefix("PLAUD")
    return rule.ssid(serial: serial, portVersion: portVersion)
  }

  /// The ATT MTU to ask of `model` (nil: not known yet): 255 for every model [sdk].
  public static func requestedMTU(for model: RecorderModel?) -> Int {
    (model.map(of)?.mtu ?? .vendor).requested
  }

  /// The firmware frames `model` takes (nil: not known yet, taken as paced 80-byte frames,
  /// which every model accepts, §7).
  public static func otaFrames(for model: RecorderModel?) -> OTAFramePacing {
    model.map(of)?.otaFrames ?? .paced
  }

  // MARK: - Security

  /// Models that speak Mode B (portVersion 20 and up) as sold: the rows whose ``security`` is
  /// Mode B.
  public static let modeBModels: Set<RecorderModel> = Set(
    all.filter { $0.security == .modeB }.map(\.model))

  /// Whether a recorder heard this way may speak Mode B, so that the HANDSHAKE token must
  /// never go to it in clear [project]:
  /// - a portVersion it advertised decides: 20 and up is Mode B (the payload parsed field by
  ///   field in one of §1's two layouts, so the value is the device's);
  /// - with no portVersion known, a model sold with Mode B (``modeBModels``, by serial prefix
  ///   or project code) is Mode B, and so is any other recorder except one advertising the
  ///   name of a model sold with Mode A (the V0095 Note's `PLAUD_NOTE` [device]): a recorder
  ///   heard by name only is not sent the token in clear on a guess.
  public static func mayUseModeB(model: RecorderModel?, portVersion: UInt16?, name: String?)
    -> Bool
  {
    if let portVersion { return SecurityGeneration(portVersion: portVersion) == .modeB }
    if let model, modeBModels.contains(model) { return true }
    guard let name else { return true }
    return named(name)?.security != .modeA
  }

  /// The name a V0095 Note advertises [device]: a recorder heard by this name only is taken
  /// for a Mode A device.
  public static let modeANoteName = note.advertising.name ?? ""

  /// How long a handshake's replies may take on `model` (nil: not known yet) under
  /// `security` (PROTOCOL.md §4).
  public static func handshakeTimeouts(for model: RecorderModel?, security: SecurityGeneration)
    -> HandshakeTimeouts
  {
    switch security {
    case .modeA: .modeA
    case .modeB: .modeB
    }
  }
}
