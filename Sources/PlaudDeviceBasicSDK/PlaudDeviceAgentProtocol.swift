import Foundation

/// The delegate of ``PlaudDeviceAgent``: device, recording and file events.
///
/// `blePenState` is the only required member. Every other callback has an empty default in
/// the extension below (Swift on Linux has no `@objc optional`), so implement only the ones
/// you need. Callbacks arrive on the facade's serial callback queue, never the main queue;
/// marshal to the main queue before touching UI. The order on a connection is:
/// `bleConnectState(1)` → `bleBind` → `blePenState` → `bleChargingState` → `bleStorage`;
/// on a failed one, `bleBind` with the handshake status (when the device answered) →
/// `bleConnectState(-2 | -1 | 2)`. See docs/migrating-from-vendor-sdk.md for every code.
public protocol PlaudDeviceAgentProtocol: AnyObject {
  /// Required. The device state after the handshake and after ``PlaudDeviceAgent/getState()``:
  /// `state` is GET_STATE's `state` as the device sends it (the vendor documents 4099
  /// (0x1003) as recording; RecorderKit's emulator sends 1 idle, 2 recording, 3 paused: read
  /// `BleAgent.shared.isRecording` to know); `privacy`, `keyState`, `uDisk`, `findMyToken`,
  /// `hasSndpKey`, `deviceAccessToken` are GET_STATE's flags (0 when the firmware omits
  /// them). The recording's scene and session id are in ``PlaudDeviceAgent/sceneFlag`` and
  /// `BleAgent.shared.sessionId`.
  func blePenState(
    state: Int, privacy: Int, keyState: Int, uDisk: Int, findMyToken: Int, hasSndpKey: Int,
    deviceAccessToken: Int)
  /// `1` connected, `0` disconnected, `-1` could not start (no or malformed user token, no
  /// central, Bluetooth off), `-2` the device refused the handshake, `2` the link failed.
  func bleConnectState(state: Int)
  /// Recorders heard so far in this scan (the whole list each time it changes).
  func bleScanResult(bleDevices: [BleDevice])
  /// The scan ended with no recorder heard.
  func bleScanOverTime()
  /// The handshake's outcome: `status` 0 bound; otherwise the device's status (1 token
  /// mismatch, 2 recording, 3 refused, 4 serial check failed, 255 not in connect mode).
  func bleBind(sn: String?, status: Int, protVersion: Int, timezone: Int)
  /// Flash: `total` and `free` bytes, `duration` the recording time left (ms, as the device
  /// reports it; 0 when it does not).
  func bleStorage(total: Int, free: Int, duration: Int)
  /// Battery level 0–100 and whether it charges.
  func bleChargingState(isCharging: Bool, level: Int)
  /// A recording started (on the device or by ``PlaudDeviceAgent/startRecord()``): `status`
  /// 0, or the device's refusal (1 space full, 2 U-disk, 3 hardware, 4 busy, 255 wrong
  /// mode) with the other values 0.
  func bleRecordStart(
    sessionId: Int, start: Int, status: Int, scene: Int, startTime: Int, reason: Int)
  /// A recording stopped; `reason` 1 on the device, 2 by the app, 3 time split, 4 switch;
  /// `fileSize` in bytes of raw device audio.
  func bleRecordStop(sessionId: Int, reason: Int, fileExist: Bool, fileSize: Int)
  /// RecorderKit addition: a recording paused.
  func bleRecordPause(sessionId: Int, reason: Int, fileExist: Bool, fileSize: Int)
  /// RecorderKit addition: a paused recording resumed.
  func bleRecordResume(sessionId: Int, start: Int, status: Int, scene: Int, startTime: Int)
  /// Decoded audio of `syncFile(sessionId:start:end:)`, as it arrives: 640 bytes (20 ms of
  /// 16 kHz mono 16-bit little-endian PCM) at position `millsec`; `isMusic` for the music
  /// scene (docs/live-audio.md).
  func blePcmData(sessionId: Int, millsec: Int, pcmData: Data, isMusic: Bool)
  /// The answer to `getFileList(startSessionId:)` (empty when it failed; see `lastError`).
  func bleFileList(bleFiles: [BleFile])
  /// A chunk of file data as it arrives during `exportAudio`, `start` its byte offset.
  func bleData(sessionId: Int, start: Int, data: Data)
  /// The file transfer of an `exportAudio` finished (every byte received and checked).
  func bleDataComplete()
  /// The answer to `deleteFile(sessionId:)`: 0 deleted, the device's status, or -1 (not
  /// connected, link failure).
  func bleDeleteFile(sessionId: Int, status: Int)
  /// The answer to `depair(clear:)`: 0 done (the device is then disconnected), else failed.
  func bleDepair(_ status: Int)
  /// The answer to `setDeviceWiFi(open: true)`: status 0 with the hotspot's names (both the
  /// SSID to pass to `PlaudWiFiAgent.connectWifi`) and its password; -1 with empty strings
  /// when it could not be raised (`lastError` says why). Hand over to `PlaudWiFiAgent`.
  func bleWiFiOpen(_ status: Int, _ wifiName: String, _ wholeName: String, _ wifiPass: String)
  /// A firmware push result. Until firmware update lands: status -1 with the reason.
  func bleFotaResult(uid: Int, status: Int, errmsg: String?)
  /// A monitored recorder came into range (beacon wake-up). The SDK does not reconnect on
  /// its own: call `connectBySN(_:)`.
  func bleIBeaconWakeupTriggered(sn: String)
  /// The answer to the legacy app-key ``PlaudDeviceAgent/initSDK(hostName:appKey:appSecret:bindToken:extra:customDomain:partnerToken:)``:
  /// 0 temporary, 1 success, 2 failure. RecorderKit does not support app keys: always 2.
  func bleAppKeyState(result: Int)
  /// The device's name: after ``PlaudDeviceAgent/setDeviceName(_:)`` the name it now
  /// reports, nil when the rename failed (``PlaudDeviceAgent/lastError`` says why).
  func bleDeviceName(name: String?)
  /// The microphone gain (setting 20, 1–30) the device reports after
  /// ``PlaudDeviceAgent/readMicGain()`` or ``PlaudDeviceAgent/setMicGain(value:)``; -1 when
  /// the call failed (``PlaudDeviceAgent/lastError`` says why).
  func bleMicGain(_ value: Int)
  /// The battery level changed: `power` now, `oldPower` the level reported before it (on a
  /// battery report whose level differs from the last one this connection heard).
  func blePowerChange(power: Int, oldPower: Int)
  /// A file transfer from the device began (SYNC_START's head): `status` 0. Reported before
  /// the first ``bleData(sessionId:start:data:)`` of an ``PlaudDeviceAgent/exportAudio(sessionId:outputDir:format:channels:callback:)``
  /// or ``PlaudDeviceAgent/downloadFile(sessionId:desiredOutputPath:format:)`` that moves bytes.
  func bleSyncFileHead(sessionId: Int, status: Int)
  /// The device sent the last byte of a file (its tail). `crc` is 0: RecorderKit verifies
  /// the audio itself and does not pass the device's 16-bit value on.
  func bleSyncFileTail(sessionId: Int, crc: Int)
  /// Decoding the device's audio failed at byte `start`. Not reported by RecorderKit: a
  /// recording that does not decode fails its export's `onError` instead.
  func bleDecodeFail(start: Int)
  /// A file transfer ended early by a stop. Not reported separately by RecorderKit (the
  /// export's `onError` and ``bleDownloadFileStop()`` say it).
  func bleSyncFileStop()
  /// Progress of ``PlaudDeviceAgent/downloadFile(sessionId:desiredOutputPath:format:)``:
  /// `status` 0 with `progress` 0…100 (non-decreasing; 100 once the file is at
  /// `desiredOutputPath`), or `status` -1 with `tips` saying why.
  func bleDownloadFile(
    sessionId: Int, desiredOutputPath: String, status: Int, progress: Int, tips: String)
  /// ``PlaudDeviceAgent/stopDownloadFile()`` stopped the download (its bytes are kept: the
  /// next download of the recording resumes).
  func bleDownloadFileStop()
  /// An idle-sync Wi-Fi network stored on the device. Never reported: RecorderKit does not
  /// support idle-sync Wi-Fi (its wire format is unknown).
  func onWifiSyncConfigReceived(index: UInt32, ssid: String, password: String)
  /// The answer to ``PlaudDeviceAgent/setWifiSyncConfig(operation:wifiIndex:ssid:password:)``:
  /// always -1 (not supported by RecorderKit).
  func onWifiSyncConfigSet(result: Int)
  /// The stored idle-sync networks. Never reported (not supported by RecorderKit).
  func onWifiSyncListReceived(list: [UInt32])
  /// The answer to ``PlaudDeviceAgent/deleteWifiSyncConfig(wifiIndices:)``: always -1 (not
  /// supported by RecorderKit).
  func onWifiSyncDeleteResult(result: Int)
  /// An idle-sync Wi-Fi test began. Never reported (not supported by RecorderKit).
  func onWifiSyncTestStarted(index: UInt32)
  /// Idle sync starts in `seconds`. Never reported (not supported by RecorderKit).
  func onWifiSyncWillStart(seconds: Int)
  /// The answer to ``PlaudDeviceAgent/setWifiSyncTest(wifiIndex:)`` and
  /// ``PlaudDeviceAgent/getWifiSyncTestResult(wifiIndex:)``: always `result` -1,
  /// `rawCode` -1 (not supported by RecorderKit).
  func onWifiSyncTestResult(index: UInt32, result: Int, rawCode: Int)
  /// The idle-sync upload address. Never reported (not supported by RecorderKit).
  func onWifiSyncUrl(url: String)
  /// A Wi-Fi signal measurement request was confirmed. Never reported (not supported by
  /// RecorderKit).
  func onWifiRssiRequestConfirmed(status: Int)
  /// The vendor SDK's permission fetch. Never reported: RecorderKit makes no permission
  /// check (``PlaudDeviceAgent/skipPermissionCheck`` has no effect).
  func onSdkFetchPermissionResult(pass: Bool, tips: String)
  /// The vendor SDK's permission check. Never reported (as above).
  func onSdkCheckPermissionResult(pass: Bool, tips: String)
  /// The vendor SDK's resource check (``PlaudDeviceAgent`` `checkSdkResource()`).
  func onSdkCheckResourceResult(pass: Bool, tips: String)
  /// The answer to ``PlaudDeviceAgent/getWifiSyncEnable()`` and
  /// ``PlaudDeviceAgent/setWifiSyncEnable(value:)`` (0 off, 1 on): always -1 (not supported
  /// by RecorderKit).
  func onWifiSyncEnabled(_ value: Int)
  /// A general message. RecorderKit sends `type` -1, `value` -1 with `tips` naming the
  /// member, for a call it does not support and that has no callback of its own
  /// (``PlaudSDKError/notSupported(member:reason:)``).
  func onCommonMsgChannel(type: Int, value: Int, tips: String)
  /// The device asks for firmware bytes `[start, end)` of push `uid` (firmware update).
  func bleFotaPackReq(uid: Int, start: Int, end: Int)
  /// The device received the whole firmware package of push `uid`: `status` 0, else its
  /// failure (as ``bleFotaResult(uid:status:errmsg:)``).
  func bleFotaPackFin(uid: Int, status: Int, errmsg: String?)
  /// Sending firmware bytes failed.
  func bleOtaDataSendFail()
  /// The answer to ``PlaudDeviceAgent/setDeviceActive(status:)``: always -1 (not supported
  /// by RecorderKit: its session sends SET_ACTIVE 00 only when it ends).
  func bleSetActive(status: Int)
  /// A device setting changed. Never reported by RecorderKit (read settings with
  /// ``PlaudDeviceAgent/getSetting(_:completion:)``).
  func bleCommonSetting(setting: Int)
  /// BLE transfer rate. Never reported (RecorderKit has no rate test; see
  /// ``PlaudDeviceAgent/currentDownloadSpeedKBps``).
  func bleRate(lossRate: Double, rate: Int, instantRate: Int)
  /// The phone's Bluetooth radio turned on (`true`) or off (`false`): reported when the
  /// central's state settles on powered on or off, first at the agent's first scan or
  /// connect.
  func bleState(powered: Bool)
  /// The connected device dropped the link without being asked (not after
  /// ``PlaudDeviceAgent/disconnect()`` or `depair`): reported just before
  /// `bleConnectState(0)`.
  func bleDeviceDisconnectErr()
  /// The device's hotspot closed: the answer to WIFI_CLOSE over BLE (from
  /// `setDeviceWiFi(open: false)` or `endWiFiTransfer()` while BLE is up): 0 closed, -1 failed
  /// (``PlaudDeviceAgent/lastError`` says why).
  func bleWiFiClose(_ status: Int)
  /// The answer to ``PlaudDeviceAgent/clearAllFiles()``: 0 every recording erased, else -1
  /// (nothing erased; ``PlaudDeviceAgent/lastError`` says why: while a recording is not
  /// synced RecorderKit refuses).
  func bleClearAllFile(status: Int)
  /// A connect reached `stage` (a ``BleAgent/ConnectStage`` raw value) of device `sn` (nil
  /// before it is known): `start` first, then each step of the set-up as it begins, before
  /// `bleConnectState`. `detail` is nil (RecorderKit has nothing to add to a stage's name).
  func bleConnectStage(sn: String?, stage: String, detail: String?)
}

extension PlaudDeviceAgentProtocol {
  public func bleConnectStage(sn: String?, stage: String, detail: String?) {}
  public func bleConnectState(state: Int) {}
  public func bleScanResult(bleDevices: [BleDevice]) {}
  public func bleScanOverTime() {}
  public func bleBind(sn: String?, status: Int, protVersion: Int, timezone: Int) {}
  public func bleStorage(total: Int, free: Int, duration: Int) {}
  public func bleChargingState(isCharging: Bool, level: Int) {}
  public func bleRecordStart(
    sessionId: Int, start: Int, status: Int, scene: Int, startTime: Int, reason: Int
  ) {}
  public func bleRecordStop(sessionId: Int, reason: Int, fileExist: Bool, fileSize: Int) {}
  public func bleRecordPause(sessionId: Int, reason: Int, fileExist: Bool, fileSize: Int) {}
  public func bleRecordResume(sessionId: Int, start: Int, status: Int, scene: Int, startTime: Int) {
  }
  public func blePcmData(sessionId: Int, millsec: Int, pcmData: Data, isMusic: Bool) {}
  public func bleFileList(bleFiles: [BleFile]) {}
  public func bleData(sessionId: Int, start: Int, data: Data) {}
  public func bleDataComplete() {}
  public func bleDeleteFile(sessionId: Int, status: Int) {}
  public func bleDepair(_ status: Int) {}
  public func bleWiFiOpen(
    _ status: Int, _ wifiName: String, _ wholeName: String, _ wifiPass: String
  ) {}
  public func bleFotaResult(uid: Int, status: Int, errmsg: String?) {}
  public func bleIBeaconWakeupTriggered(sn: String) {}
  public func bleAppKeyState(result: Int) {}
  public func bleDeviceName(name: String?) {}
  public func bleMicGain(_ value: Int) {}
  public func blePowerChange(power: Int, oldPower: Int) {}
  public func bleSyncFileHead(sessionId: Int, status: Int) {}
  public func bleSyncFileTail(sessionId: Int, crc: Int) {}
  public func bleDecodeFail(start: Int) {}
  public func bleSyncFileStop() {}
  public func bleDownloadFile(
    sessionId: Int, desiredOutputPath: String, status: Int, progress: Int, tips: String
  ) {}
  public func bleDownloadFileStop() {}
  public func onWifiSyncConfigReceived(index: UInt32, ssid: String, password: String) {}
  public func onWifiSyncConfigSet(result: Int) {}
  public func onWifiSyncListReceived(list: [UInt32]) {}
  public func onWifiSyncDeleteResult(result: Int) {}
  public func onWifiSyncTestStarted(index: UInt32) {}
  public func onWifiSyncWillStart(seconds: Int) {}
  public func onWifiSyncTestResult(index: UInt32, result: Int, rawCode: Int) {}
  public func onWifiSyncUrl(url: String) {}
  public func onWifiRssiRequestConfirmed(status: Int) {}
  public func onSdkFetchPermissionResult(pass: Bool, tips: String) {}
  public func onSdkCheckPermissionResult(pass: Bool, tips: String) {}
  public func onSdkCheckResourceResult(pass: Bool, tips: String) {}
  public func onWifiSyncEnabled(_ value: Int) {}
  public func onCommonMsgChannel(type: Int, value: Int, tips: String) {}
  public func bleFotaPackReq(uid: Int, start: Int, end: Int) {}
  public func bleFotaPackFin(uid: Int, status: Int, errmsg: String?) {}
  public func bleOtaDataSendFail() {}
  public func bleSetActive(status: Int) {}
  public func bleCommonSetting(setting: Int) {}
  public func bleRate(lossRate: Double, rate: Int, instantRate: Int) {}
  public func bleState(powered: Bool) {}
  public func bleDeviceDisconnectErr() {}
  public func bleWiFiClose(_ status: Int) {}
  public func bleClearAllFile(status: Int) {}
}
