/// Whether the app may be woken by a recorder's beacon (iOS: Core Location "Always").
public enum BeaconAuthorization: Sendable, Equatable {
  case notDetermined
  /// Granted while in use only; an upgrade to always can still be asked for.
  case whenInUse
  case always
  case denied
}

/// The platform service that wakes the app when a registered recorder comes into range (the
/// iBeacon wake-up of the vendor's background guide). On iOS this is Core Location region
/// monitoring; on Linux, the Simulator and in tests it is injected, and
/// ``UnavailableBeaconMonitor`` is the default. RecorderKit never reconnects on its own: a
/// wake-up is only news, the app decides to connect by serial.
public protocol BeaconMonitor: Sendable {
  /// The current authorization.
  var authorization: BeaconAuthorization { get }
  /// Asks for "always" authorization; true when granted.
  func requestAlwaysAuthorization() async -> Bool
  /// Replaces the set of serial numbers being watched (empty stops monitoring).
  func monitor(serials: Set<String>) async
  /// Serial numbers of watched recorders as they come into range. Single consumer.
  func wakeUps() -> AsyncStream<String>
}

/// No beacon service (Linux, CI): authorization is denied and nothing ever wakes the app.
public struct UnavailableBeaconMonitor: BeaconMonitor {
  public init() {}
  public var authorization: BeaconAuthorization { .denied }
  public func requestAlwaysAuthorization() async -> Bool { false }
  public func monitor(serials: Set<String>) async {}
  public func wakeUps() -> AsyncStream<String> { AsyncStream { $0.finish() } }
}
