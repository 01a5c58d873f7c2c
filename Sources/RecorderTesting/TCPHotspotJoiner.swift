import RecorderKit
import RecorderRemoteLink

/// Joins an emulated device's hotspot through the emulator host's join port (a line
/// protocol on TCP, docs/tcp-link.md): the way tests reach an in-process emulator.
/// `HotspotJoinPort` (RecorderRemoteLink) holds the exchange and its rule for a join whose answer was lost.
public struct TCPHotspotJoiner: HotspotJoiner {
  /// The join port it speaks to.
  public let joinPort: HotspotJoinPort

  public init(host: String = "127.0.0.1", port: UInt16) {
    joinPort = HotspotJoinPort(host: host, port: port)
  }

  public func join(_ hotspot: DeviceHotspot, serverPort: UInt16) async throws(DeviceError) {
    do {
      try await joinPort.join(
        ssid: hotspot.ssid, password: hotspot.password, serverPort: serverPort)
    } catch {
      throw .wifiUnavailable("could not join \(hotspot.ssid): \(error)")
    }
  }

  public func leave(_ hotspot: DeviceHotspot) async {}
}
