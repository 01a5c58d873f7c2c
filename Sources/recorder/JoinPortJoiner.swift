import RecorderKit
import RecorderRemoteLink

/// `recorder sync --wifi`'s joiner for `recorder emulate`: an emulator has no access point,
/// so the device's hotspot is joined through its host's join port (``HotspotJoinPort``).
struct JoinPortJoiner: HotspotJoiner {
  let joinPort: HotspotJoinPort

  func join(_ hotspot: DeviceHotspot, serverPort: UInt16) async throws(DeviceError) {
    do {
      try await joinPort.join(
        ssid: hotspot.ssid, password: hotspot.password, serverPort: serverPort)
    } catch {
      throw .wifiUnavailable("could not join \(hotspot.ssid): \(error)")
    }
  }

  func leave(_ hotspot: DeviceHotspot) async {}
}
