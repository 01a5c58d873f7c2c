import Foundation
import RecorderKit

/// The vendor's Wi-Fi members beyond its reference page: session queries, the transfer
/// speed, and the calls RecorderKit does not support (each says so on its own callback).
extension PlaudWiFiAgent {
  /// Average speed (KB/s, 1 KB = 1024 bytes) of the Wi-Fi transfer running or run last:
  /// bytes received over the time since it began. 0 before any.
  public var currentDownloadSpeedKBps: Double { core.meter.kilobytesPerSecond }

  /// ``currentDownloadSpeedKBps`` as text: "0 KB/s", "850.2 KB/s", "1.25 MB/s".
  public func getFormattedDownloadSpeed() -> String { core.meter.formatted }

  /// The vendor's log switch. RecorderKit does not forward its logs: `backBlock`, when given,
  /// hears one line saying so (on the callback queue); `opened` changes nothing.
  public func openLog(_ opened: Bool, _ backBlock: ((String) -> Void)? = nil) {
    guard let backBlock else { return }
    let closure = AppClosure(backBlock)
    let line = PlaudSDKError.notSupported(
      member: "openLog(_:_:)", reason: "RecorderKit does not forward its logs"
    ).description
    queue.async { closure.body(line) }
  }

  /// Not supported by RecorderKit (joining is ``PlaudSDKConfiguration/hotspotJoiner``'s, in
  /// ``connectWifi(_:_:_:)``): `wifiConnectResult(false, -1, why)`.
  public func listenPort(_ ssid: String, _ overtimeSec: Int = 30) {
    let error = PlaudSDKError.notSupported(
      member: "listenPort(_:_:)", reason: "join with connectWifi(_:_:_:), which waits itself")
    core.core.fail(error)
    let message = error.description
    emitEvent { $0.wifiConnectResult(false, -1, message) }
  }

  /// Whether a Wi-Fi session to the hotspot `ssid` is up.
  public func isConnectedTo(_ ssid: String) -> Bool {
    isConnected && getCurrentWiFiName() == ssid
  }

  /// "connected to <ssid>" while a session is up, else "not connected".
  public func getConnectionStatusDescription() -> String {
    guard isConnected, let ssid = getCurrentWiFiName() else { return "not connected" }
    return "connected to \(ssid)"
  }

  /// The hotspot of the session up now, nil when none is.
  public func getCurrentWiFiName() -> String? {
    guard isConnected else { return nil }
    return core.hotspotName
  }

  /// The vendor's Android-aligned name of ``startDownloadAll()``: the same call.
  public func downloadAllFiles() { startDownloadAll() }

  /// Not supported by RecorderKit (Wi-Fi cmd 100's format is unknown): `wifiRateFail(-1)`.
  public func startRateTest(_ onOff: Bool, _ packSize: Int) {
    core.core.fail(
      .notSupported(member: "startRateTest(_:_:)", reason: "the Wi-Fi rate test is unknown"))
    emitEvent { $0.wifiRateFail(-1) }
  }

  /// Not supported by RecorderKit (Wi-Fi cmd 101's format is unknown): `wifiLogsFail(-1)`.
  public func getDeviceLogs(_ begin: Bool) {
    core.core.fail(
      .notSupported(member: "getDeviceLogs(_:)", reason: "the Wi-Fi device-log command is unknown"))
    emitEvent { $0.wifiLogsFail(-1) }
  }

  /// Whether the device's WebSocket session is up (the same as ``isConnected``: RecorderKit
  /// reports the session only after the handshake).
  public func isWebSocketConnected() -> Bool { isConnected }
}
