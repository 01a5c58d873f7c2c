import RecorderKit
import RecorderRemoteLink

/// Joins an emulated device's hotspot through the emulator host's join port (a line
/// protocol on TCP, docs/tcp-link.md): the way `recorder sync --wifi` reaches
/// `recorder emulate` and tests reach an in-process emulator.
public struct TCPHotspotJoiner: HotspotJoiner {
  public let host: String
  public let port: UInt16

  public init(host: String = "127.0.0.1", port: UInt16) {
    self.host = host
    self.port = port
  }

  public func join(_ hotspot: DeviceHotspot, serverPort: UInt16) async throws(DeviceError) {
    do {
      try await HotspotJoinClient.join(
        host: host, port: port, ssid: hotspot.ssid, password: hotspot.password,
        serverPort: serverPort)
    } catch {
      throw .wifiUnavailable("could not join \(hotspot.ssid): \(error)")
    }
  }

  public func leave(_ hotspot: DeviceHotspot) async {}
}
