import RecorderBluetooth
import RecorderConcurrency
import RecorderCoreBluetooth
import RecorderKit

/// iOS as a script that keeps Apple's background rules for an app: its life cycle (launched
/// by the user, in the background, suspended, terminated by the system, force-quit, and after
/// a reboot before its first launch), Core Bluetooth's background processing and state
/// restoration, Core Location region monitoring, and background task time.
///
/// The app is a launch closure (``install(_:)``): the system calls it on every launch, by the
/// user or a relaunch in the background, and the app builds its objects there from the
/// system's services: ``centralManager(restoreIdentifier:events:)``,
/// ``locationManager(events:)`` and ``backgroundTasks``. When the app is terminated, the
/// objects of that launch are cut off: their calls reach nothing and no callback reaches them.
///
/// The system's Bluetooth is one mirror made once (`systemBluetooth`, an emulated one in
/// tests); the script stands between it and the app's managers and applies the rules:
/// - **Scanning in the background** (Core Bluetooth Background Processing): a scan that names
///   no service finds nothing while the app is not in the foreground; a scan that names
///   services reports each peripheral once per scan (the system coalesces discoveries; the
///   allow-duplicates option is ignored).
/// - **Pending connects** have no timeout: the system keeps a connect until the peripheral is
///   in range, the app cancels it, or the app is force-quit. A suspended app is woken for the
///   callback.
/// - **State restoration**: the connects, links and scan of a manager made with a restore
///   identifier outlive a termination by the system; the first event for them relaunches the
///   app in the background, and the manager made with the same identifier gets
///   `willRestoreState` (peripherals connected or connecting, the scan's services) before any
///   other callback, then the event. A manager without an identifier loses everything when
///   the app ends. After a force-quit, or a reboot before the user launches the app again,
///   nothing relaunches it and nothing is preserved.
/// - **Region monitoring**: monitored regions belong to the system and outlive the app; an
///   entry relaunches an app terminated by the system only with "always" authorization, and
///   wakes a suspended one the same way; in the foreground "when in use" suffices. An app
///   monitors at most ``Rules/regionLimit`` regions: one more fails with
///   `monitoringDidFailFor`. The beacons the phone hears (``hearBeacons(_:)``) move it into
///   and out of beacon regions; a region that already contains a heard beacon when its
///   monitoring starts is entered without an event (Core Location reports crossings).
///   iBeacon frames never reach Core Bluetooth scans.
/// - **Background time** is finite: the app runs ``Rules/wakeTime`` after it entered the
///   background or was woken, longer only inside background tasks, and those expire
///   ``Rules/backgroundTime`` after it entered the background or was woken: the expiration
///   handlers run, then the app is suspended; a task still not ended then gets the app
///   terminated, as iOS does. Keep-alive tricks get nothing here.
///
/// What it cannot model in one process: a suspended app's own timers and tasks keep running
/// (Swift cannot freeze them), so a test asserts on what the system delivered and granted.
///
/// Each rule can be switched off (``Rules``), so a test can show which flow depends on it.
/// Time runs on the injected clock. Thread-safe: all state is in one `Locked`; callbacks and
/// launches run outside it.
public final class ScriptedIOS: Sendable {
  /// Where the app is in its life cycle.
  public enum AppState: String, Sendable, Equatable, CustomStringConvertible {
    /// Not launched since the last reboot (or ever).
    case notRunning
    case foreground
    case background
    /// In memory, not running: woken for its Bluetooth and region events.
    case suspended
    /// Ended by the system (memory pressure, background time overrun): relaunched for
    /// preserved Bluetooth state and region entries.
    case terminatedBySystem
    /// Swiped away by the user: nothing relaunches it until the user launches it again.
    case forceQuit

    public var description: String { rawValue }

    /// Whether the app's code exists (it may be suspended).
    public var isInMemory: Bool { self == .foreground || self == .background || self == .suspended }
  }

  /// Why the system launched the app.
  public enum LaunchReason: Sendable, Equatable {
    /// The user opened it: it starts in the foreground.
    case user
    /// A Bluetooth event for the managers restored under these identifiers.
    case bluetooth(restoreIdentifiers: [String])
    /// An entry into the monitored region with this identifier.
    case location(region: String)
  }

  /// The platform rules, each switchable so a test can show what depends on it.
  public struct Rules: Sendable, Equatable {
    /// A scan with no service UUIDs finds nothing while the app is not in the foreground.
    public var nilServiceScansFindNothingInBackground = true
    /// Out of the foreground, a scan reports each peripheral once per scan.
    public var backgroundScansCoalesce = true
    /// A system-terminated app is relaunched for events of its restorable managers.
    public var relaunchesForBluetooth = true
    /// A system-terminated app is relaunched for a region entry ("always" authorization).
    public var relaunchesForRegions = true
    /// Background time runs out (false: the app runs in the background for ever).
    public var backgroundTimeIsFinite = true
    /// How long background tasks may run after the app entered the background or was woken.
    public var backgroundTime: Duration = .seconds(30)
    /// How long the app runs after it entered the background or was woken, outside tasks.
    public var wakeTime: Duration = .seconds(10)
    /// An app monitors at most ``regionLimit`` regions (false: any number).
    public var limitsRegions = true
    /// The regions an app may monitor at once (Core Location: 20).
    public var regionLimit = 20

    /// Apple's rules, as documented.
    public init() {}
  }

  /// What happened, for a test to measure.
  public struct Record: Sendable {
    /// Every launch, in order.
    public var launches: [LaunchReason] = []
    /// Every scan the app started, with the app state then and its services.
    public var scans: [(state: AppState, services: [BluetoothUUID]?)] = []
    /// Every connect the app asked for, with the app state then.
    public var connects: [(state: AppState, peripheral: PeripheralID)] = []
    /// Discoveries the rules kept from the app (background nil-service scans, coalesced
    /// duplicates).
    public var discoveriesWithheld = 0
    /// Background tasks expired by the system.
    public var tasksExpired = 0
    /// Times the app was terminated for not ending an expired background task.
    public var overrunTerminations = 0
    /// Region registrations refused for the region limit.
    public var regionsRefused = 0
    /// Region entries delivered to the app (waking or relaunching it, or in the foreground).
    public var regionEntries = 0
    /// Calls the app made while suspended or after it ended (a suspended app runs no code:
    /// each one is a test artefact, dropped).
    public var callsWhileNotRunning = 0

    /// Launches other than by the user.
    public var relaunches: Int { launches.filter { $0 != .user }.count }
  }

  let rules: Rules
  let clock: AnyClock
  let state = Locked(SystemState())
  private let launch = Locked<(@Sendable (LaunchReason) -> Void)?>(nil)
  let system = Locked<(any CentralManagerMirror)?>(nil)

  /// A phone with the app installed and not yet launched.
  /// - Parameters:
  ///   - clock: the phone's time (background time, wake time).
  ///   - rules: which of Apple's rules hold (all, by default).
  ///   - systemBluetooth: makes the system's Bluetooth, once, with the sink its callbacks go
  ///     to (an emulated radio in tests).
  ///   - authorization: the app's location authorization.
  public init(
    clock: AnyClock, rules: Rules = Rules(),
    authorization: LocationAuthorizationMirror = .authorizedAlways,
    systemBluetooth: (@escaping CoreBluetoothCentral.EventSink) -> any CentralManagerMirror
  ) {
    self.clock = clock
    self.rules = rules
    state.withLock { $0.authorization = authorization }
    let made = systemBluetooth { [weak self] event in self?.systemEvent(event) }
    system.withLock { $0 = made }
  }

  /// The app state now.
  public var appState: AppState { state.withLock { $0.app } }

  /// What happened so far.
  public var record: Record { state.withLock { $0.record } }

  /// Installs the app: `launch` runs on every launch and builds the app's objects.
  public func install(_ launch: @escaping @Sendable (LaunchReason) -> Void) {
    self.launch.withLock { $0 = launch }
  }

  // MARK: - The user and the system

  /// The user opens the app: launched if not in memory (nothing is preserved after a
  /// force-quit or reboot), then in the foreground.
  public func openByUser() {
    let needsLaunch = state.withLock { state -> Bool in
      defer { state.app = .foreground }
      return !state.app.isInMemory
    }
    if needsLaunch { relaunch(.user, into: .foreground) }
  }

  /// The user leaves the app (home screen, lock): it enters the background.
  public func sendToBackground() {
    let moved = state.withLock { state -> Bool in
      guard state.app == .foreground else { return false }
      state.app = .background
      return true
    }
    if moved { startBackgroundTime() }
  }

  /// The system ends the app to reclaim memory: restorable Bluetooth state and regions stay
  /// with the system, everything else of this launch ends.
  public func terminateBySystem() { end(as: .terminatedBySystem) }

  /// The user force-quits the app: every connect, link and scan is cancelled; nothing
  /// relaunches it.
  public func forceQuit() { end(as: .forceQuit) }

  /// The phone restarts: like a force-quit, and the app is not running until the user
  /// opens it.
  public func reboot() { end(as: .notRunning) }

  /// Sets the app's location authorization (the user changed it in Settings).
  public func setLocationAuthorization(_ authorization: LocationAuthorizationMirror) {
    let sinks = state.withLock { state -> [LocationBeaconMonitor.EventSink] in
      state.authorization = authorization
      return state.app.isInMemory ? state.locationSinks(of: state.generation) : []
    }
    for sink in sinks { sink(.didChangeAuthorization(authorization)) }
  }

  /// The phone crosses into region `identifier`: delivered if monitored and the rules allow
  /// (waking or relaunching the app).
  public func enterRegion(_ identifier: String) {
    let (app, monitored, always) = state.withLock {
      ($0.app, $0.regions[identifier] != nil, $0.authorization == .authorizedAlways)
    }
    guard monitored else { return }
    switch app {
    case .foreground: break
    case .background, .suspended:
      guard always else { return }
      wake()
    case .terminatedBySystem:
      guard always, rules.relaunchesForRegions else { return }
      relaunch(.location(region: identifier), into: .background)
    case .forceQuit, .notRunning: return
    }
    let sinks = state.withLock { state in
      state.record.regionEntries += 1
      return state.locationSinks(of: state.generation)
    }
    for sink in sinks { sink(.didEnterRegion(identifier: identifier)) }
  }

  /// The iBeacons the phone hears now (replacing the last set): each monitored beacon region
  /// that now contains one and did not is entered (``enterRegion(_:)``), each that contained
  /// one and now contains none is left (``exitRegion(_:)``).
  public func hearBeacons(_ beacons: Set<IBeacon>) {
    let (entered, left) = state.withLock { state -> ([String], [String]) in
      state.beacons = beacons
      var entered: [String] = []
      var left: [String] = []
      for (identifier, region) in state.regions.sorted(by: { $0.key < $1.key }) {
        let inside = state.contains(region)
        if inside, state.insideRegions.insert(identifier).inserted { entered.append(identifier) }
        if !inside, state.insideRegions.remove(identifier) != nil { left.append(identifier) }
      }
      return (entered, left)
    }
    for identifier in left { exitRegion(identifier) }
    for identifier in entered { enterRegion(identifier) }
  }

  /// The phone leaves region `identifier` (delivered only to an app in memory).
  public func exitRegion(_ identifier: String) {
    let sinks = state.withLock { state -> [LocationBeaconMonitor.EventSink] in
      guard state.regions[identifier] != nil, state.app.isInMemory else { return [] }
      return state.locationSinks(of: state.generation)
    }
    for sink in sinks { sink(.didExitRegion(identifier: identifier)) }
  }

  // MARK: - Life-cycle mechanics

  /// Runs the app's launch closure for a new launch in `app` state.
  func relaunch(_ reason: LaunchReason, into app: AppState) {
    state.withLock { state in
      state.generation += 1
      state.app = app
      state.record.launches.append(reason)
    }
    launch.withLock { $0 }?(reason)
    if app == .background { startBackgroundTime() }
  }

  /// A Bluetooth or region event reaches the app: a suspended app is woken into the
  /// background; one in the background runs ``Rules/wakeTime`` from now (iOS gives an app
  /// woken for an event about ten seconds to handle it).
  func wake() {
    let now = clock.elapsed
    let wakeTime = rules.wakeTime
    let woke = state.withLock { state -> Bool in
      switch state.app {
      case .suspended:
        state.app = .background
        return true
      case .background:
        state.runUntil = max(state.runUntil, now + wakeTime)
        return false
      default: return false
      }
    }
    if woke { startBackgroundTime() }
  }

  private func end(as ending: AppState) {
    let (cancels, stopScan) = state.withLock { state -> ([PeripheralID], Bool) in
      let keep = ending == .terminatedBySystem
      var cancels: [PeripheralID] = []
      for (id, manager) in state.managers {
        // A restorable manager's state goes to the system; any other's ends with the app.
        if keep, let identifier = manager.restoreIdentifier {
          state.preserved[identifier] = Preserved(
            pending: manager.pending, connected: manager.connected,
            scanServices: manager.scanServices, scanning: manager.scanning)
        } else {
          cancels += manager.pending.union(manager.connected)
        }
        state.managers[id] = nil
      }
      if !keep {
        for preserved in state.preserved.values {
          cancels += preserved.pending.union(preserved.connected)
        }
        state.preserved = [:]
      }
      state.app = ending
      state.tasks = [:]
      state.backgroundEpoch += 1
      return (cancels, !state.preserved.values.contains(where: \.scanning))
    }
    guard let system = system.current else { return }
    for peripheral in Set(cancels) { system.cancelPeripheralConnection(peripheral) }
    if stopScan { system.stopScan() }
  }

  // MARK: - Background time

  /// The app entered the background or was woken from suspension: it runs ``Rules/wakeTime``
  /// (from each later event on, again: ``wake()``), and its background tasks expire
  /// ``Rules/backgroundTime`` from now.
  func startBackgroundTime() {
    guard rules.backgroundTimeIsFinite else { return }
    let now = clock.elapsed
    let epoch = state.withLock { state -> Int in
      state.backgroundEpoch += 1
      state.runUntil = now + rules.wakeTime
      state.taskDeadline = now + rules.backgroundTime
      state.tasksExpired = false
      return state.backgroundEpoch
    }
    Task { [weak self] in await self?.backgroundTimer(epoch: epoch) }
  }

  /// What the background timer does next.
  private enum TimerStep {
    case stop
    case expire([@Sendable () -> Void])
    case sleep(until: Duration)
  }

  /// Expires the tasks at their deadline and suspends the app once it has nothing to run,
  /// until the app leaves the background or another launch begins.
  private func backgroundTimer(epoch: Int) async {
    while true {
      let now = clock.elapsed
      let step = state.withLock { state -> TimerStep in
        guard state.backgroundEpoch == epoch, state.app == .background else { return .stop }
        if !state.tasksExpired, now >= state.taskDeadline {
          state.tasksExpired = true
          state.record.tasksExpired += state.tasks.count
          return .expire(state.tasks.values.map(\.expiration))
        }
        if now >= state.runUntil, state.tasks.isEmpty {
          state.app = .suspended
          return .stop
        }
        let runs = state.runUntil > now ? state.runUntil : state.taskDeadline
        return .sleep(until: state.tasksExpired ? state.runUntil : min(runs, state.taskDeadline))
      }
      switch step {
      case .stop: return
      case .expire(let handlers):
        for handler in handlers { handler() }
        // A task still running after its expiration handler gets the app terminated.
        let overrun = state.withLock { state -> Bool in
          guard state.backgroundEpoch == epoch, state.app == .background, !state.tasks.isEmpty
          else { return false }
          state.record.overrunTerminations += 1
          return true
        }
        if overrun {
          terminateBySystem()
          return
        }
      case .sleep(let until):
        guard (try? await clock.sleep(for: max(until - now, .nanoseconds(1)))) != nil else {
          return
        }
      }
    }
  }

  /// The app ended its last task after its run time: suspended now.
  func suspendIfIdle() {
    let now = clock.elapsed
    state.withLock { state in
      guard rules.backgroundTimeIsFinite, state.app == .background, state.tasks.isEmpty,
        now >= state.runUntil
      else { return }
      state.app = .suspended
    }
  }

  /// `UIApplication`'s background tasks for the app of the current launch.
  public var backgroundTasks: any BackgroundTaskMirror {
    AppBackgroundTasks(system: self, generation: state.withLock { $0.generation })
  }

  /// Core Location for the app of the current launch: the app must make it during its
  /// launch to hear a region entry that relaunched it.
  public func locationManager(events: @escaping LocationBeaconMonitor.EventSink)
    -> any LocationManagerMirror
  {
    let generation = state.withLock { state -> Int in
      state.nextLocation += 1
      state.locations[state.nextLocation] = (state.generation, events)
      return state.generation
    }
    return AppLocationManager(system: self, generation: generation)
  }
}

// MARK: - State

/// A restorable manager's connects, links and scan, kept by the system across a termination.
struct Preserved: Sendable {
  var pending: Set<PeripheralID>
  var connected: Set<PeripheralID>
  var scanServices: [BluetoothUUID]?
  var scanning: Bool
}

/// One central manager the app made.
struct ManagerEntry: Sendable {
  var generation: Int
  var restoreIdentifier: String?
  var sink: CoreBluetoothCentral.EventSink
  var pending: Set<PeripheralID> = []
  var connected: Set<PeripheralID> = []
  /// Cancelled by the app, their didDisconnect not delivered yet.
  var ending: Set<PeripheralID> = []
  var scanning = false
  var scanServices: [BluetoothUUID]?
  /// Peripherals reported in this scan (for coalescing).
  var reported: Set<PeripheralID> = []
}

struct BackgroundTask: Sendable {
  var expiration: @Sendable () -> Void
}

struct SystemState: Sendable {
  var app = ScriptedIOS.AppState.notRunning
  /// Increases with each launch: objects of older launches are cut off.
  var generation = 0
  var record = ScriptedIOS.Record()
  var managers: [Int: ManagerEntry] = [:]
  var nextManager = 0
  var preserved: [String: Preserved] = [:]
  var systemState = ManagerStateMirror.unknown
  var authorization = LocationAuthorizationMirror.notDetermined
  /// Monitored regions by identifier (the app's, kept across launches).
  var regions: [String: BeaconRegionMirror] = [:]
  /// The beacons the phone hears, and the regions that contain one of them.
  var beacons: Set<IBeacon> = []
  var insideRegions: Set<String> = []
  var locations: [Int: (generation: Int, sink: LocationBeaconMonitor.EventSink)] = [:]
  var nextLocation = 0
  /// Every peripheral the system has seen or connected (what `retrievePeripherals` finds).
  var known: Set<PeripheralID> = []
  var tasks: [Int: BackgroundTask] = [:]
  var nextTask = 0
  var backgroundEpoch = 0
  /// The background app runs until then outside tasks (each event moves it on).
  var runUntil = Duration.zero
  /// Background tasks expire then.
  var taskDeadline = Duration.zero
  /// This stretch of background time's tasks were expired: no new task is granted.
  var tasksExpired = false

  /// True when a heard beacon is in `region`.
  func contains(_ region: BeaconRegionMirror) -> Bool {
    guard let identity = region.identity else { return false }
    return beacons.contains(where: identity.matches)
  }

  func locationSinks(of generation: Int) -> [LocationBeaconMonitor.EventSink] {
    locations.values.filter { $0.generation == generation }.map(\.sink)
  }
}

// MARK: - The app's background tasks and location manager

/// `UIApplication.beginBackgroundTask`, bound to one launch.
struct AppBackgroundTasks: BackgroundTaskMirror {
  let system: ScriptedIOS
  let generation: Int

  func beginBackgroundTask(
    withName name: String, expirationHandler: @escaping @Sendable () -> Void
  ) -> Int? {
    system.state.withLock { state -> Int? in
      // A suspended or ended app runs no code that could ask.
      guard state.generation == generation,
        state.app == .foreground || (state.app == .background && !state.tasksExpired)
      else { return nil }
      state.nextTask += 1
      state.tasks[state.nextTask] = BackgroundTask(expiration: expirationHandler)
      return state.nextTask
    }
  }

  func endBackgroundTask(_ identifier: Int) {
    system.state.withLock { state in
      guard state.generation == generation else { return }
      state.tasks[identifier] = nil
    }
    system.suspendIfIdle()
  }
}

/// `CLLocationManager`, bound to one launch; regions it monitors belong to the system.
struct AppLocationManager: LocationManagerMirror {
  let system: ScriptedIOS
  let generation: Int

  var authorizationStatus: LocationAuthorizationMirror {
    system.state.withLock { $0.authorization }
  }

  func requestAlwaysAuthorization() {}

  func startMonitoring(for region: BeaconRegionMirror) {
    let rules = system.rules
    let refused = system.state.withLock { state -> [LocationBeaconMonitor.EventSink] in
      guard state.generation == generation else { return [] }
      if rules.limitsRegions, state.regions[region.identifier] == nil,
        state.regions.count >= rules.regionLimit
      {
        state.record.regionsRefused += 1
        return state.locationSinks(of: generation)
      }
      state.regions[region.identifier] = region
      // Already inside: no crossing, no event.
      if state.contains(region) {
        state.insideRegions.insert(region.identifier)
      } else {
        state.insideRegions.remove(region.identifier)
      }
      return []
    }
    for sink in refused {
      sink(.monitoringDidFail(identifier: region.identifier, "kCLErrorRegionMonitoringFailure"))
    }
  }

  func stopMonitoring(for region: BeaconRegionMirror) {
    system.state.withLock { state in
      guard state.generation == generation else { return }
      state.regions[region.identifier] = nil
      state.insideRegions.remove(region.identifier)
    }
  }

  var monitoredRegions: [BeaconRegionMirror] {
    system.state.withLock { Array($0.regions.values) }
  }
}
