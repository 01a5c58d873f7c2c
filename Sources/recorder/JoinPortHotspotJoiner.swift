import RecorderKit
import RecorderRemoteLink

/// Joins `recorder emulate`'s hotspot through its join port (docs/tcp-link.md): the
/// `recorder` tool's ``HotspotJoiner`` for `sync --wifi --hotspot tcp://HOST:PORT` and the demo.
struct JoinPortHotspotJoiner: HotspotJoiner {
  let host: String
  let port: UInt16

  func join(_ hotspot: DeviceHotspot, serverPort: UInt16) async throws(DeviceError) {
    do {
      try await HotspotJoinClient.join(
        host: host, port: port, ssid: hotspot.ssid, password: hotspot.password,
        serverPort: serverPort)
    } catch {
      throw .wifiUnavailable("could not join \(hotspot.ssid): \(error)")
    }
  }

  func leave(_ hotspot: DeviceHotspot) async {}
}
