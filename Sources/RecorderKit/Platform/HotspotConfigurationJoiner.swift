import RecorderSockets

/// The one call RecorderKit makes on `NEHotspotConfigurationManager`, mirrored so the
/// decisions around it are tested here: `apply(_:completionHandler:)` with a WPA/WPA2
/// configuration, and `removeConfiguration(forSSID:)`.
public protocol HotspotConfigurationMirror: Sendable {
  /// Joins `ssid` with `passphrase`; nil on success, else the system's failure.
  func apply(ssid: String, passphrase: String, joinOnce: Bool) async -> HotspotConfigurationFailure?
  /// Forgets the network.
  func removeConfiguration(ssid: String)
}

/// `NEHotspotConfigurationError`, by name (the binding maps the codes).
public enum HotspotConfigurationFailure: Sendable, Equatable {
  /// The phone is on this network already: a success for us.
  case alreadyAssociated
  /// The user declined the system's "join network" prompt.
  case userDenied
  /// The SSID or passphrase was refused as malformed.
  case invalidConfiguration
  /// The app was not in the foreground (a join needs it).
  case applicationIsNotInForeground
  /// The entitlement or the system refused.
  case systemDenied
  /// Anything else, with the system's words.
  case other(String)
}

/// A ``HotspotJoiner`` on iOS's hotspot configuration: joins the device's access point
/// (the SSID and password WIFI_OPEN gave, PROTOCOL.md §6) once, as a "join once"
/// configuration, so the phone forgets it when the app goes to the background and never
/// rejoins it on its own. Retries belong to ``HotspotJoinPolicy``: a failure here is final
/// for this attempt.
///
/// Needs the Hotspot Configuration entitlement (docs/ios-integration.md).
public struct HotspotConfigurationJoiner: HotspotJoiner {
  private let system: any HotspotConfigurationMirror
  private let interface: String

  /// A joiner over `system` (the Apple binding, or a scripted one in tests); once joined,
  /// this host's address on the device's network is `interface`'s (the Wi-Fi interface,
  /// "en0" on iOS).
  public init(system: any HotspotConfigurationMirror, interface: String = "en0") {
    self.system = system
    self.interface = interface
  }

  /// The Wi-Fi interface's IPv4 address and netmask, where ``WiFiLink`` listens when its
  /// host is nil and whose network the device must connect from.
  public func joinedNetwork(_ hotspot: DeviceHotspot) async -> JoinedNetwork? {
    NetworkInterfaces.ipv4(named: interface).map {
      JoinedNetwork(address: $0.address, netmask: $0.netmask)
    }
  }

  public func join(_ hotspot: DeviceHotspot, serverPort: UInt16) async throws(DeviceError) {
    let failure = await system.apply(
      ssid: hotspot.ssid, passphrase: hotspot.password, joinOnce: true)
    switch failure {
    case nil, .alreadyAssociated: return
    case .userDenied: throw .wifiUnavailable("the user declined to join \(hotspot.ssid)")
    case .invalidConfiguration:
      throw .wifiUnavailable("the system refused the network \(hotspot.ssid) as malformed")
    case .applicationIsNotInForeground:
      throw .wifiUnavailable("joining a Wi-Fi network needs the app in the foreground")
    case .systemDenied:
      throw .wifiUnavailable("the system refused to join (Hotspot Configuration entitlement?)")
    case .other(let text): throw .wifiUnavailable("could not join \(hotspot.ssid): \(text)")
    }
  }

  public func leave(_ hotspot: DeviceHotspot) async {
    system.removeConfiguration(ssid: hotspot.ssid)
  }
}
