import RecorderConcurrency
import RecorderKit

/// `UIApplication`'s background tasks as a script: records each task begun and ended, and
/// plays the system's side (expiring the time, refusing a task), so what an app or the
/// facade does around background time is tested on any platform.
public final class ScriptedBackgroundTasks: BackgroundTaskMirror {
  /// What the script has seen.
  public struct State: Sendable {
    /// The name of each task begun, in order; its identifier is its index + 1.
    public var begun: [String] = []
    /// The identifiers ended, in order.
    public var ended: [Int] = []
    /// Expiration handlers of the tasks not ended yet.
    fileprivate var handlers: [Int: @Sendable () -> Void] = [:]
    /// While true, `beginBackgroundTask` answers nil (`UIBackgroundTaskIdentifier.invalid`).
    public var refuse = false
    /// While true, the system expires each task it grants before `beginBackgroundTask` has
    /// returned (its handler runs first, as it may on another thread).
    public var expireOnBegin = false
    /// Identifiers ended more than once, or never begun (a misuse iOS reports).
    public var misused: [Int] = []

    /// Tasks begun and not ended.
    public var running: [Int] { handlers.keys.sorted() }
  }

  /// The script's state, to read or to change (`refuse`).
  public let state = Locked(State())

  /// A system that grants every task and never expires one until told.
  public init() {}

  /// Records the task; nil while ``State/refuse``.
  public func beginBackgroundTask(
    withName name: String, expirationHandler: @escaping @Sendable () -> Void
  ) -> Int? {
    let (granted, expireNow) = state.withLock { state -> (Int?, Bool) in
      guard !state.refuse else { return (nil, false) }
      state.begun.append(name)
      state.handlers[state.begun.count] = expirationHandler
      return (state.begun.count, state.expireOnBegin)
    }
    if expireNow { expirationHandler() }
    return granted
  }

  /// Records the end (a second end, or one of a task never begun, is ``State/misused``).
  public func endBackgroundTask(_ identifier: Int) {
    state.withLock { state in
      if state.handlers.removeValue(forKey: identifier) == nil { state.misused.append(identifier) }
      state.ended.append(identifier)
    }
  }

  /// The system's time is up: the expiration handler of every task still running is called
  /// (outside the script's lock, as the system calls them on the main thread).
  public func expireAll() {
    for handler in state.withLock({ state in state.running.compactMap { state.handlers[$0] } }) {
      handler()
    }
  }
}

/// Core Location as a script: records the calls made to it and sends the delegate callbacks
/// a test fires (an authorization change also changes the status it reports).
public final class ScriptedLocationManager: LocationManagerMirror {
  /// A call made to the manager.
  public enum Call: Equatable, Sendable {
    case requestAlways
    case start(String)
    case stop(String)
  }

  /// The authorization status it reports.
  public let status = Locked(LocationAuthorizationMirror.notDetermined)
  /// Every call, in order.
  public let calls = Locked<[Call]>([])
  private let sink: LocationBeaconMonitor.EventSink

  /// The manager `LocationBeaconMonitor` makes, sending its callbacks to `sink`.
  public init(sink: @escaping LocationBeaconMonitor.EventSink) { self.sink = sink }

  /// Sends a delegate callback.
  public func fire(_ event: LocationManagerEvent) {
    if case .didChangeAuthorization(let new) = event { status.withLock { $0 = new } }
    sink(event)
  }

  /// The status set by the last ``fire(_:)`` of an authorization change.
  public var authorizationStatus: LocationAuthorizationMirror { status.withLock { $0 } }
  /// Records ``Call/requestAlways``.
  public func requestAlwaysAuthorization() { calls.withLock { $0.append(.requestAlways) } }
  /// The regions monitored (started and not stopped); set it to stand for regions an
  /// earlier launch registered.
  public let regions = Locked<[String: BeaconRegionMirror]>([:])
  /// Records ``Call/start(_:)``.
  public func startMonitoring(for region: BeaconRegionMirror) {
    calls.withLock { $0.append(.start(region.identifier)) }
    regions.withLock { $0[region.identifier] = region }
  }
  /// Records ``Call/stop(_:)``.
  public func stopMonitoring(for region: BeaconRegionMirror) {
    calls.withLock { $0.append(.stop(region.identifier)) }
    regions.withLock { $0[region.identifier] = nil }
  }
  /// ``regions``.
  public var monitoredRegions: [BeaconRegionMirror] { regions.withLock { Array($0.values) } }
}
