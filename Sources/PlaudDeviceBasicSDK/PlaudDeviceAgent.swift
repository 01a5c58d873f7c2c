import Foundation
import RecorderConcurrency
import RecorderKit

/// The vendor's high-level device facade, backed by RecorderKit: scan, connect, bind,
/// device state, recording, file list, export and delete.
///
/// Every method returns at once; its result arrives on ``delegate`` (or the export callback
/// or completion given) on the facade's own serial callback queue, never the main queue.
/// Device work runs one operation at a time in call order (the device allows one request
/// at a time), so calling `deleteFile` then `exportAudio` from `onComplete` is safe.
///
/// Configure with ``configure(_:)`` before the first access to ``shared``; tests and apps
/// with several radios may also make their own agents with ``init(configuration:)``.
///
/// An `NSObject` subclass, as the vendor's (equality and hashing are identity). `Sendable`:
/// every stored property is immutable or behind a lock.
public final class PlaudDeviceAgent: NSObject, Sendable {
  /// The agent built from the configuration given to ``configure(_:)`` (or
  /// ``PlaudSDKConfiguration/platformDefault``: CoreBluetooth on iOS) on first access.
  public static let shared: PlaudDeviceAgent = {
    let configuration = pendingConfiguration.withLock { pending in
      pending.sharedCreated = true
      return pending.configuration
    }
    return PlaudDeviceAgent(configuration: configuration ?? .platformDefault)
  }()

  private static let pendingConfiguration = Locked<
    (configuration: PlaudSDKConfiguration?, sharedCreated: Bool)
  >(
    (nil, false))

  /// The configuration hook: call once, before the first access to ``shared``. Returns
  /// false (and changes nothing) once ``shared`` exists.
  @discardableResult
  public static func configure(_ configuration: PlaudSDKConfiguration) -> Bool {
    pendingConfiguration.withLock { pending in
      guard !pending.sharedCreated else { return false }
      pending.configuration = configuration
      return true
    }
  }

  /// The queue every callback runs on (serial, never main).
  let callbackQueue = DispatchQueue(label: "PlaudDeviceBasicSDK.callbacks")
  let configuration: PlaudSDKConfiguration
  let core: AgentCore
  /// RecorderKit addition: this agent's Wi-Fi agent (``PlaudWiFiAgent/shared`` is the one of
  /// ``shared``). It shares the callback queue, the BLE session's token and the journal.
  public let wifiAgent: PlaudWiFiAgent
  private let commands: AsyncStream<@Sendable () async -> Void>.Continuation
  private let delegateReference = Locked(WeakReference<AnyObject>(nil))
  /// Each command inside a background task (``PlaudSDKConfiguration/backgroundTasks``).
  private let backgroundCommands: BackgroundCommands
  /// ``bleAgent`` and ``skipPermissionCheck``.
  let settings = Locked<(bleAgent: BleAgent?, skipPermissionCheck: Bool)>((BleAgent.shared, false))

  /// An agent of its own (RecorderKit addition; the vendor has only ``shared``).
  public init(configuration: PlaudSDKConfiguration) {
    self.configuration = configuration
    let (stream, continuation) = AsyncStream.makeStream(of: (@Sendable () async -> Void).self)
    commands = continuation
    let queue = callbackQueue
    let reference = delegateReference
    let source = Locked(WeakReference<PlaudDeviceAgent>(nil))
    core = AgentCore(configuration: configuration) { event in
      let delegate = reference.current
      let agent = source.current.value
      queue.async {
        // PlaudBleSDK's `BleAgent.shared.delegate` hears the same events, first.
        if let agent { BleAgent.shared.deliver(event, from: agent) }
        guard let target = delegate.value as? any PlaudDeviceAgentProtocol else { return }
        event(target)
      }
    }
    let runner = BackgroundCommands.runner(for: configuration)
    backgroundCommands = BackgroundCommands(
      runner: runner, name: "PlaudDeviceBasicSDK.device", timeUp: core.backgroundTimeUp)
    wifiAgent = PlaudWiFiAgent(
      configuration: configuration, agentCore: core, queue: queue, background: runner)
    super.init()
    source.withLock { $0 = WeakReference(self) }
    BleAgent.shared.register(self)
    Task {
      for await command in stream { await command() }
    }
  }

  deinit { commands.finish() }

  /// The delegate, held weakly (assign it once; it drives the whole BLE lifecycle).
  public var delegate: (any PlaudDeviceAgentProtocol)? {
    get { delegateReference.current.value as? any PlaudDeviceAgentProtocol }
    set { delegateReference.withLock { $0 = WeakReference(newValue) } }
  }

  /// RecorderKit addition: the detail of the last failure reported through a callback.
  public var lastError: PlaudSDKError? { core.lastErrorValue }

  /// Queues a command: one at a time, in call order, each inside a background task.
  func enqueue(_ work: @escaping @Sendable (AgentCore) async -> Void) {
    let (core, background) = (self.core, backgroundCommands)
    commands.yield { await background.run { await work(core) } }
  }

  // MARK: - Initialisation

  /// Sets the user token (a JWT: the handshake token is its `sub`, PROTOCOL.md §8) and the
  /// cloud domain, as ``setUserAccessToken(_:)`` and
  /// ``PlaudDomainManager/setCustomDomain(_:)`` do. `customDomain` has no scheme
  /// (`platform-us.plaud.ai`: https; a loopback host with a port, `127.0.0.1:PORT`, is plain
  /// http for the cloud emulator: docs/cloud.md, "The domain rule") and every cloud request
  /// goes to it. `extra` is accepted and ignored: no source of ours says what its keys mean.
  /// A malformed token is reported when a connection is attempted: `bleConnectState(-1)`,
  /// with ``lastError`` saying why.
  public func initSDK(
    userAccessToken: String, customDomain: String, extra: [String: String] = [:]
  ) {
    core.setUserToken(userAccessToken, domain: customDomain)
  }

  /// Replaces the user token at once: every cloud request from now on carries it, the next
  /// handshake (BLE, or Wi-Fi while BLE is down) uses its `sub`, and the Mode B key pair is
  /// that user's (made now if the user has none: a new user gets a new key pair; the same
  /// user keeps the key its devices and end-to-end encrypted recordings hold). nil clears
  /// the credentials: the token and the handshake token are forgotten, so connects report
  /// ``PlaudSDKError/noUserToken`` until a token is set (the user's key stays in the key
  /// store, so recordings already made stay readable).
  public func setUserAccessToken(_ token: String?) {
    core.setUserToken(token, domain: nil)
  }

  // MARK: - Scanning and connecting

  /// Scans for recorders: `bleScanResult` as they are heard, `bleScanOverTime` if none is
  /// within the scan timeout.
  public func startScan() { enqueue { await $0.startScan() } }

  /// Stops a scan.
  public func stopScan() { enqueue { await $0.stopScan() } }

  /// Connects and authenticates with the user token's handshake token.
  public func connectBleDevice(bleDevice: BleDevice) {
    let device = bleDevice.snapshot
    enqueue { await $0.connect(device, deviceToken: nil) }
  }

  /// Connects with `deviceToken` as the handshake token's source (normalised like `sub`:
  /// a leading `client_user_` and every `-` removed).
  public func connectBleDevice(bleDevice: BleDevice, deviceToken: String) {
    let device = bleDevice.snapshot
    enqueue { await $0.connect(device, deviceToken: deviceToken) }
  }

  /// Connects to a recorder still locked to an earlier account with that account's id
  /// (one entry of the cloud's `bind_history`) as the handshake token, forcing a clear of its
  /// enrolled key (`FE20`) with the current user's serial signature and key. The outcome
  /// arrives as for ``connectBleDevice(bleDevice:)``: `bleBind` status 0 means the id matched;
  /// then ``depair(clear:)`` frees the recorder, and a rescan (its address may change) and a
  /// connect as the current user follow. `Recorders.recoverBoundRecorder(serial:cloud:)` runs
  /// the whole flow.
  public func recoveryConnectBleDevice(bleDevice: BleDevice, historicalUserId: String) {
    let device = bleDevice.snapshot
    enqueue { await $0.connect(device, deviceToken: nil, historicalUserId: historicalUserId) }
  }

  /// Finds the recorder with serial `sn` and connects (the beacon wake-up recipe).
  public func connectBySN(_ sn: String) {
    let device = BleDevice.Snapshot(serialNumber: sn, name: "", rssi: 0, discovered: nil)
    enqueue { await $0.connect(device, deviceToken: nil) }
  }

  /// RecorderKit addition: ends the session (SET_ACTIVE 00, disconnect): `bleConnectState(0)`.
  public func disconnect() { enqueue { await $0.disconnect() } }

  /// Clears the pairing on the device (DEPAIR), then disconnects: `bleDepair(0)` →
  /// `bleConnectState(0)`, or `bleDepair(-1)`. `clear: true` (what the reference's unbind
  /// flow passes) clears the connections and the pairing; neither value erases recordings,
  /// so an unbind never loses unsynced audio. Erasing is RecorderKit's
  /// `SyncWorkspace.eraseRecordings(on:force:)`, which refuses while recordings are unsynced.
  public func depair(clear: Bool = false) { enqueue { await $0.depair(clear: clear) } }

  // MARK: - Files

  /// Lists recordings after `startSessionId` (0: all) on `bleFileList`.
  public func getFileList(startSessionId: Int) {
    enqueue { await $0.fileList(after: startSessionId) }
  }

  /// Transfers one recording (resuming from any durable bytes), verifies it, stores it and
  /// exports it to `outputDir` as `format`. The device copy stays: call `deleteFile` after
  /// `onComplete`. `callback` is held weakly: retain it until it completes. With
  /// ``PlaudSDKConfiguration/exportPolicy`` deferred, the conversion waits:
  /// `onProgress(99, "stored; conversion deferred")` says the recording is stored and
  /// verified, and `onComplete` comes only once ``convertPendingAudio(completion:)`` (or the
  /// conversion task) has written the file.
  public func exportAudio(
    sessionId: Int, outputDir: String, format: AudioExportFormat, channels: Int = 1,
    callback: AudioExportCallback
  ) {
    let report = exportReporter(for: callback, on: callbackQueue)
    enqueue {
      await $0.export(
        sessionId: sessionId, outputDir: outputDir, format: format, channels: channels,
        report: report)
    }
  }

  /// Deletes one recording from the device; `bleDeleteFile` answers.
  public func deleteFile(sessionId: Int) { enqueue { await $0.delete(sessionId: sessionId) } }

  // MARK: - Recording

  /// Starts recording in the normal scene (REC_START mode 1, scene 1); `bleRecordStart`
  /// answers (status ≠ 0: refused, with the device's code).
  public func startRecord() { startRecord(scene: 1) }
  /// RecorderKit addition: starts recording in `scene` (1 normal, 7 call).
  public func startRecord(scene: Int) { enqueue { await $0.record(.start(scene: scene)) } }
  /// Pauses the recording; `bleRecordPause` answers.
  public func pauseRecord() { enqueue { await $0.record(.pause) } }
  /// Resumes the recording; `bleRecordResume` answers.
  public func resumeRecord() { enqueue { await $0.record(.resume) } }
  /// Stops the recording; `bleRecordStop` answers.
  public func stopRecord() { enqueue { await $0.record(.stop) } }

  // MARK: - Wi-Fi Fast Transfer

  /// `open: true` asks the connected device to raise its hotspot (WIFI_OPEN with a fresh
  /// eight-character password): `bleWiFiOpen(0, wifiName, wholeName, wifiPass)` where both
  /// names are the SSID to join (`PLAUD` + the serial's last four characters), or
  /// `bleWiFiOpen(-1, "", "", "")` (not connected, no Wi-Fi, refused; ``lastError`` says
  /// which). Then hand over to ``PlaudWiFiAgent/connectWifi(_:_:_:)``.
  ///
  /// `open: false` ends Wi-Fi: a Wi-Fi session still up is closed first (STOP, clean close;
  /// `wifiConnectionStatus(ssid, false)` → `wifiClose(0)` on the Wi-Fi delegate), then
  /// WIFI_CLOSE over BLE. No callback of its own.
  public func setDeviceWiFi(open: Bool) {
    if open {
      enqueue { await $0.openHotspot() }
    } else {
      wifiAgent.end()
    }
  }

  /// Ends Wi-Fi Fast Transfer on every exit path (success, failure, cancel): closes the
  /// Wi-Fi session if one is up and drops the hotspot with WIFI_CLOSE if it is still up.
  /// The WIFI_CLOSE only reaches the device while BLE is up; otherwise the device's own
  /// ~2 minute idle timeout ends it. Safe to call more than once.
  public func endWiFiTransfer() { wifiAgent.end() }

  /// Whether Wi-Fi Fast Transfer is under way: the hotspot opened through this agent and not
  /// closed yet, or a Wi-Fi session up. False from the moment ``endWiFiTransfer()`` or
  /// `setDeviceWiFi(open: false)` returns (the close itself then runs in call order).
  public var isWiFiTransferActive: Bool { core.isHotspotOpen || wifiAgent.isConnected }

  // MARK: - Beacon wake-up

  /// Starts listening for beacon wake-ups (`bleIBeaconWakeupTriggered`).
  public func activateBeaconMonitoring() { core.activateBeacons() }

  /// Replaces the serial numbers to be woken for, in priority order: each needs its beacon
  /// identity in the configuration's monitor (`BeaconIdentities`), and iOS watches at most 20
  /// regions per app, so serials past the twentieth (and any without an identity) are not
  /// watched. The beacon monitor's `monitor(serials:)` answers which are.
  public func updateBeaconMonitoredDevices(serialNumbers: [String]) {
    let monitor = configuration.beaconMonitor
    enqueue { _ in await monitor.monitor(serials: serialNumbers) }
  }

  /// Whether the platform allows beacon wake-ups ("Always" location).
  public var isBeaconLocationAlwaysGranted: Bool {
    configuration.beaconMonitor.authorization == .always
  }

  /// Whether asking for "Always" can still succeed.
  public var canRequestBeaconLocationAlwaysUpgrade: Bool {
    let authorization = configuration.beaconMonitor.authorization
    return authorization == .whenInUse || authorization == .notDetermined
  }

  /// Asks for "Always" location; the answer on the callback queue.
  public func requestBeaconLocationAlwaysPermission(completion: @escaping (Bool) -> Void) {
    let closure = AppClosure(completion)
    let monitor = configuration.beaconMonitor
    let queue = callbackQueue
    Task {
      let granted = await monitor.requestAlwaysAuthorization()
      queue.async { closure.body(granted) }
    }
  }

  /// Turns the device's iBeacon on (1) or off (0): setting 49.
  public func setIBeaconWakeupEnabled(value: Int) {
    enqueue { await $0.writeSetting(.iBeaconWakeup, value: value) }
  }
}
