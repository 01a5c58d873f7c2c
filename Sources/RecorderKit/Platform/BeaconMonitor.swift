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
  /// Replaces the recorders being watched with `serials`, in priority order (empty stops
  /// monitoring): where the platform watches fewer regions than asked for, the first ones
  /// are watched. Returns which are watched and why the others are not.
  @discardableResult func monitor(serials: [String]) async -> BeaconWatch
  /// Serial numbers of watched recorders as they come into range. Single consumer.
  func wakeUps() -> AsyncStream<String>
}

/// No beacon service (Linux, CI): authorization is denied and nothing ever wakes the app.
public struct UnavailableBeaconMonitor: BeaconMonitor {
  public init() {}
  public var authorization: BeaconAuthorization { .denied }
  public func requestAlwaysAuthorization() async -> Bool { false }
  public func monitor(serials: [String]) async -> BeaconWatch {
    BeaconWatch(unavailable: BeaconWatch.distinct(serials))
  }
  public func wakeUps() -> AsyncStream<String> { AsyncStream { $0.finish() } }
}

/// Which recorders a ``BeaconMonitor`` watches, and why any other is not watched.
public struct BeaconWatch: Sendable, Equatable {
  /// Watched, in priority order.
  public var watched: [String] = []
  /// No beacon identity is known for these (``BeaconIdentities``).
  public var withoutIdentity: [String] = []
  /// Beyond the platform's region limit (iOS: 20 regions per app), lowest priority last.
  public var overLimit: [String] = []
  /// Refused by the system when monitoring started (Core Location's
  /// `monitoringDidFailFor`).
  public var refused: [String] = []
  /// The platform has no beacon service.
  public var unavailable: [String] = []

  package init(
    watched: [String] = [], withoutIdentity: [String] = [], overLimit: [String] = [],
    refused: [String] = [], unavailable: [String] = []
  ) {
    self.watched = watched
    self.withoutIdentity = withoutIdentity
    self.overLimit = overLimit
    self.refused = refused
    self.unavailable = unavailable
  }

  /// `serials` without repeats, first occurrence kept.
  static func distinct(_ serials: [String]) -> [String] {
    var seen: Set<String> = []
    return serials.filter { seen.insert($0).inserted }
  }
}
