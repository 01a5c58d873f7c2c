import Foundation
import RecorderKit

/// What the facade runs on: the Bluetooth central, the storage root, the clock, the beacon
/// service and, for Wi-Fi Fast Transfer, the hotspot joiner and the phone's WebSocket server. Set it with ``PlaudDeviceAgent/configure(_:)`` before the first access to
/// ``PlaudDeviceAgent/shared`` (the vendor's SDK has no such hook: it always uses
/// CoreBluetooth). On Linux, in CI and in the iOS Simulator, pass a `TCPCentral` connected to
/// `recorder emulate`; in tests, an `EmulatorCentral` and a manual clock.
public struct PlaudSDKConfiguration: Sendable {
  /// The central to scan and connect with; nil reports `bleConnectState(-1)` and
  /// `bleScanOverTime()` (no radio).
  public var central: (any Central)?
  /// Where the journal, raw device files and default exports live (shared/DESIGN.md).
  public var storageRoot: String
  /// The clock every wait goes through.
  public var clock: AnyClock
  /// Beacon wake-up (iOS: Core Location; elsewhere injected).
  public var beaconMonitor: any BeaconMonitor
  /// How long `startScan()` listens before stopping (and `bleScanOverTime()` if nothing was
  /// heard).
  public var scanTimeout: Duration = .seconds(30)
  /// How long `connectBySN(_:)` looks for the serial.
  public var findTimeout: Duration = .seconds(10)
  /// RecorderKit addition: after a link the app did not end is lost, keep a pending
  /// connect to the same recorder (RecorderKit's `Recorders.keepConnected`): when it is
  /// back in range the session comes up again with no scan and the connect's callbacks
  /// (`bleConnectState(1)`, `bleBind`, …) run, also while the app is suspended on iOS (the
  /// system completes the connect and wakes or relaunches the app). Any connect,
  /// `disconnect()` or depair withdraws it. Default true.
  public var reconnectsWhenInRange = true
  /// Wall-clock unix seconds (TIME_SYNC, LIST tags); replace for deterministic tests.
  public var unixTime: @Sendable () -> UInt32 = {
    UInt32(clamping: Int(Date().timeIntervalSince1970))
  }
  /// Local time-zone offset in seconds, sent with TIME_SYNC and reported by `bleBind`.
  public var timeZoneSeconds: @Sendable () -> Int = { TimeZone.current.secondsFromGMT() }
  /// Where the user's Mode B key lives (devices with portVersion 20 and up, PROTOCOL.md §9):
  /// made on first use, one per user token (a new token gets a new key, as the vendor
  /// reference refreshes it), read only when such a device is met. nil: 0600 files under
  /// `<storageRoot>/keys`; on iOS the default configuration uses the Keychain.
  public var userKeyStore: (any SecureKeyStore)?
  /// The OS's background time (iOS: `UIApplication.beginBackgroundTask`, the default there).
  /// Each command of ``PlaudDeviceAgent`` and ``PlaudWiFiAgent`` then runs inside a
  /// background task, so it can finish after the app leaves the foreground. When the system
  /// ends that time, a transfer in flight stops at its next frame with its bytes kept, and
  /// ``PlaudDeviceAgent/lastError`` is ``PlaudSDKError/backgroundTimeEnded(sessionId:)``
  /// (an export's `onError` says so and the next export resumes; `syncFile` ends with
  /// `wifiSyncFileStop(0)`, `startDownloadAll` with `wifiDownloadAllCompleted`); other
  /// commands finish, and the task ends at once as iOS requires. nil (Linux, tests without
  /// one): commands just run.
  public var backgroundTasks: (any BackgroundTaskMirror)?
  /// When `exportAudio` converts (RecorderKit's `ExportPolicy`): at once (the default, the
  /// vendor's behaviour), or deferred, to spend the encoder's CPU on external power. Deferred,
  /// `exportAudio` transfers, verifies and stores the recording and journals its conversion as
  /// owed; its callback hears `onProgress(99, "stored; conversion deferred")` and gets
  /// `onComplete(outputPath:)` only when the conversion has run
  /// (``PlaudDeviceAgent/convertPendingAudio(completion:)`` or the processing task of
  /// ``PlaudDeviceAgent/registerAudioConversionTask(identifier:scheduler:)``), in this
  /// process and while the app retains it. See docs/export-policy.md.
  public var exportPolicy: ExportPolicy = .convertImmediately

  // MARK: Cloud (PROTOCOL.md §8, docs/cloud.md)

  /// Where the agent's cloud requests go: `initSDK`'s `customDomain` is set on it, and
  /// every request (firmware check and download, Mode B serial signatures, binding) reads
  /// its current domain. Default ``PlaudDomainManager/shared`` (the vendor's one manager);
  /// give an agent of your own its own ``PlaudDomainManager/init()``.
  public var domainManager: PlaudDomainManager = .shared
  /// Retries and time limits of the agent's cloud requests (RecorderKit's
  /// `CloudClient.Configuration`); its clock is replaced by ``clock``.
  public var cloud = CloudClient.Configuration()

  // MARK: Wi-Fi Fast Transfer (PROTOCOL.md §6)

  /// Joins the device's hotspot for ``PlaudWiFiAgent/connectWifi(_:_:_:)``: the platform's
  /// part of Wi-Fi Fast Transfer. On iOS an adapter over `NEHotspotConfiguration`; on Linux
  /// and in tests nobody joins a real network, so inject a joiner for the emulator
  /// (`TCPHotspotJoiner(host:port:)` to `recorder emulate`'s join port). nil (the default):
  /// every Wi-Fi call fails through its callbacks (`wifiHandshake(-1)`, `wifiCommonErr`, …)
  /// and ``PlaudDeviceAgent/lastError`` says no joiner is configured. Opening the hotspot
  /// over BLE (`setDeviceWiFi(open:)`) does not need it.
  public var hotspotJoiner: (any HotspotJoiner)?
  /// Where the phone's WebSocket server listens once the hotspot is joined (the device
  /// connects to it as a client): port 8081 on a phone [sdk], on the hotspot interface's
  /// address (the vendor listens on `0.0.0.0`; we refuse every-interface listening, see
  /// `WiFiLink/Configuration/host`), accepting only the hotspot's gateway; loopback and
  /// port 0 (the system chooses) in tests. `connectTimeout` bounds each join attempt's wait
  /// for the device to connect (``PlaudWiFiAgent/connectWifi(_:_:_:)`` retries within its
  /// own timeout).
  public var wifiServer = WiFiLink.Configuration()
  /// The pause between join attempts inside `connectWifi`'s timeout (the vendor re-applies
  /// the hotspot configuration and retries internally).
  public var wifiRetryInterval: Duration = .seconds(3)
  /// How long each Wi-Fi request (LIST, SYNC, DELETE, STOP) may wait for the device.
  public var wifiResponseTimeout: Duration = .seconds(10)

  /// - Parameters:
  ///   - central: the radio (nil: none).
  ///   - storageRoot: default `<temporary directory>/PlaudDeviceBasicSDK`.
  ///   - clock: default the continuous clock.
  ///   - beaconMonitor: default none (never wakes).
  public init(
    central: (any Central)? = nil,
    storageRoot: String = NSTemporaryDirectory() + "PlaudDeviceBasicSDK",
    clock: AnyClock? = nil,
    beaconMonitor: any BeaconMonitor = UnavailableBeaconMonitor()
  ) {
    self.central = central
    self.storageRoot = storageRoot
    self.clock = clock ?? .continuous
    self.beaconMonitor = beaconMonitor
  }
}
