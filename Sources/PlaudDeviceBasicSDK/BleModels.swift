import Foundation
import RecorderConcurrency
import RecorderKit
import RecorderProtocol

/// A recording on the device, as `bleFileList` and `wifiFileList` report it (PlaudBleSDK's
/// `BleFile`: an open `NSObject` subclass, `NSCopying`).
///
/// Mutable and not `Sendable`, as the vendor's: the facade builds a fresh one for each
/// callback on the callback queue and never shares it across threads.
open class BleFile: NSObject, NSCopying {
  /// The serial number of the device holding the recording ("" when unknown).
  public var sn: String
  /// The recording's id: its start time, unix seconds.
  public var sessionId: Int
  /// Bytes of raw device audio.
  public var size: Int
  /// Where a transfer would resume: the bytes already durable locally (0 when none).
  public var offset: Int
  /// The device's time zone when it recorded, whole hours east of UTC (0 when unknown).
  public var timezone: Int
  /// The minutes part of the time zone (0 when unknown).
  public var zoneMin: Int
  /// The recording's scene (1 normal, 4 music, 7 call); pass it back to Wi-Fi `syncFile`.
  public var scenes: Int
  /// Whether the user favourited the recording on the device (0 when unknown).
  public var penCollect: Int
  /// Audio channels.
  public var channels: Int
  /// Whether the device ran its noise suppression and gain control (false when unknown).
  public var nsAgc: Bool
  /// Whether the recording is Ogg-wrapped Opus (the handshake's `oggAudio`).
  public var isOgg: Bool
  /// The duration in milliseconds when the lister knew it; otherwise ``duration()`` derives
  /// it from the size.
  public var durationMilliseconds: Int

  /// Whether the recording's scene is music (scene 4).
  public var isMusic: Bool { scenes == 4 }

  /// An empty record: session 0, size 0.
  public override convenience init() { self.init(sessionId: 0, size: 0) }

  /// A recording by session id and size.
  public convenience init(_ sessionId: Int, _ size: Int) {
    self.init(sessionId: sessionId, size: size)
  }

  /// A recording of device `sn` by session id and size.
  public convenience init(_ sn: String, _ sessionId: Int, _ size: Int) {
    self.init(sessionId: sessionId, size: size, sn: sn)
  }

  /// A recording with its channels and noise-suppression flag.
  public convenience init(
    _ sn: String, _ sessionId: Int, _ size: Int, _ channels: Int = 1, _ nsAgc: Bool = false
  ) {
    self.init(sessionId: sessionId, size: size, channels: channels, sn: sn)
    self.nsAgc = nsAgc
  }

  /// A recording with its scene and favourite flag as well.
  public convenience init(
    _ sn: String, _ sessionId: Int, _ size: Int, _ scenes: Int, _ penCollect: Int,
    _ channels: Int = 1, _ nsAgc: Bool = false
  ) {
    self.init(sessionId: sessionId, size: size, scenes: scenes, channels: channels, sn: sn)
    self.penCollect = penCollect
    self.nsAgc = nsAgc
  }

  /// RecorderKit's designated initialiser: every field by name.
  public init(
    sessionId: Int, size: Int, offset: Int = 0, scenes: Int = 1, duration: Int = 0,
    channels: Int = 1, sn: String = ""
  ) {
    self.sn = sn
    self.sessionId = sessionId
    self.size = size
    self.offset = offset
    timezone = 0
    zoneMin = 0
    self.scenes = scenes
    penCollect = 0
    self.channels = channels
    nsAgc = false
    isOgg = false
    durationMilliseconds = duration
    super.init()
  }

  /// The recording's duration in whole milliseconds: what the lister measured, else
  /// ``calculateDuration(_:_:_:_:)`` of its size.
  public func duration() -> Int {
    durationMilliseconds > 0
      ? durationMilliseconds : Self.calculateDuration(size, channels, isOgg, scenes)
  }

  /// The duration of an Ogg recording of this size (the estimate ``Recording/durationMs``
  /// makes: each 20 ms packet with its lacing byte).
  public func oggDuration() -> Int { Self.calculateDuration(size, channels, true, scenes) }

  /// A one-line description of every field.
  public func toString() -> String {
    "BleFile(sn: \(sn), sessionId: \(sessionId), size: \(size), offset: \(offset), "
      + "timezone: \(timezone), zoneMin: \(zoneMin), scenes: \(scenes), "
      + "penCollect: \(penCollect), channels: \(channels), nsAgc: \(nsAgc), isOgg: \(isOgg))"
  }

  /// Milliseconds of audio in `fileSize` bytes (PROTOCOL.md §5: 80 bytes per channel per
  /// 20 ms; Ogg adds a lacing byte per channel). `scenes` does not change the size rule.
  public static func calculateDuration(
    _ fileSize: Int, _ channel: Int, _ isOgg: Bool, _ scenes: Int = 0
  ) -> Int {
    let frame = 80 * max(1, channel) + (isOgg ? max(1, channel) : 0)
    return max(0, fileSize) / frame * 20
  }

  /// A copy with every field.
  public func copy(with zone: NSZone? = nil) -> Any {
    let copy = BleFile(
      sessionId: sessionId, size: size, offset: offset, scenes: scenes,
      duration: durationMilliseconds, channels: channels, sn: sn)
    copy.timezone = timezone
    copy.zoneMin = zoneMin
    copy.penCollect = penCollect
    copy.nsAgc = nsAgc
    copy.isOgg = isOgg
    return copy
  }

  /// The recording's UTC offset in seconds (``timezone`` hours and ``zoneMin`` minutes).
  public func zoneSecond() -> Int { timezone * 3600 + zoneMin * 60 }

  /// The recording's start as a UTC unix time: the session id (the device's local clock)
  /// less ``zoneSecond()``.
  public func utsStamp() -> Int { sessionId - zoneSecond() }

  convenience init(_ recording: Recording, offset: Int, serial: String) {
    self.init(
      sessionId: Int(recording.sessionId), size: Int(recording.size), offset: offset,
      scenes: Int(recording.scene ?? 1), duration: recording.durationMs,
      channels: recording.channels, sn: serial)
    isOgg = recording.container == .ogg
  }
}

/// A recorder heard while scanning, or the connected one (PlaudBleSDK's `BleDevice`: an open
/// `NSObject` subclass).
///
/// Mutable and not `Sendable`, as the vendor's (`PlaudBleDevice` derives from it). The
/// facade carries its fields across threads as a snapshot and hands the app fresh objects.
/// Fields the device has not reported are 0, false or "".
open class BleDevice: NSObject {
  /// The advertised name (may be empty), or the name the device reported once connected.
  public var name: String
  /// The radio's identifier for the peripheral ("" for a device an app built itself).
  public var uuid: String
  /// Signal strength in dBm.
  public var rssi: Float
  /// The manufacturer data as hex ("" when none was heard).
  public var manufacturer: String
  /// The model's project code: the serial's first three digits (881, 882, …; 0 unknown).
  public var projectCode: Int
  /// The firmware's version type letter (`V`; a space when unknown).
  public var versionType: Character
  /// The firmware's version type letter (`"V"`; "" when unknown).
  public var versionTypeStr: String
  /// The firmware's version code as the device sends it (`u24`: 95 for `V0095`; 0 when
  /// unknown). A code below 255 reads as four digits after ``versionTypeStr``; larger codes
  /// pack `major.minor.patch` in their three bytes.
  public var versionCode: Int
  /// The serial number: the stable identity (the radio address rotates).
  public var serialNumber: String
  /// The bind code (0: none known).
  public var bindCode: Int
  /// Battery level 0–100 (0 until the connected device reports it).
  public var power: Int
  /// Whether the charger is plugged in (false until the connected device reports it).
  public var isCharging: Bool
  /// Flash bytes in all (0 until STORAGE answers).
  public var total: Int
  /// Free flash bytes (0 until STORAGE answers).
  public var free: Int
  /// Recording time left, seconds (0 until STORAGE answers).
  public var duration: Int
  /// The device's time zone, whole hours (0 unknown).
  public var timezone: Int
  /// The minutes part of the device's time zone.
  public var zoneMin: Int
  /// Audio channels (1 until the handshake says otherwise).
  public var channels: Int
  /// Whether the device offers Wi-Fi Fast Transfer (its handshake's `supportWifi`).
  public var supportWiFi: Bool
  /// Whether the device runs noise suppression and gain control.
  public var nsAgc: Bool
  /// Whether the device stores Ogg-wrapped Opus (its handshake's `oggAudio`).
  public var isOgg: Bool
  /// The auto-clear setting (0 off).
  public var autoClear: Int
  /// Whether the LED is hidden (0 no).
  public var hideLed: Int
  /// GET_STATE's `state` (0x1003 recording).
  public var state: Int
  /// GET_STATE's `privacy`.
  public var privacy: Int
  /// GET_STATE's `keyState`.
  public var keyState: Int
  /// GET_STATE's `usb` (U-disk mode).
  public var uDisk: Int
  /// GET_STATE's `findMy`.
  public var findmyToken: Int
  /// Whether a firmware update is pending on the device.
  public var hasFota: Bool
  /// The secondary serial ("" unknown).
  public var ssn: String
  /// PROTOCOL.md §1 port version: gates features.
  public var protVersion: Int
  /// Whether voice-activity detection is on.
  public var isVadOpen: Bool
  /// Cloud device type, as ``PlaudFileUploader/calculateSnType(sn:)`` (RecorderKit addition).
  public var snType: String

  /// What the scanner heard; nil for a device an app built itself (connect then goes by
  /// serial number).
  var discovered: DiscoveredDevice?

  /// A device known by serial number only: connecting goes by serial.
  public init(sn: String) {
    name = ""
    uuid = ""
    rssi = 0
    manufacturer = ""
    projectCode = Int(sn.prefix(3)) ?? 0
    versionType = " "
    versionTypeStr = ""
    versionCode = 0
    serialNumber = sn
    bindCode = 0
    power = 0
    isCharging = false
    total = 0
    free = 0
    duration = 0
    timezone = 0
    zoneMin = 0
    channels = 1
    supportWiFi = false
    nsAgc = false
    isOgg = false
    autoClear = 0
    hideLed = 0
    state = 0
    privacy = 0
    keyState = 0
    uDisk = 0
    findmyToken = 0
    hasFota = false
    ssn = ""
    protVersion = 0
    isVadOpen = false
    snType = PlaudFileUploader.calculateSnType(sn: sn)
    discovered = nil
    super.init()
  }

  /// A device known by serial number (and optionally name and signal): connecting goes by
  /// serial (RecorderKit addition).
  public convenience init(serialNumber: String, name: String = "", rssi: Float = 0) {
    self.init(sn: serialNumber)
    self.name = name
    self.rssi = rssi
  }

  /// A recorder as the scanner heard it. A recorder heard only by name has no serial or
  /// version until connected: "" / 0.
  convenience init(_ device: DiscoveredDevice) {
    self.init(sn: device.serial ?? "")
    name = device.name ?? ""
    rssi = Float(device.rssi)
    uuid = device.peripheral.rawValue
    setFirmware(device.firmware)
    protVersion = Int(device.portVersion ?? 0)
    discovered = device
  }

  func setFirmware(_ firmware: FirmwareVersion?) {
    versionCode = Int(firmware?.code ?? 0)
    versionTypeStr = firmware.map { String(UnicodeScalar($0.type)) } ?? ""
    versionType = versionTypeStr.first ?? " "
  }

  /// The hotspot name the device raises for Wi-Fi Fast Transfer (PROTOCOL.md §6: the
  /// model's prefix, `PLAUD` or `Plaud`, and the serial's last four characters); what
  /// `bleWiFiOpen` reports as its `wholeName`.
  public var wholeName: String {
    DeviceHotspot.ssid(
      serial: serialNumber, model: discovered?.model, portVersion: UInt16(clamping: protVersion))
  }

  /// The hotspot name (the same as ``wholeName``: the facade reports one name for both).
  public var wifiName: String { wholeName }

  /// The firmware version as the device names it: `V0095` for a code below 255, else
  /// `V1.2.8` (the code's three bytes); "" when unknown.
  public func wholeVersion() -> String {
    guard versionCode > 0 else { return "" }
    if versionCode < 255 {
      let digits = String(versionCode)
      return versionTypeStr + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
    return versionTypeStr
      + "\(versionCode >> 16 & 0xFF).\(versionCode >> 8 & 0xFF).\(versionCode & 0xFF)"
  }

  /// A one-line description of the identity and state fields.
  public func toString() -> String {
    "BleDevice(sn: \(serialNumber), name: \(name), rssi: \(rssi), version: \(wholeVersion()), "
      + "protVersion: \(protVersion), power: \(power), isCharging: \(isCharging), "
      + "supportWiFi: \(supportWiFi), channels: \(channels), state: \(state))"
  }

  /// The device's UTC offset in seconds (``timezone`` hours and ``zoneMin`` minutes).
  public func zoneSecond() -> Int { timezone * 3600 + zoneMin * 60 }
}

/// The vendor's `PlaudBleDevice`: a ``BleDevice`` an app makes from a serial number.
public final class PlaudBleDevice: BleDevice {
  public override init(sn: String) { super.init(sn: sn) }
}

/// PlaudBleSDK's lower-level agent: the connected device, its recording state, and (with
/// `import PlaudBleSDK`) the vendor's command methods and delegate, over the same session
/// as the ``PlaudDeviceAgent`` that connected (one connection, not two).
///
/// Process-wide: it reflects the agent that connected last (as the vendor's one agent).
/// No public initialiser: ``shared`` is the one.
public final class BleAgent: NSObject, Sendable {
  /// The one agent.
  public static let shared = BleAgent()

  private override init() { super.init() }

  private struct State: Sendable {
    var device: DiscoveredDevice?
    var recording = false
    var sessionId = 0
  }

  private let state = Locked(State())
  /// The facade agents of this process, weakly: BleAgent's commands go to the connected one.
  private let agents = Locked<[WeakReference<PlaudDeviceAgent>]>([])
  /// PlaudBleSDK's listener: every event the facade's agents emit reaches it too.
  private let listenerSlot = Locked<ListenerBox?>(nil)

  /// Holds the listener; only called on the facade's serial callback queue.
  private final class ListenerBox: @unchecked Sendable {
    // Safety: set once under `listenerSlot`'s lock, then only read; the listener itself is
    // called on the facade's serial callback queue only.
    let listener: any PlaudDeviceAgentProtocol
    init(_ listener: any PlaudDeviceAgentProtocol) { self.listener = listener }
  }

  /// The device connected now (a fresh object on each read), nil when none is. An app may set
  /// one (the vendor's is settable): reads return a copy of it until the next connect or
  /// disconnect; it changes which device BleAgent's commands reach in no way.
  public var bleDevice: BleDevice? {
    get {
      if let set = appDevice.current { return BleDevice(snapshot: set) }
      return state.current.device.map(BleDevice.init)
    }
    set { appDevice.withLock { $0 = newValue?.snapshot } }
  }

  private let appDevice = Locked<BleDevice.Snapshot?>(nil)

  /// The device connected now, as the scanner heard it (nil when none is).
  package var connectedDevice: DiscoveredDevice? { state.current.device }

  /// Whether the connected device is recording (not paused): from its state at connect and
  /// each recording start, resume, pause and stop since.
  public var isRecording: Bool { state.current.recording }

  /// The recording in progress (or paused) on the connected device, 0 when none.
  public var sessionId: Int { state.current.sessionId }

  func setConnected(_ connected: DiscoveredDevice, recording: Bool, sessionId: Int) {
    appDevice.withLock { $0 = nil }
    state.withLock { $0 = State(device: connected, recording: recording, sessionId: sessionId) }
  }

  func setRecording(_ recording: Bool, sessionId: Int) {
    state.withLock { current in
      current.recording = recording
      current.sessionId = sessionId
    }
  }

  /// `disconnected` is gone: cleared only if it is still the one connected last (another
  /// agent of the same process may have connected since).
  func setDisconnected(_ disconnected: DiscoveredDevice?) {
    appDevice.withLock { $0 = nil }
    state.withLock { if $0.device == disconnected { $0 = State() } }
  }

  /// A facade agent exists: BleAgent's commands may go to it.
  func register(_ agent: PlaudDeviceAgent) {
    agents.withLock { list in
      list.removeAll { $0.value == nil }
      list.append(WeakReference(agent))
    }
  }

  /// The facade agent BleAgent's commands go to, and whose events its listener hears: the
  /// pinned one (``pin(_:)``), else the one whose device is connected now, else the one made
  /// last (still alive), else nil.
  package var agent: PlaudDeviceAgent? {
    if let pinned = pinned.current?.value { return pinned }
    let live = agents.current.compactMap(\.value)
    return live.last { $0.isConnected() } ?? live.last
  }

  private let pinned = Locked<WeakReference<PlaudDeviceAgent>?>(nil)

  /// Ties BleAgent to one facade agent (nil: the connected one), for a process with several
  /// agents (tests, an app with several radios).
  package func pin(_ agent: PlaudDeviceAgent?) {
    pinned.withLock { $0 = agent.map { WeakReference($0) } }
  }

  /// PlaudBleSDK's listener (its delegate adapter): receives every event the facade emits.
  package var listener: (any PlaudDeviceAgentProtocol)? {
    get { listenerSlot.current?.listener }
    set { listenerSlot.withLock { $0 = newValue.map(ListenerBox.init) } }
  }

  /// Runs `event` on the listener (on the caller's queue: the facade's callback queue) when
  /// `agent` is the one BleAgent stands for.
  func deliver(_ event: DelegateEvent, from agent: PlaudDeviceAgent) {
    guard let listener = listenerSlot.current?.listener else { return }
    if let pinned = pinned.current {
      guard pinned.value === agent else { return }
    }
    event(listener)
  }
}

extension BleAgent {
  /// The stages of a connect, in the vendor's names, reported through
  /// `bleConnectStage(sn:stage:detail:)` (its `stage` is the raw value) as each begins. A
  /// RecorderKit connect reports `start`, `gattConnect`, `setNotify`, `preHandshake` (Mode B
  /// recorders), `firstHandshake`, `twoHandshake` (when the device asks for it),
  /// `handshakeGetSSN` (a recorder heard by name only) and `syncTime`; the others name steps
  /// of the vendor's own GATT sequence that RecorderKit's connect does not have (it reads the
  /// battery with BATTERY after TIME_SYNC, and subscribes to one notify characteristic).
  public enum ConnectStage: String, Sendable {
    case start
    case gattConnect
    case setNotify
    case setBatteryNotify
    case readBattery
    case setDataNotify
    case preHandshake
    case sendRSAPublic
    case firstHandshake
    case twoHandshake
    case handshakeGetSSN
    case changeHandshakeTimeout
    case syncTime

    /// The vendor's stage for a step of RecorderKit's set-up.
    init(_ step: DeviceSession.ConnectStep) {
      switch step {
      case .link: self = .gattConnect
      case .notifications: self = .setNotify
      case .secureChannel: self = .preHandshake
      case .handshake: self = .firstHandshake
      case .secondHandshake: self = .twoHandshake
      case .serial: self = .handshakeGetSSN
      case .timeSync: self = .syncTime
      }
    }
  }
}

extension BleDevice {
  /// A Sendable copy of a device's fields, for carrying across threads.
  struct Snapshot: Sendable {
    var serialNumber: String
    var name: String
    var rssi: Int
    var discovered: DiscoveredDevice?
    var power = 0
    var isCharging = false
    var supportWiFi = false
    var versionCode = 0
    var versionTypeStr = ""
    var protVersion = 0
  }

  var snapshot: Snapshot {
    Snapshot(
      serialNumber: serialNumber, name: name, rssi: Int(rssi.rounded()), discovered: discovered,
      power: power, isCharging: isCharging, supportWiFi: supportWiFi, versionCode: versionCode,
      versionTypeStr: versionTypeStr, protVersion: protVersion)
  }

  convenience init(snapshot: Snapshot) {
    self.init(sn: snapshot.serialNumber)
    name = snapshot.name
    rssi = Float(snapshot.rssi)
    discovered = snapshot.discovered
    uuid = snapshot.discovered?.peripheral.rawValue ?? ""
    power = snapshot.power
    isCharging = snapshot.isCharging
    supportWiFi = snapshot.supportWiFi
    versionCode = snapshot.versionCode
    versionTypeStr = snapshot.versionTypeStr
    versionType = snapshot.versionTypeStr.first ?? " "
    protVersion = snapshot.protVersion
  }
}
