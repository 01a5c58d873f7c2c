import RecorderConcurrency

/// The `CLLocationManager` calls and delegate callbacks the beacon wake-up uses, mirrored so
/// its decisions are tested here; the Apple binding translates them line for line.
public protocol LocationManagerMirror: Sendable {
  /// `CLLocationManager.authorizationStatus`.
  var authorizationStatus: LocationAuthorizationMirror { get }
  /// `requestAlwaysAuthorization()`.
  func requestAlwaysAuthorization()
  /// `startMonitoring(for:)` with a `CLBeaconRegion`.
  func startMonitoring(for region: BeaconRegionMirror)
  /// `stopMonitoring(for:)`.
  func stopMonitoring(for region: BeaconRegionMirror)
}

/// `CLAuthorizationStatus`, by name.
public enum LocationAuthorizationMirror: Sendable, Equatable {
  case notDetermined, restricted, denied, authorizedAlways, authorizedWhenInUse

  /// What the beacon wake-up can do with it.
  public var beaconAuthorization: BeaconAuthorization {
    switch self {
    case .notDetermined: .notDetermined
    case .restricted, .denied: .denied
    case .authorizedAlways: .always
    case .authorizedWhenInUse: .whenInUse
    }
  }
}

/// A `CLBeaconRegion`: the beacon identity a recorder advertises, named by `identifier`.
public struct BeaconRegionMirror: Sendable, Hashable {
  public var identifier: String
  /// The iBeacon proximity UUID, as text.
  public var uuid: String
  public var major: UInt16?
  public var minor: UInt16?

  public init(identifier: String, uuid: String, major: UInt16? = nil, minor: UInt16? = nil) {
    self.identifier = identifier
    self.uuid = uuid
    self.major = major
    self.minor = minor
  }
}

/// The `CLLocationManagerDelegate` callbacks the beacon monitor listens to.
public enum LocationManagerEvent: Sendable, Equatable {
  /// `locationManagerDidChangeAuthorization(_:)`.
  case didChangeAuthorization(LocationAuthorizationMirror)
  /// `locationManager(_:didEnterRegion:)`.
  case didEnterRegion(identifier: String)
  /// `locationManager(_:didExitRegion:)`.
  case didExitRegion(identifier: String)
  /// `locationManager(_:monitoringDidFailFor:withError:)`.
  case monitoringDidFail(identifier: String?, String)
}

/// A ``BeaconMonitor`` on Core Location region monitoring (the vendor's iBeacon wake-up):
///
/// - one `CLBeaconRegion` per registered serial (its identity from
///   ``Configuration/region``), at most ``Configuration/regionLimit`` of them (iOS monitors
///   20 regions per app), the rest dropped in serial order;
/// - a wake-up is the first region entry after an exit (or after monitoring starts); repeated
///   entries without an exit between are one wake-up;
/// - "always" authorization is asked for with `requestAlwaysAuthorization()`; the system
///   shows its prompt at most once and may never answer, so the wait is bounded by
///   ``Configuration/authorizationTimeout`` and the answer is whatever the status is then.
///
/// Thread-safe: its state is in one `Locked`; the system's callbacks may come on any thread.
public final class LocationBeaconMonitor: BeaconMonitor {
  /// The region identity and bounds.
  public struct Configuration: Sendable {
    /// The beacon region a recorder with this serial advertises (nil: it cannot be watched).
    public var region: @Sendable (String) -> BeaconRegionMirror?
    /// Most regions monitored at once.
    public var regionLimit: Int
    /// How long ``requestAlwaysAuthorization()`` waits for the user's answer.
    public var authorizationTimeout: Duration
    public var clock: AnyClock

    public init(
      region: @escaping @Sendable (String) -> BeaconRegionMirror?, regionLimit: Int = 20,
      authorizationTimeout: Duration = .seconds(120), clock: AnyClock = .continuous
    ) {
      self.region = region
      self.regionLimit = regionLimit
      self.authorizationTimeout = authorizationTimeout
      self.clock = clock
    }
  }

  /// The sink the mirror's delegate callbacks go to.
  public typealias EventSink = @Sendable (LocationManagerEvent) -> Void

  private struct State {
    /// Monitored regions by identifier, with the serial each stands for.
    var regions: [String: (serial: String, region: BeaconRegionMirror)] = [:]
    var inside: Set<String> = []
    var authorization: AuthorizationWaiters = AuthorizationWaiters()
  }

  private struct AuthorizationWaiters {
    var next = 0
    var waiting: [Int: AsyncStream<LocationAuthorizationMirror>.Continuation] = [:]
  }

  private let configuration: Configuration
  private let state = Locked(State())
  private let wakeStream: AsyncStream<String>
  private let wakeContinuation: AsyncStream<String>.Continuation
  private let manager = Locked<(any LocationManagerMirror)?>(nil)

  /// A monitor over the manager `makeManager` returns, which sends its callbacks to the sink.
  public init(
    configuration: Configuration,
    makeManager: (_ events: @escaping EventSink) -> any LocationManagerMirror
  ) {
    self.configuration = configuration
    (wakeStream, wakeContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(64))
    let state = self.state
    let wake = wakeContinuation
    let made = makeManager { event in Self.handle(event, state: state, wake: wake) }
    manager.withLock { $0 = made }
  }

  private var system: any LocationManagerMirror { manager.withLock { $0! } }

  public var authorization: BeaconAuthorization { system.authorizationStatus.beaconAuthorization }

  public func requestAlwaysAuthorization() async -> Bool {
    switch system.authorizationStatus {
    case .authorizedAlways: return true
    case .denied, .restricted: return false
    case .notDetermined, .authorizedWhenInUse: break
    }
    let (changes, continuation) = AsyncStream<LocationAuthorizationMirror>.makeStream()
    let id = state.withLock { state in
      state.authorization.next += 1
      state.authorization.waiting[state.authorization.next] = continuation
      return state.authorization.next
    }
    defer { state.withLock { _ = $0.authorization.waiting.removeValue(forKey: id) } }
    system.requestAlwaysAuthorization()
    // The first change away from "not determined" is the user's answer.
    _ = await firstElement(
      of: changes, within: configuration.authorizationTimeout, on: configuration.clock,
      where: { $0 != .notDetermined })
    return system.authorizationStatus == .authorizedAlways
  }

  public func monitor(serials: Set<String>) async {
    var wanted: [String: (serial: String, region: BeaconRegionMirror)] = [:]
    for serial in serials.sorted() where wanted.count < configuration.regionLimit {
      guard let region = configuration.region(serial) else { continue }
      wanted[region.identifier] = (serial, region)
    }
    let (stop, start) = state.withLock { state in
      let stop = state.regions.filter { wanted[$0.key]?.region != $0.value.region }
      let start = wanted.filter { state.regions[$0.key]?.region != $0.value.region }
      state.regions = wanted
      state.inside = state.inside.filter { wanted[$0] != nil }
      return (stop.values.map(\.region), start.values.map(\.region))
    }
    let system = self.system
    for region in stop.sorted(by: { $0.identifier < $1.identifier }) {
      system.stopMonitoring(for: region)
    }
    for region in start.sorted(by: { $0.identifier < $1.identifier }) {
      system.startMonitoring(for: region)
    }
  }

  public func wakeUps() -> AsyncStream<String> { wakeStream }

  private static func handle(
    _ event: LocationManagerEvent, state: Locked<State>, wake: AsyncStream<String>.Continuation
  ) {
    switch event {
    case .didChangeAuthorization(let status):
      state.withLock { state in
        for waiter in state.authorization.waiting.values { waiter.yield(status) }
      }
    case .didEnterRegion(let identifier):
      let serial = state.withLock { state -> String? in
        guard let serial = state.regions[identifier]?.serial,
          state.inside.insert(identifier).inserted
        else { return nil }
        return serial
      }
      if let serial { wake.yield(serial) }
    case .didExitRegion(let identifier):
      state.withLock { _ = $0.inside.remove(identifier) }
    case .monitoringDidFail: break
    }
  }
}
