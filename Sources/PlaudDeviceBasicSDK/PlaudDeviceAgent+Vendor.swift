import Foundation
import RecorderConcurrency
import RecorderKit

/// The formats ``PlaudDeviceAgent/downloadFile(sessionId:desiredOutputPath:format:)`` writes.
/// Raw values are the vendor's.
public enum PlaudDownloadFormat: Int, Sendable {
  /// Raw PCM: signed 16-bit little-endian, 16 kHz, no header.
  case pcm = 0
  /// MP3: not offered by the vendor's `downloadFile` (use `exportAudio` with `.mp3`).
  @available(*, unavailable, message: "downloadFile does not write MP3: use exportAudio")
  case mp3 = 1
  /// RIFF WAVE, 16-bit PCM (the default).
  case wav = 2

  /// RecorderKit's name for the format (nil for the unavailable MP3 raw value).
  var fileFormat: ExportFormat? {
    switch rawValue {
    case 0: .pcm
    case 2: .wav
    default: nil
    }
  }
}

/// The vendor's partner API manager (cloud AI workflow). Out of RecorderKit's scope: an
/// opaque type so ``PlaudDeviceAgent/getPartnerApiManager()`` compiles; it offers nothing.
public final class PlaudPartnerApiManager: NSObject, Sendable {
  /// Always false: RecorderKit does not support the vendor's partner API.
  public var isSupported: Bool { false }
}

/// The vendor's members beyond its reference page: device state, settings, files, the
/// idle-sync Wi-Fi calls, the legacy initialiser. Each answers on its own callback, in call
/// order with the other commands; a member RecorderKit does not support says so
/// (``PlaudSDKError/notSupported(member:reason:)``) through its own callback, else
/// `onCommonMsgChannel(type: -1, value: -1, tips:)`, never pretending success.
extension PlaudDeviceAgent {
  /// Why the idle-sync Wi-Fi calls are not supported.
  static let idleSyncReason =
    "the idle-sync Wi-Fi commands' wire format is unknown (PROTOCOL.md §3.4: 0078–007E unused)"

  // MARK: - State

  /// The vendor's lower-level agent (``BleAgent/shared`` unless replaced). RecorderKit reads
  /// nothing from it: replacing it changes only what this property returns.
  public var bleAgent: BleAgent? {
    get { settings.current.bleAgent }
    set { settings.withLock { $0.bleAgent = newValue } }
  }

  /// Average speed (KB/s, 1 KB = 1024 bytes) of the BLE file transfer running or run last
  /// (`exportAudio`, `downloadFile`): bytes received over the time since it began. 0 before
  /// any.
  public var currentDownloadSpeedKBps: Double { core.meter.kilobytesPerSecond }

  /// ``currentDownloadSpeedKBps`` as text: "0 KB/s", "85.3 KB/s", "1.25 MB/s".
  public func getFormattedDownloadSpeed() -> String { core.meter.formatted }

  /// The device connected now or last, as it reported itself: serial, name, battery
  /// (`power`, `isCharging`), `supportWiFi`, firmware (`versionTypeStr` + `versionCode`),
  /// port version. Filled before `bleBind` is reported and kept current by battery reports
  /// and `setDeviceName`; nil before the first connection. A fresh object on each read;
  /// setting it replaces what later reads return (until the next connection).
  public var recentConnectDevice: BleDevice? {
    get { core.live.current.recent.map(BleDevice.init(snapshot:)) }
    set {
      let snapshot = newValue?.snapshot
      core.live.withLock { $0.recent = snapshot }
    }
  }

  /// The scene of the recording in progress (1 normal, 4 music, 7 call), 0 when not
  /// recording: from GET_STATE at connect and ``getState()``, and each recording start.
  public var sceneFlag: Int { core.live.current.scene }

  /// Stored for the vendor's shape. RecorderKit makes no SDK permission check, so it has no
  /// effect (the `onSdk…PermissionResult` callbacks never fire).
  public var skipPermissionCheck: Bool {
    get { settings.current.skipPermissionCheck }
    set { settings.withLock { $0.skipPermissionCheck = newValue } }
  }

  /// Whether a device session is up (bound, until `bleConnectState(0)`).
  public func isConnected() -> Bool { core.live.current.connected }

  /// Whether the connected device is recording (not paused), as ``BleAgent/isRecording``
  /// for this agent's device.
  public func checkIsRecording() -> Bool { core.live.current.recording }

  /// Whether a BLE file transfer (`exportAudio`, `downloadFile`) is running.
  public func checkIsDownloading() -> Bool { core.live.current.downloading }

  /// The recording in progress or paused on the connected device, 0 when none.
  public func getCurrentSessionID() -> Int { core.live.current.sessionId }

  /// The formats `exportAudio` writes: every ``AudioExportFormat``.
  public static func getSupportedExportFormats() -> [AudioExportFormat] {
    AudioExportFormat.allCases
  }

  // MARK: - Connection

  /// Connects again to the device this agent connected last, as its `connectBleDevice` did
  /// (with the `deviceToken` it was given, if any): the same callbacks;
  /// `bleConnectState(-1)` when none was connected.
  public func tryReconnectLastDevice() { enqueue { await $0.reconnectLast() } }

  /// Not supported by RecorderKit (what the vendor binds with this token is unknown): the
  /// handshake token comes from `initSDK`'s user token or `connectBleDevice`'s
  /// `deviceToken`. Reports `onCommonMsgChannel(-1, -1, why)`.
  public func setDeviceBinding(token: String) {
    core.notSupported(
      "setDeviceBinding(token:)",
      "what the vendor binds is unknown; pass the token as connectBleDevice(bleDevice:deviceToken:)"
    )
  }

  // MARK: - Device

  /// GET_STATE: `blePenState` (also updating ``sceneFlag``, ``getCurrentSessionID()`` and
  /// `BleAgent.shared`). Not connected: nothing but `lastError`.
  public func getState() { enqueue { await $0.readState() } }

  /// STORAGE: `bleStorage(total, free, duration)`.
  public func getStorage() { enqueue { await $0.readStorage() } }

  /// BATTERY: `blePowerChange` when the level moved since the last report, then
  /// `bleChargingState`.
  public func getChargingState() { enqueue { await $0.readBattery() } }

  /// Writes setting 20 (mic gain, 1–30): `bleMicGain(value the device reports)`, or
  /// `bleMicGain(-1)`.
  public func setMicGain(value: Int) { enqueue { await $0.micGain(write: value) } }

  /// Reads setting 20 (mic gain): `bleMicGain(value)`, or `bleMicGain(-1)`.
  public func readMicGain() { enqueue { await $0.micGain(write: nil) } }

  /// Renames the device (SET_NAME, at most 32 bytes of UTF-8): `bleDeviceName(name it now
  /// reports)`, or `bleDeviceName(nil)`; ``recentConnectDevice`` follows.
  public func setDeviceName(_ name: String) { enqueue { await $0.rename(name) } }

  /// Not supported by RecorderKit (the U-disk command's wire format is unknown): reports
  /// `onCommonMsgChannel(-1, -1, why)`.
  public func setUDiskMode(onOff: Bool) {
    core.notSupported("setUDiskMode(onOff:)", "the U-disk command's wire format is unknown")
  }

  /// Not supported by RecorderKit (its session sends SET_ACTIVE 00 only when it ends:
  /// `disconnect()`): reports `bleSetActive(-1)`.
  public func setDeviceActive(status: Int) {
    core.notSupported(
      "setDeviceActive(status:)",
      "RecorderKit's session sends SET_ACTIVE only as its last command (disconnect())",
      own: { $0.bleSetActive(status: -1) })
  }

  /// Not supported by RecorderKit (the factory-reset command's layout is unknown): reports
  /// `onCommonMsgChannel(-1, -1, why)`.
  public func restoreFactory() {
    core.notSupported("restoreFactory()", "the factory-reset command's layout is unknown")
  }

  // MARK: - Files

  /// Lists just `sessionId`: `bleFileList([that file])`, `bleFileList([])` when the device
  /// has no such recording or the call failed (`lastError`).
  public func getFile(sessionId: Int) {
    enqueue { await $0.fileList(after: 0, only: sessionId) }
  }

  /// Downloads one recording (resuming from durable bytes, verified, stored like
  /// `exportAudio`) and writes it to the file `desiredOutputPath` as `format`:
  /// `bleSyncFileHead` → `bleData`… → `bleSyncFileTail` → `bleDataComplete` while bytes move,
  /// `bleDownloadFile(id, path, 0, 0…99, tips)` as it progresses, then
  /// `bleDownloadFile(id, path, 0, 100, "downloaded")` once the file is in place; on failure
  /// `bleDownloadFile(id, path, -1, 0, why)`; after ``stopDownloadFile()``
  /// `bleDownloadFileStop()`. The device copy stays.
  public func downloadFile(
    sessionId: Int, desiredOutputPath: String, format: PlaudDownloadFormat = .wav
  ) {
    guard let fileFormat = format.fileFormat else {
      let path = desiredOutputPath
      let error = PlaudSDKError.operationFailed("downloadFile writes pcm or wav, not MP3")
      core.fail(error)
      let tips = error.description
      return core.emit {
        $0.bleDownloadFile(
          sessionId: sessionId, desiredOutputPath: path, status: -1, progress: 0, tips: tips)
      }
    }
    enqueue {
      await $0.download(
        sessionId: sessionId, desiredOutputPath: desiredOutputPath, format: fileFormat)
    }
  }

  /// Stops the download running now at its next frame (its bytes kept: downloading it again
  /// resumes): `bleDownloadFileStop()` when it ends. Acts at once, not in call order.
  public func stopDownloadFile() { core.downloadStop.withLock { $0 = true } }

  /// Erases every recording on the device (RecorderKit's `SyncWorkspace.eraseRecordings`,
  /// CLEAR_ALL), refused while one is not stored and verified locally:
  /// `bleClearAllFile(0)`, else `bleClearAllFile(-1)` with `lastError` saying why.
  public func clearAllFiles() { enqueue { await $0.clearAll() } }

  // MARK: - Idle-sync Wi-Fi (not supported)

  /// Not supported by RecorderKit (idle-sync wire format unknown): `onWifiSyncEnabled(-1)`.
  public func getWifiSyncEnable() {
    core.notSupported(
      "getWifiSyncEnable()", Self.idleSyncReason, own: { $0.onWifiSyncEnabled(-1) })
  }

  /// Not supported by RecorderKit: `onWifiSyncEnabled(-1)`.
  public func setWifiSyncEnable(value: Int) {
    core.notSupported(
      "setWifiSyncEnable(value:)", Self.idleSyncReason, own: { $0.onWifiSyncEnabled(-1) })
  }

  /// Not supported by RecorderKit: `onWifiSyncTestResult(index, -1, -1)`.
  public func setWifiSyncTest(wifiIndex: UInt32) {
    core.notSupported(
      "setWifiSyncTest(wifiIndex:)", Self.idleSyncReason,
      own: { $0.onWifiSyncTestResult(index: wifiIndex, result: -1, rawCode: -1) })
  }

  /// Not supported by RecorderKit: `onWifiSyncTestResult(index, -1, -1)`.
  public func getWifiSyncTestResult(wifiIndex: UInt32) {
    core.notSupported(
      "getWifiSyncTestResult(wifiIndex:)", Self.idleSyncReason,
      own: { $0.onWifiSyncTestResult(index: wifiIndex, result: -1, rawCode: -1) })
  }

  /// Not supported by RecorderKit: `onCommonMsgChannel(-1, -1, why)` (no network is
  /// reported).
  public func getWifiSyncConfig(wifiIndex: UInt32) {
    core.notSupported("getWifiSyncConfig(wifiIndex:)", Self.idleSyncReason)
  }

  /// Not supported by RecorderKit: `onWifiSyncConfigSet(-1)`.
  public func setWifiSyncConfig(operation: Int, wifiIndex: UInt32, ssid: String, password: String) {
    core.notSupported(
      "setWifiSyncConfig(operation:wifiIndex:ssid:password:)", Self.idleSyncReason,
      own: { $0.onWifiSyncConfigSet(result: -1) })
  }

  /// Not supported by RecorderKit: `onCommonMsgChannel(-1, -1, why)` (no list is reported).
  public func getWifiSyncList() {
    core.notSupported("getWifiSyncList()", Self.idleSyncReason)
  }

  /// Not supported by RecorderKit: `onWifiSyncDeleteResult(-1)`.
  public func deleteWifiSyncConfig(wifiIndices: [UInt32]) {
    core.notSupported(
      "deleteWifiSyncConfig(wifiIndices:)", Self.idleSyncReason,
      own: { $0.onWifiSyncDeleteResult(result: -1) })
  }

  // MARK: - Cloud and legacy (not supported)

  /// Not supported by RecorderKit (the vendor's metadata endpoint is unknown): reports
  /// `onCommonMsgChannel(-1, -1, why)`.
  public func reportDeviceMetadata() {
    core.notSupported("reportDeviceMetadata()", "the vendor's device-metadata endpoint is unknown")
  }

  /// Not supported by RecorderKit (its session has no small-upload call, opcodes
  /// 0070–0075): `callback(false, why)` on the callback queue.
  public func sendBinaryFile(type: Int, data: Data?, callback: @escaping (Bool, String) -> Void) {
    let error = PlaudSDKError.notSupported(
      member: "sendBinaryFile(type:data:callback:)",
      reason: "RecorderKit's session has no small-upload call (opcodes 0070–0075)")
    core.fail(error)
    let closure = AppClosure<(Bool, String)>(callback)
    let message = error.description
    callbackQueue.async { closure.body((false, message)) }
  }

  /// The vendor's legacy app-key initialiser. Not supported by RecorderKit (app keys are
  /// checked by the vendor's servers): `bleAppKeyState(result: 2)`; nothing is stored. Use
  /// `initSDK(userAccessToken:customDomain:)`.
  public func initSDK(
    hostName: String, appKey: String, appSecret: String, bindToken: String = "",
    extra: [String: String] = [:], customDomain: String? = nil, partnerToken: String? = nil
  ) {
    core.notSupported(
      "initSDK(hostName:appKey:appSecret:…)",
      "app keys are checked by the vendor's servers; use initSDK(userAccessToken:customDomain:)",
      own: { $0.bleAppKeyState(result: 2) })
  }

  /// The deprecated name of `setUserAccessToken(_:)`: the same call (nil clears the
  /// credentials).
  @available(*, deprecated, renamed: "setUserAccessToken")
  public func setPartnerToken(_ token: String?) { setUserAccessToken(token) }

  /// The partner API manager: an opaque ``PlaudPartnerApiManager`` (not supported by
  /// RecorderKit; its ``PlaudPartnerApiManager/isSupported`` is false, and ``lastError`` is
  /// ``PlaudSDKError/notSupported(member:reason:)``).
  public func getPartnerApiManager() -> PlaudPartnerApiManager {
    core.fail(.notSupported(member: "getPartnerApiManager()", reason: Self.partnerReason))
    return PlaudPartnerApiManager()
  }

  /// Always false: RecorderKit does not support the vendor's partner API (the reason in
  /// ``lastError``).
  public func isPartnerDataReady() -> Bool {
    core.fail(.notSupported(member: "isPartnerDataReady()", reason: Self.partnerReason))
    return false
  }

  static let partnerReason = "the vendor's partner API (cloud AI workflow) is out of scope"

  /// The vendor's test app key. RecorderKit has none: "" (not supported).
  public static func getTestAppKey(_ beta: Bool = false) -> String { "" }

  /// The vendor's test app secret. RecorderKit has none: "" (not supported).
  public static func getTestAppSecret(_ beta: Bool = false) -> String { "" }
}
