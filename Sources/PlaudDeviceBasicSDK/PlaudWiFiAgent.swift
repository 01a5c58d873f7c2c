import Foundation
import RecorderConcurrency
import RecorderKit

/// Wi-Fi Fast Transfer (PROTOCOL.md §6), as the vendor's reference has it: after
/// `PlaudDeviceAgent.setDeviceWiFi(open: true)` answers `bleWiFiOpen(0, …)`, join with
/// ``connectWifi(_:_:_:)``, wait for `wifiHandshake(0)`, then list, transfer, export, delete;
/// end with ``disconnect()`` (or `PlaudDeviceAgent.endWiFiTransfer()`) on every path.
///
/// Every method returns at once. Commands run one at a time in call order on the agent's
/// own command stream (the device serves one Wi-Fi request at a time); only the stops act at
/// once on the transfer running. Joining the network is the configured
/// ``PlaudSDKConfiguration/hotspotJoiner``; everything after it is real TCP: our WebSocket
/// server, the device's connection, the §6 session.
///
/// An `NSObject` subclass, as the vendor's; `Sendable`: every stored property is immutable
/// or behind a lock.
public final class PlaudWiFiAgent: NSObject, Sendable {
  /// The agent of ``PlaudDeviceAgent/shared`` (its first use creates that one, so call
  /// ``PlaudDeviceAgent/configure(_:)`` before touching either).
  public static let shared: PlaudWiFiAgent = PlaudDeviceAgent.shared.wifiAgent

  /// The commands `wifiCommonErr` names: their Wi-Fi PDU types (PROTOCOL.md §6). The
  /// device's keep-alive acknowledgement ERR `{cmd:16,status:0}` is not an error and is not
  /// reported.
  public enum Command: Int, Sendable {
    case handshake = 1
    case fileList = 11
    case syncFile = 12
    case deleteFile = 14
    case stopSyncFile = 15
  }

  private let delegateReference: Locked<WeakReference<AnyObject>>
  /// PlaudWiFiSDK's listener (its `WiFiAgent` delegate's adapter), held strongly: it hears
  /// every event, before the delegate.
  private let listenerSlot: Locked<ListenerBox?>
  private let device = Locked<BleDevice.Snapshot?>(nil)
  let queue: DispatchQueue
  private let storageRoot: String
  let core: WiFiCore
  /// Queues a delegate callback on the callback queue, in call order.
  private let emit: @Sendable (@escaping WiFiDelegateEvent) -> Void
  private let commands: AsyncStream<@Sendable () async -> Void>.Continuation
  /// Each command inside a background task; when the time runs out, a transfer in flight
  /// stops (`WiFiSession/stopTransfer()`) and the session stays up.
  private let backgroundCommands: BackgroundCommands

  init(
    configuration: PlaudSDKConfiguration, agentCore: AgentCore, queue: DispatchQueue,
    background: BackgroundTaskRunner?
  ) {
    self.queue = queue
    storageRoot = configuration.storageRoot
    let reference = Locked(WeakReference<AnyObject>(nil))
    delegateReference = reference
    let listening = Locked<ListenerBox?>(nil)
    listenerSlot = listening
    let emit: @Sendable (@escaping WiFiDelegateEvent) -> Void = { event in
      let delegate = reference.current
      let listener = listening.current
      queue.async {
        if let listener { event(listener.listener) }
        guard let target = delegate.value as? any PlaudWiFiAgentProtocol else { return }
        event(target)
      }
    }
    self.emit = emit
    let core = WiFiCore(configuration: configuration, core: agentCore, emit: emit)
    self.core = core
    backgroundCommands = BackgroundCommands(
      runner: background, name: "PlaudDeviceBasicSDK.wifi", timeUp: core.backgroundTimeUp,
      onTimeUp: { core.requestStop() })
    let (stream, continuation) = AsyncStream.makeStream(of: (@Sendable () async -> Void).self)
    commands = continuation
    super.init()
    Task {
      for await command in stream { await command() }
    }
  }

  deinit { commands.finish() }

  /// Queues a delegate callback on the callback queue, in call order.
  func emitEvent(_ event: @escaping WiFiDelegateEvent) { emit(event) }

  private func enqueue(_ work: @escaping @Sendable (WiFiCore) async -> Void) {
    let (core, background) = (self.core, backgroundCommands)
    commands.yield { await background.run { await work(core) } }
  }

  /// The delegate, held weakly. Assign it before ``connectWifi(_:_:_:)``.
  public var delegate: (any PlaudWiFiAgentProtocol)? {
    get { delegateReference.current.value as? any PlaudWiFiAgentProtocol }
    set { delegateReference.withLock { $0 = WeakReference(newValue) } }
  }

  /// PlaudWiFiSDK's listener: hears every event this agent reports (nil: none).
  package var listener: (any PlaudWiFiAgentProtocol)? {
    get { listenerSlot.current?.listener }
    set { listenerSlot.withLock { $0 = newValue.map(ListenerBox.init) } }
  }

  /// Holds the listener.
  private final class ListenerBox: @unchecked Sendable {
    // Safety: set once (under `listenerSlot`'s lock) and then only read; the listener is
    // called on the agent's serial callback queue only.
    let listener: any PlaudWiFiAgentProtocol
    init(_ listener: any PlaudWiFiAgentProtocol) { self.listener = listener }
  }

  /// The device to talk to (set it from `BleAgent.shared.bleDevice` in `bleWiFiOpen`): its
  /// serial checks the device's HELLO. nil: the device the BLE agent connected last.
  public var bleDevice: BleDevice? {
    get { device.current.map(BleDevice.init(snapshot:)) }
    set { device.withLock { $0 = newValue?.snapshot } }
  }

  /// Whether a Wi-Fi session is up (after `wifiHandshake(0)`, until `wifiClose`).
  public var isConnected: Bool { core.state.current.connected }
  /// Whether a single-file transfer (`syncFile`, `exportAudioViaWiFi`) is running.
  public var isDownloading: Bool { core.state.current.downloading }
  /// Whether `startDownloadAll()` is running.
  public var isDownloadingAll: Bool { core.state.current.downloadingAll }
  /// The recording of the transfer running or run last (0 before any).
  public var currentSessionId: Int { core.state.current.currentSessionId }

  // MARK: - Session

  /// Joins the hotspot `wholeName` with `wifiPass` (from `bleWiFiOpen`), waits for the
  /// device to connect to our server and shakes hands, re-joining and retrying internally
  /// until the handshake or `timeout` seconds: `wifiConnectionStatus(wholeName, true)` →
  /// `wifiHandshake(0)`; or `wifiHandshake(status)` → `wifiCommonErr(1, status)` (no hotspot
  /// joiner configured, no BLE token, the device never came, the device refused). A session
  /// already up is closed first. The password is never logged.
  public func connectWifi(_ wholeName: String, _ wifiPass: String, _ timeout: Int = 60) {
    let serial = device.current?.serialNumber
    enqueue {
      await $0.connect(ssid: wholeName, password: wifiPass, timeout: timeout, serial: serial)
    }
  }

  /// Ends the Wi-Fi session: stops a transfer in flight, STOP and a clean WebSocket close,
  /// our server stopped, the hotspot left: `wifiConnectionStatus(ssid, false)` →
  /// `wifiClose(0)` (`wifiClose(-1)` when there was none); then WIFI_CLOSE over BLE when the
  /// hotspot was opened through this facade and BLE is still up.
  public func disconnect() {
    core.requestStop()
    let hotspotWasOpen = core.core.takeHotspotOpen()
    enqueue { await $0.close(reportIdle: true, hotspotWasOpen: hotspotWasOpen) }
  }

  /// RecorderKit's earlier name for ``disconnect()``; the same call.
  public func close() { disconnect() }

  /// `PlaudDeviceAgent.endWiFiTransfer()` / `setDeviceWiFi(open: false)`: as ``disconnect()``
  /// but silent when no Wi-Fi session is up. ``isConnected`` (and so
  /// `PlaudDeviceAgent.isWiFiTransferActive`) is false when this returns: the hotspot is
  /// marked closed and the session as ending at once; the close itself runs in call order.
  func end() {
    core.requestStop()
    let hotspotWasOpen = core.core.takeHotspotOpen()
    core.state.withLock { $0.connected = false }
    enqueue { await $0.close(reportIdle: false, hotspotWasOpen: hotspotWasOpen) }
  }

  // MARK: - Files

  /// Lists the device's recordings over Wi-Fi: `wifiFileList(files)`, or
  /// `wifiFileListFail(status)` → `wifiCommonErr(11, status)`. `uid` tags the request (the
  /// vendor passes a timestamp; RecorderKit numbers its LIST requests itself); `sessionId`
  /// 0 lists everything, otherwise the recordings after it (with `single`, just that one).
  /// `BleFile.offset` is where a transfer would resume, as over BLE.
  public func getFileList(_ uid: Int, _ sessionId: Int, _ single: Bool = false) {
    enqueue { await $0.list(sessionId: sessionId, single: single) }
  }

  /// Streams bytes `[start, end)` of one recording (`end` 0: to its end; `start` a
  /// `BleFile.offset` to resume): `wifiSyncFile(sessionId, 0)` → `wifiSyncFileData`… →
  /// `wifiDataComplete()`; refused: `wifiSyncFile(sessionId, status)` →
  /// `wifiCommonErr(12, status)`; stopped because the system ended the app's background
  /// time: `wifiSyncFileStop(0)` after the data so far, with `lastError`
  /// `backgroundTimeEnded`. Nothing is stored: the app keeps the bytes. `scene` is
  /// accepted for compatibility: RecorderKit always sends the scene the device listed, so a
  /// mismatch cannot get the transfer rejected.
  public func syncFile(_ sessionId: Int, _ start: Int, _ end: Int = 0, _ scene: Int = 1) {
    enqueue { await $0.sync(sessionId: sessionId, start: start, end: end) }
  }

  /// Stops the transfer running now (`syncFile`, `exportAudioViaWiFi`, or the batch of
  /// `startDownloadAll()`): it refuses its next frame, the device is told STOP and the
  /// session stays up. Then `wifiSyncFileStop(0)` (also when nothing was running).
  public func stopSyncFile(_ sessionId: Int, _ scene: Int = 1) {
    core.requestStop()
    let emit = self.emit
    enqueue { _ in emit { $0.wifiSyncFileStop(0) } }
  }

  /// Deletes one recording from the device: `wifiFileDelete(sessionId, 0)`, or
  /// `wifiFileDelete(sessionId, status)` → `wifiCommonErr(14, status)`. Delete only after
  /// the whole batch is downloaded: a delete between downloads stalls the device's next
  /// file [sdk]. (Commands run in call order, so a delete called during `startDownloadAll()`
  /// runs after the batch.) `scene` is accepted for compatibility, as in ``syncFile(_:_:_:_:)``.
  public func deleteFile(_ sessionId: Int, _ scene: Int = 1) {
    enqueue { await $0.delete(sessionId: sessionId) }
  }

  /// Downloads one recording over Wi-Fi and exports it to `outputDir` as `format`, exactly
  /// as `PlaudDeviceAgent.exportAudio` does over BLE (journalled, resumable, verified; the
  /// device copy stays). `callback`: `onProgress(0)` → `onProgress(1…99)` → `onProgress(100)`
  /// → `onComplete(outputPath:)`, or `onError`. The delegate hears the transfer as for
  /// ``syncFile(_:_:_:_:)``. `callback` is held weakly: retain it until it completes.
  public func exportAudioViaWiFi(
    sessionId: Int, outputDir: String, format: AudioExportFormat, channels: Int = 1,
    callback: AudioExportCallback
  ) {
    let report = exportReporter(for: callback, on: self.queue)
    enqueue {
      await $0.export(
        sessionId: sessionId, outputDir: outputDir, format: format, channels: channels,
        report: report)
    }
  }

  /// Downloads every recording, oldest first, storing and exporting each as mp3 to
  /// `<storageRoot>/exports`: `wifiDownloadAllProgress`… → `wifiDownloadAllCompleted`.
  /// Nothing is deleted; call ``deleteFile(_:_:)`` after the batch.
  public func startDownloadAll() {
    startDownloadAll(outputDir: StorageLayout(root: storageRoot).exports)
  }

  /// RecorderKit addition: ``startDownloadAll()`` into `outputDir` as `format`.
  public func startDownloadAll(
    outputDir: String, format: AudioExportFormat = .mp3, channels: Int = 1
  ) {
    enqueue { await $0.downloadAll(outputDir: outputDir, format: format, channels: channels) }
  }

  /// Stops the batch after the file in flight is stopped (STOP; the session stays up); the
  /// batch then reports `wifiDownloadAllCompleted(completed, notDownloaded)`.
  public func stopDownloadAll() { core.requestStop() }
}
