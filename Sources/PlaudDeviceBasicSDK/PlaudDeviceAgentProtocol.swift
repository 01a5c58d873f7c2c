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
  /// Required. The device state after the handshake: `state` 1 idle, 2 recording, 3 paused;
  /// `privacy`, `keyState`, `uDisk`, `findMyToken`, `hasSndpKey`, `deviceAccessToken` are
  /// GET_STATE's flags (0 when the firmware omits them).
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
  /// A recording started (on the device or by ``PlaudDeviceAgent/startRecord(scene:)``).
  func bleRecordStart(
    sessionId: Int, start: Int, status: Int, scene: Int, startTime: Int, reason: Int)
  /// A recording stopped; `fileSize` in bytes of raw device audio.
  func bleRecordStop(sessionId: Int, reason: Int, fileExist: Bool, fileSize: Int)
  /// RecorderKit addition: a recording paused.
  func bleRecordPause(sessionId: Int, reason: Int, fileExist: Bool, fileSize: Int)
  /// RecorderKit addition: a paused recording resumed.
  func bleRecordResume(sessionId: Int, start: Int, status: Int, scene: Int, startTime: Int)
  /// Live PCM while recording. Never fires: the device protocol has no live-audio command
  /// (PROTOCOL.md §3); kept so vendor code compiles.
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
}

extension PlaudDeviceAgentProtocol {
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
}
