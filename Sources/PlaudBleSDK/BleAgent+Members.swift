import Foundation
import PlaudDeviceBasicSDK
import RecorderKit
import RecorderProtocol

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// PlaudBleSDK's `BleAgent` members (shared/VENDOR-API.md): the state, the settings and the
/// command methods, each over the facade agent's session (see `BleAgent+Lower.swift`).
/// Members no source of RecorderKit's can implement fail loudly: their own callback with a
/// failure status where they have one, and ``lastError`` with a reason that says "not
/// supported by RecorderKit".
extension BleAgent {
  // MARK: - Constants and app settings

  /// The portVersion from which the device reports its battery through the Battery Service
  /// (below it the SDK reads the battery first, PROTOCOL.md §4): 5.
  public static let protocolVersionNewBatteryService: Int = 5
  /// The portVersion of Mode B and the features that came with it (PROTOCOL.md §9): 20.
  public static let protocolVersionV20Features: Int = Int(ProtocolDefaults.modeBPortVersion)

  /// RecorderKit addition: the last failure of a BleAgent command (nil when none failed).
  public var lastError: PlaudSDKError? { LowerState.shared.current.lastError }

  /// The delegate (held weakly): ``BleAgentProtocol``'s callbacks, on ``cmdDelegateQueue``.
  public var delegate: (any BleAgentProtocol)? {
    get { LowerState.shared.current.delegate }
    set {
      LowerState.shared.withLock { $0.delegateObject = Weak(newValue) }
      listener = newValue == nil ? nil : BleAgentListener()
    }
  }

  /// The glasses delegate (held weakly). RecorderKit drives no glasses.
  public var glassDelegate: (any GlassProtocol)? {
    get { LowerState.shared.current.glassDelegate }
    set { LowerState.shared.withLock { $0.glassDelegateObject = Weak(newValue) } }
  }

  /// The firmware-push delegate (held weakly): `bleFotaResult`, `bleFotaPackReq`,
  /// `bleFotaPackFin`, as the facade's firmware update reports them.
  public var otaDelegate: (any OtaProtocol)? {
    get { LowerState.shared.current.otaDelegate }
    set { LowerState.shared.withLock { $0.otaDelegateObject = Weak(newValue) } }
  }

  /// Kept for the app; RecorderKit never calls it (no source says what the vendor reports
  /// through it).
  public var bleBlock: Int2Void? {
    get { LowerState.shared.current.bleBlock }
    set { LowerState.shared.withLock { $0.bleBlock = newValue } }
  }

  /// Hosts whose self-signed certificates are trusted: none (RecorderKit trusts the
  /// system's roots only).
  public var selfSignedHosts: [String] { [] }

  // MARK: - State

  /// Whether the phone's radio last reported powered on (`bleState(powered:)`).
  public var isPoweredOn: Bool { LowerState.shared.current.poweredOn }
  /// Whether a device is connected and its handshake passed.
  public var isConnected: Bool { connectedDevice != nil }
  /// Whether the connected device is bound (its handshake passed): as ``isConnected``.
  public var isBinded: Bool { isConnected }
  /// Whether the last `getFileList` asked for one recording only.
  public var isOnlyOne: Bool { LowerState.shared.current.onlyOne }
  /// nil: the user token stays inside the facade (give it with `PlaudDeviceAgent.initSDK`).
  public var userToken: String? { nil }
  /// Whether the last `syncFile` asked for decoded PCM (`decode: true`).
  public var needDecode: Bool { LowerState.shared.current.needDecode }
  /// Whether the recording in progress is in the music scene (4).
  public var isMusic: Bool { scene == 4 }
  /// The scene of the recording in progress (0 when none).
  public var scene: Int { agent?.sceneFlag ?? 0 }
  /// The recording scene last read or set (`readRecScene`, `setRecScene`), 0 until then.
  public var settingScene: Int { LowerState.shared.current.settingScene }
  /// Whether a BLE file transfer (export, download) is running.
  public var isDownloading: Bool { agent?.checkIsDownloading() ?? false }
  /// Whether the device's hotspot is up (`bleWiFiOpen` granted, not closed since).
  public var isWiFiOpen: Bool { agent?.isWiFiTransferActive ?? LowerState.shared.current.wifiOpen }
  /// Kept for the app: RecorderKit repeats no command on a timer (the device takes one
  /// request at a time and each has its own timeout).
  public var repeatCommondInterval: Int {
    get { LowerState.shared.current.repeatCommondInterval }
    set { LowerState.shared.withLock { $0.repeatCommondInterval = newValue } }
  }
  /// The queue ``delegate``'s callbacks run on (serial; never the main queue by default).
  public var cmdDelegateQueue: DispatchQueue {
    get { LowerState.shared.current.cmdDelegateQueue }
    set { LowerState.shared.withLock { $0.cmdDelegateQueue = newValue } }
  }
  /// A serial queue for the app's parsing work (RecorderKit parses on its own tasks).
  public var parseQueue: DispatchQueue { Self.parsing }
  private static let parsing = DispatchQueue(label: "PlaudBleSDK.BleAgent.parse")
  /// nil: the customer token stays inside the facade.
  public var customerToken: String? { nil }
  /// Whether the device last reported U-disk mode (GET_STATE `usb`); settable by the app.
  public var isUsbState: Bool {
    get { LowerState.shared.current.usbState }
    set { LowerState.shared.withLock { $0.usbState = newValue } }
  }
  /// Whether the charger was last reported plugged in; settable by the app.
  public var isCharging: Bool {
    get { LowerState.shared.current.charging }
    set { LowerState.shared.withLock { $0.charging = newValue } }
  }
  /// Kept for the app; RecorderKit's encrypted channel keeps its own packets.
  public var secretPackages: [Data] {
    get { LowerState.shared.current.secretPackages }
    set { LowerState.shared.withLock { $0.secretPackages = newValue } }
  }
  /// Kept for the app (see ``secretPackages``).
  public var secretIndex: Int {
    get { LowerState.shared.current.secretIndex }
    set { LowerState.shared.withLock { $0.secretIndex = newValue } }
  }
  /// Kept for the app (see ``secretPackages``).
  public var secretCount: Int {
    get { LowerState.shared.current.secretCount }
    set { LowerState.shared.withLock { $0.secretCount = newValue } }
  }
  /// Kept for the app: RecorderKit's channel key never leaves its session (nil until set).
  public var chacha20Key: Data? {
    get { LowerState.shared.current.chacha20Key }
    set { LowerState.shared.withLock { $0.chacha20Key = newValue } }
  }
  /// Kept for the app (see ``chacha20Key``).
  public var chacha20Nonce: Data? {
    get { LowerState.shared.current.chacha20Nonce }
    set { LowerState.shared.withLock { $0.chacha20Nonce = newValue } }
  }
  /// Kept for the app (see ``chacha20Key``).
  public var chacha20AD: Data? {
    get { LowerState.shared.current.chacha20AD }
    set { LowerState.shared.withLock { $0.chacha20AD = newValue } }
  }
  /// Kept for the app: RecorderKit's Wi-Fi transfer chooses its AEAD from the device's flag.
  public var wifiUseAes: Bool {
    get { LowerState.shared.current.wifiUseAes }
    set { LowerState.shared.withLock { $0.wifiUseAes = newValue } }
  }
  /// Kept for the app: RecorderKit's channel numbers its own frames.
  public var globalSendSeq: Int {
    get { LowerState.shared.current.globalSendSeq }
    set { LowerState.shared.withLock { $0.globalSendSeq = newValue } }
  }
  /// Kept for the app (see ``globalSendSeq``).
  public var globalReceiveSeq: Int {
    get { LowerState.shared.current.globalReceiveSeq }
    set { LowerState.shared.withLock { $0.globalReceiveSeq = newValue } }
  }
  /// The connected device's firmware type letter ("" when none is), unless the app set one.
  public var versionType: String {
    get { LowerState.shared.current.versionType ?? (bleDevice?.versionTypeStr ?? "") }
    set { LowerState.shared.withLock { $0.versionType = newValue } }
  }
  /// The connected device's firmware version code (0 when none is), unless the app set one.
  public var versionCode: Int {
    get { LowerState.shared.current.versionCode ?? (bleDevice?.versionCode ?? 0) }
    set { LowerState.shared.withLock { $0.versionCode = newValue } }
  }

  // MARK: - Set-up

  /// Records whether the Wi-Fi transfer's link is up (the vendor's SDK tells its BLE side).
  public func setWiFiState(_ connected: Bool) {
    LowerState.shared.withLock { $0.wifiConnected = connected }
  }

  /// The legacy app-key sign-in: not supported by RecorderKit (`bleAppKeyState(2)`); the
  /// bind token is a device token: pass it to `connectBleDevice`.
  public func setUserIdentifier(_ appKey: String, _ bindToken: String, _ hkServer: Bool = false) {
    unsupported(
      "setUserIdentifier(_:_:_:)", "the app-key sign-in's server is unknown",
      own: { $0.bleAppKeyState(result: 2) })
  }

  /// Opens nothing: the facade's agent opens its radio at its first scan or connect.
  public func initBluetooth() {}

  /// Stops scanning and disconnects.
  public func disInitBluetooth() {
    guard let agent = facade("disInitBluetooth()") else { return }
    agent.stopScan()
    agent.disconnect()
  }

  /// The legacy app key: not supported by RecorderKit (`bleAppKeyState(2)`).
  public func checkAppKey(_ appKey: String) {
    unsupported(
      "checkAppKey(_:)", "the app-key check's server is unknown",
      own: { $0.bleAppKeyState(result: 2) })
  }

  /// The device binding token, as `PlaudDeviceAgent.setDeviceBinding(token:)`: not
  /// supported (pass the token to `connectBleDevice`).
  public func setBinding(_ token: String) {
    unsupported("setBinding(_:)", "what the vendor binds is unknown")
  }

  /// Scan results carry only devices whose name contains `name` (any case); nil: all.
  public func setFilter(name: String?) { setFilter(name.map { [$0] } ?? []) }

  /// Scan results carry only devices whose name contains one of `names` (any case); empty:
  /// all.
  public func setFilter(_ names: [String]) {
    LowerState.shared.withLock { $0.nameFilter = names.filter { !$0.isEmpty } }
  }

  /// Turns logging on or off (``BleLogger``): lines go to `logBlock` and `wlogBlock`.
  public func openLog(
    _ opened: Bool, logBlock: ((String) -> Void)? = nil, wlogBlock: ((String) -> Void)? = nil
  ) {
    BleLogger.shared.setLog(opened: opened, logBlock: logBlock, wlogBlock: wlogBlock)
  }

  /// Whether a device is connected.
  public func isDeviceConnect() -> Bool { isConnected }

  // MARK: - Scan and connect

  /// Scans: `bleScanResult` with every recorder heard so far, then `bleScanOverTime`.
  public func startScan() { facade("startScan()")?.startScan() }

  /// As ``startScan()`` (the facade keeps no scan loop: the app rescans after
  /// `bleScanOverTime`).
  public func startLoopScan() { facade("startLoopScan()")?.startScan() }

  /// Stops scanning.
  public func stopScan() { facade("stopScan()")?.stopScan() }

  /// Connects to `bleDevice` with `devToken` (the user token's handshake form; nil: the
  /// facade's user token). `userName` and `isForceClear` change nothing: RecorderKit's
  /// forced clear is `PlaudDeviceAgent.recoveryConnectBleDevice`.
  public func connectBleDevice(
    bleDevice: BleDevice, _ devToken: String? = nil, _ userName: String? = nil,
    _ isForceClear: Bool
  ) {
    guard let agent = facade("connectBleDevice(bleDevice:_:_:_:)") else {
      BleAgentListener.send { $0.bleConnectState(state: -1) }
      return
    }
    if let devToken {
      agent.connectBleDevice(bleDevice: bleDevice, deviceToken: devToken)
    } else {
      agent.connectBleDevice(bleDevice: bleDevice)
    }
  }

  /// Disconnects (`bleConnectState(0)`).
  public func disconnect() { facade("disconnect()")?.disconnect() }

  /// The secondary-serial check: not supported by RecorderKit (false).
  public func isSNTempChecked() -> Bool {
    unsupported("isSNTempChecked()", "the secondary-serial check is unknown")
    return false
  }

  /// The secondary-serial check: not supported by RecorderKit.
  public func reCheckSNIfNeed() {
    unsupported("reCheckSNIfNeed()", "the secondary-serial check is unknown")
  }

  // MARK: - Device state

  /// BATTERY: `bleChargingState` (and `blePowerChange` when the level changed).
  public func readPower() { facade("readPower()")?.getChargingState() }
  /// BATTERY: `bleChargingState`.
  public func getChargingState() { facade("getChargingState()")?.getChargingState() }
  /// GET_STATE: `blePenState`.
  public func getState() { facade("getState()")?.getState() }
  /// DEPAIR: `bleDepair(status)`.
  public func depair(clear: Bool = false) { facade("depair(clear:)")?.depair(clear: clear) }
  /// STORAGE: `bleStorage`.
  public func getStorage() { facade("getStorage()")?.getStorage() }

  /// Not supported by RecorderKit: `blePasswordReset(-1)`.
  public func appResetPassword() {
    unsupported(
      "appResetPassword()", "the password-reset command is unknown",
      own: { $0.blePasswordReset(password: -1) })
  }

  // MARK: - Settings (PROTOCOL.md §3.1 ids; each answers with the value the device reports,
  // -1 when the command failed)

  /// Setting 1: `bleBacklightDuration`.
  public func readBacklightDuration() {
    setting(.backlightTime, write: nil, "readBacklightDuration()") { $0.bleBacklightDuration($1) }
  }
  /// Setting 1: `bleBacklightDuration`.
  public func setBacklightDuration(type: Int) {
    setting(.backlightTime, write: type, "setBacklightDuration(type:)") {
      $0.bleBacklightDuration($1)
    }
  }
  /// Setting 1 by level: `bleBacklightDuration`.
  public func setBacklight(duration: BacklightDuration) {
    setBacklightDuration(type: duration.rawValue)
  }
  /// Setting 2: `bleBacklightBright`.
  public func readBacklightBright() {
    setting(.brightness, write: nil, "readBacklightBright()") { $0.bleBacklightBright($1) }
  }
  /// Setting 2: `bleBacklightBright`.
  public func setBacklightBright(type: Int) {
    setting(.brightness, write: type, "setBacklightBright(type:)") { $0.bleBacklightBright($1) }
  }
  /// Setting 2 by level: `bleBacklightBright`.
  public func setBacklight(bright: BacklightBright) { setBacklightBright(type: bright.rawValue) }
  /// Setting 3: `bleLanguage`.
  public func readLanguage() {
    setting(.language, write: nil, "readLanguage()") { $0.bleLanguage($1) }
  }
  /// Setting 3: `bleLanguage`.
  public func setLanguage(type: Int) {
    setting(.language, write: type, "setLanguage(type:)") { $0.bleLanguage($1) }
  }
  /// Setting 3 by language: `bleLanguage`.
  public func setLanguage(type: LanguageType) { setLanguage(type: type.rawValue) }
  /// Setting 15 (voice-activity detection): `bleVad(open)` (false when the command failed).
  public func openVAD(open: Bool) {
    setting(.vad, write: open ? 1 : 0, "openVAD(open:)") { $0.bleVad($1 > 0) }
  }
  /// Setting 16: `bleRecScene`.
  public func setRecScene(value: Int) {
    setting(.scene, write: value, "setRecScene(value:)") { $0.bleRecScene($1) }
  }
  /// Setting 16 by scene: `bleRecScene`.
  public func setRecScene(type: RecScene) { setRecScene(value: type.rawValue) }
  /// Setting 16: `bleRecScene`.
  public func readRecScene() {
    setting(.scene, write: nil, "readRecScene()") { $0.bleRecScene($1) }
  }
  /// Setting 17: `bleRecMode`.
  public func setRecMode(value: Int) {
    setting(.mode, write: value, "setRecMode(value:)") { $0.bleRecMode($1) }
  }
  /// Setting 17 by mode: `bleRecMode`.
  public func setRecMode(type: RecMode) { setRecMode(value: type.rawValue) }
  /// Setting 17: `bleRecMode`.
  public func readRecMode() { setting(.mode, write: nil, "readRecMode()") { $0.bleRecMode($1) } }
  /// Setting 18: `bleVadSensitivity`.
  public func setVadSensitivity(sensitivity: Int) {
    setting(.vadSensitivity, write: sensitivity, "setVadSensitivity(sensitivity:)") {
      $0.bleVadSensitivity($1)
    }
  }
  /// Setting 18 by level: `bleVadSensitivity`.
  public func setVadSensitivity(sensitivity: VadSensitivity) {
    setVadSensitivity(sensitivity: sensitivity.rawValue)
  }
  /// Setting 18: `bleVadSensitivity`.
  public func readVadSensitivity() {
    setting(.vadSensitivity, write: nil, "readVadSensitivity()") { $0.bleVadSensitivity($1) }
  }
  /// Setting 19: `bleVpuGain`.
  public func setVpuGain(gain: Int) {
    setting(.vpuGain, write: gain, "setVpuGain(gain:)") { $0.bleVpuGain($1) }
  }
  /// Setting 19 by level: `bleVpuGain`.
  public func setVpuGain(gain: VpuGain) { setVpuGain(gain: gain.rawValue) }
  /// Setting 19: `bleVpuGain`.
  public func readVpuGain() { setting(.vpuGain, write: nil, "readVpuGain()") { $0.bleVpuGain($1) } }
  /// Setting 20: `bleMicGain`.
  public func setMicGain(value: Int) {
    setting(.micGain, write: value, "setMicGain(value:)") { $0.bleMicGain($1) }
  }
  /// Setting 32: `bleBatteryMode`.
  public func readBatteryMode() {
    setting(.batteryMode, write: nil, "readBatteryMode()") { $0.bleBatteryMode($1) }
  }
  /// Setting 32: `bleBatteryMode`.
  public func setBatteryMode(value: Int) {
    setting(.batteryMode, write: value, "setBatteryMode(value:)") { $0.bleBatteryMode($1) }
  }
  /// Setting 20: `bleMicGain`.
  public func readMicGain() { setting(.micGain, write: nil, "readMicGain()") { $0.bleMicGain($1) } }
  /// Setting 22: `bleSwitchHandler`.
  public func setSwitchHandler(id: Int) {
    setting(.switchRole, write: id, "setSwitchHandler(id:)") { $0.bleSwitchHandler($1) }
  }
  /// Setting 22: `bleSwitchHandler`.
  public func readSwitchHandler() {
    setting(.switchRole, write: nil, "readSwitchHandler()") { $0.bleSwitchHandler($1) }
  }
  /// Setting 23: `bleAutoPowerOff`.
  public func setAutoPowerOff(value: Int) {
    setting(.autoPowerOff, write: value, "setAutoPowerOff(value:)") { $0.bleAutoPowerOff($1) }
  }
  /// Setting 23: `bleAutoPowerOff`.
  public func readAutoPowerOff() {
    setting(.autoPowerOff, write: nil, "readAutoPowerOff()") { $0.bleAutoPowerOff($1) }
  }
  /// Setting 24: `bleRawWaveEnabled`.
  public func setRawWaveEnabled(value: Int) {
    setting(.saveRaw, write: value, "setRawWaveEnabled(value:)") { $0.bleRawWaveEnabled($1) }
  }
  /// Setting 24: `bleRawWaveEnabled`.
  public func readRawWaveEnabled() {
    setting(.saveRaw, write: nil, "readRawWaveEnabled()") { $0.bleRawWaveEnabled($1) }
  }
  /// Setting 25: `bleRecordingAfterDisConnetEnabled`.
  public func readRecordingAfterDisConnetEnabled() {
    setting(.autoRecord, write: nil, "readRecordingAfterDisConnetEnabled()") {
      $0.bleRecordingAfterDisConnetEnabled($1)
    }
  }
  /// Setting 25: `bleRecordingAfterDisConnetEnabled`.
  public func setRecordingAfterDisConnetEnabled(value: Int) {
    setting(.autoRecord, write: value, "setRecordingAfterDisConnetEnabled(value:)") {
      $0.bleRecordingAfterDisConnetEnabled($1)
    }
  }
  /// Setting 26: `bleSyncWhenIdleEnabled`.
  public func readSyncWhenIdleEnabled() {
    setting(.autoSync, write: nil, "readSyncWhenIdleEnabled()") { $0.bleSyncWhenIdleEnabled($1) }
  }
  /// Setting 26: `bleSyncWhenIdleEnabled`.
  public func setSyncWhenIdleEnabled(value: Int) {
    setting(.autoSync, write: value, "setSyncWhenIdleEnabled(value:)") {
      $0.bleSyncWhenIdleEnabled($1)
    }
  }
  /// Setting 27: `bleFindMyState`.
  public func setFindMyState(value: Int) {
    setting(.findMy, write: value, "setFindMyState(value:)") { $0.bleFindMyState($1) }
  }
  /// Setting 27: `bleFindMyState`.
  public func readFindMyState() {
    setting(.findMy, write: nil, "readFindMyState()") { $0.bleFindMyState($1) }
  }
  /// Setting 30: `bleVPUCLKState`.
  public func setVPUCLK(value: Int) {
    setting(.vpuClock, write: value, "setVPUCLK(value:)") { $0.bleVPUCLKState($1) }
  }
  /// Setting 30: `bleVPUCLKState`.
  public func readVPUCLK() {
    setting(.vpuClock, write: nil, "readVPUCLK()") { $0.bleVPUCLKState($1) }
  }
  /// Setting 31: `bleStopRecordingAfterCharging`.
  public func setStopRecordingAfterCharging(value: Int) {
    setting(.autoStop, write: value, "setStopRecordingAfterCharging(value:)") {
      $0.bleStopRecordingAfterCharging($1)
    }
  }
  /// Setting 31: `bleStopRecordingAfterCharging`.
  public func readStopRecordingAfterCharging() {
    setting(.autoStop, write: nil, "readStopRecordingAfterCharging()") {
      $0.bleStopRecordingAfterCharging($1)
    }
  }
  /// Setting 4 (auto-delete): `bleAutoClear(open)` (false when the command failed).
  public func readAutoClear() {
    setting(.autoDelete, write: nil, "readAutoClear()") { $0.bleAutoClear($1 > 0) }
  }
  /// Setting 4 (auto-delete): `bleAutoClear(open)`.
  public func saveAutoClear(_ open: Bool) {
    setting(.autoDelete, write: open ? 1 : 0, "saveAutoClear(_:)") { $0.bleAutoClear($1 > 0) }
  }

  /// Renames the device (at most 32 bytes of UTF-8): `bleDeviceName(name)` with the name it
  /// now reports (nil when the command failed).
  public func setBleName(name: String) {
    lower(
      "setBleName(name:)", { session throws(DeviceError) in try await session.rename(to: name) },
      answer: { delegate, result in delegate.bleDeviceName(name: try? result.get()) })
  }

  /// GET_NAME: `bleDeviceName(name)` (nil when the command failed).
  public func readBleName() {
    lower(
      "readBleName()", { session throws(DeviceError) in try await session.name() },
      answer: { delegate, result in delegate.bleDeviceName(name: try? result.get()) })
  }

  // MARK: - Device logs (PROTOCOL.md §3.4 `008E`–`0092`: byte layout unknown)

  /// Not supported by RecorderKit: `onGetDeviceLogList(Data())`.
  public func getDeviceLogList(logType: Int) {
    unsupported(
      "getDeviceLogList(logType:)", Self.deviceLogReason,
      own: { $0.onGetDeviceLogList(data: Data()) })
  }
  /// Not supported by RecorderKit: `onSyncDeviceLogEnd(Data())`.
  public func startSyncDeviceLogFile(logType: Int) {
    unsupported(
      "startSyncDeviceLogFile(logType:)", Self.deviceLogReason,
      own: { $0.onSyncDeviceLogEnd(data: Data()) })
  }
  /// Not supported by RecorderKit: `onSyncDeviceLogStop()`.
  public func stopSyncDeviceLogFile() {
    unsupported(
      "stopSyncDeviceLogFile()", Self.deviceLogReason, own: { $0.onSyncDeviceLogStop() })
  }
  /// Not supported by RecorderKit: `onDeviceLogDeleted(Data())`.
  public func deleteDeviceLogFile(logType: Int) {
    unsupported(
      "deleteDeviceLogFile(logType:)", Self.deviceLogReason,
      own: { $0.onDeviceLogDeleted(data: Data()) })
  }

  static let deviceLogReason = "the device-log commands' byte layout is unknown"

  // MARK: - Wi-Fi and glasses

  /// `open`: WIFI_OPEN (`bleWiFiOpen(status, ssid, ssid, password)`); else WIFI_CLOSE
  /// (`bleWiFiClose(status)`). `isOTA` (the hotspot for a firmware push): not supported by
  /// RecorderKit (`bleWiFiOpen(-1, "", "", "")`).
  public func operateWiFi(open: Bool, isOTA: Bool) {
    guard !isOTA else {
      return unsupported(
        "operateWiFi(open:isOTA:)", "the firmware push over Wi-Fi is unknown",
        own: { $0.bleWiFiOpen(-1, "", "", "") })
    }
    facade("operateWiFi(open:isOTA:)")?.setDeviceWiFi(open: open)
  }

  /// Not supported by RecorderKit (no glasses): `glassDelegate.glassDataClear(-1)`.
  public func readGlassData(uid: Int) {
    unsupported("readGlassData(uid:)", "RecorderKit drives no glasses")
    glassClear()
  }
  /// Not supported by RecorderKit (no glasses): `glassDelegate.glassDataClear(-1)`.
  public func clearGlassData() {
    unsupported("clearGlassData()", "RecorderKit drives no glasses")
    glassClear()
  }

  private func glassClear() {
    let (glass, queue) = LowerState.shared.withLock {
      ($0.glassDelegateObject, $0.cmdDelegateQueue)
    }
    queue.async { (glass.value as? any GlassProtocol)?.glassDataClear(-1) }
  }

  // MARK: - Recording

  /// Starts recording in `scene` (0: the normal scene, 1): `bleRecordStart`.
  public func startRecord(_ scene: Int = 0) {
    facade("startRecord(_:)")?.startRecord(scene: scene == 0 ? 1 : scene)
  }
  /// Stops recording: `bleRecordStop`.
  public func stopRecord() { facade("stopRecord()")?.stopRecord() }
  /// Pauses the recording in progress (the device pauses its current one): `bleRecordPause`.
  public func pauseRecord(_ sessionId: Int) { facade("pauseRecord(_:)")?.pauseRecord() }
  /// Resumes the paused recording: `bleRecordResume`.
  public func resumeRecord(_ sessionId: Int) { facade("resumeRecord(_:)")?.resumeRecord() }

  /// LED get: `bleLedState(onOff: 1 | 0)`, -1 when the command failed.
  public func getLedState() {
    lower(
      "getLedState()", { session throws(DeviceError) in try await session.led() },
      answer: { delegate, result in
        delegate.bleLedState(onOff: (try? result.get()).map { $0 ? 1 : 0 } ?? -1)
      })
  }

  /// LED set: `bleSetLedState(onOff:)` with the state the device reports, -1 on failure.
  public func setLedState(onOff: Int) {
    lower(
      "setLedState(onOff:)",
      { session throws(DeviceError) in try await session.setLED(onOff != 0) },
      answer: { delegate, result in
        delegate.bleSetLedState(onOff: (try? result.get()).map { $0 ? 1 : 0 } ?? -1)
      })
  }

  // MARK: - Files

  /// LIST after `sessionId` (0: all): `bleFileList`. `uid` is the vendor's request tag
  /// (RecorderKit makes its own); `onlyOne` lists just `sessionId`.
  public func getFileList(uid: Int, sessionId: Int, onlyOne: Bool = false) {
    LowerState.shared.withLock { $0.onlyOne = onlyOne }
    guard let agent = facade("getFileList(uid:sessionId:onlyOne:)") else { return }
    if onlyOne {
      agent.getFile(sessionId: sessionId)
    } else {
      agent.getFileList(startSessionId: sessionId)
    }
  }

  /// SYNC_START of `sessionId` from `start` to `end` (0: to the end, following a live
  /// recording): `bleSyncFileHead`, `bleData` (`blePcmData` for a live recording),
  /// `bleSyncFileTail`, `bleDataComplete`. `decode` is recorded (``needDecode``): the
  /// facade decodes a live recording's audio and leaves a stored one raw.
  public func syncFile(sessionId: Int, start: Int, end: Int, decode: Bool) {
    LowerState.shared.withLock { $0.needDecode = decode }
    facade("syncFile(sessionId:start:end:decode:)")?.syncFile(
      sessionId: sessionId, start: start, end: end)
  }
  /// SYNC_STOP.
  public func stopSyncFile() { facade("stopSyncFile()")?.stopSyncFile() }
  /// DELETE (only once the recording is safe locally, as the facade's): `bleDeleteFile`.
  public func deleteFile(sessionId: Int) {
    facade("deleteFile(sessionId:)")?.deleteFile(sessionId: sessionId)
  }

  /// TAGS from `sessionId` on: `bleMarking(sessionId, 0, times)`, or status -1 and no marks
  /// when the command failed. (The device has no per-recording marks command: these are the
  /// marks stored since the recording began.)
  public func getMarking(_ sessionId: Int) {
    let from = UInt32(clamping: sessionId)
    lower(
      "getMarking(_:)", { session throws(DeviceError) in try await session.tags(from: from) },
      answer: { delegate, result in
        switch result {
        case .success(let tags):
          delegate.bleMarking(sessionId: sessionId, status: 0, markList: tags.map(\.time))
        case .failure:
          delegate.bleMarking(sessionId: sessionId, status: -1, markList: [])
        }
      })
  }

  /// TAGS between two unix times: `bleGetRecordMarkingTags(uid, totals, index, tags)` once
  /// with every tag (index 0), or with `totals` -1 when the command failed.
  public func getRecordMarkingTags(uid: Int, startTimestamp: Int, endTimestamp: Int) {
    let (from, to) = (UInt32(clamping: startTimestamp), UInt32(clamping: endTimestamp))
    lower(
      "getRecordMarkingTags(uid:startTimestamp:endTimestamp:)",
      { session throws(DeviceError) in try await session.tags(from: from, to: to) },
      answer: { delegate, result in
        switch result {
        case .success(let tags):
          let marks = tags.map {
            BleRecordMarkingTag(
              timestamp: $0.time, type: $0.type, status: $0.status, reserved: [0, 0])
          }
          delegate.bleGetRecordMarkingTags(uid: uid, totals: marks.count, index: 0, tags: marks)
        case .failure:
          delegate.bleGetRecordMarkingTags(uid: uid, totals: -1, index: 0, tags: [])
        }
      })
  }

  // MARK: - Firmware push (the facade's `startFirmwareUpdate` / `pushFirmwareFile` push a
  // whole image; the pack-by-pack door is not RecorderKit's)

  static let packPushReason =
    "RecorderKit pushes a whole image (PlaudDeviceAgent.pushFirmwareFile), not pack by pack"

  /// Not supported by RecorderKit: `bleFotaResult(uid, -1, reason)`.
  public func pushFotaInfo(
    _ uid: Int, _ fromVersion: String, _ toVersion: String, _ thirdVersion: Int = 0,
    _ fileSize: Int, _ crc: Int
  ) {
    fotaUnsupported("pushFotaInfo(_:_:_:_:_:_:)", uid)
  }
  /// Not supported by RecorderKit: `bleFotaResult(uid, -1, reason)`.
  public func pushFotaInfo(
    _ uid: Int, _ fromVersion: Int, _ fromVersionType: Character, _ toVersion: Int,
    _ toVersionType: Character, _ thirdVersion: Int = 0, _ fileSize: Int, _ crc: Int
  ) {
    fotaUnsupported("pushFotaInfo(_:_:_:_:_:_:_:_:)", uid)
  }
  /// Not supported by RecorderKit: `bleFotaResult(uid, -1, reason)`.
  public func pushFotaInfo(
    _ uid: Int, _ fromVersion: Int, _ fromVersionType: String, _ toVersion: Int,
    _ toVersionType: String, _ thirdVersion: Int = 0, _ fileSize: Int, _ crc: Int
  ) {
    fotaUnsupported("pushFotaInfo(_:_:_:_:_:_:_:_:)", uid)
  }
  /// Not supported by RecorderKit: `bleFotaPackFin(uid, -1, reason)`.
  public func pushFotaComplete(_ uid: Int, _ status: Int) {
    let reason = Self.packPushReason
    unsupported(
      "pushFotaComplete(_:_:)", reason,
      own: { $0.bleFotaPackFin(uid: uid, status: -1, errmsg: reason) })
  }
  /// Not supported by RecorderKit: `bleOtaDataSendFail()`.
  public func pushFotaPack(_ offset: Int, packData: Data, postDelayUs: NSNumber?) {
    unsupported(
      "pushFotaPack(_:packData:postDelayUs:)", Self.packPushReason,
      own: { $0.bleOtaDataSendFail() })
  }

  private func fotaUnsupported(_ member: String, _ uid: Int) {
    let reason = Self.packPushReason
    unsupported(member, reason, own: { $0.bleFotaResult(uid: uid, status: -1, errmsg: reason) })
  }

  /// Whether a write without response could go now: RecorderKit's link applies its own back
  /// pressure, so this is whether a device is connected.
  public func canSendWithoutResponse() -> Bool { isConnected }

  /// Not supported by RecorderKit (PROTOCOL.md: the rate test `0065` is unused):
  /// `bleRate(-1, -1, -1)`.
  public func startBleRateTest(_ packSize: Int = 80) {
    unsupported(
      "startBleRateTest(_:)", "the rate-test command is unknown",
      own: { $0.bleRate(lossRate: -1, rate: -1, instantRate: -1) })
  }
  /// Not supported by RecorderKit: no rate test runs.
  public func stopBleRateTest() {
    unsupported("stopBleRateTest()", "the rate-test command is unknown")
  }

  // MARK: - Device commands

  /// Not supported by RecorderKit (the factory reset's layout and effect are unknown).
  public func restoreFactory() {
    unsupported("restoreFactory()", "the factory-reset command's layout is unknown")
  }

  /// Privacy on (1) or off (0): `blePrivacy(privacy:)` with the state the device reports,
  /// -1 on failure.
  public func setPrivacy(onOff: Int) {
    lower(
      "setPrivacy(onOff:)",
      { session throws(DeviceError) in try await session.setPrivacy(onOff != 0) },
      answer: { delegate, result in
        delegate.blePrivacy(privacy: (try? result.get()).map { $0 ? 1 : 0 } ?? -1)
      })
  }

  /// Erases every recording once each is safe locally: `bleClearAllFile(status)`.
  public func clearAllFile() { facade("clearAllFile()")?.clearAllFiles() }

  /// Not supported by RecorderKit (its session sends SET_ACTIVE only as its last command):
  /// `bleSetActive(-1)`.
  public func setDeviceActive(status: Int) {
    unsupported(
      "setDeviceActive(status:)", "RecorderKit's session sends SET_ACTIVE only when closing",
      own: { $0.bleSetActive(status: -1) })
  }

  /// Not supported by RecorderKit (the heartbeat command is unknown): `bleHeartbeat(-1)`.
  public func setHeartBeat(status: Int) {
    unsupported(
      "setHeartBeat(status:)", "the heartbeat command is unknown",
      own: { $0.bleHeartbeat(status: -1) })
  }

  /// Not supported by RecorderKit (the idle-sync Wi-Fi layout is unknown):
  /// `bleSetWiFiSsid(-1)`.
  public func setWiFiSsid(ssid: String, password: String, isTest: Bool = false) {
    unsupported(
      "setWiFiSsid(ssid:password:isTest:)", Self.idleSyncReason,
      own: { $0.bleSetWiFiSsid(status: -1) })
  }
  /// Not supported by RecorderKit: `bleGetWiFiSsid(-1, nil)`.
  public func getWiFiSsid() {
    unsupported(
      "getWiFiSsid()", Self.idleSyncReason, own: { $0.bleGetWiFiSsid(status: -1, ssid: nil) })
  }

  static let idleSyncReason = "the idle-sync Wi-Fi commands' byte layout is unknown"

  /// The cloud's firmware check for the connected device (`PlaudDeviceAgent
  /// .checkFirmwareUpdate`): `callback(0, info)` with the offered version, `callback(-1,
  /// nil)` when the check failed or no device is connected.
  public func getUpdateInfo(_ callback: @escaping (Int, UpdateInfo?) -> Void) {
    let reply = AppClosure<(Int, UpdateInfo?)> { callback($0.0, $0.1) }
    guard let agent = facade("getUpdateInfo(_:)") else {
      return cmdDelegateQueue.async { reply.body((-1, nil)) }
    }
    let serial = bleDevice?.serialNumber ?? ""
    agent.checkFirmwareUpdate { result in
      guard result.errorMessage == nil else { return reply.body((-1, nil)) }
      let info = UpdateInfo()
      info.sn = serial
      info.currentVersion = result.currentVersion
      info.fromVersion = result.currentVersion
      info.version = result.latestVersion
      info.toVersion = result.latestVersion
      info.url = result.downloadUrl
      info.md5 = result.md5
      info.updateDesc = result.releaseNotes
      reply.body((0, info))
    }
  }

  /// WebSocket setting `type` (1 URL, 2 server token, 3 device token; PROTOCOL.md §3.4
  /// `0010` set): `bleWebsocketProfile(type, value)` with the value the device reports,
  /// `(type, nil)` on failure (an invalid type, a value too long, a device error).
  public func setWebsocketProfile(type: Int, content: String) {
    webSocket("setWebsocketProfile(type:content:)", type, write: content)
  }
  /// As ``setWebsocketProfile(type:content:)-(Int,_)``, by type.
  public func setWebsocketProfile(type: WebsocketType, content: String) {
    setWebsocketProfile(type: Int(type.rawValue), content: content)
  }
  /// WebSocket setting `type` (`0010` get): `bleWebsocketProfile(type, value)`, `(type, nil)`
  /// on failure.
  public func getWebsocketProfile(type: Int) {
    webSocket("getWebsocketProfile(type:)", type, write: nil)
  }
  /// As ``getWebsocketProfile(type:)-(Int)``, by type.
  public func getWebsocketProfile(type: WebsocketType) {
    getWebsocketProfile(type: Int(type.rawValue))
  }

  private func webSocket(_ member: String, _ type: Int, write value: String?) {
    guard let setting = UInt8(exactly: type).flatMap(WebSocketSettingType.init) else {
      record(.operationFailed("WebSocket setting type \(type) is not 1, 2 or 3"), member)
      return BleAgentListener.send { $0.bleWebsocketProfile(type, nil) }
    }
    lower(
      member,
      { session throws(DeviceError) in
        if let value { return try await session.setWebSocketSetting(setting, to: value) }
        return try await session.webSocketSetting(setting)
      },
      answer: { delegate, result in delegate.bleWebsocketProfile(type, try? result.get()) })
  }

  /// Not supported by RecorderKit (the WebSocket test command is unknown):
  /// `bleWebsocketTest(-1)`.
  public func testWebsocket() {
    unsupported(
      "testWebsocket()", "the WebSocket test command is unknown",
      own: { $0.bleWebsocketTest(-1) })
  }

  /// Not supported by RecorderKit (the alarm-recording command is unknown):
  /// `bleAlarmRec(-1, -1, -1)`.
  public func setAlarmRec(start: Int, duration: Int, repeatMode: Int) {
    unsupported(
      "setAlarmRec(start:duration:repeatMode:)", Self.alarmReason,
      own: { $0.bleAlarmRec(start: -1, duration: -1, repeatMode: -1) })
  }
  /// Not supported by RecorderKit: `bleAlarmRec(-1, -1, -1)`.
  public func getAlarmRec() {
    unsupported(
      "getAlarmRec()", Self.alarmReason,
      own: { $0.bleAlarmRec(start: -1, duration: -1, repeatMode: -1) })
  }

  static let alarmReason = "the alarm-recording command is unknown"

  /// Not supported pack by pack (the facade's `sendBinaryFile(type:data:callback:)` sends a
  /// whole file over `0070`–`0075`): `onBinaryFileEnd(-1)`.
  public func sendBinFileInfo(type: Int, totalSize: Int) {
    binaryUnsupported("sendBinFileInfo(type:totalSize:)")
  }
  /// Not supported pack by pack: `onBinaryFileEnd(-1)`.
  public func sendBinFileData(type: Int, packageOffset: Int, packageSize: Int, data: Data) {
    binaryUnsupported("sendBinFileData(type:packageOffset:packageSize:data:)")
  }
  /// Not supported pack by pack: `onBinaryFileEnd(-1)`.
  public func sendBinFileCheckSumResult(type: Int, crc: Int) {
    binaryUnsupported("sendBinFileCheckSumResult(type:crc:)")
  }

  private func binaryUnsupported(_ member: String) {
    unsupported(
      member, "RecorderKit sends a whole file (PlaudDeviceAgent.sendBinaryFile)",
      own: { $0.onBinaryFileEnd(result: -1) })
  }

  // MARK: - Idle-sync Wi-Fi (PROTOCOL.md §3.4: the layout is unknown)

  /// Not supported by RecorderKit: `onSyncIdleWifiConfigReceived(index, "", "")` is not
  /// sent; ``lastError`` says why.
  public func getSyncInIdleWifiConfig(wifiIndex: UInt32) {
    unsupported("getSyncInIdleWifiConfig(wifiIndex:)", Self.idleSyncReason)
  }
  /// Not supported by RecorderKit: `onSyncIdleWifiConfigSet(-1)`.
  public func setSyncInIdleWifiConfig(
    operation: Int, wifiIndex: UInt32, ssid: String, password: String
  ) {
    unsupported(
      "setSyncInIdleWifiConfig(operation:wifiIndex:ssid:password:)", Self.idleSyncReason,
      own: { $0.onSyncIdleWifiConfigSet(result: -1) })
  }
  /// Not supported by RecorderKit: `onSyncIdleWifiDeleteResult(-1)`.
  public func deleteSyncInIdleWifiConfig(wifiIndices: [UInt32]) {
    unsupported(
      "deleteSyncInIdleWifiConfig(wifiIndices:)", Self.idleSyncReason,
      own: { $0.onSyncIdleWifiDeleteResult(result: -1) })
  }
  /// Not supported by RecorderKit (the Find My reset's layout is unknown):
  /// `onResetFindmyResult(-1)`.
  public func resetFindmy() {
    unsupported(
      "resetFindmy()", "the Find My reset's byte layout is unknown",
      own: { $0.onResetFindmyResult(result: -1) })
  }
  /// Not supported by RecorderKit: `onSyncIdleWifiListReceived([])` is not sent; ``lastError``.
  public func getSyncInIdleWifiList() {
    unsupported("getSyncInIdleWifiList()", Self.idleSyncReason)
  }
  /// Not supported by RecorderKit: `onSyncIdleWifiTestResult(index, -1, -1)`.
  public func setSyncInIdleWifiTest(wifiIndex: UInt32) {
    unsupported(
      "setSyncInIdleWifiTest(wifiIndex:)", Self.idleSyncReason,
      own: { $0.onSyncIdleWifiTestResult(index: wifiIndex, result: -1, rawCode: -1) })
  }
  /// Not supported by RecorderKit: `onSyncIdleWifiTestResult(index, -1, -1)`.
  public func getSyncInIdleWifiTestResult(wifiIndex: UInt32) {
    unsupported(
      "getSyncInIdleWifiTestResult(wifiIndex:)", Self.idleSyncReason,
      own: { $0.onSyncIdleWifiTestResult(index: wifiIndex, result: -1, rawCode: -1) })
  }

  /// Not supported by RecorderKit (the Sound+ licence command is unknown):
  /// `onSetSoundPlusTokenResult("")`.
  public func setSoundPlusToken(licenseKey: String) {
    unsupported(
      "setSoundPlusToken(licenseKey:)", "the Sound+ licence command is unknown",
      own: { $0.onSetSoundPlusTokenResult(licenseKey: "") })
  }

  /// Writes the setting `dataType` (a ``CommonType`` raw value: a PROTOCOL.md §3.1 id) to
  /// the integer in `value`: `onCommonParamsSetResult(success, dataType, reported value)`.
  public func setCommonParams(dataType: Int, value: String) {
    commonParams("setCommonParams(dataType:value:)", dataType, write: value)
  }
  /// Reads the setting `dataType`: `onCommonParamsGetResult(success, dataType, value)`.
  public func getCommonParams(dataType: Int) {
    commonParams("getCommonParams(dataType:)", dataType, write: nil)
  }

  private func commonParams(_ member: String, _ dataType: Int, write value: String?) {
    let writing = value != nil
    @Sendable func report(_ delegate: any BleAgentProtocol, _ success: Bool, _ reported: String?) {
      if writing {
        delegate.onCommonParamsSetResult(success: success, dataType: dataType, value: reported)
      } else {
        delegate.onCommonParamsGetResult(success: success, dataType: dataType, value: reported)
      }
    }
    guard let id = UInt16(exactly: dataType), CommonType(rawValue: dataType) != nil else {
      record(.operationFailed("common parameter \(dataType) is not a CommonType"), member)
      return BleAgentListener.send { report($0, false, nil) }
    }
    var raw: UInt32?
    if let value {
      guard let number = UInt32(value.trimmingCharacters(in: .whitespaces)) else {
        record(.operationFailed("common parameter value \(value) is not a number"), member)
        return BleAgentListener.send { report($0, false, nil) }
      }
      raw = number
    }
    let written = raw
    lower(
      member,
      { session throws(DeviceError) in
        if let written { return try await session.writeSetting(id, value: written) }
        return try await session.readSetting(id)
      },
      answer: { delegate, result in
        switch result {
        case .success(let reported): report(delegate, true, String(reported))
        case .failure: report(delegate, false, nil)
        }
      })
  }

  /// Not supported by RecorderKit (the flash-CID command is unknown):
  /// `onGetSDFlashCIDResult("")`.
  public func getSDFLASHCID() {
    unsupported(
      "getSDFLASHCID()", "the flash-CID command is unknown",
      own: { $0.onGetSDFlashCIDResult(cid: "") })
  }

  /// Not supported by RecorderKit (the new-feature command is unknown):
  /// `bleNewFeature(Data())`.
  public func getNewFeature(_ data: Data) {
    unsupported(
      "getNewFeature(_:)", "the new-feature command is unknown",
      own: { $0.bleNewFeature(data: Data()) })
  }

  /// Not supported by RecorderKit (PROTOCOL.md §3.4 `008D` status: layout unknown):
  /// `bleDeviceStatus([])`.
  public func getDeviceStatus() {
    unsupported(
      "getDeviceStatus()", "the status command's (008D) layout is unknown",
      own: { $0.bleDeviceStatus(status: []) })
  }

  // MARK: - Helpers

  /// Whether the connected device's handshake passed.
  public func isAuthOk() -> Bool { isConnected }

  /// The first channel of interleaved 16-bit stereo PCM (every other sample); an odd
  /// trailing byte is dropped.
  public func toSingleChannel(_ pcmData: Data) -> Data {
    let bytes = Array(pcmData)
    var mono = [UInt8]()
    mono.reserveCapacity(bytes.count / 2)
    var index = 0
    while index + 1 < bytes.count {
      mono.append(bytes[index])
      mono.append(bytes[index + 1])
      index += 4
    }
    return Data(mono)
  }

  /// The TAGS request frame (PROTOCOL.md §3.3 `0026`) for marks between two unix times,
  /// with `uid` as its request tag: the bytes a phone writes.
  public func dataOfGetRecordMarkingTags(uid: Int, startTimestamp: Int, endTimestamp: Int)
    -> Data
  {
    let request = TagsRequest(
      requestTag: UInt32(truncatingIfNeeded: uid), from: UInt32(clamping: startTimestamp),
      to: UInt32(clamping: endTimestamp))
    let port = connectedDevice?.portVersion ?? ProtocolDefaults.portVersion
    return Data(PhoneMessage.tags(request).encoded(portVersion: port))
  }
}

extension BleAgent: JXPcmProcessDelegate {
  /// Decoded PCM from a ``JXPcmProcess``: passed on as `blePcmData(sessionId, millSec, pcm,
  /// isMusic)`.
  public func onPcmData(_ sessionId: Int, _ millSec: Int, _ pcmData: Data) {
    let music = isMusic
    BleAgentListener.send {
      $0.blePcmData(sessionId: sessionId, millsec: millSec, pcmData: pcmData, isMusic: music)
    }
  }

  /// A packet that would not decode: `bleDecodeFail(start: millSec)`.
  public func onDecodeErr(_ millSec: Int) {
    BleAgentListener.send { $0.bleDecodeFail(start: millSec) }
  }
}

extension BleAgent: URLSessionDelegate {
  /// The system's default handling: RecorderKit trusts no self-signed certificate
  /// (``selfSignedHosts`` is empty).
  public func urlSession(
    _ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
    completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
  ) {
    let (disposition, credential) = selfSignedTrust(session: session, challenge: challenge)
    completionHandler(disposition, credential)
  }

  /// `(.performDefaultHandling, nil)`: no host is trusted beyond the system's roots.
  public func selfSignedTrust(session: URLSession, challenge: URLAuthenticationChallenge)
    -> (URLSession.AuthChallengeDisposition, URLCredential?)
  {
    (.performDefaultHandling, nil)
  }
}
