import RecorderBluetooth
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
  /// `monitoredRegions`, its beacon regions: the system keeps them across launches.
  var monitoredRegions: [BeaconRegionMirror] { get }
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

  /// The region of `identity`, named `identifier`.
  public init(identifier: String, identity: BeaconIdentity) {
    self.init(
      identifier: identifier, uuid: identity.uuid.uuidString, major: identity.major,
      minor: identity.minor)
  }

  /// The identity this region watches; nil when its UUID is not one.
  public var identity: BeaconIdentity? {
    guard let uuid = BluetoothUUID(string: uuid) else { return nil }
    switch (major, minor) {
    case (let major?, _): return BeaconIdentity(uuid: uuid, major: major, minor: minor)
    case (nil, nil): return BeaconIdentity(uuid: uuid)
    case (nil, _?): return nil
    }
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
/// - one `CLBeaconRegion` per watched serial, with the serial's identity from
///   ``Configuration/identities``, named after the serial: a region entry names its
///   recorder even when it relaunched the app before ``monitor(serials:)`` ran again;
/// - at most ``Configuration/regionLimit`` regions (iOS monitors 20 per app, counting
///   regions the app registered for anything else): serials beyond it are not watched and
///   are listed in ``BeaconWatch/overLimit``; the order given is the priority;
/// - regions registered by an earlier launch and no longer wanted are stopped (the system
///   keeps regions across launches, `monitoredRegions`);
/// - a wake-up is the first region entry after an exit (or after the launch began);
///   repeated entries without an exit between are one wake-up;
/// - "always" authorization is asked for with `requestAlwaysAuthorization()`; the system
///   shows its prompt at most once and may never answer, so the wait is bounded by
///   ``Configuration/authorizationTimeout`` and the answer is whatever the status is then.
///
/// Thread-safe: its state is in one `Locked`; the system's callbacks may come on any thread.
public final class LocationBeaconMonitor: BeaconMonitor {
  /// The identities and bounds.
  public struct Configuration: Sendable {
    /// The beacon each recorder broadcasts.
    public var identities: BeaconIdentities
    /// Most regions monitored at once.
    public var regionLimit: Int
    /// How long ``requestAlwaysAuthorization()`` waits for the user's answer.
    public var authorizationTimeout: Duration
    public var clock: AnyClock

    public init(
      identities: BeaconIdentities, regionLimit: Int = 20,
      authorizationTimeout: Duration = .seconds(120), clock: AnyClock = .continuous
    ) {
      self.identities = identities
      self.regionLimit = regionLimit
      self.authorizationTimeout = authorizationTimeout
      self.clock = clock
    }
  }

  /// The sink the mirror's delegate callbacks go to.
  public typealias EventSink = @Sendable (LocationManagerEvent) -> Void

  /// The prefix of every region identifier this monitor registers.
  package static let regionPrefix = "RecorderKit.beacon."

  /// The identifier of the region that watches the recorder with `serial`.
  package static func regionIdentifier(for serial: String) -> String { regionPrefix + serial }

  /// The serial a region identifier of this monitor names; nil for any other region.
  static func serial(ofRegion identifier: String) -> String? {
    guard identifier.hasPrefix(regionPrefix), identifier.count > regionPrefix.count else {
      return nil
    }
    return String(identifier.dropFirst(regionPrefix.count))
  }

  private struct State {
    /// The watch set by ``monitor(serials:)`` in this launch; nil before its first call.
    var watch: BeaconWatch?
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

  /// What the last ``monitor(serials:)`` watches now (refusals the system sent since
  /// included); nil before the first call in this launch.
  public var watch: BeaconWatch? { state.withLock { $0.watch } }

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

  @discardableResult
  public func monitor(serials: [String]) async -> BeaconWatch {
    var watch = BeaconWatch()
    var wanted: [String: BeaconRegionMirror] = [:]
    for serial in BeaconWatch.distinct(serials) {
      guard let identity = configuration.identities.identity(for: serial) else {
        watch.withoutIdentity.append(serial)
        continue
      }
      guard wanted.count < configuration.regionLimit else {
        watch.overLimit.append(serial)
        continue
      }
      let identifier = Self.regionIdentifier(for: serial)
      wanted[identifier] = BeaconRegionMirror(identifier: identifier, identity: identity)
      watch.watched.append(serial)
    }
    let system = self.system
    // The system's regions of this monitor, this launch's and earlier launches'.
    var current: [String: BeaconRegionMirror] = [:]
    for region in system.monitoredRegions where Self.serial(ofRegion: region.identifier) != nil {
      current[region.identifier] = region
    }
    state.withLock { state in
      state.watch = watch
      state.inside = state.inside.filter { wanted[$0] != nil }
    }
    for region in current.values.sorted(by: { $0.identifier < $1.identifier })
    where wanted[region.identifier] != region {
      system.stopMonitoring(for: region)
    }
    for serial in watch.watched {
      let identifier = Self.regionIdentifier(for: serial)
      guard let region = wanted[identifier], current[identifier] != region else { continue }
      system.startMonitoring(for: region)
    }
    return self.watch ?? watch
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
      guard let serial = Self.serial(ofRegion: identifier) else { return }
      let woke = state.withLock { state -> Bool in
        // Before this launch's first monitor(serials:), the system's regions are the
        // app's (an entry relaunched it); after it, only the watched ones.
        if let watch = state.watch, !watch.watched.contains(serial) { return false }
        return state.inside.insert(identifier).inserted
      }
      if woke { wake.yield(serial) }
    case .didExitRegion(let identifier):
      state.withLock { _ = $0.inside.remove(identifier) }
    case .monitoringDidFail(let identifier, _):
      guard let identifier, let serial = Self.serial(ofRegion: identifier) else { return }
      state.withLock { state in
        guard var watch = state.watch, let index = watch.watched.firstIndex(of: serial) else {
          return
        }
        watch.watched.remove(at: index)
        watch.refused.append(serial)
        state.watch = watch
        state.inside.remove(identifier)
      }
    }
  }
}
