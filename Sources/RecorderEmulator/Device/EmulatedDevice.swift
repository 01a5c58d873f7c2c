import Foundation
import RecorderBluetooth
import RecorderConcurrency
import RecorderCrypto
import RecorderProtocol
import RecorderRemoteLink

/// A faithful emulated Plaud Note / NotePin (PROTOCOL.md): firmware state machine, flash of
/// real Opus recordings, the BLE link timing model, advertising, Wi-Fi Fast Transfer (the
/// hotspot and the §6 session over real TCP, ``joinHotspot(_:)``) and fault injection.
///
/// Reach it as a phone would through ``EmulatorCentral`` (in process) or the TCP transport
/// (which proxies any `Central`); drive the device side (buttons, battery, faults, reboot)
/// with the methods here. All timing runs on the injected ``EmulatorTime``.
///
/// Volatile state (authentication, a pending sync, a recording in progress, the radio's
/// queues) lives in the connection and is lost on disconnect or ``reboot()``; flash,
/// settings, name and the device's clock survive.
public actor EmulatedDevice {
  /// The configuration the device was made with.
  public nonisolated let configuration: DeviceConfiguration
  /// The clock the device and its radio run on.
  public nonisolated let time: EmulatorTime
  /// The serial number: the only stable way to find this device again (its address
  /// rotates on reboot).
  public nonisolated var serial: String { configuration.serial }

  let flash: FlashStorage
  var cachedContent: RecordingContent?
  var name: String
  var settings: [UInt16: UInt32] { didSet { publishBeacon() } }
  var privacy: UInt8 = 0
  /// The WebSocket settings (`0010`/`0011`, PROTOCOL.md §3.4): empty until written.
  var webSocketSettings: [WebSocketSettingType: [UInt8]] = [:]
  var active: UInt8 = 1
  var led: UInt8 = 1
  var batteryLevel: UInt8
  var charging: Bool
  /// Seconds TIME_SYNC moved the device's clock from `unixTimeOrigin + virtual time`.
  var clockCorrection: Int64 = 0
  var tzHours: Int8
  var tzMinutes: UInt8
  var tags: [Tag] = []
  var deletes: [DeleteRecord] = []
  /// The token a Mode B device took from its owner after a DEPAIR left it unbound; nil: the
  /// configured token.
  var ownerToken: DeviceToken?
  /// A Mode B device a DEPAIR left unbound: the next HANDSHAKE's token becomes its owner's.
  var awaitingNewOwner = false
  var counterValues = DeviceCounters()
  var faults = FaultPlan.none
  /// Counter values when the fault plan was set (faults count from there).
  var faultBaseBytes = 0
  var faultBaseDataFrames = 0
  /// Data bytes sent when the fault plan was set, and since the last recurring loss.
  var faultBaseDataBytes = 0
  var lossCarry = 0
  /// Every write taken and every control notification sent, in the device's order, while
  /// ``recordWireTrace(_:)`` is on (data frames are left out: they are the bulk of a sync).
  public private(set) var wireTrace: [WireEvent] = []
  var tracesWire = false
  /// The data stall of the fault plan: no data frame before this instant.
  var stallUntil: Duration?
  /// Data frames produced (sent, dropped or duplicated alike), for fault indexing.
  var dataFrameOrdinal = 0
  var faultTimer: Task<Void, Never>?
  var bootCount = 0
  var address: PeripheralID
  var pastAddresses: Set<PeripheralID> = []
  /// A DEPAIR was taken: the address changes when its link ends.
  var addressChangeOwed = false
  /// Addresses taken after a DEPAIR so far.
  var depairAddressChanges = 0
  var inRange = true { didSet { publishBeacon() } }
  var advertisingObservers = AdvertisementObservers()
  var nextObserverID = 0
  var beaconObservers: [Int: AsyncStream<IBeacon?>.Continuation] = [:]
  /// The beacon last published to ``beaconObservers``.
  var publishedBeacon: IBeacon?
  var recording: LiveRecording?
  var recordingGeneration = 0
  var recordingTimer: Task<Void, Never>?
  var connection: Connection? { didSet { publishBeacon() } }
  var nextConnectionID = 0
  var closedReasons: [Int: DisconnectReason] = [:]
  /// The access point WIFI_OPEN raised (PROTOCOL.md §6); survives BLE disconnects.
  var hotspot: Hotspot?
  /// WIFI_OPEN / WIFI_CLOSE as heard (``wifiControlLog``).
  var wifiControl: [WiFiControlRecord] = []
  var nextHotspotGeneration = 0
  /// The one Wi-Fi session a joined phone runs (the device is its WebSocket client).
  var wifiSession: WiFiDeviceSession?
  /// A join accepted while ``wifiSession`` was active: served once that session ends.
  var pendingWiFiJoin: HotspotJoinRequest?
  var nextWiFiSessionID = 0
  /// ``DeviceCounters/wifiContentBytesSent`` when the fault plan was set.
  var faultBaseWiFiBytes = 0
  /// The firmware running now (``DeviceConfiguration/firmware`` until an update installs).
  var firmware: FirmwareVersion
  /// A firmware image being received (PROTOCOL.md §7); kept across disconnects so a push
  /// resumes where it stopped.
  var otaReceiver: OTAReceiver?
  /// Every firmware update's outcome, oldest first.
  var otaOutcomes: [FirmwareUpdateOutcome] = []
  /// Installing or restarting after an update: not advertising, not connectable.
  var restarting = false { didSet { publishBeacon() } }
  var otaTimer: Task<Void, Never>?
  /// Mode B: the user public key the device holds (survives reconnects, not a restart of
  /// the emulator process: a fresh emulator asks with `FE11`).
  var userKey: RSAPublicKey?

  /// A device whose flash is the directory `flashDirectory` (created if missing; recordings
  /// already there are kept, so a flash survives an emulator restart).
  /// - Throws: ``EmulatorError/flashIO(path:operation:errno:)`` if the directory is unusable.
  public init(
    configuration: DeviceConfiguration = DeviceConfiguration(), flashDirectory: String,
    time: EmulatorTime
  ) throws(EmulatorError) {
    self.configuration = configuration
    self.time = time
    flash = try FlashStorage(directory: flashDirectory)
    name = configuration.name
    firmware = configuration.firmware
    settings = Self.defaultSettings
    batteryLevel = configuration.batteryLevel
    charging = configuration.charging
    tzHours = configuration.tzHours
    tzMinutes = configuration.tzMinutes
    address = Self.makeAddress(seed: configuration.seed, boot: 0)
    userKey = configuration.modeB.provisionedUserKey
  }

  /// Setting values after a factory reset [project]; ids per PROTOCOL.md §3.1.
  static let defaultSettings: [UInt16: UInt32] = [
    1: 30, 2: 2, 3: 0, 4: 0, 15: 0, 16: 1, 17: 0, 18: 2, 19: 1, 20: 1, 21: 6, 22: 0, 23: 4,
    24: 0, 25: 0, 26: 1, 27: 0, 30: 0, 31: 0, 32: 0, 49: 0,
  ]

  // MARK: Observing the device

  /// The address the device advertises now (a random static address; rotates on reboot).
  public var peripheralID: PeripheralID { address }

  /// True while a central is connected.
  public var isConnected: Bool { connection != nil }

  /// True while a connected central has presented the right token.
  public var isAuthenticated: Bool { connection?.authenticated ?? false }

  /// The device's clock now, unix seconds.
  public var unixTimeNow: UInt32 { unixTime(at: time.now) }

  /// The UTC offset the device keeps, in seconds: TIME_SYNC's zone fields read with
  /// ``DeviceConfiguration/timeZoneEncoding``.
  public var utcOffsetSeconds: Int {
    configuration.timeZoneEncoding.utcOffsetSeconds(tzHours: tzHours, tzMinutes: tzMinutes)
  }

  /// What the device has done so far.
  public var counters: DeviceCounters { counterValues }

  /// Starts (clearing what was kept) or stops keeping ``wireTrace``.
  public func recordWireTrace(_ on: Bool) {
    tracesWire = on
    if on { wireTrace = [] }
  }

  func trace(_ event: WireEvent) {
    if tracesWire { wireTrace.append(event) }
  }

  /// Every DELETE served, oldest first.
  public var deleteLog: [DeleteRecord] { deletes }

  /// The fault plan in force (one-shot faults that fired are cleared from it).
  public var faultPlan: FaultPlan { faults }

  /// A setting's current value.
  public func setting(_ id: UInt16) -> UInt32? { settings[id] }

  /// Recordings larger than this get no digest: no real one is (5 hours of stereo is 288 MB).
  public static let largestDigestedRecording = 1 << 30

  /// The recordings on flash, oldest first, with their SHA-256 when `includingDigests`
  /// (that reads every file: seconds for hours of audio). A live recording is listed with
  /// the bytes recorded so far.
  /// - Throws: ``EmulatorError/flashIO(path:operation:errno:)`` if a file cannot be read.
  public func recordings(includingDigests: Bool = false) throws(EmulatorError) -> [RecordingInfo] {
    materializeRecording(at: time.now)
    var result: [RecordingInfo] = []
    for id in flash.sessionIds {
      guard let entry = flash.entries[id], let path = flash.path(of: id) else { continue }
      var digest: String?
      // A damaged recording of gigabytes of zeros (``RecordingDamage/zeros``) is not read.
      if includingDigests, entry.size <= Self.largestDigestedRecording {
        do {
          digest = try FileDigest.sha256Hex(ofFile: path)
        } catch {
          throw .flashIO(path: error.path, operation: error.operation, errno: error.code)
        }
      }
      result.append(
        RecordingInfo(
          sessionId: id, size: entry.size, scene: entry.scene,
          isRecording: recording?.sessionId == id,
          durationMs: entry.size / configuration.bytesPerFrame * 20, sha256: digest, path: path))
    }
    return result
  }

  // MARK: Acting on the device

  /// Replaces the fault plan; counts in it start now.
  public func setFaults(_ plan: FaultPlan) {
    faults = plan
    faultBaseBytes = counterValues.bytesNotified
    faultBaseDataFrames = dataFrameOrdinal
    faultBaseDataBytes = counterValues.dataBytesSent
    lossCarry = 0
    stallUntil = nil
    endDataPause()
    connection?.dataPauseSteps = 0
    faultBaseWiFiBytes = counterValues.wifiContentBytesSent
    faultTimer?.cancel()
    faultTimer = nil
    if plan.flashFull, recording != nil {
      stopRecording(reason: RecordingStopReason.flashFull, notify: true)
    }
    if let at = plan.dropLinkAt {
      let time = self.time
      faultTimer = Task {
        do { try await time.sleep(until: at) } catch { return }
        self.timedFaultsDue()
      }
    }
  }

  /// Sets the battery; a subscribed central is notified on 0x2A19.
  public func setBattery(level: UInt8, charging: Bool) {
    batteryLevel = min(level, 100)
    self.charging = charging
    guard var link = connection, link.batteryNotifying else { return }
    link.outgoing.append(
      Connection.Outgoing(
        characteristic: RecorderGATT.batteryLevel, value: [batteryLevel], readyAt: time.now))
    connection = link
    markBusy()
  }

  /// Restarts the firmware: the link drops (the central sees a link loss), a recording in
  /// progress stops, authentication and any sync are forgotten, the random address rotates,
  /// the hotspot vanishes and a Wi-Fi session's TCP connection drops without a close frame.
  /// Flash, settings, name and the clock are kept.
  public func reboot() {
    if recording != nil { stopRecording(reason: RecordingStopReason.power, notify: false) }
    if let link = connection { disconnect(link.id, reason: .linkLoss) }
    dropHotspot(closeCode: nil)
    bootCount += 1
    counterValues.reboots += 1
    pastAddresses.insert(address)
    address = Self.makeAddress(seed: configuration.seed, boot: bootCount)
    publishAdvertisement()
  }

  /// The device leaves radio range: the link is lost and advertising stops being heard.
  public func goOutOfRange() {
    inRange = false
    if let link = connection { disconnect(link.id, reason: .linkLoss) }
  }

  /// The device is back in range: its advertising is heard again.
  public func comeBackInRange() {
    inRange = true
    publishAdvertisement()
  }

  /// The user presses the mark button: a tag at the device's time now.
  public func pressMarkButton() {
    tags.append(Tag(time: unixTimeNow, type: 1, status: 0))
  }

  // MARK: Helpers

  func unixTime(at instant: Duration) -> UInt32 {
    let seconds =
      Int64(configuration.unixTimeOrigin) + clockCorrection + instant.components.seconds
    return UInt32(clamping: seconds)
  }

  var portVersion: UInt16 { configuration.portVersion }

  /// The address of boot `boot` (negative: the one taken after DEPAIR number `-boot`).
  static func makeAddress(seed: UInt64, boot: Int) -> PeripheralID {
    var random = SplitMix64(
      seed: seed &* 0x2545_F491_4F6C_DD1D &+ UInt64(truncatingIfNeeded: boot))
    var bytes = (0..<6).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    bytes[0] |= 0xC0  // random static address: top two bits set
    let text = bytes.map { byte in
      let digits = String(byte, radix: 16, uppercase: true)
      return digits.count == 1 ? "0" + digits : digits
    }.joined(separator: ":")
    return PeripheralID(text)
  }
}

/// Why a recording stopped, as REC_STOP / REC_PAUSE `reason` [project]: the real codes are
/// unknown.
public enum RecordingStopReason {
  /// The user or the app asked.
  public static let requested: UInt8 = 0
  /// The flash is full.
  public static let flashFull: UInt8 = 1
  /// The recording reached its maximum length (5 hours).
  public static let lengthLimit: UInt8 = 2
  /// Power loss or reboot (never notified: the link is gone).
  public static let power: UInt8 = 3
}

/// One frame on the vendor characteristics, as the device saw it.
public enum WireEvent: Sendable, Equatable {
  /// A frame the phone wrote and the device took: on a Mode B device as it opened (a
  /// sealed write refused is not traced).
  case written([UInt8])
  /// A control frame (`01`) the device notified.
  case notified([UInt8])
}
