import Foundation
import PlaudBleSDK
import RecorderConcurrency

/// Every BleAgentProtocol member, implemented with its exact signature (generated from the
/// protocol: a member that is added or changes shape fails to compile here), each logging its
/// name and arguments. Passwords are not logged.
final class LowerLog: BleAgentProtocol, Sendable {
  let entries = Locked<[String]>([])
  /// The hotspot `bleWiFiOpen` reported (the password is kept here, never logged).
  let hotspot = Locked<(ssid: String, password: String)?>(nil)

  func log(_ entry: String) { entries.withLock { $0.append(entry) } }
  var all: [String] { entries.current }
  func first(_ prefix: String) -> String? { all.first { $0.hasPrefix(prefix) } }
  func has(_ prefix: String) -> Bool { first(prefix) != nil }

  func bleUpdatePowerLowErr() { log("bleUpdatePowerLowErr ".trimmingCharacters(in: .whitespaces)) }
  func bleDeviceDisconnectErr() {
    log("bleDeviceDisconnectErr ".trimmingCharacters(in: .whitespaces))
  }
  func bleUDiskErr(funcName: String) {
    log("bleUDiskErr funcName=\(String(describing: funcName))".trimmingCharacters(in: .whitespaces))
  }
  func bleAppKeyState(result: Int) {
    log("bleAppKeyState result=\(String(describing: result))".trimmingCharacters(in: .whitespaces))
  }
  func bleState(powered: Bool) {
    log("bleState powered=\(String(describing: powered))".trimmingCharacters(in: .whitespaces))
  }
  func bleConnectStage(sn: String?, stage: String, detail: String?) {
    log(
      "bleConnectStage sn=\(String(describing: sn)) stage=\(String(describing: stage)) detail=\(String(describing: detail))"
        .trimmingCharacters(in: .whitespaces))
  }
  func bleConnectState(state: Int) {
    log("bleConnectState state=\(String(describing: state))".trimmingCharacters(in: .whitespaces))
  }
  func bleScanResult(bleDevices: [BleDevice]) {
    log("bleScanResult \(bleDevices.map(\.serialNumber))".trimmingCharacters(in: .whitespaces))
  }
  func bleScanOverTime() { log("bleScanOverTime ".trimmingCharacters(in: .whitespaces)) }
  func bleHandshakeWait(timeout: Int) {
    log(
      "bleHandshakeWait timeout=\(String(describing: timeout))".trimmingCharacters(in: .whitespaces)
    )
  }
  func bleBind(sn: String?, status: Int, protVersion: Int, timezone: Int) {
    log(
      "bleBind sn=\(String(describing: sn)) status=\(String(describing: status)) protVersion=\(String(describing: protVersion)) timezone=\(String(describing: timezone))"
        .trimmingCharacters(in: .whitespaces))
  }
  func bleDeviceName(name: String?) {
    log("bleDeviceName name=\(String(describing: name))".trimmingCharacters(in: .whitespaces))
  }
  func bleHeartbeat(status: Int) {
    log("bleHeartbeat status=\(String(describing: status))".trimmingCharacters(in: .whitespaces))
  }
  func blePowerChange(power: Int, oldPower: Int) {
    log(
      "blePowerChange power=\(String(describing: power)) oldPower=\(String(describing: oldPower))"
        .trimmingCharacters(in: .whitespaces))
  }
  func bleChargingState(isCharging: Bool, level: Int) {
    log(
      "bleChargingState isCharging=\(String(describing: isCharging)) level=\(String(describing: level))"
        .trimmingCharacters(in: .whitespaces))
  }
  func blePenState(
    state: Int, privacy: Int, keyState: Int, uDisk: Int, findMyToken: Int, hasSndpKey: Int,
    deviceAccessToken: Int, versionType: String, versionCode: Int
  ) {
    log(
      "blePenState state=\(String(describing: state)) privacy=\(String(describing: privacy)) keyState=\(String(describing: keyState)) uDisk=\(String(describing: uDisk)) findMyToken=\(String(describing: findMyToken)) hasSndpKey=\(String(describing: hasSndpKey)) deviceAccessToken=\(String(describing: deviceAccessToken)) versionType=\(String(describing: versionType)) versionCode=\(String(describing: versionCode))"
        .trimmingCharacters(in: .whitespaces))
  }
  func blePenTime(stamp: Int, timezone: Int, zoneMin: Int) {
    log(
      "blePenTime stamp=\(String(describing: stamp)) timezone=\(String(describing: timezone)) zoneMin=\(String(describing: zoneMin))"
        .trimmingCharacters(in: .whitespaces))
  }
  func bleStorage(total: Int, free: Int, duration: Int) {
    log(
      "bleStorage total=\(String(describing: total)) free=\(String(describing: free)) duration=\(String(describing: duration))"
        .trimmingCharacters(in: .whitespaces))
  }
  func blePasswordReset(password: Int) {
    log(
      "blePasswordReset password=\(String(describing: password))".trimmingCharacters(
        in: .whitespaces))
  }
  func bleBacklightDuration(_ duration: Int) {
    log(
      "bleBacklightDuration duration=\(String(describing: duration))".trimmingCharacters(
        in: .whitespaces))
  }
  func bleBacklightBright(_ bright: Int) {
    log(
      "bleBacklightBright bright=\(String(describing: bright))".trimmingCharacters(in: .whitespaces)
    )
  }
  func bleLanguage(_ type: Int) {
    log("bleLanguage type=\(String(describing: type))".trimmingCharacters(in: .whitespaces))
  }
  func bleRecScene(_ scene: Int) {
    log("bleRecScene scene=\(String(describing: scene))".trimmingCharacters(in: .whitespaces))
  }
  func bleRecMode(_ mode: Int) {
    log("bleRecMode mode=\(String(describing: mode))".trimmingCharacters(in: .whitespaces))
  }
  func bleVadSensitivity(_ value: Int) {
    log("bleVadSensitivity value=\(String(describing: value))".trimmingCharacters(in: .whitespaces))
  }
  func bleBatteryMode(_ value: Int) {
    log("bleBatteryMode value=\(String(describing: value))".trimmingCharacters(in: .whitespaces))
  }
  func bleVpuGain(_ value: Int) {
    log("bleVpuGain value=\(String(describing: value))".trimmingCharacters(in: .whitespaces))
  }
  func bleMicGain(_ value: Int) {
    log("bleMicGain value=\(String(describing: value))".trimmingCharacters(in: .whitespaces))
  }
  func bleSwitchHandler(_ id: Int) {
    log("bleSwitchHandler id=\(String(describing: id))".trimmingCharacters(in: .whitespaces))
  }
  func bleAutoPowerOff(_ value: Int) {
    log("bleAutoPowerOff value=\(String(describing: value))".trimmingCharacters(in: .whitespaces))
  }
  func bleRawWaveEnabled(_ value: Int) {
    log("bleRawWaveEnabled value=\(String(describing: value))".trimmingCharacters(in: .whitespaces))
  }
  func bleRecordingAfterDisConnetEnabled(_ value: Int) {
    log(
      "bleRecordingAfterDisConnetEnabled value=\(String(describing: value))".trimmingCharacters(
        in: .whitespaces))
  }
  func bleSyncWhenIdleEnabled(_ value: Int) {
    log(
      "bleSyncWhenIdleEnabled value=\(String(describing: value))".trimmingCharacters(
        in: .whitespaces))
  }
  func bleFindMyState(_ value: Int) {
    log("bleFindMyState value=\(String(describing: value))".trimmingCharacters(in: .whitespaces))
  }
  func bleVPUCLKState(_ value: Int) {
    log("bleVPUCLKState value=\(String(describing: value))".trimmingCharacters(in: .whitespaces))
  }
  func bleStopRecordingAfterCharging(_ value: Int) {
    log(
      "bleStopRecordingAfterCharging value=\(String(describing: value))".trimmingCharacters(
        in: .whitespaces))
  }
  func bleAutoClear(_ open: Bool) {
    log("bleAutoClear open=\(String(describing: open))".trimmingCharacters(in: .whitespaces))
  }
  func bleVad(_ open: Bool) {
    log("bleVad open=\(String(describing: open))".trimmingCharacters(in: .whitespaces))
  }
  func bleDepair(_ status: Int) {
    log("bleDepair status=\(String(describing: status))".trimmingCharacters(in: .whitespaces))
  }
  func bleWiFiOpen(_ status: Int, _ wifiName: String, _ wholeName: String, _ wifiPass: String) {
    hotspot.withLock { $0 = (wholeName, wifiPass) }
    log("bleWiFiOpen \(status) \(wifiName)")
  }
  func bleWiFiClose(_ status: Int) {
    log("bleWiFiClose status=\(String(describing: status))".trimmingCharacters(in: .whitespaces))
  }
  func bleSetWiFiSsid(status: Int) {
    log("bleSetWiFiSsid status=\(String(describing: status))".trimmingCharacters(in: .whitespaces))
  }
  func bleGetWiFiSsid(status: Int, ssid: String?) {
    log(
      "bleGetWiFiSsid status=\(String(describing: status)) ssid=\(String(describing: ssid))"
        .trimmingCharacters(in: .whitespaces))
  }
  func bleVoiceAbnormal(status: Int) {
    log(
      "bleVoiceAbnormal status=\(String(describing: status))".trimmingCharacters(in: .whitespaces))
  }
  func bleWebsocketProfile(_ type: Int, _ conent: String?) {
    log(
      "bleWebsocketProfile type=\(String(describing: type)) conent=\(String(describing: conent))"
        .trimmingCharacters(in: .whitespaces))
  }
  func bleWebsocketTest(_ status: Int) {
    log(
      "bleWebsocketTest status=\(String(describing: status))".trimmingCharacters(in: .whitespaces))
  }
  func bleRecordStart(sessionId: Int, start: Int, status: Int, scene: Int, startTime: Int) {
    log(
      "bleRecordStart sessionId=\(String(describing: sessionId)) start=\(String(describing: start)) status=\(String(describing: status)) scene=\(String(describing: scene)) startTime=\(String(describing: startTime))"
        .trimmingCharacters(in: .whitespaces))
  }
  func bleRecordStop(sessionId: Int, reason: Int, fileExist: Bool, fileSize: Int) {
    log(
      "bleRecordStop sessionId=\(String(describing: sessionId)) reason=\(String(describing: reason)) fileExist=\(String(describing: fileExist)) fileSize=\(String(describing: fileSize))"
        .trimmingCharacters(in: .whitespaces))
  }
  func bleRecordPause(sessionId: Int, reason: Int, fileExist: Bool, fileSize: Int) {
    log(
      "bleRecordPause sessionId=\(String(describing: sessionId)) reason=\(String(describing: reason)) fileExist=\(String(describing: fileExist)) fileSize=\(String(describing: fileSize))"
        .trimmingCharacters(in: .whitespaces))
  }
  func bleRecordResume(sessionId: Int, start: Int, status: Int, scene: Int, startTime: Int) {
    log(
      "bleRecordResume sessionId=\(String(describing: sessionId)) start=\(String(describing: start)) status=\(String(describing: status)) scene=\(String(describing: scene)) startTime=\(String(describing: startTime))"
        .trimmingCharacters(in: .whitespaces))
  }
  func bleLedState(onOff: Int) {
    log("bleLedState onOff=\(String(describing: onOff))".trimmingCharacters(in: .whitespaces))
  }
  func bleSetLedState(onOff: Int) {
    log("bleSetLedState onOff=\(String(describing: onOff))".trimmingCharacters(in: .whitespaces))
  }
  func bleFileList(bleFiles: [BleFile]) {
    log("bleFileList \(bleFiles.map(\.sessionId))".trimmingCharacters(in: .whitespaces))
  }
  func bleSyncFileHead(sessionId: Int, status: Int) {
    log(
      "bleSyncFileHead sessionId=\(String(describing: sessionId)) status=\(String(describing: status))"
        .trimmingCharacters(in: .whitespaces))
  }
  func bleSyncFileTail(sessionId: Int, crc: Int) {
    log(
      "bleSyncFileTail sessionId=\(String(describing: sessionId)) crc=\(String(describing: crc))"
        .trimmingCharacters(in: .whitespaces))
  }
  func bleMarking(sessionId: Int, status: Int, markList: [UInt32]) {
    log(
      "bleMarking sessionId=\(String(describing: sessionId)) status=\(String(describing: status)) markList=\(String(describing: markList))"
        .trimmingCharacters(in: .whitespaces))
  }
  func bleGetRecordMarkingTags(uid: Int, totals: Int, index: Int, tags: [BleRecordMarkingTag]) {
    log(
      "bleGetRecordMarkingTags uid=\(String(describing: uid)) totals=\(String(describing: totals)) index=\(String(describing: index)) tags=\(tags.map(\.timestamp))"
        .trimmingCharacters(in: .whitespaces))
  }
  func bleAngles(pitchAngle: Float, rollbackAngle: Float, yawAngle: Float) {
    log(
      "bleAngles pitchAngle=\(String(describing: pitchAngle)) rollbackAngle=\(String(describing: rollbackAngle)) yawAngle=\(String(describing: yawAngle))"
        .trimmingCharacters(in: .whitespaces))
  }
  func bleDataComplete() { log("bleDataComplete ".trimmingCharacters(in: .whitespaces)) }
  func bleData(sessionId: Int, start: Int, data: Data) {
    log(
      "bleData sessionId=\(String(describing: sessionId)) start=\(String(describing: start)) count=\(data.count)"
        .trimmingCharacters(in: .whitespaces))
  }
  func deviceLogData(start: Int, data: Data, logType: Int) {
    log(
      "deviceLogData start=\(String(describing: start)) data=\(String(describing: data)) logType=\(String(describing: logType))"
        .trimmingCharacters(in: .whitespaces))
  }
  func blePcmData(sessionId: Int, millsec: Int, pcmData: Data, isMusic: Bool) {
    log(
      "blePcmData sessionId=\(String(describing: sessionId)) millsec=\(String(describing: millsec)) count=\(pcmData.count)"
        .trimmingCharacters(in: .whitespaces))
  }
  func bleDecodeFail(start: Int) {
    log("bleDecodeFail start=\(String(describing: start))".trimmingCharacters(in: .whitespaces))
  }
  func bleSyncFileStop() { log("bleSyncFileStop ".trimmingCharacters(in: .whitespaces)) }
  func bleDeleteFile(sessionId: Int, status: Int) {
    log(
      "bleDeleteFile sessionId=\(String(describing: sessionId)) status=\(String(describing: status))"
        .trimmingCharacters(in: .whitespaces))
  }
  func bleFotaResult(uid: Int, status: Int, errmsg: String?) {
    log(
      "bleFotaResult uid=\(String(describing: uid)) status=\(String(describing: status)) errmsg=\(String(describing: errmsg))"
        .trimmingCharacters(in: .whitespaces))
  }
  func bleFotaPackReq(uid: Int, start: Int, end: Int) {
    log(
      "bleFotaPackReq uid=\(String(describing: uid)) start=\(String(describing: start)) end=\(String(describing: end))"
        .trimmingCharacters(in: .whitespaces))
  }
  func bleFotaPackFin(uid: Int, status: Int, errmsg: String?) {
    log(
      "bleFotaPackFin uid=\(String(describing: uid)) status=\(String(describing: status)) errmsg=\(String(describing: errmsg))"
        .trimmingCharacters(in: .whitespaces))
  }
  func bleOtaDataSendFail() { log("bleOtaDataSendFail ".trimmingCharacters(in: .whitespaces)) }
  func bleRate(lossRate: Double, rate: Int, instantRate: Int) {
    log(
      "bleRate lossRate=\(String(describing: lossRate)) rate=\(String(describing: rate)) instantRate=\(String(describing: instantRate))"
        .trimmingCharacters(in: .whitespaces))
  }
  func blePrivacy(privacy: Int) {
    log("blePrivacy privacy=\(String(describing: privacy))".trimmingCharacters(in: .whitespaces))
  }
  func bleClearAllFile(status: Int) {
    log("bleClearAllFile status=\(String(describing: status))".trimmingCharacters(in: .whitespaces))
  }
  func bleDeviceStatus(status: [UInt8]) {
    log("bleDeviceStatus status=\(String(describing: status))".trimmingCharacters(in: .whitespaces))
  }
  func bleNewFeature(data: Data) {
    log("bleNewFeature data=\(String(describing: data))".trimmingCharacters(in: .whitespaces))
  }
  func bleAlarmRec(start: Int, duration: Int, repeatMode: Int) {
    log(
      "bleAlarmRec start=\(String(describing: start)) duration=\(String(describing: duration)) repeatMode=\(String(describing: repeatMode))"
        .trimmingCharacters(in: .whitespaces))
  }
  func bleSetActive(status: Int) {
    log("bleSetActive status=\(String(describing: status))".trimmingCharacters(in: .whitespaces))
  }
  func onBinaryFileReq(type: Int, packageOffset: Int, packageSize: Int, endStatus: Int) {
    log(
      "onBinaryFileReq type=\(String(describing: type)) packageOffset=\(String(describing: packageOffset)) packageSize=\(String(describing: packageSize)) endStatus=\(String(describing: endStatus))"
        .trimmingCharacters(in: .whitespaces))
  }
  func onBinaryFileEnd(result: Int) {
    log("onBinaryFileEnd result=\(String(describing: result))".trimmingCharacters(in: .whitespaces))
  }
  func onSyncIdleWifiConfigReceived(index: UInt32, ssid: String, password: String) {
    log(
      "onSyncIdleWifiConfigReceived index=\(String(describing: index)) ssid=\(String(describing: ssid)) password=\(String(describing: password))"
        .trimmingCharacters(in: .whitespaces))
  }
  func onSyncIdleWifiConfigSet(result: Int) {
    log(
      "onSyncIdleWifiConfigSet result=\(String(describing: result))".trimmingCharacters(
        in: .whitespaces))
  }
  func onSyncIdleWifiListReceived(list: [UInt32]) {
    log(
      "onSyncIdleWifiListReceived list=\(String(describing: list))".trimmingCharacters(
        in: .whitespaces))
  }
  func onSyncIdleWifiDeleteResult(result: Int) {
    log(
      "onSyncIdleWifiDeleteResult result=\(String(describing: result))".trimmingCharacters(
        in: .whitespaces))
  }
  func onSyncIdleWifiTestStarted(index: UInt32) {
    log(
      "onSyncIdleWifiTestStarted index=\(String(describing: index))".trimmingCharacters(
        in: .whitespaces))
  }
  func onSyncIdleWillStart(seconds: Int) {
    log(
      "onSyncIdleWillStart seconds=\(String(describing: seconds))".trimmingCharacters(
        in: .whitespaces))
  }
  func onSyncIdleWifiTestResult(index: UInt32, result: Int, rawCode: Int) {
    log(
      "onSyncIdleWifiTestResult index=\(String(describing: index)) result=\(String(describing: result)) rawCode=\(String(describing: rawCode))"
        .trimmingCharacters(in: .whitespaces))
  }
  func onResetFindmyResult(result: Int) {
    log(
      "onResetFindmyResult result=\(String(describing: result))".trimmingCharacters(
        in: .whitespaces))
  }
  func onCommonParamsSetResult(success: Bool, dataType: Int, value: String?) {
    log(
      "onCommonParamsSetResult success=\(String(describing: success)) dataType=\(String(describing: dataType)) value=\(String(describing: value))"
        .trimmingCharacters(in: .whitespaces))
  }
  func onCommonParamsGetResult(success: Bool, dataType: Int, value: String?) {
    log(
      "onCommonParamsGetResult success=\(String(describing: success)) dataType=\(String(describing: dataType)) value=\(String(describing: value))"
        .trimmingCharacters(in: .whitespaces))
  }
  func onSetSoundPlusTokenResult(licenseKey: String) {
    log(
      "onSetSoundPlusTokenResult licenseKey=\(String(describing: licenseKey))".trimmingCharacters(
        in: .whitespaces))
  }
  func onGetSDFlashCIDResult(cid: String) {
    log("onGetSDFlashCIDResult cid=\(String(describing: cid))".trimmingCharacters(in: .whitespaces))
  }
  func onGetDeviceLogList(data: Data) {
    log("onGetDeviceLogList data=\(String(describing: data))".trimmingCharacters(in: .whitespaces))
  }
  func onSyncDeviceLogStart(data: Data) {
    log(
      "onSyncDeviceLogStart data=\(String(describing: data))".trimmingCharacters(in: .whitespaces))
  }
  func onSyncDeviceLogStop() { log("onSyncDeviceLogStop ".trimmingCharacters(in: .whitespaces)) }
  func onSyncDeviceLogEnd(data: Data) {
    log("onSyncDeviceLogEnd data=\(String(describing: data))".trimmingCharacters(in: .whitespaces))
  }
  func onDeviceLogDeleted(data: Data) {
    log("onDeviceLogDeleted data=\(String(describing: data))".trimmingCharacters(in: .whitespaces))
  }
}
