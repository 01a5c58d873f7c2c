import RecorderConcurrency
import RecorderKit
import RecorderRemoteLink

/// Joins an emulated device's hotspot through the emulator host's join port (a line
/// protocol on TCP, docs/tcp-link.md): the way `recorder sync --wifi` reaches
/// `recorder emulate` and tests reach an in-process emulator.
///
/// Joining is idempotent, as `HotspotJoiner` asks: when a join went out and its answer never
/// came (the exchange broke off after the request), the device may have taken it. A device
/// that then refuses the next join of the same hotspot because its Wi-Fi session is already
/// active (`HotspotJoinRequest.sessionAlreadyActive`) is telling that the earlier join took:
/// that refusal counts as joined, as iOS's "already associated" does. Without such an
/// unanswered join the refusal stays a refusal (the device is busy with a session of
/// somebody else's join, or one we closed).
public struct TCPHotspotJoiner: HotspotJoiner {
  public let host: String
  public let port: UInt16
  /// The hotspots (SSID and password) whose last join went unanswered; copies share it.
  private let unanswered = Locked<Set<String>>([])

  public init(host: String = "127.0.0.1", port: UInt16) {
    self.host = host
    self.port = port
  }

  public func join(_ hotspot: DeviceHotspot, serverPort: UInt16) async throws(DeviceError) {
    let key = "\(hotspot.ssid) \(hotspot.password)"
    do {
      try await HotspotJoinClient.join(
        host: host, port: port, ssid: hotspot.ssid, password: hotspot.password,
        serverPort: serverPort)
      unanswered.withLock { _ = $0.remove(key) }
    } catch {
      let tookEarlier = unanswered.withLock { keys in
        switch error {
        case .refused(let reason):
          // A definite answer: whatever it is, no earlier join is in doubt any more.
          return keys.remove(key) != nil && reason == HotspotJoinRequest.sessionAlreadyActive
        case .unanswered:
          keys.insert(key)
          return false
        case .socket, .malformedAnswer:
          return false
        }
      }
      if tookEarlier { return }
      throw .wifiUnavailable("could not join \(hotspot.ssid): \(error)")
    }
  }

  public func leave(_ hotspot: DeviceHotspot) async {}
}
