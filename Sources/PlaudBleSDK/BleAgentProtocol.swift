import Foundation
import PlaudDeviceBasicSDK

/// The delegate of PlaudBleSDK's ``BleAgent`` (`BleAgent.shared.delegate`): every member is
/// required but `bleConnectStage(sn:stage:detail:)`, as the vendor's.
///
/// It hears the same device as ``PlaudDeviceAgentProtocol`` (the same session's events,
/// translated: `blePenState` adds the firmware's `versionType` and `versionCode`,
/// `bleRecordStart` has no `reason`), plus the answers to BleAgent's own commands. Callbacks
/// arrive on `BleAgent.shared.cmdDelegateQueue` (serial by default, never the main queue),
/// in the order they happen. Members for device features RecorderKit does not support are
/// called with a failure status (-1 where the member has a status) when their command is
/// used, and never otherwise; docs/migrating-from-vendor-sdk.md lists each.
public protocol BleAgentProtocol: AnyObject {
  func bleUpdatePowerLowErr()
  func bleDeviceDisconnectErr()
  func bleUDiskErr(funcName: String)
  func bleAppKeyState(result: Int)
  func bleState(powered: Bool)
  func bleConnectStage(sn: String?, stage: String, detail: String?)
  func bleConnectState(state: Int)
  func bleScanResult(bleDevices: [BleDevice])
  func bleScanOverTime()
  func bleHandshakeWait(timeout: Int)
  func bleBind(sn: String?, status: Int, protVersion: Int, timezone: Int)
  func bleDeviceName(name: String?)
  func bleHeartbeat(status: Int)
  func blePowerChange(power: Int, oldPower: Int)
  func bleChargingState(isCharging: Bool, level: Int)
  func blePenState(
    state: Int, privacy: Int, keyState: Int, uDisk: Int, findMyToken: Int, hasSndpKey: Int,
    deviceAccessToken: Int, versionType: String, versionCode: Int)
  func blePenTime(stamp: Int, timezone: Int, zoneMin: Int)
  func bleStorage(total: Int, free: Int, duration: Int)
  func blePasswordReset(password: Int)
  func bleBacklightDuration(_ duration: Int)
  func bleBacklightBright(_ bright: Int)
  func bleLanguage(_ type: Int)
  func bleRecScene(_ scene: Int)
  func bleRecMode(_ mode: Int)
  func bleVadSensitivity(_ value: Int)
  func bleBatteryMode(_ value: Int)
  func bleVpuGain(_ value: Int)
  func bleMicGain(_ value: Int)
  func bleSwitchHandler(_ id: Int)
  func bleAutoPowerOff(_ value: Int)
  func bleRawWaveEnabled(_ value: Int)
  func bleRecordingAfterDisConnetEnabled(_ value: Int)
  func bleSyncWhenIdleEnabled(_ value: Int)
  func bleFindMyState(_ value: Int)
  func bleVPUCLKState(_ value: Int)
  func bleStopRecordingAfterCharging(_ value: Int)
  func bleAutoClear(_ open: Bool)
  func bleVad(_ open: Bool)
  func bleDepair(_ status: Int)
  func bleWiFiOpen(_ status: Int, _ wifiName: String, _ wholeName: String, _ wifiPass: String)
  func bleWiFiClose(_ status: Int)
  func bleSetWiFiSsid(status: Int)
  func bleGetWiFiSsid(status: Int, ssid: String?)
  func bleVoiceAbnormal(status: Int)
  func bleWebsocketProfile(_ type: Int, _ conent: String?)
  func bleWebsocketTest(_ status: Int)
  func bleRecordStart(sessionId: Int, start: Int, status: Int, scene: Int, startTime: Int)
  func bleRecordStop(sessionId: Int, reason: Int, fileExist: Bool, fileSize: Int)
  func bleRecordPause(sessionId: Int, reason: Int, fileExist: Bool, fileSize: Int)
  func bleRecordResume(sessionId: Int, start: Int, status: Int, scene: Int, startTime: Int)
  func bleLedState(onOff: Int)
  func bleSetLedState(onOff: Int)
  func bleFileList(bleFiles: [BleFile])
  func bleSyncFileHead(sessionId: Int, status: Int)
  func bleSyncFileTail(sessionId: Int, crc: Int)
  func bleMarking(sessionId: Int, status: Int, markList: [UInt32])
  func bleGetRecordMarkingTags(uid: Int, totals: Int, index: Int, tags: [BleRecordMarkingTag])
  func bleAngles(pitchAngle: Float, rollbackAngle: Float, yawAngle: Float)
  func bleDataComplete()
  func bleData(sessionId: Int, start: Int, data: Data)
  func deviceLogData(start: Int, data: Data, logType: Int)
  func blePcmData(sessionId: Int, millsec: Int, pcmData: Data, isMusic: Bool)
  func bleDecodeFail(start: Int)
  func bleSyncFileStop()
  func bleDeleteFile(sessionId: Int, status: Int)
  func bleFotaResult(uid: Int, status: Int, errmsg: String?)
  func bleFotaPackReq(uid: Int, start: Int, end: Int)
  func bleFotaPackFin(uid: Int, status: Int, errmsg: String?)
  func bleOtaDataSendFail()
  func bleRate(lossRate: Double, rate: Int, instantRate: Int)
  func blePrivacy(privacy: Int)
  func bleClearAllFile(status: Int)
  func bleDeviceStatus(status: [UInt8])
  func bleNewFeature(data: Data)
  func bleAlarmRec(start: Int, duration: Int, repeatMode: Int)
  func bleSetActive(status: Int)
  func onBinaryFileReq(type: Int, packageOffset: Int, packageSize: Int, endStatus: Int)
  func onBinaryFileEnd(result: Int)
  func onSyncIdleWifiConfigReceived(index: UInt32, ssid: String, password: String)
  func onSyncIdleWifiConfigSet(result: Int)
  func onSyncIdleWifiListReceived(list: [UInt32])
  func onSyncIdleWifiDeleteResult(result: Int)
  func onSyncIdleWifiTestStarted(index: UInt32)
  func onSyncIdleWillStart(seconds: Int)
  func onSyncIdleWifiTestResult(index: UInt32, result: Int, rawCode: Int)
  func onResetFindmyResult(result: Int)
  func onCommonParamsSetResult(success: Bool, dataType: Int, value: String?)
  func onCommonParamsGetResult(success: Bool, dataType: Int, value: String?)
  func onSetSoundPlusTokenResult(licenseKey: String)
  func onGetSDFlashCIDResult(cid: String)
  func onGetDeviceLogList(data: Data)
  func onSyncDeviceLogStart(data: Data)
  func onSyncDeviceLogStop()
  func onSyncDeviceLogEnd(data: Data)
  func onDeviceLogDeleted(data: Data)
}

extension BleAgentProtocol {
  /// The one optional member: does nothing unless the delegate implements it.
  public func bleConnectStage(sn: String?, stage: String, detail: String?) {}
}

/// Carries the facade's events to `BleAgent.shared.delegate`, translated to
/// ``BleAgentProtocol``, on `cmdDelegateQueue`. Installed as BleAgent's listener while a
/// delegate is set; also keeps the lower-level state the events tell (charging, radio).
final class BleAgentListener: PlaudDeviceAgentProtocol, Sendable {
  /// Runs `call` on the delegate, on the delegate queue (nothing when no delegate is set).
  static func send(_ call: @escaping @Sendable (any BleAgentProtocol) -> Void) {
    let (delegate, queue) = LowerState.shared.withLock {
      ($0.delegateObject, $0.cmdDelegateQueue)
    }
    queue.async {
      guard let target = delegate.value as? any BleAgentProtocol else { return }
      call(target)
    }
  }

  func blePenState(
    state: Int, privacy: Int, keyState: Int, uDisk: Int, findMyToken: Int, hasSndpKey: Int,
    deviceAccessToken: Int
  ) {
    let agent = BleAgent.shared
    let (versionType, versionCode) = (agent.versionType, agent.versionCode)
    LowerState.shared.withLock { $0.usbState = uDisk != 0 }
    Self.send {
      $0.blePenState(
        state: state, privacy: privacy, keyState: keyState, uDisk: uDisk,
        findMyToken: findMyToken, hasSndpKey: hasSndpKey, deviceAccessToken: deviceAccessToken,
        versionType: versionType, versionCode: versionCode)
    }
  }

  func bleConnectStage(sn: String?, stage: String, detail: String?) {
    Self.send { $0.bleConnectStage(sn: sn, stage: stage, detail: detail) }
  }
  func bleConnectState(state: Int) { Self.send { $0.bleConnectState(state: state) } }
  func bleScanResult(bleDevices: [BleDevice]) {
    let filter = LowerState.shared.withLock { $0.nameFilter }
    let kept = bleDevices.filter { device in
      filter.isEmpty || filter.contains { device.name.localizedCaseInsensitiveContains($0) }
    }
    let handed = kept.map(HandedOver.init)
    Self.send { $0.bleScanResult(bleDevices: handed.map(\.object)) }
  }
  func bleScanOverTime() { Self.send { $0.bleScanOverTime() } }
  func bleBind(sn: String?, status: Int, protVersion: Int, timezone: Int) {
    Self.send { $0.bleBind(sn: sn, status: status, protVersion: protVersion, timezone: timezone) }
  }
  func bleStorage(total: Int, free: Int, duration: Int) {
    Self.send { $0.bleStorage(total: total, free: free, duration: duration) }
  }
  func bleChargingState(isCharging: Bool, level: Int) {
    LowerState.shared.withLock { $0.charging = isCharging }
    Self.send { $0.bleChargingState(isCharging: isCharging, level: level) }
  }
  func bleRecordStart(
    sessionId: Int, start: Int, status: Int, scene: Int, startTime: Int, reason: Int
  ) {
    Self.send {
      $0.bleRecordStart(
        sessionId: sessionId, start: start, status: status, scene: scene, startTime: startTime)
    }
  }
  func bleRecordStop(sessionId: Int, reason: Int, fileExist: Bool, fileSize: Int) {
    Self.send {
      $0.bleRecordStop(
        sessionId: sessionId, reason: reason, fileExist: fileExist, fileSize: fileSize)
    }
  }
  func bleRecordPause(sessionId: Int, reason: Int, fileExist: Bool, fileSize: Int) {
    Self.send {
      $0.bleRecordPause(
        sessionId: sessionId, reason: reason, fileExist: fileExist, fileSize: fileSize)
    }
  }
  func bleRecordResume(sessionId: Int, start: Int, status: Int, scene: Int, startTime: Int) {
    Self.send {
      $0.bleRecordResume(
        sessionId: sessionId, start: start, status: status, scene: scene, startTime: startTime)
    }
  }
  func blePcmData(sessionId: Int, millsec: Int, pcmData: Data, isMusic: Bool) {
    Self.send {
      $0.blePcmData(sessionId: sessionId, millsec: millsec, pcmData: pcmData, isMusic: isMusic)
    }
  }
  func bleFileList(bleFiles: [BleFile]) {
    let files = bleFiles.map(HandedOver.init)
    Self.send { $0.bleFileList(bleFiles: files.map(\.object)) }
  }
  func bleData(sessionId: Int, start: Int, data: Data) {
    Self.send { $0.bleData(sessionId: sessionId, start: start, data: data) }
  }
  func bleDataComplete() { Self.send { $0.bleDataComplete() } }
  func bleDeleteFile(sessionId: Int, status: Int) {
    Self.send { $0.bleDeleteFile(sessionId: sessionId, status: status) }
  }
  func bleDepair(_ status: Int) { Self.send { $0.bleDepair(status) } }
  func bleWiFiOpen(_ status: Int, _ wifiName: String, _ wholeName: String, _ wifiPass: String) {
    LowerState.shared.withLock { $0.wifiOpen = status == 0 }
    Self.send { $0.bleWiFiOpen(status, wifiName, wholeName, wifiPass) }
  }
  func bleFotaResult(uid: Int, status: Int, errmsg: String?) {
    Self.send { $0.bleFotaResult(uid: uid, status: status, errmsg: errmsg) }
    BleAgent.otaSend { $0.bleFotaResult(uid: uid, status: status, errmsg: errmsg) }
  }
  func bleAppKeyState(result: Int) { Self.send { $0.bleAppKeyState(result: result) } }
  func bleDeviceName(name: String?) { Self.send { $0.bleDeviceName(name: name) } }
  func bleMicGain(_ value: Int) { Self.send { $0.bleMicGain(value) } }
  func blePowerChange(power: Int, oldPower: Int) {
    Self.send { $0.blePowerChange(power: power, oldPower: oldPower) }
  }
  func bleSyncFileHead(sessionId: Int, status: Int) {
    Self.send { $0.bleSyncFileHead(sessionId: sessionId, status: status) }
  }
  func bleSyncFileTail(sessionId: Int, crc: Int) {
    Self.send { $0.bleSyncFileTail(sessionId: sessionId, crc: crc) }
  }
  func bleDecodeFail(start: Int) { Self.send { $0.bleDecodeFail(start: start) } }
  func bleSyncFileStop() { Self.send { $0.bleSyncFileStop() } }
  func onWifiSyncConfigReceived(index: UInt32, ssid: String, password: String) {
    Self.send { $0.onSyncIdleWifiConfigReceived(index: index, ssid: ssid, password: password) }
  }
  func onWifiSyncConfigSet(result: Int) { Self.send { $0.onSyncIdleWifiConfigSet(result: result) } }
  func onWifiSyncListReceived(list: [UInt32]) {
    Self.send { $0.onSyncIdleWifiListReceived(list: list) }
  }
  func onWifiSyncDeleteResult(result: Int) {
    Self.send { $0.onSyncIdleWifiDeleteResult(result: result) }
  }
  func onWifiSyncTestStarted(index: UInt32) {
    Self.send { $0.onSyncIdleWifiTestStarted(index: index) }
  }
  func onWifiSyncWillStart(seconds: Int) { Self.send { $0.onSyncIdleWillStart(seconds: seconds) } }
  func onWifiSyncTestResult(index: UInt32, result: Int, rawCode: Int) {
    Self.send { $0.onSyncIdleWifiTestResult(index: index, result: result, rawCode: rawCode) }
  }
  func bleFotaPackReq(uid: Int, start: Int, end: Int) {
    Self.send { $0.bleFotaPackReq(uid: uid, start: start, end: end) }
    BleAgent.otaSend { $0.bleFotaPackReq(uid: uid, start: start, end: end) }
  }
  func bleFotaPackFin(uid: Int, status: Int, errmsg: String?) {
    Self.send { $0.bleFotaPackFin(uid: uid, status: status, errmsg: errmsg) }
    BleAgent.otaSend { $0.bleFotaPackFin(uid: uid, status: status, errmsg: errmsg) }
  }
  func bleOtaDataSendFail() { Self.send { $0.bleOtaDataSendFail() } }
  func bleSetActive(status: Int) { Self.send { $0.bleSetActive(status: status) } }
  func bleRate(lossRate: Double, rate: Int, instantRate: Int) {
    Self.send { $0.bleRate(lossRate: lossRate, rate: rate, instantRate: instantRate) }
  }
  func bleState(powered: Bool) {
    LowerState.shared.withLock { $0.poweredOn = powered }
    Self.send { $0.bleState(powered: powered) }
  }
  func bleDeviceDisconnectErr() { Self.send { $0.bleDeviceDisconnectErr() } }
  func bleWiFiClose(_ status: Int) {
    LowerState.shared.withLock { $0.wifiOpen = false }
    Self.send { $0.bleWiFiClose(status) }
  }
  func bleClearAllFile(status: Int) { Self.send { $0.bleClearAllFile(status: status) } }
}
