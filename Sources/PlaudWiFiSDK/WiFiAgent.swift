import Foundation
import PlaudBleSDK
import PlaudDeviceBasicSDK
import RecorderConcurrency

/// The delegate of PlaudWiFiSDK's ``WiFiAgent``: all 19 members are required, as the
/// vendor's. It hears the same Wi-Fi session as `PlaudWiFiAgentProtocol` (the facade's),
/// on the facade's callback queue; members for features RecorderKit does not support (the
/// firmware push over Wi-Fi) are called only with a failure when their command is used.
public protocol WiFiAgentProtocol: AnyObject {
  func wifiCommonErr(_ cmd: Int, _ status: Int)
  func wifiHandshake(_ status: Int)
  func wifiPower(_ power: Int, _ voltage: Int)
  func wifiFileListFail(_ status: Int)
  func wifiFileList(_ files: [BleFile])
  func wifiSyncFile(_ sessionId: Int, _ status: Int)
  func wifiSyncFileData(_ sessionId: Int, _ offset: Int, _ count: Int, _ binData: Data)
  func wifiDataComplete()
  func wifiSyncFileStop(_ status: Int)
  func wifiFileDelete(_ sessionId: Int, _ status: Int)
  func wifiClientFail()
  func wifiClose(_ status: Int)
  func wifiRateFail(_ status: Int)
  func wifiRate(_ instantRate: Int, _ averageRate: Int, _ lossRate: Double)
  func wifiLogsFail(_ status: Int)
  func wifiLogs(_ logData: Data?)
  func wifiTips(_ tips: Int)
  func penRequestOTAData(start: Int, end: Int, payloadSize: Int, uid: Int, sendRatePPS: Int)
  func wifiOTAStatus(_ status: Int, _ uid: Int)
}

/// What WiFiAgent keeps (an app's delegate, its settings), one per process.
struct WiFiLowerState {
  static let shared = Locked(WiFiLowerState())
  var delegate = WeakObject(nil)
  var connectLoop = false
  var queue = DispatchQueue(label: "PlaudWiFiSDK.callbacks")
  var handshakeOk = false
  var lastError: PlaudSDKError?
}

/// A weak reference to the app's delegate.
///
/// `@unchecked Sendable` on the facade's contract: the object is only invoked on one serial
/// queue and never mutated; weak loads are atomic in the Swift runtime.
final class WeakObject: @unchecked Sendable {
  private(set) weak var value: AnyObject?
  init(_ value: AnyObject?) { self.value = value }
}

/// PlaudWiFiSDK's Wi-Fi agent: the vendor's lower-level door onto the facade's Wi-Fi
/// transfer (the `PlaudWiFiAgent` of the facade agent `BleAgent` stands for; one session,
/// one server). No public initialiser: ``shared`` is the one.
public final class WiFiAgent: NSObject, Sendable {
  /// The one agent.
  public static let shared = WiFiAgent()

  private override init() { super.init() }

  /// The facade's Wi-Fi agent (nil, with ``lastError``, when no facade agent exists).
  func facade(_ member: String) -> PlaudWiFiAgent? {
    guard let wifi = BleAgent.shared.agent?.wifiAgent else {
      WiFiLowerState.shared.withLock { $0.lastError = .notConnected }
      wlog("WiFiAgent.\(member): \(PlaudSDKError.notConnected)")
      return nil
    }
    return wifi
  }

  /// Runs `call` on the delegate on ``cmdDelegateQueue``.
  static func send(_ call: @escaping @Sendable (any WiFiAgentProtocol) -> Void) {
    let (delegate, queue) = WiFiLowerState.shared.withLock { ($0.delegate, $0.queue) }
    queue.async {
      guard let target = delegate.value as? any WiFiAgentProtocol else { return }
      call(target)
    }
  }

  func unsupported(
    _ member: String, _ reason: String, own: (@Sendable (any WiFiAgentProtocol) -> Void)? = nil
  ) {
    let error = PlaudSDKError.notSupported(member: member, reason: reason)
    WiFiLowerState.shared.withLock { $0.lastError = error }
    wlog("WiFiAgent.\(member): \(error)")
    if let own { Self.send(own) }
  }

  /// RecorderKit addition: the last failure of a WiFiAgent command.
  public var lastError: PlaudSDKError? { WiFiLowerState.shared.current.lastError }

  /// Kept for the app: RecorderKit's join retries within `connectWifi`'s time itself.
  public var connectLoop: Bool {
    get { WiFiLowerState.shared.current.connectLoop }
    set { WiFiLowerState.shared.withLock { $0.connectLoop = newValue } }
  }
  /// Whether our WebSocket server is up (a Wi-Fi session is).
  public var isServerStart: Bool { isClientOpen }
  /// Whether the device is connected to our server.
  public var isClientOpen: Bool { BleAgent.shared.agent?.wifiAgent.isConnected ?? false }
  /// The Wi-Fi PDU version RecorderKit speaks (PROTOCOL.md §6): 1.
  public var wifiVersion: Int { 1 }
  /// Whether the last handshake passed (`wifiHandshake(0)`) and the session is up.
  public var isHandshakeOk: Bool { isClientOpen && WiFiLowerState.shared.current.handshakeOk }
  /// The recording of the transfer running or run last (0 before any).
  public var sessionId: Int { BleAgent.shared.agent?.wifiAgent.currentSessionId ?? 0 }
  /// Whether a transfer is running.
  public var isDownloading: Bool { BleAgent.shared.agent?.wifiAgent.isDownloading ?? false }
  /// The delegate (held weakly): ``WiFiAgentProtocol``, on ``cmdDelegateQueue``.
  public var delegate: (any WiFiAgentProtocol)? {
    get { WiFiLowerState.shared.current.delegate.value as? any WiFiAgentProtocol }
    set {
      WiFiLowerState.shared.withLock { $0.delegate = WeakObject(newValue) }
      BleAgent.shared.agent?.wifiAgent.listener = newValue == nil ? nil : WiFiListener()
    }
  }
  /// Where the delegate is called (serial by default, never the main queue).
  public var cmdDelegateQueue: DispatchQueue {
    get { WiFiLowerState.shared.current.queue }
    set { WiFiLowerState.shared.withLock { $0.queue = newValue } }
  }
  /// The device to talk to (the facade's `PlaudWiFiAgent.bleDevice`).
  public var bleDevice: BleDevice? {
    get { BleAgent.shared.agent?.wifiAgent.bleDevice }
    set { facade("bleDevice")?.bleDevice = newValue }
  }

  /// Logging on or off: lines go to `backBlock` (``BleLogger``'s write-log block).
  public func openReleaseLog(_ opened: Bool, _ backBlock: ((String) -> Void)? = nil) {
    BleLogger.shared.setLog(opened: opened, wlogBlock: backBlock)
  }
  /// Logging on or off: lines go to `backBlock`.
  public func openLog(_ opened: Bool, _ backBlock: ((String) -> Void)? = nil) {
    BleLogger.shared.setLog(opened: opened, logBlock: backBlock, wlogBlock: backBlock)
  }
  /// Waits for the device on the hotspot `ssid` already joined, up to `overtimeSec`.
  public func listenPort(_ ssid: String, _ overtimeSec: Int = 30) {
    facade("listenPort(_:_:)")?.listenPort(ssid, overtimeSec)
  }
  /// Joins the hotspot and shakes hands (the facade's `connectWifi`): `wifiHandshake`.
  /// `needRetry` changes nothing: RecorderKit re-joins and retries within `overtimeSec`.
  public func connectWifi(
    _ ssid: String, _ passphrase: String, _ overtimeSec: Int = 60, _ needRetry: Bool = true
  ) {
    attach()
    facade("connectWifi(_:_:_:_:)")?.connectWifi(ssid, passphrase, overtimeSec)
  }
  /// Gives up joining: ends the Wi-Fi session being set up.
  public func cancelConnectWifi() { facade("cancelConnectWifi()")?.disconnect() }
  /// Not supported by RecorderKit: the system's stored Wi-Fi networks are the app's.
  public func clearAllWiFiConfigurations() {
    unsupported("clearAllWiFiConfigurations()", "stored Wi-Fi networks are the system's")
  }
  /// Not supported by RecorderKit (as ``clearAllWiFiConfigurations()``).
  public func clearAllWiFiConfigurationsCompat() {
    unsupported("clearAllWiFiConfigurationsCompat()", "stored Wi-Fi networks are the system's")
  }
  /// Ends the Wi-Fi session (`wifiClose`).
  public func disconnect() { facade("disconnect()")?.disconnect() }

  /// Re-installs the listener on the facade agent now in use (it may have been made after
  /// the delegate was set).
  func attach() {
    guard WiFiLowerState.shared.current.delegate.value != nil,
      let wifi = BleAgent.shared.agent?.wifiAgent, wifi.listener == nil
    else { return }
    wifi.listener = WiFiListener()
  }
}

extension WiFiAgent {
  // The vendor's WebSocket server callbacks: RecorderKit's own server drives the session,
  // so these are told nothing by it; an app calling them changes nothing but the log.

  /// Our server started (RecorderKit's server reports this itself).
  public func serverDidStart() { mlog("WiFiAgent: server started") }
  /// Our server failed.
  public func serverDidFailWithError(_ error: any Error) {
    wlog("WiFiAgent: server failed: \(error)")
  }
  /// Our server stopped.
  public func serverDidStop() { mlog("WiFiAgent: server stopped") }
  /// The device connected.
  public func clientDidOpen() { mlog("WiFiAgent: device connected") }
  /// Text from the device (the §6 session uses binary PDUs only).
  public func clientDidReceiveText(_ text: String) {
    mlog("WiFiAgent: text from the device ignored")
  }
  /// Binary from the device (RecorderKit's session parses its own).
  public func clientDidReceive(_ data: Data) { mlog("WiFiAgent: \(data.count) bytes") }
  /// The device's connection failed.
  public func clientDidFailWithError(_ error: any Error) {
    wlog("WiFiAgent: device failed: \(error)")
  }
  /// The device's connection closed.
  public func clientDidClose(withCode code: Int, reason: String, wasClean: Bool) {
    mlog("WiFiAgent: device closed \(code)")
  }
}

extension WiFiAgent {
  /// Whether the device is connected to our server.
  public func isWebSocketConnected() -> Bool { isClientOpen }
  /// The device's logs over Wi-Fi (the facade's `getDeviceLogs`).
  public func appGetLogs(_ begin: Bool) { facade("appGetLogs(_:)")?.getDeviceLogs(begin) }
  /// The Wi-Fi rate test (the facade's `startRateTest`).
  public func appWiFiRate(_ onOff: Bool, _ packSize: Int) {
    facade("appWiFiRate(_:_:)")?.startRateTest(onOff, packSize)
  }
  /// DELETE over Wi-Fi: `wifiFileDelete`.
  public func appDeleteFile(_ sessionId: Int, _ scene: Int = 1) {
    facade("appDeleteFile(_:_:)")?.deleteFile(sessionId, scene)
  }
  /// Not supported by RecorderKit (the exit-time extension PDU is unknown): `wifiTips(-1)`.
  public func appExtendWifiExitTime() {
    unsupported(
      "appExtendWifiExitTime()", "the exit-time extension is unknown", own: { $0.wifiTips(-1) })
  }
  /// STOP of the transfer: `wifiSyncFileStop`.
  public func appStopSyncFile(_ sessionId: Int, _ scene: Int = 1) {
    facade("appStopSyncFile(_:_:)")?.stopSyncFile(sessionId, scene)
  }
  /// A transfer of `[start, end)`: `wifiSyncFile`, `wifiSyncFileData`…, `wifiDataComplete`.
  public func appSyncFile(_ sessionId: Int, _ start: Int, _ end: Int = 0, _ scene: Int = 1) {
    facade("appSyncFile(_:_:_:_:)")?.syncFile(sessionId, start, end, scene)
  }
  /// LIST over Wi-Fi: `wifiFileList`.
  public func appGetFileList(_ uid: Int, _ sessionId: Int, _ single: Bool = false) {
    facade("appGetFileList(_:_:_:)")?.getFileList(uid, sessionId, single)
  }
  /// Not supported by RecorderKit (the firmware push over Wi-Fi is unknown):
  /// `wifiOTAStatus(-1, uid)`.
  public func startPushOTA(_ uid: Int, _ fileSize: Int, crc: Int, _ toVersion: Int) {
    unsupported(
      "startPushOTA(_:_:crc:_:)", Self.otaReason, own: { $0.wifiOTAStatus(-1, uid) })
  }
  /// Not supported by RecorderKit: `wifiOTAStatus(-1, uid)`.
  public func sendFilePackToPen(
    type: Int, start: Int32, len: Int32, last: Bool, uid: Int32, binData: Data?
  ) {
    unsupported(
      "sendFilePackToPen(type:start:len:last:uid:binData:)", Self.otaReason,
      own: { $0.wifiOTAStatus(-1, Int(uid)) })
  }

  static let otaReason = "the firmware push over Wi-Fi is unknown"
}

extension WiFiAgent {
  /// The Wi-Fi network the phone is on now, as the facade's hotspot joiner reports it.
  public func getCurrentWiFiName() -> String? {
    BleAgent.shared.agent?.wifiAgent.getCurrentWiFiName()
  }
  /// As ``getCurrentWiFiName()``, asked once: the joiner answers at once, so there is
  /// nothing to retry (`maxRetries` and `delay` change nothing).
  public func getCurrentWiFiNameWithRetry(maxRetries: Int = 3, delay: TimeInterval = 1.0)
    -> String?
  {
    getCurrentWiFiName()
  }
}

/// Carries the facade's Wi-Fi events to ``WiFiAgent``'s delegate.
final class WiFiListener: PlaudWiFiAgentProtocol, Sendable {
  func wifiHandshake(_ status: Int) {
    WiFiLowerState.shared.withLock { $0.handshakeOk = status == 0 }
    WiFiAgent.send { $0.wifiHandshake(status) }
  }
  func wifiFileList(_ files: [BleFile]) {
    let carried = files.map(HandedOver.init)
    WiFiAgent.send { $0.wifiFileList(carried.map(\.object)) }
  }
  func wifiFileListFail(_ status: Int) { WiFiAgent.send { $0.wifiFileListFail(status) } }
  func wifiSyncFile(_ sessionId: Int, _ status: Int) {
    WiFiAgent.send { $0.wifiSyncFile(sessionId, status) }
  }
  func wifiSyncFileData(_ sessionId: Int, _ offset: Int, _ count: Int, _ binData: Data) {
    WiFiAgent.send { $0.wifiSyncFileData(sessionId, offset, count, binData) }
  }
  func wifiDataComplete() { WiFiAgent.send { $0.wifiDataComplete() } }
  func wifiSyncFileStop(_ status: Int) { WiFiAgent.send { $0.wifiSyncFileStop(status) } }
  func wifiFileDelete(_ sessionId: Int, _ status: Int) {
    WiFiAgent.send { $0.wifiFileDelete(sessionId, status) }
  }
  func wifiCommonErr(_ cmd: Int, _ status: Int) { WiFiAgent.send { $0.wifiCommonErr(cmd, status) } }
  func wifiClose(_ status: Int) {
    WiFiLowerState.shared.withLock { $0.handshakeOk = false }
    WiFiAgent.send { $0.wifiClose(status) }
  }
  func wifiPower(_ power: Int, _ voltage: Int) { WiFiAgent.send { $0.wifiPower(power, voltage) } }
  func wifiClientFail() { WiFiAgent.send { $0.wifiClientFail() } }
  func wifiRateFail(_ status: Int) { WiFiAgent.send { $0.wifiRateFail(status) } }
  func wifiRate(_ instantRate: Int, _ averageRate: Int, _ lossRate: Double) {
    WiFiAgent.send { $0.wifiRate(instantRate, averageRate, lossRate) }
  }
  func wifiLogsFail(_ status: Int) { WiFiAgent.send { $0.wifiLogsFail(status) } }
  func wifiLogs(_ logData: Data?) { WiFiAgent.send { $0.wifiLogs(logData) } }
  func wifiTips(_ tips: Int) { WiFiAgent.send { $0.wifiTips(tips) } }
}

/// The vendor's Wi-Fi file agent: the same facade Wi-Fi session by another name.
public final class Agent: NSObject, Sendable {
  /// The one agent.
  public static let shared = Agent()

  private override init() { super.init() }

  /// Whether the device is connected over Wi-Fi.
  public func isDeviceConnect() -> Bool { WiFiAgent.shared.isClientOpen }
  /// The device Wi-Fi talks to.
  public func bleDevice() -> BleDevice? { WiFiAgent.shared.bleDevice }
  /// LIST over Wi-Fi: `wifiFileList`.
  public func getFileList(_ uid: Int, _ sessionId: Int, _ single: Bool = false) {
    WiFiAgent.shared.appGetFileList(uid, sessionId, single)
  }
  /// A transfer (`decode` changes nothing: Wi-Fi delivers the device's bytes).
  public func syncFile(
    _ sessionId: Int, _ start: Int, _ end: Int = 0, _ decode: Bool = false, _ scene: Int = 1
  ) {
    WiFiAgent.shared.appSyncFile(sessionId, start, end, scene)
  }
  /// STOP of the transfer.
  public func stopSyncFile(_ sessionId: Int, _ scene: Int = 1) {
    WiFiAgent.shared.appStopSyncFile(sessionId, scene)
  }
  /// DELETE over Wi-Fi.
  public func deleteFile(_ sessionId: Int, _ scene: Int = 1) {
    WiFiAgent.shared.appDeleteFile(sessionId, scene)
  }
  /// The recording of the transfer running or run last.
  public func sessionId() -> Int { WiFiAgent.shared.sessionId }
  /// Whether a transfer is running.
  public func isDownloading() -> Bool { WiFiAgent.shared.isDownloading }
  /// Whether the device is recording (from BLE: `BleAgent.shared.isRecording`).
  public func isRecording() -> Bool { BleAgent.shared.isRecording }
}

/// The vendor's labelled dispatch work items: `execute` runs `work` asynchronously on a
/// queue of its own unless cancelled first; the returned block cancels it.
public final class GCDTool: Sendable {
  /// The one tool.
  public static let shared = GCDTool()
  /// A block of no arguments.
  public typealias AnythingBlock = () -> Void

  private let items = Locked<[String: DispatchWorkItem]>([:])
  private let queue = DispatchQueue(label: "PlaudWiFiSDK.GCDTool")

  private init() {}

  /// Runs `work` under `identifier` (replacing, and cancelling, one of the same label that
  /// has not run yet); returns a block that cancels it.
  public func execute(label identifier: String, _ work: @escaping @convention(block) () -> Void)
    -> AnythingBlock
  {
    let item = DispatchWorkItem(block: work)
    items.withLock { $0.updateValue(item, forKey: identifier) }?.cancel()
    queue.async(execute: item)
    return { [weak self] in self?.cancel(label: identifier) }
  }

  /// Cancels the work under `identifier` if it has not run yet.
  public func cancel(label identifier: String) {
    items.withLock { $0.removeValue(forKey: identifier) }?.cancel()
  }
}
