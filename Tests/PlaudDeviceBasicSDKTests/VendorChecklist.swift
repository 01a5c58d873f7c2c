// The vendor's 289 members in scope (shared VENDOR-API.md's checklist): the test of
// docs/migrating-from-vendor-sdk.md compares the doc's table with this list.

enum VendorChecklist {
  /// (type, member) as the checklist names them.
  static let rows: [(type: String, member: String)] = [
    (
      #"PlaudDeviceAgent"#,
      #"`class PlaudDeviceAgent : NSObject (a reference type; Equatable/Hashable through NSObject)`"#
    ),
    (#"PlaudDeviceAgent"#, #"`static let shared: PlaudDeviceAgent`"#),
    (#"PlaudDeviceAgent"#, #"`var bleAgent: BleAgent? { get set }`"#),
    (#"PlaudDeviceAgent"#, #"`var currentDownloadSpeedKBps: Double { get }`"#),
    (#"PlaudDeviceAgent"#, #"`func getFormattedDownloadSpeed() -> String`"#),
    (#"PlaudDeviceAgent"#, #"`var recentConnectDevice: BleDevice? { get set }`"#),
    (#"PlaudDeviceAgent"#, #"`var sceneFlag: Int { get }`"#),
    (#"PlaudDeviceAgent"#, #"`var isWiFiTransferActive: Bool { get }`"#),
    (#"PlaudDeviceAgent"#, #"`var skipPermissionCheck: Bool { get set }`"#),
    (#"PlaudDeviceAgent"#, #"`weak var delegate: (any PlaudDeviceAgentProtocol)? { get set }`"#),
    (
      #"PlaudDeviceAgent"#,
      #"`func initSDK(userAccessToken: String, customDomain: String, extra: [String: String] = [:])`"#
    ),
    (
      #"PlaudDeviceAgent"#,
      #"`func initSDK(hostName:appKey:appSecret:bindToken: = "", extra: = [:], customDomain: String? = nil, partnerToken: String? = nil)`"#
    ),
    (#"PlaudDeviceAgent"#, #"`func setUserAccessToken(_ token: String?)`"#),
    (
      #"PlaudDeviceAgent"#,
      #"`func setPartnerToken(_ token: String?)  (deprecated, renamed setUserAccessToken)`"#
    ),
    (#"PlaudDeviceAgent"#, #"`func getPartnerApiManager() -> PlaudPartnerApiManager`"#),
    (#"PlaudDeviceAgent"#, #"`func isPartnerDataReady() -> Bool`"#),
    (#"PlaudDeviceAgent"#, #"`static func getTestAppKey(_ beta: Bool = false) -> String`"#),
    (#"PlaudDeviceAgent"#, #"`static func getTestAppSecret(_ beta: Bool = false) -> String`"#),
    (#"PlaudDeviceAgent"#, #"`func depair(clear: Bool = false)`"#),
    (#"PlaudDeviceAgent"#, #"`func setDeviceWiFi(open: Bool)`"#),
    (#"PlaudDeviceAgent"#, #"`func endWiFiTransfer()`"#),
    (#"PlaudDeviceAgent"#, #"`func setDeviceBinding(token: String)`"#),
    (#"PlaudDeviceAgent"#, #"`func startScan()`"#),
    (#"PlaudDeviceAgent"#, #"`func stopScan()`"#),
    (#"PlaudDeviceAgent"#, #"`func isConnected() -> Bool`"#),
    (#"PlaudDeviceAgent"#, #"`func connectBleDevice(bleDevice: BleDevice, deviceToken: String)`"#),
    (#"PlaudDeviceAgent"#, #"`func connectBleDevice(bleDevice: BleDevice)`"#),
    (#"PlaudDeviceAgent"#, #"`func disconnect()`"#),
    (#"PlaudDeviceAgent"#, #"`func tryReconnectLastDevice()`"#),
    (#"PlaudDeviceAgent"#, #"`func getState()`"#),
    (#"PlaudDeviceAgent"#, #"`func getStorage()`"#),
    (#"PlaudDeviceAgent"#, #"`func getWifiSyncEnable()`"#),
    (#"PlaudDeviceAgent"#, #"`func setWifiSyncEnable(value: Int)`"#),
    (#"PlaudDeviceAgent"#, #"`func setWifiSyncTest(wifiIndex: UInt32)`"#),
    (#"PlaudDeviceAgent"#, #"`func getWifiSyncTestResult(wifiIndex: UInt32)`"#),
    (#"PlaudDeviceAgent"#, #"`func getChargingState()`"#),
    (#"PlaudDeviceAgent"#, #"`func setMicGain(value: Int)`"#),
    (#"PlaudDeviceAgent"#, #"`func readMicGain()`"#),
    (#"PlaudDeviceAgent"#, #"`func setUDiskMode(onOff: Bool)`"#),
    (#"PlaudDeviceAgent"#, #"`func checkIsRecording() -> Bool`"#),
    (#"PlaudDeviceAgent"#, #"`func checkIsDownloading() -> Bool`"#),
    (#"PlaudDeviceAgent"#, #"`func startRecord()`"#),
    (#"PlaudDeviceAgent"#, #"`func setDeviceActive(status: Int)`"#),
    (#"PlaudDeviceAgent"#, #"`func stopRecord()`"#),
    (#"PlaudDeviceAgent"#, #"`func setDeviceName(_ name: String)`"#),
    (#"PlaudDeviceAgent"#, #"`func getCurrentSessionID() -> Int`"#),
    (#"PlaudDeviceAgent"#, #"`func pauseRecord()`"#),
    (#"PlaudDeviceAgent"#, #"`func resumeRecord()`"#),
    (#"PlaudDeviceAgent"#, #"`func getFileList(startSessionId: Int)`"#),
    (#"PlaudDeviceAgent"#, #"`func getFile(sessionId: Int)`"#),
    (#"PlaudDeviceAgent"#, #"`func syncFile(sessionId: Int, start: Int, end: Int)`"#),
    (
      #"PlaudDeviceAgent"#,
      #"`func downloadFile(sessionId: Int, desiredOutputPath: String, format: PlaudDownloadFormat = .wav)`"#
    ),
    (#"PlaudDeviceAgent"#, #"`func stopDownloadFile()`"#),
    (
      #"PlaudDeviceAgent"#,
      #"`func exportAudio(sessionId: Int, outputDir: String, format: AudioExportFormat, channels: Int = 1, callback: any AudioExportCallback)`"#
    ),
    (#"PlaudDeviceAgent"#, #"`static func getSupportedExportFormats() -> [AudioExportFormat]`"#),
    (#"PlaudDeviceAgent"#, #"`func stopSyncFile()`"#),
    (#"PlaudDeviceAgent"#, #"`func deleteFile(sessionId: Int)`"#),
    (#"PlaudDeviceAgent"#, #"`func clearAllFiles()`"#),
    (#"PlaudDeviceAgent"#, #"`func restoreFactory()`"#),
    (#"PlaudDeviceAgent"#, #"`func getWifiSyncConfig(wifiIndex: UInt32)`"#),
    (
      #"PlaudDeviceAgent"#,
      #"`func setWifiSyncConfig(operation: Int, wifiIndex: UInt32, ssid: String, password: String)`"#
    ),
    (#"PlaudDeviceAgent"#, #"`func getWifiSyncList()`"#),
    (#"PlaudDeviceAgent"#, #"`func deleteWifiSyncConfig(wifiIndices: [UInt32])`"#),
    (#"PlaudDeviceAgent"#, #"`func reportDeviceMetadata()`"#),
    (
      #"PlaudDeviceAgent"#,
      #"`func checkFirmwareUpdate(completion: @escaping (PlaudFirmwareCheckResult) -> Void)`"#
    ),
    (
      #"PlaudDeviceAgent"#,
      #"`func startFirmwareUpdate(progress: @escaping (PlaudFirmwarePhase, Float) -> Void, completion: @escaping (PlaudFirmwareUpdateResult) -> Void)`"#
    ),
    (
      #"PlaudDeviceAgent"#,
      #"`func pushFirmwareFile(filePath: String, toVersion: String, progress: @escaping (PlaudFirmwarePhase, Float) -> Void, completion: @escaping (PlaudFirmwareUpdateResult) -> Void)`"#
    ),
    (
      #"PlaudDeviceAgent"#,
      #"`func sendApiToken(token: String, callback: @escaping (Bool, String) -> Void)`"#
    ),
    (
      #"PlaudDeviceAgent"#,
      #"`func sendBinaryFile(type: Int, data: Data?, callback: @escaping (Bool, String) -> Void)`"#
    ),
    (#"PlaudDeviceAgent"#, #"`func clearSDKCredentials()`"#),
    (#"PlaudDeviceAgent"#, #"`func checkSdkResource()`"#),
    (
      #"PlaudDeviceAgent (update-check API)"#,
      #"`func quickUpdateCheck(device: BleDevice, showUI: Bool = true, completion: @escaping (UpdateStatus) -> Void)`"#
    ),
    (
      #"PlaudDeviceAgent (update-check API)"#,
      #"`func quickUpdateCheck(model: String, snType: String = "notepin", versionType: String = "V", showUI: Bool = true, completion: ((Bool, String?) -> Void)? = nil)`"#
    ),
    (
      #"PlaudDeviceAgent (update-check API)"#,
      #"`func silentUpdateCheck(model: String, snType: String = "notepin", versionType: String = "V", completion: @escaping (Bool, LatestVersionResponse?, (any Error)?) -> Void)`"#
    ),
    (
      #"PlaudDeviceAgent (update-check API)"#,
      #"`func downloadUpdatePackage(downloadURL: String, model: String, versionNumber: String, versionCode: String = "", fileMD5: String? = nil, showProgress: Bool = false, completion: @escaping (Bool, String?) -> Void)`"#
    ),
    (
      #"PlaudDeviceAgent (update-check API)"#,
      #"`func checkForceUpdate(model: String, snType: String = "notepin", versionType: String = "V", completion: @escaping (Bool, LatestVersionResponse?) -> Void)`"#
    ),
    (#"PlaudDeviceAgent (update-check API)"#, #"`func getDownloadedUpdatePackages() -> [String]`"#),
    (
      #"PlaudDeviceAgent (update-check API)"#,
      #"`@discardableResult func cleanDownloadedUpdatePackages() -> Bool`"#
    ),
    (
      #"PlaudDeviceAgent (update-check API)"#,
      #"`func compareVersions(_ version1: String, _ version2: String) -> Int`"#
    ),
    (
      #"PlaudDeviceAgent (update-check API)"#,
      #"`func shouldUpdate(currentVersion: String, latestVersion: String) -> Bool`"#
    ),
    (#"PlaudDeviceAgent (update-check API)"#, #"`func formatFileSize(_ bytes: Int64) -> String`"#),
    (
      #"PlaudDeviceAgent (update-check API)"#,
      #"`typealias UpdateStatusCallback = (UpdateStatus) -> Void; typealias UserConfirmationCallback = (Bool) -> Void`"#
    ),
    (
      #"PlaudDeviceAgent (update-check API)"#,
      #"`func checkLatestVersion(model: String, snType: String = "notepin", versionType: String = "V", callback: @escaping UpdateStatusCallback)`"#
    ),
    (
      #"PlaudDeviceAgent (update-check API)"#,
      #"`func downloadUpdate(versionInfo: LatestVersionResponse, callback: @escaping UpdateStatusCallback)`"#
    ),
    (
      #"PlaudDeviceAgent (update-check API)"#,
      #"`func performUpdateCheck(model: String, snType: String = "notepin", versionType: String = "V", callback: @escaping UpdateStatusCallback)`"#
    ),
    (
      #"PlaudDeviceAgent (update-check API)"#,
      #"`func checkLatestVersionForModel(_ model: String, snType: String, versionType: String, hasUpdate: @escaping (Bool, LatestVersionResponse?) -> Void, failure: @escaping (String) -> Void)`"#
    ),
    (
      #"PlaudDeviceAgent (update-check API)"#,
      #"`func downloadUpdateForVersion(_ versionInfo: LatestVersionResponse, progress: @escaping (Float) -> Void, success: @escaping (String) -> Void, failure: @escaping (String) -> Void)`"#
    ),
    (
      #"PlaudDeviceAgent (update-check API)"#,
      #"`func PlaudQuickUpdateCheck(model:snType: = "notepin", versionType: = "V", showUI: = true, completion: ((Bool, String?) -> Void)? = nil)  (free function)`"#
    ),
    (
      #"PlaudDeviceAgent (update-check API)"#,
      #"`func PlaudSilentUpdateCheck(model:snType: = "notepin", versionType: = "V", completion: @escaping (Bool, LatestVersionResponse?, (any Error)?) -> Void)  (free function)`"#
    ),
    (
      #"PlaudDeviceAgent (update-check API)"#,
      #"`class LatestVersionResponse : NSObject, Codable (type, model, version_type, version_code, version_number, version_description, is_force, is_strong_guidance, file_md5, download_url, version, release_notes, force_update, memberwise init)`"#
    ),
    (
      #"PlaudDeviceAgent (update-check API)"#,
      #"`enum UpdateStatus { checking, available(LatestVersionResponse), notAvailable, downloading(progress: Float), downloaded(localPath: String), failed(any Error) }`"#
    ),
    (
      #"PlaudDeviceAgent (update-check API)"#,
      #"`enum UpdateError : Error, LocalizedError { networkError(String), invalidResponse, downloadFailed(String), fileSystemError(String), noUpdateAvailable, userCancelled }`"#
    ),
    (
      #"PlaudDeviceAgentProtocol"#,
      #"`a class implementing only the required blePenState conforms`"#
    ),
    (
      #"PlaudDeviceAgentProtocol"#,
      #"`func blePenState(state:privacy:keyState:uDisk:findMyToken:hasSndpKey:deviceAccessToken: Int...)  (required)`"#
    ),
    (#"PlaudDeviceAgentProtocol"#, #"`optional func bleAppKeyState(result: Int)`"#),
    (#"PlaudDeviceAgentProtocol"#, #"`optional func bleDeviceName(name: String?)`"#),
    (#"PlaudDeviceAgentProtocol"#, #"`optional func bleScanResult(bleDevices: [BleDevice])`"#),
    (#"PlaudDeviceAgentProtocol"#, #"`optional func bleScanOverTime()`"#),
    (#"PlaudDeviceAgentProtocol"#, #"`optional func bleConnectState(state: Int)`"#),
    (
      #"PlaudDeviceAgentProtocol"#,
      #"`optional func bleBind(sn: String?, status: Int, protVersion: Int, timezone: Int)`"#
    ),
    (#"PlaudDeviceAgentProtocol"#, #"`optional func bleMicGain(_ value: Int)`"#),
    (
      #"PlaudDeviceAgentProtocol"#,
      #"`optional func bleStorage(total: Int, free: Int, duration: Int)`"#
    ),
    (#"PlaudDeviceAgentProtocol"#, #"`optional func blePowerChange(power: Int, oldPower: Int)`"#),
    (
      #"PlaudDeviceAgentProtocol"#,
      #"`optional func bleChargingState(isCharging: Bool, level: Int)`"#
    ),
    (#"PlaudDeviceAgentProtocol"#, #"`optional func bleFileList(bleFiles: [BleFile])`"#),
    (
      #"PlaudDeviceAgentProtocol"#,
      #"`optional func bleRecordStart(sessionId: Int, start: Int, status: Int, scene: Int, startTime: Int, reason: Int)`"#
    ),
    (
      #"PlaudDeviceAgentProtocol"#,
      #"`optional func bleRecordStop(sessionId: Int, reason: Int, fileExist: Bool, fileSize: Int)`"#
    ),
    (
      #"PlaudDeviceAgentProtocol"#,
      #"`optional func bleRecordPause(sessionId: Int, reason: Int, fileExist: Bool, fileSize: Int)`"#
    ),
    (
      #"PlaudDeviceAgentProtocol"#,
      #"`optional func bleRecordResume(sessionId: Int, start: Int, status: Int, scene: Int, startTime: Int)`"#
    ),
    (
      #"PlaudDeviceAgentProtocol"#, #"`optional func bleSyncFileHead(sessionId: Int, status: Int)`"#
    ),
    (#"PlaudDeviceAgentProtocol"#, #"`optional func bleSyncFileTail(sessionId: Int, crc: Int)`"#),
    (
      #"PlaudDeviceAgentProtocol"#,
      #"`optional func bleData(sessionId: Int, start: Int, data: Data)`"#
    ),
    (
      #"PlaudDeviceAgentProtocol"#,
      #"`optional func blePcmData(sessionId: Int, millsec: Int, pcmData: Data, isMusic: Bool)`"#
    ),
    (#"PlaudDeviceAgentProtocol"#, #"`optional func bleDataComplete()`"#),
    (#"PlaudDeviceAgentProtocol"#, #"`optional func bleDecodeFail(start: Int)`"#),
    (#"PlaudDeviceAgentProtocol"#, #"`optional func bleSyncFileStop()`"#),
    (
      #"PlaudDeviceAgentProtocol"#,
      #"`optional func bleDownloadFile(sessionId: Int, desiredOutputPath: String, status: Int, progress: Int, tips: String)`"#
    ),
    (#"PlaudDeviceAgentProtocol"#, #"`optional func bleDownloadFileStop()`"#),
    (#"PlaudDeviceAgentProtocol"#, #"`optional func bleDeleteFile(sessionId: Int, status: Int)`"#),
    (#"PlaudDeviceAgentProtocol"#, #"`optional func bleDepair(_ status: Int)`"#),
    (
      #"PlaudDeviceAgentProtocol"#,
      #"`optional func onWifiSyncConfigReceived(index: UInt32, ssid: String, password: String)`"#
    ),
    (#"PlaudDeviceAgentProtocol"#, #"`optional func onWifiSyncConfigSet(result: Int)`"#),
    (#"PlaudDeviceAgentProtocol"#, #"`optional func onWifiSyncListReceived(list: [UInt32])`"#),
    (#"PlaudDeviceAgentProtocol"#, #"`optional func onWifiSyncDeleteResult(result: Int)`"#),
    (#"PlaudDeviceAgentProtocol"#, #"`optional func onWifiSyncTestStarted(index: UInt32)`"#),
    (#"PlaudDeviceAgentProtocol"#, #"`optional func onWifiSyncWillStart(seconds: Int)`"#),
    (
      #"PlaudDeviceAgentProtocol"#,
      #"`optional func onWifiSyncTestResult(index: UInt32, result: Int, rawCode: Int)`"#
    ),
    (#"PlaudDeviceAgentProtocol"#, #"`optional func onWifiSyncUrl(url: String)`"#),
    (#"PlaudDeviceAgentProtocol"#, #"`optional func onWifiRssiRequestConfirmed(status: Int)`"#),
    (
      #"PlaudDeviceAgentProtocol"#,
      #"`optional func onSdkFetchPermissionResult(pass: Bool, tips: String)`"#
    ),
    (
      #"PlaudDeviceAgentProtocol"#,
      #"`optional func onSdkCheckPermissionResult(pass: Bool, tips: String)`"#
    ),
    (
      #"PlaudDeviceAgentProtocol"#,
      #"`optional func onSdkCheckResourceResult(pass: Bool, tips: String)`"#
    ),
    (#"PlaudDeviceAgentProtocol"#, #"`optional func onWifiSyncEnabled(_ value: Int)`"#),
    (
      #"PlaudDeviceAgentProtocol"#,
      #"`optional func onCommonMsgChannel(type: Int, value: Int, tips: String)`"#
    ),
    (
      #"PlaudDeviceAgentProtocol"#,
      #"`optional func bleWiFiOpen(_ status: Int, _ wifiName: String, _ wholeName: String, _ wifiPass: String)`"#
    ),
    (
      #"PlaudDeviceAgentProtocol"#,
      #"`optional func bleFotaResult(uid: Int, status: Int, errmsg: String?)`"#
    ),
    (
      #"PlaudDeviceAgentProtocol"#,
      #"`optional func bleFotaPackReq(uid: Int, start: Int, end: Int)`"#
    ),
    (
      #"PlaudDeviceAgentProtocol"#,
      #"`optional func bleFotaPackFin(uid: Int, status: Int, errmsg: String?)`"#
    ),
    (#"PlaudDeviceAgentProtocol"#, #"`optional func bleOtaDataSendFail()`"#),
    (#"PlaudDeviceAgentProtocol"#, #"`optional func bleSetActive(status: Int)`"#),
    (#"PlaudDeviceAgentProtocol"#, #"`optional func bleCommonSetting(setting: Int)`"#),
    (
      #"PlaudDeviceAgentProtocol"#,
      #"`optional func bleRate(lossRate: Double, rate: Int, instantRate: Int)`"#
    ),
    (
      #"AudioExportCallback"#,
      #"`a class implementing onProgress/onComplete/onError conforms (and can be passed to exportAudio)`"#
    ),
    (#"AudioExportCallback"#, #"`func onProgress(_ progress: Int, message: String)`"#),
    (#"AudioExportCallback"#, #"`func onComplete(outputPath: String)`"#),
    (#"AudioExportCallback"#, #"`func onError(_ error: String)`"#),
    (
      #"AudioExportFormat"#,
      #"`enum AudioExportFormat: Int { pcm = 0, mp3 = 1, wav = 2, opus = 3 } (cases, RawRepresentable)`"#
    ),
    (#"AudioExportFormat"#, #"`var fileExtension: String { get }`"#),
    (
      #"PlaudDownloadFormat"#,
      #"`enum PlaudDownloadFormat: Int { pcm = 0, (mp3 = 1 unavailable), wav = 2 }`"#
    ),
    (
      #"PlaudFirmwareCheckResult"#,
      #"`class PlaudFirmwareCheckResult : NSObject (a reference type)`"#
    ),
    (#"PlaudFirmwareCheckResult"#, #"`let hasUpdate: Bool`"#),
    (#"PlaudFirmwareCheckResult"#, #"`let currentVersion: String`"#),
    (#"PlaudFirmwareCheckResult"#, #"`let latestVersion: String`"#),
    (#"PlaudFirmwareCheckResult"#, #"`let versionCode: Int`"#),
    (#"PlaudFirmwareCheckResult"#, #"`let releaseNotes: String`"#),
    (#"PlaudFirmwareCheckResult"#, #"`let downloadUrl: String`"#),
    (#"PlaudFirmwareCheckResult"#, #"`let md5: String`"#),
    (#"PlaudFirmwareCheckResult"#, #"`let isForce: Bool`"#),
    (
      #"PlaudFirmwareUpdateResult"#,
      #"`class PlaudFirmwareUpdateResult : NSObject (a reference type)`"#
    ),
    (#"PlaudFirmwareUpdateResult"#, #"`let success: Bool`"#),
    (#"PlaudFirmwareUpdateResult"#, #"`let version: String`"#),
    (#"PlaudFirmwareUpdateResult"#, #"`let errorMessage: String?`"#),
    (
      #"PlaudFirmwarePhase"#,
      #"`enum PlaudFirmwarePhase: Int { downloading = 0, installing = 1, restarting = 2, complete = 3 }`"#
    ),
    (#"PlaudWiFiAgent"#, #"`class PlaudWiFiAgent : NSObject`"#),
    (#"PlaudWiFiAgent"#, #"`static let shared: PlaudWiFiAgent`"#),
    (#"PlaudWiFiAgent"#, #"`weak var delegate: (any PlaudWiFiAgentProtocol)? { get set }`"#),
    (#"PlaudWiFiAgent"#, #"`var bleDevice: BleDevice? { get set }`"#),
    (#"PlaudWiFiAgent"#, #"`var isDownloading: Bool { get }`"#),
    (#"PlaudWiFiAgent"#, #"`var currentSessionId: Int { get }`"#),
    (#"PlaudWiFiAgent"#, #"`var isConnected: Bool { get }`"#),
    (#"PlaudWiFiAgent"#, #"`var currentDownloadSpeedKBps: Double { get }`"#),
    (#"PlaudWiFiAgent"#, #"`func getFormattedDownloadSpeed() -> String`"#),
    (#"PlaudWiFiAgent"#, #"`var isDownloadingAll: Bool { get }`"#),
    (
      #"PlaudWiFiAgent"#, #"`func openLog(_ opened: Bool, _ backBlock: ((String) -> Void)? = nil)`"#
    ),
    (#"PlaudWiFiAgent"#, #"`func listenPort(_ ssid: String, _ overtimeSec: Int = 30)`"#),
    (
      #"PlaudWiFiAgent"#,
      #"`func connectWifi(_ ssid: String, _ passphrase: String, _ overtimeSec: Int = 60)`"#
    ),
    (#"PlaudWiFiAgent"#, #"`func disconnect()`"#),
    (#"PlaudWiFiAgent"#, #"`func isConnectedTo(_ ssid: String) -> Bool`"#),
    (#"PlaudWiFiAgent"#, #"`func getConnectionStatusDescription() -> String`"#),
    (#"PlaudWiFiAgent"#, #"`func getCurrentWiFiName() -> String?`"#),
    (
      #"PlaudWiFiAgent"#,
      #"`func getFileList(_ uid: Int, _ sessionId: Int, _ single: Bool = false)`"#
    ),
    (
      #"PlaudWiFiAgent"#,
      #"`func syncFile(_ sessionId: Int, _ start: Int, _ end: Int = 0, _ scene: Int = 1)`"#
    ),
    (#"PlaudWiFiAgent"#, #"`func stopSyncFile(_ sessionId: Int, _ scene: Int = 1)`"#),
    (#"PlaudWiFiAgent"#, #"`func deleteFile(_ sessionId: Int, _ scene: Int = 1)`"#),
    (
      #"PlaudWiFiAgent"#,
      #"`func exportAudioViaWiFi(sessionId: Int, outputDir: String, format: AudioExportFormat, channels: Int = 1, callback: any AudioExportCallback)`"#
    ),
    (#"PlaudWiFiAgent"#, #"`func downloadAllFiles()`"#),
    (#"PlaudWiFiAgent"#, #"`func startDownloadAll()`"#),
    (#"PlaudWiFiAgent"#, #"`func stopDownloadAll()`"#),
    (#"PlaudWiFiAgent"#, #"`func startRateTest(_ onOff: Bool, _ packSize: Int)`"#),
    (#"PlaudWiFiAgent"#, #"`func getDeviceLogs(_ begin: Bool)`"#),
    (#"PlaudWiFiAgent"#, #"`func isWebSocketConnected() -> Bool`"#),
    (#"PlaudWiFiAgentProtocol"#, #"`a class implementing nothing conforms`"#),
    (#"PlaudWiFiAgentProtocol"#, #"`optional func wifiCommonErr(_ cmd: Int, _ status: Int)`"#),
    (#"PlaudWiFiAgentProtocol"#, #"`optional func wifiHandshake(_ status: Int)`"#),
    (
      #"PlaudWiFiAgentProtocol"#,
      #"`optional func wifiConnectionStatus(_ ssid: String, _ connected: Bool)`"#
    ),
    (
      #"PlaudWiFiAgentProtocol"#,
      #"`optional func wifiConnectResult(_ success: Bool, _ errorCode: Int, _ message: String)`"#
    ),
    (#"PlaudWiFiAgentProtocol"#, #"`optional func wifiPower(_ power: Int, _ voltage: Int)`"#),
    (#"PlaudWiFiAgentProtocol"#, #"`optional func wifiFileListFail(_ status: Int)`"#),
    (#"PlaudWiFiAgentProtocol"#, #"`optional func wifiFileList(_ files: [BleFile])`"#),
    (#"PlaudWiFiAgentProtocol"#, #"`optional func wifiSyncFile(_ sessionId: Int, _ status: Int)`"#),
    (
      #"PlaudWiFiAgentProtocol"#,
      #"`optional func wifiSyncFileData(_ sessionId: Int, _ offset: Int, _ count: Int, _ binData: Data)`"#
    ),
    (#"PlaudWiFiAgentProtocol"#, #"`optional func wifiDataComplete()`"#),
    (#"PlaudWiFiAgentProtocol"#, #"`optional func wifiSyncFileStop(_ status: Int)`"#),
    (
      #"PlaudWiFiAgentProtocol"#,
      #"`optional func wifiFileDelete(_ sessionId: Int, _ status: Int)`"#
    ),
    (#"PlaudWiFiAgentProtocol"#, #"`optional func wifiClientFail()`"#),
    (#"PlaudWiFiAgentProtocol"#, #"`optional func wifiClose(_ status: Int)`"#),
    (#"PlaudWiFiAgentProtocol"#, #"`optional func wifiRateFail(_ status: Int)`"#),
    (
      #"PlaudWiFiAgentProtocol"#,
      #"`optional func wifiRate(_ instantRate: Int, _ averageRate: Int, _ lossRate: Double)`"#
    ),
    (#"PlaudWiFiAgentProtocol"#, #"`optional func wifiLogsFail(_ status: Int)`"#),
    (#"PlaudWiFiAgentProtocol"#, #"`optional func wifiLogs(_ logData: Data?)`"#),
    (#"PlaudWiFiAgentProtocol"#, #"`optional func wifiTips(_ tips: Int)`"#),
    (
      #"PlaudWiFiAgentProtocol"#,
      #"`optional func wifiDownloadAllProgress(_ totalFiles: Int, _ currentFileIndex: Int, _ currentFile: BleFile?, _ totalProgress: Double)`"#
    ),
    (
      #"PlaudWiFiAgentProtocol"#,
      #"`optional func wifiDownloadAllCompleted(_ completedFiles: Int, _ failedFiles: Int)`"#
    ),
    (
      #"BleDevice"#,
      #"`class BleDevice : NSObject (H: `@interface PlaudBleDevice : BleDevice`; Equatable/Hashable through NSObject)`"#
    ),
    (#"BleDevice"#, #"`init(sn: String)  (SI: PlaudBleDevice overrides BleDevice's `init(sn:)`)`"#),
    (
      #"BleDevice"#,
      #"`var serialNumber: String  (TA: keys [String: BleDevice], isSupportedDevice(sn:))`"#
    ),
    (
      #"BleDevice"#,
      #"`var name: String  (TA: scanDisplayName(rawName: String), PlaudDevice(name: String))`"#
    ),
    (
      #"BleDevice"#,
      #"`var rssi: Int  (TA: ScannedDevice(rssi:), sorted by rssi; type Int inferred)`"#
    ),
    (#"BleDevice"#, #"`var power: Int  (TA: PlaudDevice(batteryLevel: Int))`"#),
    (#"BleDevice"#, #"`var isCharging: Bool  (TA: PlaudDevice(isCharging: Bool))`"#),
    (
      #"BleDevice"#,
      #"`var versionCode: Int  (TA: formatVersionCode(_ code: Int), "major.minor.patch" packed in bytes)`"#
    ),
    (
      #"BleDevice"#,
      #"`var versionTypeStr  (TA: "\(type)\(formatVersionCode(...))", the "V" prefix; type not pinned)`"#
    ),
    (#"BleDevice"#, #"`var supportWiFi: Bool  (TA: PlaudDevice(supportWiFi: Bool))`"#),
    (#"PlaudBleDevice"#, #"`class PlaudBleDevice : BleDevice, init(sn: String)  (SI)`"#),
    (#"BleFile"#, #"`class BleFile : NSObject (H: `@class BleFile`, `NSArray<BleFile *>`)`"#),
    (
      #"BleFile"#,
      #"`var sessionId: Int  (TA*: Set<Int> of sessionIds, RecordingFile(sessionId: Int))`"#
    ),
    (#"BleFile"#, #"`var size: Int  (TA*: `currentFileSize: Int = next.size`)`"#),
    (
      #"BleFile"#, #"`var sn: String  (TA*: RecordingFile(deviceSN: bf.sn) with deviceSN: String)`"#
    ),
    (
      #"BleFile"#,
      #"`func duration() -> (integer milliseconds)  (TA*: `TimeInterval(bf.duration()) / 1000.0`)`"#
    ),
    (
      #"BleAgent"#,
      #"`class BleAgent : NSObject (H: `@interface BleAgent (SWIFT_EXTENSION(PlaudDeviceBasicSDK))`)`"#
    ),
    (
      #"BleAgent"#,
      #"`static shared: BleAgent; var bleDevice: BleDevice?  (README and TA: `PlaudWiFiAgent.shared.bleDevice = BleAgent.shared.bleDevice`)`"#
    ),
    (#"BleAgent"#, #"`var isRecording: Bool  (TA: state == 4099 or agent.isRecording)`"#),
    (#"BleAgent"#, #"`var sessionId: Int  (TA: passed to syncFile(sessionId: Int, ...))`"#),
    (#"PlaudFileUploader"#, #"`class PlaudFileUploader : NSObject with static let shared`"#),
    (#"PlaudFileUploader"#, #"`var device: BleDevice? { get set }`"#),
    (#"PlaudFileUploader"#, #"`func checkRecordingExist(sessionId: Int) -> Bool`"#),
    (
      #"PlaudFileUploader"#,
      #"`func getDownloadedRecordingPath(sessionId: Int, desiredPath: String) -> String`"#
    ),
    (
      #"PlaudFileUploader"#,
      #"`func uploadRecording(sn: String, sessionId: Int, duration: Double, onProgress: @escaping (Double) -> Void, onSuccess: @escaping ([String: Any]) -> Void, onFailure: @escaping (any Error) -> Void)`"#
    ),
    (
      #"PlaudFileUploader"#,
      #"`func uploadLogFile(filePath: String, sn: String, onProgress:onSuccess:onFailure:)`"#
    ),
    (#"PlaudFileUploader"#, #"`static func calculateSnType(sn: String) -> String`"#),
    (
      #"PlaudFileUploader"#,
      #"`func bindDevice(ownerId: String, sn: String, completion: @escaping (Result<[String: Any], any Error>) -> Void)`"#
    ),
    (
      #"PlaudFileUploader"#,
      #"`func unbindDevice(ownerId: String, sn: String, completion: @escaping (Result<[String: Any], any Error>) -> Void)`"#
    ),
    (#"PlaudDomainManager"#, #"`class PlaudDomainManager with static let shared`"#),
    (#"PlaudDomainManager"#, #"`enum Region: String, CaseIterable { cn, us, jp }`"#),
    (#"PlaudDomainManager"#, #"`func setCustomDomain(_ domain: String)`"#),
    (#"PlaudDomainManager"#, #"`func setAutoLanguageAssociation(_ enabled: Bool)`"#),
    (#"PlaudDomainManager"#, #"`func isAutoLanguageAssociationEnabled() -> Bool`"#),
    (#"PlaudDomainManager"#, #"`func setRegion(_ region: Region)`"#),
    (#"PlaudDomainManager"#, #"`func setRegionForLanguage(_ languageCode: String)`"#),
    (#"PlaudDomainManager"#, #"`func getCurrentRegion() -> Region`"#),
    (#"PlaudDomainManager"#, #"`func getCurrentDomain() -> String`"#),
    (#"PlaudDomainManager"#, #"`func getCurrentBaseURL() -> String`"#),
    (#"PlaudDomainManager"#, #"`func getDomain(for region: Region) -> String`"#),
    (#"PlaudDomainManager"#, #"`func getBaseURL(for region: Region) -> String`"#),
    (#"PlaudDomainManager"#, #"`func buildAPIURL(path: String) -> String`"#),
    (#"PlaudDomainManager"#, #"`func buildAPIURL(path: String, for region: Region) -> String`"#),
    (
      #"PlaudDomainManager"#,
      #"`func buildAPIURL(path: String, for languageCode: String) -> String`"#
    ),
    (#"PlaudDomainManager"#, #"`func getRegionForCurrentLanguage() -> Region`"#),
    (#"PlaudDomainManager"#, #"`func getCurrentLanguageCode() -> String`"#),
    (#"PlaudLogConfig"#, #"`class PlaudLogConfig : NSObject with static let shared`"#),
    (#"PlaudLogConfig"#, #"`var maxFileCount: Int { get }`"#),
    (#"PlaudLogConfig"#, #"`var maxFileAge: Double { get }`"#),
    (#"PlaudLogConfig"#, #"`var maxFileSize: Int64 { get }`"#),
    (#"PlaudLogConfig"#, #"`var uploadInterval: TimeInterval { get }`"#),
    (#"PlaudLogConfig"#, #"`var uploadTimeout: Double { get }`"#),
    (
      #"PlaudLogConfig"#,
      #"`func updateFileConfiguration(maxFileCount: Int = 10, maxFileAge: TimeInterval = 7 * 24 * 60 * 60, maxFileSize: Int64 = 10 * 1024 * 1024)`"#
    ),
    (
      #"PlaudLogConfig"#,
      #"`func updateUploadConfiguration(uploadInterval: TimeInterval = 300, uploadTimeout: TimeInterval = 30)`"#
    ),
    (#"PlaudLogConfig"#, #"`func resetToDefaults()`"#),
    (#"PlaudLogConfig"#, #"`func getCurrentConfiguration() -> [String: Any]`"#),
    (#"PlaudLogConfig"#, #"`var maxFileAgeDays: Int { get }`"#),
    (#"PlaudLogConfig"#, #"`var maxFileSizeMB: Int { get }`"#),
    (#"PlaudLogConfig"#, #"`var uploadIntervalMinutes: Int { get }`"#),
    (#"PlaudLogConfig"#, #"`var uploadTimeoutSeconds: Int { get }`"#),
    (#"PlaudLogConfig"#, #"`func validateConfiguration() -> Bool`"#),
    (#"PlaudLogConfig"#, #"`func getConfigurationDescription() -> String`"#),
    (#"PlaudLogConfig"#, #"`static let Notification.Name.plaudLogConfigurationChanged`"#),
    (
      #"PlaudLogUploadManager"#, #"`class PlaudLogUploadManager : NSObject with static let shared`"#
    ),
    (#"PlaudLogUploadManager"#, #"`func setAutoUploadEnabled(_ enabled: Bool)`"#),
    (#"PlaudLogUploadManager"#, #"`func startAutoUpload()`"#),
    (#"PlaudLogUploadManager"#, #"`func stopAutoUpload()`"#),
    (
      #"PlaudLogUploadManager"#,
      #"`func uploadLogFiles(onProgress: @escaping (Double) -> Void, onSuccess: @escaping ([String: Any]) -> Void, onFailure: @escaping (any Error) -> Void)`"#
    ),
    (#"PlaudLogUploadManager"#, #"`func cleanupLogFiles()`"#),
    (#"PlaudLogUploadManager"#, #"`func getUploadStatistics() -> [String: Any]`"#),
    (
      #"PlaudLogUploadManager"#,
      #"`func uploadLogFilesWithDeviceSN(sn: String, onProgress:onSuccess:onFailure:)`"#
    ),
    (
      #"PlaudLogUploadManager"#,
      #"`func uploadLogsAfterRecording(sn: String, sessionId: Int, onCompletion: @escaping (Bool, (any Error)?) -> Void)`"#
    ),
    (
      #"PlaudLogUploadError"#,
      #"`enum PlaudLogUploadError: Int, Error { alreadyUploading = 0, directoryNotFound = 1, partialUpload = 2 }, localizedDescription`"#
    ),
    (
      #"PlaudLogUploadPartialError"#,
      #"`struct PlaudLogUploadPartialError: Error { let result: [String: Any]; init(result:) }`"#
    ),
    (
      #"PlaudLogEncryption"#,
      #"`static func exportEncryptedLogFile() throws -> NSURL; static func exportEncryptedLogs() -> NSURL?`"#
    ),
    (
      #"PlaudLogExportError"#,
      #"`enum PlaudLogExportError: Error, LocalizedError { logsDirectoryNotFound, noLogFiles, zipFailed, encryptFailed, writeFailed(underlying:) }`"#
    ),
  ]
}
