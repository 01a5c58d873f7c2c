import Foundation

/// The delegate of ``PlaudWiFiAgent``. Every member is optional (empty defaults below;
/// Swift on Linux has no `@objc optional`). Callbacks arrive on the facade's serial callback
/// queue (the same one as ``PlaudDeviceAgentProtocol``'s), never the main queue, in the
/// order documented on each ``PlaudWiFiAgent`` method.
///
/// Status codes: 0 success; a device's own non-zero status where it answered one (a SYNC it
/// refused, a handshake it refused); -1 for everything else (no Wi-Fi session, no hotspot
/// joiner, link lost, timeout), with ``PlaudDeviceAgent/lastError`` saying which.
public protocol PlaudWiFiAgentProtocol: AnyObject {
  /// `0` handshake complete, ready to list and transfer; otherwise the join or handshake
  /// failed within `connectWifi`'s timeout (the device's refusal status, else -1).
  func wifiHandshake(_ status: Int)
  /// The Wi-Fi session to the device's hotspot `ssid` came up (`true`, just before
  /// `wifiHandshake(0)`) or ended (`false`, just before `wifiClose`).
  func wifiConnectionStatus(_ ssid: String, _ connected: Bool)
  /// The answer to `getFileList(_:_:_:)`.
  func wifiFileList(_ files: [BleFile])
  /// `getFileList(_:_:_:)` failed (then `wifiCommonErr(11, status)`).
  func wifiFileListFail(_ status: Int)
  /// The device accepted (`0`) or refused (its status, -1 when it never answered) a SYNC.
  func wifiSyncFile(_ sessionId: Int, _ status: Int)
  /// A chunk of file data: `count` bytes at byte `offset` of the recording (contiguous
  /// chunks of up to 16 KiB, in order).
  func wifiSyncFileData(_ sessionId: Int, _ offset: Int, _ count: Int, _ binData: Data)
  /// A single-file transfer finished: every byte of the range arrived.
  func wifiDataComplete()
  /// A transfer stopped after `stopSyncFile(_:_:)` (`0`).
  func wifiSyncFileStop(_ status: Int)
  /// The answer to `deleteFile(_:_:)`: 0 deleted, else the device's status or -1.
  func wifiFileDelete(_ sessionId: Int, _ status: Int)
  /// Progress of `startDownloadAll()`: `currentFileIndex` counts from 1; `currentFile` is
  /// the recording being moved (its `offset` the bytes received so far), nil in the final
  /// report; `totalProgress` 0…1 over the bytes of the whole batch.
  func wifiDownloadAllProgress(
    _ totalFiles: Int, _ currentFileIndex: Int, _ currentFile: BleFile?, _ totalProgress: Double)
  /// The batch ended: `completedFiles` stored and exported, `failedFiles` not (failed, or
  /// left by `stopDownloadAll()`).
  func wifiDownloadAllCompleted(_ completedFiles: Int, _ failedFiles: Int)
  /// A command failed: `cmd` is the Wi-Fi PDU type of the command (``PlaudWiFiAgent/Command``:
  /// 1 handshake, 11 list, 12 sync, 14 delete, 15 stop), `status` as above.
  func wifiCommonErr(_ cmd: Int, _ status: Int)
  /// The Wi-Fi session closed: `0` cleanly (by `disconnect()`, or the device ending it),
  /// `-1` lost (or `disconnect()` with no session).
  func wifiClose(_ status: Int)
  /// Joining the device's hotspot: `true`, 0, "" once joined (just before
  /// `wifiConnectionStatus(ssid, true)`); `false`, -1 and why when ``PlaudWiFiAgent/connectWifi(_:_:_:)``
  /// could not join or the device never came (also after ``PlaudWiFiAgent/listenPort(_:_:)``,
  /// which RecorderKit does not support). RecorderKit's joiner errors carry no
  /// NEHotspotConfigurationError code: `errorCode` is -1 on failure.
  func wifiConnectResult(_ success: Bool, _ errorCode: Int, _ message: String)
  /// Battery level (%) and voltage (mV) over Wi-Fi. Never reported: RecorderKit's Wi-Fi
  /// session does not pass the device's battery PDU on.
  func wifiPower(_ power: Int, _ voltage: Int)
  /// The device's client dropped, waiting for it to reconnect. Never reported: RecorderKit
  /// re-joins within `connectWifi`'s timeout itself, then reports `wifiClose`.
  func wifiClientFail()
  /// The answer to ``PlaudWiFiAgent/startRateTest(_:_:)``: always -1 (the rate test, Wi-Fi
  /// cmd 100, is not supported by RecorderKit).
  func wifiRateFail(_ status: Int)
  /// Rate test results. Never reported (not supported by RecorderKit).
  func wifiRate(_ instantRate: Int, _ averageRate: Int, _ lossRate: Double)
  /// The answer to ``PlaudWiFiAgent/getDeviceLogs(_:)``: always -1 (device logs, Wi-Fi
  /// cmd 101, are not supported by RecorderKit).
  func wifiLogsFail(_ status: Int)
  /// Device logs. Never reported (not supported by RecorderKit).
  func wifiLogs(_ logData: Data?)
  /// A tip from the device (1: its record key was pressed). Never reported: RecorderKit's
  /// Wi-Fi session does not pass tips on.
  func wifiTips(_ tips: Int)
}

extension PlaudWiFiAgentProtocol {
  public func wifiHandshake(_ status: Int) {}
  public func wifiConnectionStatus(_ ssid: String, _ connected: Bool) {}
  public func wifiFileList(_ files: [BleFile]) {}
  public func wifiFileListFail(_ status: Int) {}
  public func wifiSyncFile(_ sessionId: Int, _ status: Int) {}
  public func wifiSyncFileData(_ sessionId: Int, _ offset: Int, _ count: Int, _ binData: Data) {}
  public func wifiDataComplete() {}
  public func wifiSyncFileStop(_ status: Int) {}
  public func wifiFileDelete(_ sessionId: Int, _ status: Int) {}
  public func wifiDownloadAllProgress(
    _ totalFiles: Int, _ currentFileIndex: Int, _ currentFile: BleFile?, _ totalProgress: Double
  ) {}
  public func wifiDownloadAllCompleted(_ completedFiles: Int, _ failedFiles: Int) {}
  public func wifiCommonErr(_ cmd: Int, _ status: Int) {}
  public func wifiClose(_ status: Int) {}
  public func wifiConnectResult(_ success: Bool, _ errorCode: Int, _ message: String) {}
  public func wifiPower(_ power: Int, _ voltage: Int) {}
  public func wifiClientFail() {}
  public func wifiRateFail(_ status: Int) {}
  public func wifiRate(_ instantRate: Int, _ averageRate: Int, _ lossRate: Double) {}
  public func wifiLogsFail(_ status: Int) {}
  public func wifiLogs(_ logData: Data?) {}
  public func wifiTips(_ tips: Int) {}
}
