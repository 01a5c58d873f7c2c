import Foundation
import PlaudDeviceBasicSDK
import Testing

// The vendor's interface, member by member (shared VENDOR-API.md's checklist, written from
// the vendor's published swiftinterface and header): unapplied references with the vendor's
// function types, key paths with its property types, calls with every label and default, and
// conformances of classes written as the vendor's clients write them. The file compiling is
// the test; the runtime tests below check that each optional protocol member is a
// requirement (a class's own implementation is what a call through the protocol reaches).
// Firmware, cloud, domain, update-check and uploader rows are in VendorShapeCloudTests.swift.

/// Calls written as the template app writes them, never run: they must compile.
func vendorCallsCompile(_ agent: PlaudDeviceAgent, _ wifi: PlaudWiFiAgent, _ file: BleFile) {
  agent.depair()
  agent.depair(clear: true)
  agent.downloadFile(sessionId: 1, desiredOutputPath: "/tmp/a.wav")
  agent.downloadFile(sessionId: 1, desiredOutputPath: "/tmp/a.pcm", format: .pcm)
  agent.initSDK(hostName: "h", appKey: "k", appSecret: "s")
  agent.initSDK(
    hostName: "h", appKey: "k", appSecret: "s", bindToken: "", extra: [:], customDomain: nil,
    partnerToken: nil)
  _ = PlaudDeviceAgent.getTestAppKey()
  _ = PlaudDeviceAgent.getTestAppSecret()
  agent.startRecord()
  wifi.connectWifi("PLAUD1234", "pass")
  wifi.listenPort("PLAUD1234")
  wifi.getFileList(1, 0)
  wifi.syncFile(1, 0)
  wifi.stopSyncFile(1)
  wifi.deleteFile(1)
  wifi.openLog(true)
  wifi.openLog(true) { _ in }
  let _: TimeInterval = TimeInterval(file.duration()) / 1000.0
  PlaudLogUploadManager.shared.setAutoUploadEnabled(false)
  PlaudLogConfig.shared.updateFileConfiguration(
    maxFileCount: 25, maxFileAge: 7 * 24 * 60 * 60, maxFileSize: 20 * 1024 * 1024)
  PlaudLogConfig.shared.updateFileConfiguration()
  PlaudLogConfig.shared.updateUploadConfiguration()
  let _: PlaudBleDevice = PlaudBleDevice(sn: "8810")
  let _: BleDevice = BleDevice(sn: "8810")
  let _: Int = BleAgent.shared.sessionId
  let _: Bool = BleAgent.shared.isRecording
  let _: String = "\(BleDevice(sn: "").versionTypeStr)"
}

/// A delegate implementing only the required member conforms.
final class OnlyRequiredDelegate: NSObject, PlaudDeviceAgentProtocol {
  func blePenState(
    state: Int, privacy: Int, keyState: Int, uDisk: Int, findMyToken: Int, hasSndpKey: Int,
    deviceAccessToken: Int
  ) {}
}

/// A Wi-Fi delegate implementing nothing conforms.
final class EmptyWiFiDelegate: NSObject, PlaudWiFiAgentProtocol {}

/// An export callback as the vendor's clients write it.
final class VendorExportCallback: NSObject, AudioExportCallback {
  func onProgress(_ progress: Int, message: String) {}
  func onComplete(outputPath: String) {}
  func onError(_ error: String) {}
}

/// Every optional member of PlaudDeviceAgentProtocol, with the vendor's signature: records
/// which ones a call through the protocol reaches.
final class EveryDeviceCallback: NSObject, PlaudDeviceAgentProtocol {
  var heard: [String] = []
  func blePenState(
    state: Int, privacy: Int, keyState: Int, uDisk: Int, findMyToken: Int, hasSndpKey: Int,
    deviceAccessToken: Int
  ) { heard.append("blePenState") }
  func bleAppKeyState(result: Int) { heard.append("bleAppKeyState") }
  func bleDeviceName(name: String?) { heard.append("bleDeviceName") }
  func bleScanResult(bleDevices: [BleDevice]) { heard.append("bleScanResult") }
  func bleScanOverTime() { heard.append("bleScanOverTime") }
  func bleConnectState(state: Int) { heard.append("bleConnectState") }
  func bleBind(sn: String?, status: Int, protVersion: Int, timezone: Int) {
    heard.append("bleBind")
  }
  func bleMicGain(_ value: Int) { heard.append("bleMicGain") }
  func bleStorage(total: Int, free: Int, duration: Int) { heard.append("bleStorage") }
  func blePowerChange(power: Int, oldPower: Int) { heard.append("blePowerChange") }
  func bleChargingState(isCharging: Bool, level: Int) { heard.append("bleChargingState") }
  func bleFileList(bleFiles: [BleFile]) { heard.append("bleFileList") }
  func bleRecordStart(
    sessionId: Int, start: Int, status: Int, scene: Int, startTime: Int, reason: Int
  ) { heard.append("bleRecordStart") }
  func bleRecordStop(sessionId: Int, reason: Int, fileExist: Bool, fileSize: Int) {
    heard.append("bleRecordStop")
  }
  func bleRecordPause(sessionId: Int, reason: Int, fileExist: Bool, fileSize: Int) {
    heard.append("bleRecordPause")
  }
  func bleRecordResume(sessionId: Int, start: Int, status: Int, scene: Int, startTime: Int) {
    heard.append("bleRecordResume")
  }
  func bleSyncFileHead(sessionId: Int, status: Int) { heard.append("bleSyncFileHead") }
  func bleSyncFileTail(sessionId: Int, crc: Int) { heard.append("bleSyncFileTail") }
  func bleData(sessionId: Int, start: Int, data: Data) { heard.append("bleData") }
  func blePcmData(sessionId: Int, millsec: Int, pcmData: Data, isMusic: Bool) {
    heard.append("blePcmData")
  }
  func bleDataComplete() { heard.append("bleDataComplete") }
  func bleDecodeFail(start: Int) { heard.append("bleDecodeFail") }
  func bleSyncFileStop() { heard.append("bleSyncFileStop") }
  func bleDownloadFile(
    sessionId: Int, desiredOutputPath: String, status: Int, progress: Int, tips: String
  ) { heard.append("bleDownloadFile") }
  func bleDownloadFileStop() { heard.append("bleDownloadFileStop") }
  func bleDeleteFile(sessionId: Int, status: Int) { heard.append("bleDeleteFile") }
  func bleDepair(_ status: Int) { heard.append("bleDepair") }
  func onWifiSyncConfigReceived(index: UInt32, ssid: String, password: String) {
    heard.append("onWifiSyncConfigReceived")
  }
  func onWifiSyncConfigSet(result: Int) { heard.append("onWifiSyncConfigSet") }
  func onWifiSyncListReceived(list: [UInt32]) { heard.append("onWifiSyncListReceived") }
  func onWifiSyncDeleteResult(result: Int) { heard.append("onWifiSyncDeleteResult") }
  func onWifiSyncTestStarted(index: UInt32) { heard.append("onWifiSyncTestStarted") }
  func onWifiSyncWillStart(seconds: Int) { heard.append("onWifiSyncWillStart") }
  func onWifiSyncTestResult(index: UInt32, result: Int, rawCode: Int) {
    heard.append("onWifiSyncTestResult")
  }
  func onWifiSyncUrl(url: String) { heard.append("onWifiSyncUrl") }
  func onWifiRssiRequestConfirmed(status: Int) { heard.append("onWifiRssiRequestConfirmed") }
  func onSdkFetchPermissionResult(pass: Bool, tips: String) {
    heard.append("onSdkFetchPermissionResult")
  }
  func onSdkCheckPermissionResult(pass: Bool, tips: String) {
    heard.append("onSdkCheckPermissionResult")
  }
  func onSdkCheckResourceResult(pass: Bool, tips: String) {
    heard.append("onSdkCheckResourceResult")
  }
  func onWifiSyncEnabled(_ value: Int) { heard.append("onWifiSyncEnabled") }
  func onCommonMsgChannel(type: Int, value: Int, tips: String) {
    heard.append("onCommonMsgChannel")
  }
  func bleWiFiOpen(_ status: Int, _ wifiName: String, _ wholeName: String, _ wifiPass: String) {
    heard.append("bleWiFiOpen")
  }
  func bleFotaResult(uid: Int, status: Int, errmsg: String?) { heard.append("bleFotaResult") }
  func bleFotaPackReq(uid: Int, start: Int, end: Int) { heard.append("bleFotaPackReq") }
  func bleFotaPackFin(uid: Int, status: Int, errmsg: String?) { heard.append("bleFotaPackFin") }
  func bleOtaDataSendFail() { heard.append("bleOtaDataSendFail") }
  func bleSetActive(status: Int) { heard.append("bleSetActive") }
  func bleCommonSetting(setting: Int) { heard.append("bleCommonSetting") }
  func bleRate(lossRate: Double, rate: Int, instantRate: Int) { heard.append("bleRate") }
  // The template app's own: not in the published protocol, given as optional members.
  func bleState(powered: Bool) { heard.append("bleState") }
  func bleDeviceDisconnectErr() { heard.append("bleDeviceDisconnectErr") }
  func bleWiFiClose(_ status: Int) { heard.append("bleWiFiClose") }
}

/// Every member of PlaudWiFiAgentProtocol, with the vendor's signature.
final class EveryWiFiCallback: NSObject, PlaudWiFiAgentProtocol {
  var heard: [String] = []
  func wifiCommonErr(_ cmd: Int, _ status: Int) { heard.append("wifiCommonErr") }
  func wifiHandshake(_ status: Int) { heard.append("wifiHandshake") }
  func wifiConnectionStatus(_ ssid: String, _ connected: Bool) {
    heard.append("wifiConnectionStatus")
  }
  func wifiConnectResult(_ success: Bool, _ errorCode: Int, _ message: String) {
    heard.append("wifiConnectResult")
  }
  func wifiPower(_ power: Int, _ voltage: Int) { heard.append("wifiPower") }
  func wifiFileListFail(_ status: Int) { heard.append("wifiFileListFail") }
  func wifiFileList(_ files: [BleFile]) { heard.append("wifiFileList") }
  func wifiSyncFile(_ sessionId: Int, _ status: Int) { heard.append("wifiSyncFile") }
  func wifiSyncFileData(_ sessionId: Int, _ offset: Int, _ count: Int, _ binData: Data) {
    heard.append("wifiSyncFileData")
  }
  func wifiDataComplete() { heard.append("wifiDataComplete") }
  func wifiSyncFileStop(_ status: Int) { heard.append("wifiSyncFileStop") }
  func wifiFileDelete(_ sessionId: Int, _ status: Int) { heard.append("wifiFileDelete") }
  func wifiClientFail() { heard.append("wifiClientFail") }
  func wifiClose(_ status: Int) { heard.append("wifiClose") }
  func wifiRateFail(_ status: Int) { heard.append("wifiRateFail") }
  func wifiRate(_ instantRate: Int, _ averageRate: Int, _ lossRate: Double) {
    heard.append("wifiRate")
  }
  func wifiLogsFail(_ status: Int) { heard.append("wifiLogsFail") }
  func wifiLogs(_ logData: Data?) { heard.append("wifiLogs") }
  func wifiTips(_ tips: Int) { heard.append("wifiTips") }
  func wifiDownloadAllProgress(
    _ totalFiles: Int, _ currentFileIndex: Int, _ currentFile: BleFile?, _ totalProgress: Double
  ) { heard.append("wifiDownloadAllProgress") }
  func wifiDownloadAllCompleted(_ completedFiles: Int, _ failedFiles: Int) {
    heard.append("wifiDownloadAllCompleted")
  }
}

@Suite("Facade: the vendor's shapes")
struct VendorShapeTests {
  @Test("PlaudDeviceAgent: every member with the vendor's type")
  func deviceAgentMembers() {
    let _: NSObject.Type = PlaudDeviceAgent.self
    let _: () -> PlaudDeviceAgent = { PlaudDeviceAgent.shared }
    let _: ReferenceWritableKeyPath<PlaudDeviceAgent, BleAgent?> = \.bleAgent
    let _: KeyPath<PlaudDeviceAgent, Double> = \.currentDownloadSpeedKBps
    let _: (PlaudDeviceAgent) -> () -> String = PlaudDeviceAgent.getFormattedDownloadSpeed
    let _: ReferenceWritableKeyPath<PlaudDeviceAgent, BleDevice?> = \.recentConnectDevice
    let _: KeyPath<PlaudDeviceAgent, Int> = \.sceneFlag
    let _: KeyPath<PlaudDeviceAgent, Bool> = \.isWiFiTransferActive
    let _: ReferenceWritableKeyPath<PlaudDeviceAgent, Bool> = \.skipPermissionCheck
    let _: ReferenceWritableKeyPath<PlaudDeviceAgent, (any PlaudDeviceAgentProtocol)?> =
      \.delegate
    let _:
      (PlaudDeviceAgent) -> (String, String, String, String, [String: String], String?, String?)
        -> Void = PlaudDeviceAgent.initSDK(
          hostName:appKey:appSecret:bindToken:extra:customDomain:partnerToken:)
    (DeprecatedShapes.self as any DeprecatedShapeCheck.Type).check()
    let _: (PlaudDeviceAgent) -> () -> PlaudPartnerApiManager =
      PlaudDeviceAgent.getPartnerApiManager
    let _: (PlaudDeviceAgent) -> () -> Bool = PlaudDeviceAgent.isPartnerDataReady
    let _: (Bool) -> String = PlaudDeviceAgent.getTestAppKey
    let _: (Bool) -> String = PlaudDeviceAgent.getTestAppSecret
    let _: (PlaudDeviceAgent) -> (Bool) -> Void = PlaudDeviceAgent.depair(clear:)
    let _: (PlaudDeviceAgent) -> (Bool) -> Void = PlaudDeviceAgent.setDeviceWiFi(open:)
    let _: (PlaudDeviceAgent) -> () -> Void = PlaudDeviceAgent.endWiFiTransfer
    let _: (PlaudDeviceAgent) -> (String) -> Void = PlaudDeviceAgent.setDeviceBinding(token:)
    let _: (PlaudDeviceAgent) -> () -> Void = PlaudDeviceAgent.startScan
    let _: (PlaudDeviceAgent) -> () -> Void = PlaudDeviceAgent.stopScan
    let _: (PlaudDeviceAgent) -> () -> Bool = PlaudDeviceAgent.isConnected
    let _: (PlaudDeviceAgent) -> (BleDevice, String) -> Void =
      PlaudDeviceAgent.connectBleDevice(bleDevice:deviceToken:)
    let _: (PlaudDeviceAgent) -> (BleDevice) -> Void = PlaudDeviceAgent.connectBleDevice(
      bleDevice:)
    let _: (PlaudDeviceAgent) -> () -> Void = PlaudDeviceAgent.disconnect
    let _: (PlaudDeviceAgent) -> () -> Void = PlaudDeviceAgent.tryReconnectLastDevice
    let _: (PlaudDeviceAgent) -> () -> Void = PlaudDeviceAgent.getState
    let _: (PlaudDeviceAgent) -> () -> Void = PlaudDeviceAgent.getStorage
    let _: (PlaudDeviceAgent) -> () -> Void = PlaudDeviceAgent.getWifiSyncEnable
    let _: (PlaudDeviceAgent) -> (Int) -> Void = PlaudDeviceAgent.setWifiSyncEnable(value:)
    let _: (PlaudDeviceAgent) -> (UInt32) -> Void = PlaudDeviceAgent.setWifiSyncTest(wifiIndex:)
    let _: (PlaudDeviceAgent) -> (UInt32) -> Void = PlaudDeviceAgent.getWifiSyncTestResult(
      wifiIndex:)
    let _: (PlaudDeviceAgent) -> () -> Void = PlaudDeviceAgent.getChargingState
    let _: (PlaudDeviceAgent) -> (Int) -> Void = PlaudDeviceAgent.setMicGain(value:)
    let _: (PlaudDeviceAgent) -> () -> Void = PlaudDeviceAgent.readMicGain
    let _: (PlaudDeviceAgent) -> (Bool) -> Void = PlaudDeviceAgent.setUDiskMode(onOff:)
    let _: (PlaudDeviceAgent) -> () -> Bool = PlaudDeviceAgent.checkIsRecording
    let _: (PlaudDeviceAgent) -> () -> Bool = PlaudDeviceAgent.checkIsDownloading
    let _: (PlaudDeviceAgent) -> () -> Void = PlaudDeviceAgent.startRecord
    let _: (PlaudDeviceAgent) -> (Int) -> Void = PlaudDeviceAgent.setDeviceActive(status:)
    let _: (PlaudDeviceAgent) -> () -> Void = PlaudDeviceAgent.stopRecord
    let _: (PlaudDeviceAgent) -> (String) -> Void = PlaudDeviceAgent.setDeviceName
    let _: (PlaudDeviceAgent) -> () -> Int = PlaudDeviceAgent.getCurrentSessionID
    let _: (PlaudDeviceAgent) -> () -> Void = PlaudDeviceAgent.pauseRecord
    let _: (PlaudDeviceAgent) -> () -> Void = PlaudDeviceAgent.resumeRecord
    let _: (PlaudDeviceAgent) -> (Int) -> Void = PlaudDeviceAgent.getFileList(startSessionId:)
    let _: (PlaudDeviceAgent) -> (Int) -> Void = PlaudDeviceAgent.getFile(sessionId:)
    let _: (PlaudDeviceAgent) -> (Int, String, PlaudDownloadFormat) -> Void =
      PlaudDeviceAgent.downloadFile(sessionId:desiredOutputPath:format:)
    let _: (PlaudDeviceAgent) -> () -> Void = PlaudDeviceAgent.stopDownloadFile
    let _:
      (PlaudDeviceAgent) -> (Int, String, AudioExportFormat, Int, any AudioExportCallback)
        -> Void = PlaudDeviceAgent.exportAudio(
          sessionId:outputDir:format:channels:callback:)
    let _: () -> [AudioExportFormat] = PlaudDeviceAgent.getSupportedExportFormats
    let _: (PlaudDeviceAgent) -> (Int) -> Void = PlaudDeviceAgent.deleteFile(sessionId:)
    let _: (PlaudDeviceAgent) -> () -> Void = PlaudDeviceAgent.clearAllFiles
    let _: (PlaudDeviceAgent) -> () -> Void = PlaudDeviceAgent.restoreFactory
    let _: (PlaudDeviceAgent) -> (UInt32) -> Void = PlaudDeviceAgent.getWifiSyncConfig(
      wifiIndex:)
    let _: (PlaudDeviceAgent) -> (Int, UInt32, String, String) -> Void =
      PlaudDeviceAgent.setWifiSyncConfig(operation:wifiIndex:ssid:password:)
    let _: (PlaudDeviceAgent) -> () -> Void = PlaudDeviceAgent.getWifiSyncList
    let _: (PlaudDeviceAgent) -> ([UInt32]) -> Void = PlaudDeviceAgent.deleteWifiSyncConfig(
      wifiIndices:)
    let _: (PlaudDeviceAgent) -> () -> Void = PlaudDeviceAgent.reportDeviceMetadata
    let _: (PlaudDeviceAgent) -> (Int, Data?, @escaping (Bool, String) -> Void) -> Void =
      PlaudDeviceAgent.sendBinaryFile(type:data:callback:)
    // Reached by the live-audio work: syncFile(sessionId:start:end:), stopSyncFile().
    // Firmware and cloud members: VendorShapeCloudTests.swift.
  }

  @Test("PlaudWiFiAgent: every member with the vendor's type")
  func wifiAgentMembers() {
    let _: NSObject.Type = PlaudWiFiAgent.self
    let _: () -> PlaudWiFiAgent = { PlaudWiFiAgent.shared }
    let _: ReferenceWritableKeyPath<PlaudWiFiAgent, (any PlaudWiFiAgentProtocol)?> = \.delegate
    let _: ReferenceWritableKeyPath<PlaudWiFiAgent, BleDevice?> = \.bleDevice
    let _: KeyPath<PlaudWiFiAgent, Bool> = \.isDownloading
    let _: KeyPath<PlaudWiFiAgent, Int> = \.currentSessionId
    let _: KeyPath<PlaudWiFiAgent, Bool> = \.isConnected
    let _: KeyPath<PlaudWiFiAgent, Double> = \.currentDownloadSpeedKBps
    let _: (PlaudWiFiAgent) -> () -> String = PlaudWiFiAgent.getFormattedDownloadSpeed
    let _: KeyPath<PlaudWiFiAgent, Bool> = \.isDownloadingAll
    let _: (PlaudWiFiAgent) -> (Bool, ((String) -> Void)?) -> Void = PlaudWiFiAgent.openLog
    let _: (PlaudWiFiAgent) -> (String, Int) -> Void = PlaudWiFiAgent.listenPort
    let _: (PlaudWiFiAgent) -> (String, String, Int) -> Void = PlaudWiFiAgent.connectWifi
    let _: (PlaudWiFiAgent) -> () -> Void = PlaudWiFiAgent.disconnect
    let _: (PlaudWiFiAgent) -> (String) -> Bool = PlaudWiFiAgent.isConnectedTo
    let _: (PlaudWiFiAgent) -> () -> String = PlaudWiFiAgent.getConnectionStatusDescription
    let _: (PlaudWiFiAgent) -> () -> String? = PlaudWiFiAgent.getCurrentWiFiName
    let _: (PlaudWiFiAgent) -> (Int, Int, Bool) -> Void = PlaudWiFiAgent.getFileList
    let _: (PlaudWiFiAgent) -> (Int, Int, Int, Int) -> Void = PlaudWiFiAgent.syncFile
    let _: (PlaudWiFiAgent) -> (Int, Int) -> Void = PlaudWiFiAgent.stopSyncFile
    let _: (PlaudWiFiAgent) -> (Int, Int) -> Void = PlaudWiFiAgent.deleteFile
    let _:
      (PlaudWiFiAgent) -> (Int, String, AudioExportFormat, Int, any AudioExportCallback)
        -> Void = PlaudWiFiAgent.exportAudioViaWiFi(sessionId:outputDir:format:channels:callback:)
    let _: (PlaudWiFiAgent) -> () -> Void = PlaudWiFiAgent.downloadAllFiles
    let _: (PlaudWiFiAgent) -> () -> Void = PlaudWiFiAgent.startDownloadAll
    let _: (PlaudWiFiAgent) -> () -> Void = PlaudWiFiAgent.stopDownloadAll
    let _: (PlaudWiFiAgent) -> (Bool, Int) -> Void = PlaudWiFiAgent.startRateTest
    let _: (PlaudWiFiAgent) -> (Bool) -> Void = PlaudWiFiAgent.getDeviceLogs
    let _: (PlaudWiFiAgent) -> () -> Bool = PlaudWiFiAgent.isWebSocketConnected
  }

  @Test("models: BleDevice, PlaudBleDevice, BleFile, BleAgent, the enums")
  func models() {
    let _: NSObject.Type = BleDevice.self
    let _: BleDevice.Type = PlaudBleDevice.self
    let _: (String) -> BleDevice = BleDevice.init(sn:)
    let _: (String) -> PlaudBleDevice = PlaudBleDevice.init(sn:)
    let _: ReferenceWritableKeyPath<BleDevice, String> = \.serialNumber
    let _: ReferenceWritableKeyPath<BleDevice, String> = \.name
    let _: ReferenceWritableKeyPath<BleDevice, Float> = \.rssi
    let _: ReferenceWritableKeyPath<BleDevice, Int> = \.power
    let _: ReferenceWritableKeyPath<BleDevice, Bool> = \.isCharging
    let _: ReferenceWritableKeyPath<BleDevice, Int> = \.versionCode
    let _: KeyPath<BleDevice, String> = \.versionTypeStr
    let _: ReferenceWritableKeyPath<BleDevice, Bool> = \.supportWiFi
    let _: NSObject.Type = BleFile.self
    let _: ReferenceWritableKeyPath<BleFile, Int> = \.sessionId
    let _: ReferenceWritableKeyPath<BleFile, Int> = \.size
    let _: ReferenceWritableKeyPath<BleFile, String> = \.sn
    let _: (BleFile) -> () -> Int = BleFile.duration
    let _: NSObject.Type = BleAgent.self
    let _: () -> BleAgent = { BleAgent.shared }
    let _: KeyPath<BleAgent, BleDevice?> = \.bleDevice
    let _: KeyPath<BleAgent, Bool> = \.isRecording
    let _: KeyPath<BleAgent, Int> = \.sessionId
    let _: any AudioExportCallback = VendorExportCallback()
    let _: (AudioExportCallback) -> (Int, String) -> Void = { $0.onProgress(_:message:) }
    let _: (AudioExportCallback) -> (String) -> Void = { $0.onComplete(outputPath:) }
    let _: (AudioExportCallback) -> (String) -> Void = { $0.onError(_:) }
    #expect(
      [AudioExportFormat.pcm, .mp3, .wav, .opus].map(\.rawValue) == [0, 1, 2, 3])
    #expect(AudioExportFormat(rawValue: 3) == .opus)
    #expect(AudioExportFormat.allCases.map(\.fileExtension) == ["pcm", "mp3", "wav", "opus"])
    #expect(PlaudDownloadFormat.pcm.rawValue == 0)
    #expect(PlaudDownloadFormat.wav.rawValue == 2)
    #expect(PlaudDownloadFormat(rawValue: 2) == .wav)
  }

  @Test("log types: PlaudLogConfig, PlaudLogUploadManager, their errors, PlaudLogEncryption")
  func logTypes() {
    let _: NSObject.Type = PlaudLogConfig.self
    let _: () -> PlaudLogConfig = { PlaudLogConfig.shared }
    let _: KeyPath<PlaudLogConfig, Int> = \.maxFileCount
    let _: KeyPath<PlaudLogConfig, Double> = \.maxFileAge
    let _: KeyPath<PlaudLogConfig, Int64> = \.maxFileSize
    let _: KeyPath<PlaudLogConfig, TimeInterval> = \.uploadInterval
    let _: KeyPath<PlaudLogConfig, Double> = \.uploadTimeout
    let _: (PlaudLogConfig) -> (Int, TimeInterval, Int64) -> Void =
      PlaudLogConfig.updateFileConfiguration(maxFileCount:maxFileAge:maxFileSize:)
    let _: (PlaudLogConfig) -> (TimeInterval, TimeInterval) -> Void =
      PlaudLogConfig.updateUploadConfiguration(uploadInterval:uploadTimeout:)
    let _: (PlaudLogConfig) -> () -> Void = PlaudLogConfig.resetToDefaults
    let _: (PlaudLogConfig) -> () -> [String: Any] = PlaudLogConfig.getCurrentConfiguration
    let _: KeyPath<PlaudLogConfig, Int> = \.maxFileAgeDays
    let _: KeyPath<PlaudLogConfig, Int> = \.maxFileSizeMB
    let _: KeyPath<PlaudLogConfig, Int> = \.uploadIntervalMinutes
    let _: KeyPath<PlaudLogConfig, Int> = \.uploadTimeoutSeconds
    let _: (PlaudLogConfig) -> () -> Bool = PlaudLogConfig.validateConfiguration
    let _: (PlaudLogConfig) -> () -> String = PlaudLogConfig.getConfigurationDescription
    let _: Notification.Name = .plaudLogConfigurationChanged
    let _: NSObject.Type = PlaudLogUploadManager.self
    let _: () -> PlaudLogUploadManager = { PlaudLogUploadManager.shared }
    let _: (PlaudLogUploadManager) -> (Bool) -> Void = PlaudLogUploadManager.setAutoUploadEnabled
    let _: (PlaudLogUploadManager) -> () -> Void = PlaudLogUploadManager.startAutoUpload
    let _: (PlaudLogUploadManager) -> () -> Void = PlaudLogUploadManager.stopAutoUpload
    let _:
      (PlaudLogUploadManager) -> (
        @escaping (Double) -> Void, @escaping ([String: Any]) -> Void,
        @escaping (any Error) -> Void
      ) -> Void = PlaudLogUploadManager.uploadLogFiles(onProgress:onSuccess:onFailure:)
    let _: (PlaudLogUploadManager) -> () -> Void = PlaudLogUploadManager.cleanupLogFiles
    let _: (PlaudLogUploadManager) -> () -> [String: Any] =
      PlaudLogUploadManager.getUploadStatistics
    let _:
      (PlaudLogUploadManager) -> (
        String, @escaping (Double) -> Void, @escaping ([String: Any]) -> Void,
        @escaping (any Error) -> Void
      ) -> Void = PlaudLogUploadManager.uploadLogFilesWithDeviceSN(
        sn:onProgress:onSuccess:onFailure:)
    let _:
      (PlaudLogUploadManager) -> (String, Int, @escaping (Bool, (any Error)?) -> Void) -> Void =
        PlaudLogUploadManager.uploadLogsAfterRecording(sn:sessionId:onCompletion:)
    let _: any Error = PlaudLogUploadError.partialUpload
    #expect(
      [PlaudLogUploadError.alreadyUploading, .directoryNotFound, .partialUpload].map(\.rawValue)
        == [0, 1, 2])
    #expect(!PlaudLogUploadError.directoryNotFound.localizedDescription.isEmpty)
    let partial: any Error = PlaudLogUploadPartialError(result: ["uploaded": 1])
    #expect((partial as? PlaudLogUploadPartialError)?.result["uploaded"] as? Int == 1)
    let _: () throws -> NSURL = PlaudLogEncryption.exportEncryptedLogFile
    let _: () -> NSURL? = PlaudLogEncryption.exportEncryptedLogs
    let errors: [PlaudLogExportError] = [
      .logsDirectoryNotFound, .noLogFiles, .zipFailed, .encryptFailed,
      .writeFailed(underlying: PlaudLogUploadError.alreadyUploading),
    ]
    let _: [any LocalizedError] = errors
  }

  @Test("each optional PlaudDeviceAgentProtocol member is a requirement")
  func deviceProtocolRequirements() {
    let _: any PlaudDeviceAgentProtocol = OnlyRequiredDelegate()
    let callbacks = EveryDeviceCallback()
    let delegate: any PlaudDeviceAgentProtocol = callbacks
    delegate.blePenState(
      state: 0, privacy: 0, keyState: 0, uDisk: 0, findMyToken: 0, hasSndpKey: 0,
      deviceAccessToken: 0)
    delegate.bleAppKeyState(result: 1)
    delegate.bleDeviceName(name: nil)
    delegate.bleScanResult(bleDevices: [])
    delegate.bleScanOverTime()
    delegate.bleConnectState(state: 1)
    delegate.bleBind(sn: nil, status: 0, protVersion: 0, timezone: 0)
    delegate.bleMicGain(1)
    delegate.bleStorage(total: 0, free: 0, duration: 0)
    delegate.blePowerChange(power: 0, oldPower: 0)
    delegate.bleChargingState(isCharging: false, level: 0)
    delegate.bleFileList(bleFiles: [])
    delegate.bleRecordStart(sessionId: 0, start: 0, status: 0, scene: 0, startTime: 0, reason: 0)
    delegate.bleRecordStop(sessionId: 0, reason: 0, fileExist: false, fileSize: 0)
    delegate.bleRecordPause(sessionId: 0, reason: 0, fileExist: false, fileSize: 0)
    delegate.bleRecordResume(sessionId: 0, start: 0, status: 0, scene: 0, startTime: 0)
    delegate.bleSyncFileHead(sessionId: 0, status: 0)
    delegate.bleSyncFileTail(sessionId: 0, crc: 0)
    delegate.bleData(sessionId: 0, start: 0, data: Data())
    delegate.blePcmData(sessionId: 0, millsec: 0, pcmData: Data(), isMusic: false)
    delegate.bleDataComplete()
    delegate.bleDecodeFail(start: 0)
    delegate.bleSyncFileStop()
    delegate.bleDownloadFile(
      sessionId: 0, desiredOutputPath: "", status: 0, progress: 0, tips: "")
    delegate.bleDownloadFileStop()
    delegate.bleDeleteFile(sessionId: 0, status: 0)
    delegate.bleDepair(0)
    delegate.onWifiSyncConfigReceived(index: 0, ssid: "", password: "")
    delegate.onWifiSyncConfigSet(result: 0)
    delegate.onWifiSyncListReceived(list: [])
    delegate.onWifiSyncDeleteResult(result: 0)
    delegate.onWifiSyncTestStarted(index: 0)
    delegate.onWifiSyncWillStart(seconds: 0)
    delegate.onWifiSyncTestResult(index: 0, result: 0, rawCode: 0)
    delegate.onWifiSyncUrl(url: "")
    delegate.onWifiRssiRequestConfirmed(status: 0)
    delegate.onSdkFetchPermissionResult(pass: true, tips: "")
    delegate.onSdkCheckPermissionResult(pass: true, tips: "")
    delegate.onSdkCheckResourceResult(pass: true, tips: "")
    delegate.onWifiSyncEnabled(0)
    delegate.onCommonMsgChannel(type: 0, value: 0, tips: "")
    delegate.bleWiFiOpen(0, "", "", "")
    delegate.bleFotaResult(uid: 0, status: 0, errmsg: nil)
    delegate.bleFotaPackReq(uid: 0, start: 0, end: 0)
    delegate.bleFotaPackFin(uid: 0, status: 0, errmsg: nil)
    delegate.bleOtaDataSendFail()
    delegate.bleSetActive(status: 0)
    delegate.bleCommonSetting(setting: 0)
    delegate.bleRate(lossRate: 0, rate: 0, instantRate: 0)
    delegate.bleState(powered: true)
    delegate.bleDeviceDisconnectErr()
    delegate.bleWiFiClose(0)
    #expect(callbacks.heard.count == 52)
    #expect(Set(callbacks.heard).count == 52)
  }

  @Test("each PlaudWiFiAgentProtocol member is a requirement")
  func wifiProtocolRequirements() {
    let _: any PlaudWiFiAgentProtocol = EmptyWiFiDelegate()
    let callbacks = EveryWiFiCallback()
    let delegate: any PlaudWiFiAgentProtocol = callbacks
    delegate.wifiCommonErr(0, 0)
    delegate.wifiHandshake(0)
    delegate.wifiConnectionStatus("", true)
    delegate.wifiConnectResult(true, 0, "")
    delegate.wifiPower(0, 0)
    delegate.wifiFileListFail(0)
    delegate.wifiFileList([])
    delegate.wifiSyncFile(0, 0)
    delegate.wifiSyncFileData(0, 0, 0, Data())
    delegate.wifiDataComplete()
    delegate.wifiSyncFileStop(0)
    delegate.wifiFileDelete(0, 0)
    delegate.wifiClientFail()
    delegate.wifiClose(0)
    delegate.wifiRateFail(0)
    delegate.wifiRate(0, 0, 0)
    delegate.wifiLogsFail(0)
    delegate.wifiLogs(nil)
    delegate.wifiTips(0)
    delegate.wifiDownloadAllProgress(0, 0, nil, 0)
    delegate.wifiDownloadAllCompleted(0, 0)
    #expect(callbacks.heard.count == 21)
    #expect(Set(callbacks.heard).count == 21)
  }
}

/// The vendor's deprecated members, named in a deprecated context (their shape is checked
/// without a deprecation warning at the use).
private protocol DeprecatedShapeCheck { static func check() }

private enum DeprecatedShapes: DeprecatedShapeCheck {
  @available(*, deprecated, message: "names deprecated vendor members to check their shapes")
  static func check() {
    let _: (PlaudDeviceAgent) -> (String?) -> Void = PlaudDeviceAgent.setPartnerToken
  }
}
