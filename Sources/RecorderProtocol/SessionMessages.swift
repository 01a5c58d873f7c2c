// Payloads of the session and device opcodes (PROTOCOL.md §3.1).

/// HANDSHAKE P→D [device][sdk]: `hostType u8` · `bleVersion u8` · `appVerify u8` (portVersion
/// ≥ 3) · token (16 or 32 chars); the second stage adds `devToken[8]` and `nameLen u8` + name.
/// Trailing zero bytes are trimmed on the wire.
public struct HandshakeRequest: Sendable, Equatable, FieldDescribable {
  /// `02` in every capture; meaning unknown [device].
  public var hostType: UInt8
  public var bleVersion: UInt8
  /// Present from portVersion 3; 1 on the second stage [sdk].
  public var appVerify: UInt8
  public var token: DeviceToken
  /// The second stage's device token and phone name (newer firmware) [sdk].
  public var secondStage: SecondStage?

  /// Second-stage additions.
  public struct SecondStage: Sendable, Equatable {
    public var deviceToken: [UInt8]
    public var name: [UInt8]
    public init(deviceToken: [UInt8], name: [UInt8]) {
      self.deviceToken = deviceToken
      self.name = name
    }
  }

  /// `hostType` the vendor app sends [device].
  public static let phoneHostType: UInt8 = 0x02

  public init(
    hostType: UInt8 = phoneHostType, bleVersion: UInt8 = 0, appVerify: UInt8 = 0,
    token: DeviceToken, secondStage: SecondStage? = nil
  ) {
    self.hostType = hostType
    self.bleVersion = bleVersion
    self.appVerify = appVerify
    self.token = token
    self.secondStage = secondStage
  }

  init(from reader: inout ByteReader, portVersion: UInt16) throws(FrameError) {
    hostType = try reader.u8("hostType")
    bleVersion = try reader.u8("bleVersion")
    appVerify = portVersion >= 3 ? try reader.u8("appVerify") : 0
    let raw = try reader.bytes(DeviceToken.wireLength(portVersion: portVersion), "token")
    guard let token = DeviceToken(bytes: raw) else {
      throw .invalidField(field: "token", reason: "not printable ASCII")
    }
    self.token = token
    guard !reader.isAtEnd else { return }
    // Second stage: zero bytes trimmed from the end come back as zeros.
    let rest = reader.rest()
    let deviceToken = Array(rest.prefix(8)) + Array(repeating: 0, count: max(0, 8 - rest.count))
    let nameLength = rest.count > 8 ? Int(rest[8]) : 0
    let nameBytes = Array(rest.dropFirst(9))
    // Bytes past the name are ignored, as for any frame [project].
    let name =
      Array(nameBytes.prefix(nameLength))
      + Array(repeating: 0, count: max(0, nameLength - nameBytes.count))
    // An all-zero second stage trims to nothing on the wire: it is the same as none.
    guard deviceToken.contains(where: { $0 != 0 }) || !name.isEmpty else { return }
    secondStage = SecondStage(deviceToken: deviceToken, name: name)
  }

  func write(to writer: inout ByteWriter, portVersion: UInt16) {
    writer.u8(hostType)
    writer.u8(bleVersion)
    if portVersion >= 3 { writer.u8(appVerify) }
    writer.bytes(token.wireBytes(portVersion: portVersion))
    guard let secondStage else { return }
    var tail = ByteWriter()
    tail.fixed(secondStage.deviceToken, width: 8)
    tail.u8(UInt8(min(secondStage.name.count, 255)))
    tail.bytes(secondStage.name.prefix(255))
    var trimmed = tail.bytes[...]
    while trimmed.last == 0 { trimmed = trimmed.dropLast() }
    writer.bytes(trimmed)
  }

  public var fields: [Field] {
    var fields = [
      Field("hostType", hostType), Field("bleVersion", bleVersion),
      Field("appVerify", appVerify), Field("tokenLength", token.bytes.count),
    ]
    if let secondStage { fields.append(Field("nameLength", secondStage.name.count)) }
    return fields
  }
}

/// HANDSHAKE status codes [sdk].
public enum HandshakeStatus: UInt8, Sendable, CaseIterable {
  case ok = 0
  case tokenMismatch = 1
  case recording = 2
  case refusedOnDevice = 3
  case serialCheckFailed = 4
  case notInConnectMode = 255
}

/// HANDSHAKE D→P [device][sdk]: `status u8` · `portVersion u16` · `tzHours i8` · then, as far
/// as the payload goes, `tzMinutes` `audioChannels` `supportWifi` `noNsAgc` `oggAudio` (u8
/// each); a 13-byte or longer payload ends with the firmware version (4 bytes).
///
/// Encoding writes the optional tail up to its first nil; the firmware version is written only
/// after all five optional bytes (absent ones as 0), as the V0095 layout has it [project].
public struct HandshakeResponse: Sendable, Equatable, FieldDescribable {
  public var status: UInt8
  public var portVersion: UInt16
  public var tzHours: Int8
  public var tzMinutes: UInt8?
  public var audioChannels: UInt8?
  public var supportWifi: UInt8?
  public var noNsAgc: UInt8?
  public var oggAudio: UInt8?
  public var firmware: FirmwareVersion?

  /// Payload length at which the firmware version is present (V0095) [device].
  public static let fullLength = 13

  public init(
    status: UInt8, portVersion: UInt16, tzHours: Int8, tzMinutes: UInt8? = nil,
    audioChannels: UInt8? = nil, supportWifi: UInt8? = nil, noNsAgc: UInt8? = nil,
    oggAudio: UInt8? = nil, firmware: FirmwareVersion? = nil
  ) {
    self.status = status
    self.portVersion = portVersion
    self.tzHours = tzHours
    self.tzMinutes = tzMinutes
    self.audioChannels = audioChannels
    self.supportWifi = supportWifi
    self.noNsAgc = noNsAgc
    self.oggAudio = oggAudio
    self.firmware = firmware
  }

  init(from reader: inout ByteReader) throws(FrameError) {
    try reader.require(4, for: "handshake reply")
    let total = reader.remaining
    status = try reader.u8("status")
    portVersion = try reader.u16("portVersion")
    tzHours = try reader.i8("tzHours")
    tzMinutes = reader.optionalU8()
    audioChannels = reader.optionalU8()
    supportWifi = reader.optionalU8()
    noNsAgc = reader.optionalU8()
    oggAudio = reader.optionalU8()
    if total >= Self.fullLength {
      var tail = ByteReader(reader.rest().suffix(4))
      firmware = try FirmwareVersion(from: &tail, field: "firmware")
    }
  }

  func write(to writer: inout ByteWriter) {
    writer.u8(status)
    writer.u16(portVersion)
    writer.i8(tzHours)
    let tail = [tzMinutes, audioChannels, supportWifi, noNsAgc, oggAudio]
    guard let firmware else {
      writer.optionalTail(tail)
      return
    }
    for value in tail { writer.u8(value ?? 0) }
    firmware.write(to: &writer)
  }

  public var fields: [Field] {
    var fields = [
      Field("status", status), Field("portVersion", portVersion), Field("tzHours", tzHours),
    ]
    fields.optional("tzMinutes", tzMinutes)
    fields.optional("audioChannels", audioChannels)
    fields.optional("supportWifi", supportWifi)
    fields.optional("noNsAgc", noNsAgc)
    fields.optional("oggAudio", oggAudio)
    if let firmware { fields.append(Field("firmware", .text(firmware.description))) }
    return fields
  }
}

/// GET_SERIAL D→P [sdk]: `serial[56]` NUL-padded · [`versionType` + `versionCode u24`].
public struct SerialResponse: Sendable, Equatable, FieldDescribable {
  public var serial: String
  public var firmware: FirmwareVersion?

  /// Width of the serial field [sdk].
  public static let serialWidth = 56

  public init(serial: String, firmware: FirmwareVersion? = nil) {
    self.serial = serial
    self.firmware = firmware
  }

  init(from reader: inout ByteReader) throws(FrameError) {
    let raw = try reader.bytes(Self.serialWidth, "serial")
    serial = try decodeText(raw.prefix { $0 != 0 }, field: "serial")
    if reader.remaining >= 4 { firmware = try FirmwareVersion(from: &reader, field: "firmware") }
  }

  func write(to writer: inout ByteWriter) {
    writer.fixed(serial.utf8, width: Self.serialWidth)
    firmware?.write(to: &writer)
  }

  public var fields: [Field] {
    var fields = [Field("serial", .text(serial))]
    if let firmware { fields.append(Field("firmware", .text(firmware.description))) }
    return fields
  }
}

/// GET_STATE D→P [device][sdk]: `state u32` · `privacy u8` · [`keyState`] · [`usb`] ·
/// [`scene u8` `sessionId u32`] · [`findMy`] · [`soundPlusKey`] · [`httpToken`]; ≥ 5 bytes.
public struct DeviceState: Sendable, Equatable, FieldDescribable {
  public var state: UInt32
  public var privacy: UInt8
  public var keyState: UInt8?
  public var usb: UInt8?
  /// The current recording scene and session, present together.
  public var scene: UInt8?
  public var sessionId: SessionID?
  public var findMy: UInt8?
  public var soundPlusKey: UInt8?
  public var httpToken: UInt8?

  public init(
    state: UInt32, privacy: UInt8, keyState: UInt8? = nil, usb: UInt8? = nil,
    scene: UInt8? = nil, sessionId: SessionID? = nil, findMy: UInt8? = nil,
    soundPlusKey: UInt8? = nil, httpToken: UInt8? = nil
  ) {
    self.state = state
    self.privacy = privacy
    self.keyState = keyState
    self.usb = usb
    self.scene = scene
    self.sessionId = sessionId
    self.findMy = findMy
    self.soundPlusKey = soundPlusKey
    self.httpToken = httpToken
  }

  /// `state` while recording: 4099 (0x1003); the vendor SDK takes the device as recording
  /// iff `state` is 4099 (PROTOCOL.md §3.1) [sdk-code]. The emulator answers it by default.
  public static let vendorRecordingState: UInt32 = 0x1003
  /// `state` while recording and paused in this project's earlier reading (2 and 3)
  /// [project]; still taken, so a device answering either reading is understood.
  public static let projectRecordingState: UInt32 = 2
  public static let projectPausedState: UInt32 = 3

  /// `keyState` by the vendor SDK's meanings (§3.1) [sdk-code]; nil when absent or another
  /// value.
  public var key: KeyState? { keyState.flatMap(KeyState.init(rawValue:)) }

  /// Whether the device is recording now (not paused): `state` 4099 [sdk-code]; otherwise
  /// `keyState` 1 (record) [sdk-code], or `state` 2 [project].
  public var isRecording: Bool {
    if state == Self.vendorRecordingState { return true }
    return key == .record || state == Self.projectRecordingState
  }

  /// Whether a recording is in progress (recording or paused): ``isRecording``, a current
  /// `sessionId`, or `state` 3 (paused) [project].
  public var hasRecordingInProgress: Bool {
    if isRecording { return true }
    if let sessionId, sessionId != 0 { return true }
    return state == Self.projectPausedState
  }

  init(from reader: inout ByteReader) throws(FrameError) {
    state = try reader.u32("state")
    privacy = try reader.u8("privacy")
    keyState = reader.optionalU8()
    usb = reader.optionalU8()
    guard keyState != nil, usb != nil, reader.remaining >= 5 else { return }
    scene = try reader.u8("scene")
    sessionId = SessionID(try reader.u32("sessionId"))
    findMy = reader.optionalU8()
    soundPlusKey = reader.optionalU8()
    httpToken = reader.optionalU8()
  }

  func write(to writer: inout ByteWriter) {
    writer.u32(state)
    writer.u8(privacy)
    writer.optionalTail([keyState, usb])
    guard keyState != nil, usb != nil, let scene, let sessionId else { return }
    writer.u8(scene)
    writer.u32(sessionId.rawValue)
    writer.optionalTail([findMy, soundPlusKey, httpToken])
  }

  public var fields: [Field] {
    var fields = [Field("state", state), Field("privacy", privacy)]
    fields.optional("keyState", keyState)
    fields.optional("usb", usb)
    fields.optional("scene", scene)
    fields.optional("sessionId", sessionId?.rawValue)
    fields.optional("findMy", findMy)
    fields.optional("soundPlusKey", soundPlusKey)
    fields.optional("httpToken", httpToken)
    return fields
  }
}

/// GET_STATE's `keyState` byte (PROTOCOL.md §3.1) [sdk-code]; a real V0095 sent 4 while
/// idle (§11 vector 5) [device].
public enum KeyState: UInt8, Sendable, CaseIterable, CustomStringConvertible {
  case idle = 0
  case record = 1
  case transfer = 2
  case switchOn = 3
  case switchOff = 4

  public var description: String {
    switch self {
    case .idle: "idle"
    case .record: "record"
    case .transfer: "transfer"
    case .switchOn: "switch-on"
    case .switchOff: "switch-off"
    }
  }
}

/// TIME_SYNC P→D [device][sdk]: `unixSeconds u32` · `tzHours i8` · `tzMinutes u8`.
public struct TimeSyncRequest: Sendable, Equatable, FieldDescribable {
  public var unixSeconds: UInt32
  public var tzHours: Int8
  public var tzMinutes: UInt8

  public init(unixSeconds: UInt32, tzHours: Int8, tzMinutes: UInt8) {
    self.unixSeconds = unixSeconds
    self.tzHours = tzHours
    self.tzMinutes = tzMinutes
  }

  init(from reader: inout ByteReader) throws(FrameError) {
    unixSeconds = try reader.u32("unixSeconds")
    tzHours = try reader.i8("tzHours")
    tzMinutes = try reader.u8("tzMinutes")
  }

  func write(to writer: inout ByteWriter) {
    writer.u32(unixSeconds)
    writer.i8(tzHours)
    writer.u8(tzMinutes)
  }

  public var fields: [Field] {
    [Field("unixSeconds", unixSeconds), Field("tzHours", tzHours), Field("tzMinutes", tzMinutes)]
  }

  /// A request for the UTC offset `utcOffsetSeconds` (whole minutes; seconds are dropped),
  /// its zone fields written per `encoding` (docs/time-sync.md).
  public init(unixSeconds: UInt32, utcOffsetSeconds: Int, encoding: TimeZoneEncoding) {
    self.unixSeconds = unixSeconds
    (tzHours, tzMinutes) = encoding.fields(utcOffsetSeconds: utcOffsetSeconds)
  }

  /// The UTC offset in seconds these zone fields mean under `encoding`.
  public func utcOffsetSeconds(encoding: TimeZoneEncoding) -> Int {
    encoding.utcOffsetSeconds(tzHours: tzHours, tzMinutes: tzMinutes)
  }
}

/// How TIME_SYNC's `tzHours i8` · `tzMinutes u8` carry a UTC offset that is not a whole number
/// of hours. No capture shows a negative half-hour zone, so this is **[project]**
/// (docs/time-sync.md); the emulator can decode each alternative.
public enum TimeZoneEncoding: String, Sendable, CaseIterable {
  /// offset = tzHours × 60 + tzMinutes minutes, tzMinutes 0–59: `tzHours` is the offset
  /// rounded down to whole hours. −03:30 = `-4, 30`; −00:30 = `-1, 30`. Every offset has one
  /// form, and a firmware that adds the two fields gets it right. RecorderKit's choice.
  case floorHours = "floor"
  /// `tzHours` truncated toward zero carries the sign, `tzMinutes` the magnitude of the rest:
  /// −03:30 = `-3, 30`. Offsets between −01:00 and 00:00 cannot be told from positive ones.
  case signMagnitude = "sign-magnitude"
  /// Both truncated toward zero, `tzMinutes` a two's-complement byte (what a Java
  /// `(byte) (offset / 60 % 60)` writes): −03:30 = `-3, 0xE2`.
  case signedMinutes = "signed-minutes"

  /// RecorderKit's choice [project].
  public static let projectDefault = TimeZoneEncoding.floorHours

  /// The zone fields for `utcOffsetSeconds` (clamped to ±127 h).
  public func fields(utcOffsetSeconds: Int) -> (tzHours: Int8, tzMinutes: UInt8) {
    let minutes = utcOffsetSeconds >= 0 ? utcOffsetSeconds / 60 : -((-utcOffsetSeconds + 59) / 60)
    switch self {
    case .floorHours:
      let hours = minutes >= 0 ? minutes / 60 : -((-minutes + 59) / 60)
      return (Int8(clamping: hours), UInt8(minutes - hours * 60))
    case .signMagnitude:
      return (Int8(clamping: minutes / 60), UInt8(abs(minutes % 60)))
    case .signedMinutes:
      return (Int8(clamping: minutes / 60), UInt8(bitPattern: Int8(minutes % 60)))
    }
  }

  /// The UTC offset in seconds that `tzHours`, `tzMinutes` mean.
  public func utcOffsetSeconds(tzHours: Int8, tzMinutes: UInt8) -> Int {
    let hours = Int(tzHours)
    switch self {
    case .floorHours: return (hours * 60 + Int(tzMinutes)) * 60
    case .signMagnitude:
      return (hours < 0 ? -1 : 1) * (abs(hours) * 60 + Int(tzMinutes)) * 60
    case .signedMinutes: return (hours * 60 + Int(Int8(bitPattern: tzMinutes))) * 60
    }
  }
}

/// TIME_SYNC D→P [device][sdk]: `unixSeconds u32` · `tzHours i8` · [`hasStatistics u8`].
public struct TimeSyncResponse: Sendable, Equatable, FieldDescribable {
  public var unixSeconds: UInt32
  public var tzHours: Int8
  public var hasStatistics: UInt8?

  public init(unixSeconds: UInt32, tzHours: Int8, hasStatistics: UInt8? = nil) {
    self.unixSeconds = unixSeconds
    self.tzHours = tzHours
    self.hasStatistics = hasStatistics
  }

  init(from reader: inout ByteReader) throws(FrameError) {
    unixSeconds = try reader.u32("unixSeconds")
    tzHours = try reader.i8("tzHours")
    hasStatistics = reader.optionalU8()
  }

  func write(to writer: inout ByteWriter) {
    writer.u32(unixSeconds)
    writer.i8(tzHours)
    writer.optionalTail([hasStatistics])
  }

  public var fields: [Field] {
    var fields = [Field("unixSeconds", unixSeconds), Field("tzHours", tzHours)]
    fields.optional("hasStatistics", hasStatistics)
    return fields
  }
}

/// STORAGE D→P [device][sdk]: `freeBytes u64` · `totalBytes u64` · [`remaining u64`], the
/// last being milliseconds of recording left (inferred).
public struct StorageInfo: Sendable, Equatable, FieldDescribable {
  public var freeBytes: UInt64
  public var totalBytes: UInt64
  public var remaining: UInt64?

  public init(freeBytes: UInt64, totalBytes: UInt64, remaining: UInt64? = nil) {
    self.freeBytes = freeBytes
    self.totalBytes = totalBytes
    self.remaining = remaining
  }

  init(from reader: inout ByteReader) throws(FrameError) {
    freeBytes = try reader.u64("freeBytes")
    totalBytes = try reader.u64("totalBytes")
    remaining = reader.optionalU64()
  }

  func write(to writer: inout ByteWriter) {
    writer.u64(freeBytes)
    writer.u64(totalBytes)
    if let remaining { writer.u64(remaining) }
  }

  public var fields: [Field] {
    var fields = [Field("freeBytes", freeBytes), Field("totalBytes", totalBytes)]
    fields.optional("remaining", remaining)
    return fields
  }
}

/// SETTINGS P→D [device][sdk]: `action u8` (1 read, 2 write) · `setting u16` · `value u32`
/// (write only).
public enum SettingsRequest: Sendable, Equatable, FieldDescribable {
  case read(setting: UInt16)
  case write(setting: UInt16, value: UInt32)

  /// Action byte values [sdk].
  public static let readAction: UInt8 = 1
  public static let writeAction: UInt8 = 2

  public var setting: UInt16 {
    switch self {
    case .read(let setting), .write(let setting, _): setting
    }
  }

  init(from reader: inout ByteReader) throws(FrameError) {
    let action = try reader.u8("action")
    let setting = try reader.u16("setting")
    switch action {
    case Self.readAction: self = .read(setting: setting)
    case Self.writeAction: self = .write(setting: setting, value: try reader.u32("value"))
    default:
      throw .invalidField(field: "action", reason: "\(action) is neither 1 (read) nor 2 (write)")
    }
  }

  func write(to writer: inout ByteWriter) {
    switch self {
    case .read(let setting):
      writer.u8(Self.readAction)
      writer.u16(setting)
    case .write(let setting, let value):
      writer.u8(Self.writeAction)
      writer.u16(setting)
      writer.u32(value)
    }
  }

  public var fields: [Field] {
    switch self {
    case .read(let setting): [Field("action", Self.readAction), Field("setting", setting)]
    case .write(let setting, let value):
      [Field("action", Self.writeAction), Field("setting", setting), Field("value", value)]
    }
  }
}

/// SETTINGS D→P [device][sdk]: `setting u16` · `value u32`.
public struct SettingValue: Sendable, Equatable, FieldDescribable {
  public var setting: UInt16
  public var value: UInt32

  public init(setting: UInt16, value: UInt32) {
    self.setting = setting
    self.value = value
  }

  init(from reader: inout ByteReader) throws(FrameError) {
    setting = try reader.u16("setting")
    value = try reader.u32("value")
  }

  func write(to writer: inout ByteWriter) {
    writer.u16(setting)
    writer.u32(value)
  }

  public var fields: [Field] { [Field("setting", setting), Field("value", value)] }
}

/// BATTERY D→P: `charging u8` · `level u8` [sdk]; V0095 sends only `level` [device].
public struct BatteryStatus: Sendable, Equatable, FieldDescribable {
  /// Percent, 0–100.
  public var level: UInt8
  /// nil in the one-byte form.
  public var charging: UInt8?

  public init(level: UInt8, charging: UInt8? = nil) {
    self.level = level
    self.charging = charging
  }

  init(from reader: inout ByteReader) throws(FrameError) {
    if reader.remaining >= 2 {
      charging = try reader.u8("charging")
      level = try reader.u8("level")
    } else {
      level = try reader.u8("level")
    }
  }

  func write(to writer: inout ByteWriter) {
    if let charging { writer.u8(charging) }
    writer.u8(level)
  }

  public var fields: [Field] {
    var fields: [Field] = []
    fields.optional("charging", charging)
    fields.append(Field("level", level))
    return fields
  }
}

/// WIFI_OPEN P→D [sdk]: `forOta u8` · [`password[8]` ASCII].
public struct WiFiOpenRequest: Sendable, Equatable, FieldDescribable {
  public var forOta: UInt8
  /// Eight ASCII characters, or nil to let the device choose.
  public var password: [UInt8]?

  /// Width of the password field [sdk].
  public static let passwordWidth = 8

  public init(forOta: UInt8, password: [UInt8]? = nil) {
    self.forOta = forOta
    self.password = password
  }

  init(from reader: inout ByteReader) throws(FrameError) {
    forOta = try reader.u8("forOta")
    if !reader.isAtEnd { password = try reader.bytes(Self.passwordWidth, "password") }
  }

  func write(to writer: inout ByteWriter) {
    writer.u8(forOta)
    if let password { writer.fixed(password, width: Self.passwordWidth) }
  }

  public var fields: [Field] {
    var fields = [Field("forOta", forOta)]
    if password != nil { fields.append(Field("password", .text("<redacted>"))) }
    return fields
  }
}

/// WIFI_OPEN D→P, and the reply to WIFI_CLOSE [sdk]: `status u8` · [`password[8]`] ·
/// [SSID]. The vendor's iOS callback reports the network name, so some firmware sends it,
/// but where and how is not known [sdk]; after the password RecorderKit reads either
/// ``WiFiSSIDField`` layout [project].
public struct WiFiOpenResponse: Sendable, Equatable, FieldDescribable {
  public var status: UInt8
  public var password: [UInt8]?
  /// What followed the password, as sent (nil when nothing did). Written only after a
  /// password.
  public var ssidField: WiFiSSIDField?

  public init(status: UInt8, password: [UInt8]? = nil, ssidField: WiFiSSIDField? = nil) {
    self.status = status
    self.password = password
    self.ssidField = ssidField
  }

  /// The hotspot name the device reported, or nil when it reported none it could be
  /// (``WiFiSSIDField/ssid``).
  public var ssid: String? { ssidField?.ssid }

  init(from reader: inout ByteReader) throws(FrameError) {
    status = try reader.u8("status")
    if !reader.isAtEnd { password = try reader.bytes(WiFiOpenRequest.passwordWidth, "password") }
    if !reader.isAtEnd { ssidField = WiFiSSIDField(tail: reader.rest()) }
  }

  func write(to writer: inout ByteWriter) {
    writer.u8(status)
    guard let password else { return }
    writer.fixed(password, width: WiFiOpenRequest.passwordWidth)
    if let ssidField { writer.bytes(ssidField.encoded) }
  }

  public var fields: [Field] {
    var fields = [Field("status", status)]
    if password != nil { fields.append(Field("password", .text("<redacted>"))) }
    if let ssidField {
      fields.append(Field("ssid", ssidField.ssid.map { .text($0) } ?? .bytes(ssidField.encoded)))
    }
    return fields
  }
}

/// The bytes after WIFI_OPEN's password, where a device that reports its hotspot's name puts
/// it. The layout is not known from the vendor [sdk: its callback has `wifiName`]; both
/// plausible ones are read [project]:
/// - ``lengthPrefixed(_:)``: `length u8` (1…32) then exactly that many name bytes;
/// - ``text(_:)``: the name up to the first `00` (a zero-padded field, or bare to the end).
///
/// A tail whose first byte equals the count of the bytes after it (1…32) is length-prefixed;
/// anything else is text. Decoding keeps the bytes, so a reply re-encodes byte for byte.
public enum WiFiSSIDField: Sendable, Equatable {
  /// `length u8` then these name bytes (the length byte is not kept: it is their count).
  case lengthPrefixed([UInt8])
  /// These bytes as sent: the name, then any `00` padding or bytes after it.
  case text([UInt8])

  /// The longest SSID 802.11 allows.
  public static let maximumLength = 32

  /// Reads `tail` as either layout (never fails: a tail that names nothing has a nil
  /// ``ssid``).
  public init(tail: [UInt8]) {
    if let length = tail.first, (1...Self.maximumLength).contains(Int(length)),
      Int(length) == tail.count - 1
    {
      self = .lengthPrefixed(Array(tail.dropFirst()))
    } else {
      self = .text(tail)
    }
  }

  /// The bytes as they go on the wire.
  public var encoded: [UInt8] {
    switch self {
    case .lengthPrefixed(let name): [UInt8(clamping: name.count)] + name
    case .text(let bytes): bytes
    }
  }

  /// The name, when it can be one: 1…32 bytes of UTF-8 without control characters (text: up
  /// to the first `00`); nil otherwise, and the caller falls back on the model's rule.
  public var ssid: String? {
    let name: [UInt8]
    switch self {
    case .lengthPrefixed(let bytes): name = bytes
    case .text(let bytes): name = Array(bytes.prefix { $0 != 0 })
    }
    guard (1...Self.maximumLength).contains(name.count),
      let text = try? decodeText(name, field: "ssid"),
      text.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F })
    else { return nil }
    return text
  }
}

/// A device name: SET_NAME P→D (`name[32]` zero-padded) and GET_NAME D→P (name up to the
/// first `00`) [device][sdk]. `fieldWidth` keeps the padding so frames re-encode byte-exact.
public struct DeviceName: Sendable, Equatable, FieldDescribable {
  public var name: String
  /// Bytes the name field occupies on the wire (≥ the name's UTF-8 length).
  public var fieldWidth: Int

  /// SET_NAME's field width [sdk].
  public static let setNameWidth = 32

  public init(_ name: String, fieldWidth: Int? = nil) {
    self.name = name
    self.fieldWidth = max(fieldWidth ?? 0, name.utf8.count)
  }

  init(from reader: inout ByteReader) throws(FrameError) {
    let raw = reader.rest()
    name = try decodeText(raw.prefix { $0 != 0 }, field: "name")
    fieldWidth = raw.count
  }

  func write(to writer: inout ByteWriter) {
    writer.fixed(name.utf8, width: fieldWidth)
  }

  /// `deviceName`, not §3's `name`: ``Frame/describe(direction:portVersion:)`` already uses
  /// `name` for the message name, and a repeated key is lost in `recorder decode --json`.
  public var fields: [Field] { [Field("deviceName", .text(name))] }
}

/// Strict UTF-8 (no overlongs, surrogates or values past U+10FFFF), or `invalidField`.
///
/// Decoded with the standard library's `UTF8` codec rather than `String(validating:as:)`,
/// which needs macOS 15 / iOS 18 while the package supports macOS 13 / iOS 16.
func decodeText<C: Collection>(_ bytes: C, field: String) throws(FrameError) -> String
where C.Element == UInt8 {
  var iterator = bytes.makeIterator()
  var codec = UTF8()
  var scalars = String.UnicodeScalarView()
  while true {
    switch codec.decode(&iterator) {
    case .scalarValue(let scalar): scalars.append(scalar)
    case .emptyInput: return String(scalars)
    case .error: throw .invalidField(field: field, reason: "not UTF-8")
    }
  }
}
