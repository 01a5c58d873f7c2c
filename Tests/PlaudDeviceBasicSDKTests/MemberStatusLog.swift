import Foundation
import PlaudDeviceBasicSDK
import RecorderConcurrency

/// A delegate implementing every callback of `PlaudDeviceAgentProtocol`,
/// `PlaudWiFiAgentProtocol` and `AudioExportCallback`, the ones RecorderKit never fires
/// included (so a check can see that they stay silent). Each logs its name and the arguments
/// the member checks compare; secrets (the hotspot password) are kept out of `entries`.
final class MemberStatusLog: PlaudDeviceAgentProtocol, PlaudWiFiAgentProtocol,
  AudioExportCallback, Sendable
{
  /// A file as `bleFileList` / `wifiFileList` reported it.
  struct File: Sendable, Equatable {
    var sessionId: Int
    var size: Int
    var sn: String
    var duration: Int
  }

  let entries = Locked<[String]>([])
  /// The hotspot `bleWiFiOpen` reported: its whole name and password.
  let hotspot = Locked<(name: String, password: String)?>(nil)
  /// The last list each of `bleFileList` and `wifiFileList` delivered.
  let bleFiles = Locked<[File]>([])
  let wifiFiles = Locked<[File]>([])
  /// Bytes delivered per recording by `bleData` and `wifiSyncFileData`.
  let bleBytes = Locked<[Int: Int]>([:])
  /// The `start` of every `bleData`, in order.
  let bleStarts = Locked<[Int]>([])
  /// The sizes of the `blePcmData` chunks, in order.
  let pcmSizes = Locked<[Int]>([])
  let wifiBytes = Locked<[Int: Int]>([:])
  /// The devices the last `bleScanResult` listed, with their signal strength.
  let scanned = Locked<[(serial: String, rssi: Float)]>([])
  /// Called with every entry after it is logged (a check reacting as an app would).
  let reaction = Locked<(@Sendable (String) -> Void)?>(nil)

  func log(_ entry: String) {
    entries.withLock { $0.append(entry) }
    reaction.withLock { $0 }?(entry)
  }
  func count(_ prefix: String) -> Int {
    entries.withLock { $0.filter { $0.hasPrefix(prefix) }.count }
  }
  func has(_ entry: String) -> Bool { entries.withLock { $0.contains(entry) } }
  func last(_ prefix: String) -> String? {
    entries.withLock { $0.last { $0.hasPrefix(prefix) } }
  }
  var all: [String] { entries.withLock { $0 } }

  static func files(_ files: [BleFile]) -> [File] {
    files.map { File(sessionId: $0.sessionId, size: $0.size, sn: $0.sn, duration: $0.duration()) }
  }

  // PlaudDeviceAgentProtocol
  func blePenState(
    state: Int, privacy: Int, keyState: Int, uDisk: Int, findMyToken: Int, hasSndpKey: Int,
    deviceAccessToken: Int
  ) { log("blePenState \(state)") }
  func bleConnectState(state: Int) { log("bleConnectState \(state)") }
  func bleScanResult(bleDevices: [BleDevice]) {
    let heard = bleDevices.map { (serial: $0.serialNumber, rssi: $0.rssi) }
    scanned.withLock { $0 = heard }
    log("bleScanResult \(heard.map(\.serial))")
  }
  func bleScanOverTime() { log("bleScanOverTime") }
  func bleBind(sn: String?, status: Int, protVersion: Int, timezone: Int) {
    log("bleBind \(sn ?? "nil") \(status)")
  }
  func bleStorage(total: Int, free: Int, duration: Int) { log("bleStorage \(total) \(free)") }
  func bleChargingState(isCharging: Bool, level: Int) {
    log("bleChargingState \(isCharging) \(level)")
  }
  func bleRecordStart(
    sessionId: Int, start: Int, status: Int, scene: Int, startTime: Int, reason: Int
  ) { log("bleRecordStart \(sessionId) \(status) \(scene)") }
  func bleRecordStop(sessionId: Int, reason: Int, fileExist: Bool, fileSize: Int) {
    log("bleRecordStop \(sessionId) \(fileExist)")
  }
  func bleRecordPause(sessionId: Int, reason: Int, fileExist: Bool, fileSize: Int) {
    log("bleRecordPause \(sessionId)")
  }
  func bleRecordResume(sessionId: Int, start: Int, status: Int, scene: Int, startTime: Int) {
    log("bleRecordResume \(sessionId) \(status)")
  }
  func blePcmData(sessionId: Int, millsec: Int, pcmData: Data, isMusic: Bool) {
    pcmSizes.withLock { $0.append(pcmData.count) }
    log("blePcmData \(sessionId) \(pcmData.count)")
  }
  func bleFileList(bleFiles: [BleFile]) {
    let files = Self.files(bleFiles)
    self.bleFiles.withLock { $0 = files }
    log("bleFileList \(files.map(\.sessionId))")
  }
  func bleData(sessionId: Int, start: Int, data: Data) {
    bleBytes.withLock { $0[sessionId, default: 0] += data.count }
    if data.count > 0 { bleStarts.withLock { $0.append(start) } }
    log("bleData")
  }
  func bleDataComplete() { log("bleDataComplete") }
  func bleDeleteFile(sessionId: Int, status: Int) { log("bleDeleteFile \(sessionId) \(status)") }
  func bleDepair(_ status: Int) { log("bleDepair \(status)") }
  func bleWiFiOpen(_ status: Int, _ wifiName: String, _ wholeName: String, _ wifiPass: String) {
    if status == 0 { hotspot.withLock { $0 = (wholeName, wifiPass) } }
    log("bleWiFiOpen \(status)")
  }
  func bleFotaResult(uid: Int, status: Int, errmsg: String?) { log("bleFotaResult \(status)") }
  func bleIBeaconWakeupTriggered(sn: String) { log("bleIBeaconWakeupTriggered") }
  func bleAppKeyState(result: Int) { log("bleAppKeyState \(result)") }
  func bleDeviceName(name: String?) { log("bleDeviceName \(name ?? "nil")") }
  func bleMicGain(_ value: Int) { log("bleMicGain \(value)") }
  func blePowerChange(power: Int, oldPower: Int) { log("blePowerChange \(power) \(oldPower)") }
  func bleSyncFileHead(sessionId: Int, status: Int) {
    log("bleSyncFileHead \(sessionId) \(status)")
  }
  func bleSyncFileTail(sessionId: Int, crc: Int) { log("bleSyncFileTail \(sessionId) \(crc)") }
  func bleDecodeFail(start: Int) { log("bleDecodeFail \(start)") }
  func bleSyncFileStop() { log("bleSyncFileStop") }
  func bleDownloadFile(
    sessionId: Int, desiredOutputPath: String, status: Int, progress: Int, tips: String
  ) { log("bleDownloadFile \(sessionId) \(status) \(progress)") }
  func bleDownloadFileStop() { log("bleDownloadFileStop") }
  func onWifiSyncConfigReceived(index: UInt32, ssid: String, password: String) {
    log("onWifiSyncConfigReceived \(index)")
  }
  func onWifiSyncConfigSet(result: Int) { log("onWifiSyncConfigSet \(result)") }
  func onWifiSyncListReceived(list: [UInt32]) { log("onWifiSyncListReceived \(list)") }
  func onWifiSyncDeleteResult(result: Int) { log("onWifiSyncDeleteResult \(result)") }
  func onWifiSyncTestStarted(index: UInt32) { log("onWifiSyncTestStarted \(index)") }
  func onWifiSyncWillStart(seconds: Int) { log("onWifiSyncWillStart \(seconds)") }
  func onWifiSyncTestResult(index: UInt32, result: Int, rawCode: Int) {
    log("onWifiSyncTestResult \(index) \(result) \(rawCode)")
  }
  func onWifiSyncUrl(url: String) { log("onWifiSyncUrl") }
  func onWifiRssiRequestConfirmed(status: Int) { log("onWifiRssiRequestConfirmed \(status)") }
  func onSdkFetchPermissionResult(pass: Bool, tips: String) {
    log("onSdkFetchPermissionResult \(pass)")
  }
  func onSdkCheckPermissionResult(pass: Bool, tips: String) {
    log("onSdkCheckPermissionResult \(pass)")
  }
  func onSdkCheckResourceResult(pass: Bool, tips: String) {
    log("onSdkCheckResourceResult \(pass) \(tips)")
  }
  func onWifiSyncEnabled(_ value: Int) { log("onWifiSyncEnabled \(value)") }
  func onCommonMsgChannel(type: Int, value: Int, tips: String) {
    log("onCommonMsgChannel \(type) \(value) \(tips)")
  }
  func bleFotaPackReq(uid: Int, start: Int, end: Int) { log("bleFotaPackReq \(start) \(end)") }
  func bleFotaPackFin(uid: Int, status: Int, errmsg: String?) { log("bleFotaPackFin \(status)") }
  func bleOtaDataSendFail() { log("bleOtaDataSendFail") }
  func bleSetActive(status: Int) { log("bleSetActive \(status)") }
  func bleCommonSetting(setting: Int) { log("bleCommonSetting \(setting)") }
  func bleRate(lossRate: Double, rate: Int, instantRate: Int) { log("bleRate \(rate)") }
  func bleState(powered: Bool) { log("bleState \(powered)") }
  func bleDeviceDisconnectErr() { log("bleDeviceDisconnectErr") }
  func bleWiFiClose(_ status: Int) { log("bleWiFiClose \(status)") }
  func bleClearAllFile(status: Int) { log("bleClearAllFile \(status)") }
  func bleConnectStage(sn: String?, stage: String, detail: String?) {
    log("bleConnectStage \(stage)")
  }

  // AudioExportCallback
  func onProgress(_ progress: Int, message: String) { log("onProgress \(progress)") }
  func onComplete(outputPath: String) { log("onComplete \(outputPath)") }
  func onError(_ error: String) { log("onError \(error)") }

  // PlaudWiFiAgentProtocol
  func wifiHandshake(_ status: Int) { log("wifiHandshake \(status)") }
  func wifiConnectionStatus(_ ssid: String, _ connected: Bool) {
    log("wifiConnectionStatus \(ssid) \(connected)")
  }
  func wifiFileList(_ files: [BleFile]) {
    let files = Self.files(files)
    wifiFiles.withLock { $0 = files }
    log("wifiFileList \(files.map(\.sessionId))")
  }
  func wifiFileListFail(_ status: Int) { log("wifiFileListFail \(status)") }
  func wifiSyncFile(_ sessionId: Int, _ status: Int) { log("wifiSyncFile \(sessionId) \(status)") }
  func wifiSyncFileData(_ sessionId: Int, _ offset: Int, _ count: Int, _ binData: Data) {
    wifiBytes.withLock { $0[sessionId, default: 0] += binData.count }
    log("wifiSyncFileData")
  }
  func wifiDataComplete() { log("wifiDataComplete") }
  func wifiSyncFileStop(_ status: Int) { log("wifiSyncFileStop \(status)") }
  func wifiFileDelete(_ sessionId: Int, _ status: Int) {
    log("wifiFileDelete \(sessionId) \(status)")
  }
  func wifiDownloadAllProgress(
    _ totalFiles: Int, _ currentFileIndex: Int, _ currentFile: BleFile?, _ totalProgress: Double
  ) { log("wifiDownloadAllProgress \(totalFiles) \(currentFileIndex)") }
  func wifiDownloadAllCompleted(_ completedFiles: Int, _ failedFiles: Int) {
    log("wifiDownloadAllCompleted \(completedFiles) \(failedFiles)")
  }
  func wifiCommonErr(_ cmd: Int, _ status: Int) { log("wifiCommonErr \(cmd) \(status)") }
  func wifiClose(_ status: Int) { log("wifiClose \(status)") }
  func wifiConnectResult(_ success: Bool, _ errorCode: Int, _ message: String) {
    log("wifiConnectResult \(success) \(errorCode) \(message)")
  }
  func wifiPower(_ power: Int, _ voltage: Int) { log("wifiPower \(power)") }
  func wifiClientFail() { log("wifiClientFail") }
  func wifiRateFail(_ status: Int) { log("wifiRateFail \(status)") }
  func wifiRate(_ instantRate: Int, _ averageRate: Int, _ lossRate: Double) {
    log("wifiRate \(averageRate)")
  }
  func wifiLogsFail(_ status: Int) { log("wifiLogsFail \(status)") }
  func wifiLogs(_ logData: Data?) { log("wifiLogs") }
  func wifiTips(_ tips: Int) { log("wifiTips \(tips)") }
}

/// The smallest delegate the doc's row allows: only the required `blePenState`.
final class PenStateOnlyDelegate: PlaudDeviceAgentProtocol, Sendable {
  let states = Locked<[Int]>([])
  func blePenState(
    state: Int, privacy: Int, keyState: Int, uDisk: Int, findMyToken: Int, hasSndpKey: Int,
    deviceAccessToken: Int
  ) { states.withLock { $0.append(state) } }
}

/// A Wi-Fi delegate implementing nothing: every callback is optional.
final class SilentWiFiDelegate: PlaudWiFiAgentProtocol, Sendable {}
