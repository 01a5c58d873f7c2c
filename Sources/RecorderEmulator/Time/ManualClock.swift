import RecorderConcurrency

/// A `Clock` whose time moves only when told to: the simulation's time. Tests and the
/// emulator's link model run on it, so a one-hour transfer takes seconds of real time and timeouts fire deterministically.
///
/// Time moves in two ways:
/// - explicitly, with ``advance(by:)`` / ``advance(to:)``, which resume every sleeper whose
///   deadline has been reached, earliest first;
/// - automatically, when ``startAutoAdvance(pollInterval:quietChecks:)`` is on: whenever the system has gone quiet
///   (nobody holds a ``beginWork(_:)`` token, no busy probe says otherwise, and no sleeper or
///   explicit ``noteActivity()`` arrived for a moment of real time), the clock jumps to the earliest sleeper's deadline. This is a
///   discrete-event simulation: nothing happens between events, so nothing is lost by
///   skipping the gap.
///
/// Thread-safe: all state sits in one `Locked` (RecorderConcurrency); sleepers are resumed
/// outside the lock.
public final class ManualClock: Clock, Sendable {
  /// A point in virtual time: the offset from the clock's origin.
  public struct Instant: InstantProtocol, Sendable, Hashable, Comparable {
    public var offset: Duration
    public init(offset: Duration) { self.offset = offset }
    public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
    public func duration(to other: Instant) -> Duration { other.offset - offset }
    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
  }

  private struct Sleeper {
    let id: UInt64
    let deadline: Instant
    let continuation: CheckedContinuation<Void, any Error>
  }

  private struct State {
    var now = Instant(offset: .zero)
    var sleepers: [Sleeper] = []
    var nextID: UInt64 = 0
    var activity: UInt64 = 0
    var busy = 0
    var cancelled: Set<UInt64> = []
    /// Sleepers an advance resumed whose tasks have not run yet.
    var woken: Set<UInt64> = []
    var probes: [Int: @Sendable () -> Bool] = [:]
    var probeNames: [Int: String] = [:]
    var held: [String: Int] = [:]
    var nextProbe = 0
    /// Holds that keep time from passing an instant (``beginWork(_:upTo:)``), by token.
    var horizons: [UInt64: (hold: ClockHold, instant: Instant)] = [:]
    var nextHorizon: UInt64 = 0
  }

  private let state = Locked(State())
  private let driver = Locked<Task<Void, Never>?>(nil)

  public init() {}

  deinit { driver.withLock { $0?.cancel() } }

  public var now: Instant { state.withLock { $0.now } }
  public var minimumResolution: Duration { .nanoseconds(1) }

  /// Time since the clock's origin.
  public var elapsed: Duration { now.offset }

  /// How many tasks are sleeping on this clock.
  public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

  /// The earliest deadline any sleeper waits for.
  public var nextDeadline: Instant? { state.withLock { $0.sleepers.map(\.deadline).min() } }

  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    try await sleep(until: deadline, isolation: nil)
  }

  /// Suspends until `deadline`, and resumes in `isolation` (the caller's actor, by default).
  ///
  /// A sleeper that an advance resumes holds the auto-advance driver until its task runs
  /// again, in that isolation: what it does straight after the sleep (publishing an
  /// advertisement, say) happens before time can move on, however long the machine makes it
  /// wait for a thread. Throws `CancellationError` when the task is cancelled.
  public func sleep(until deadline: Instant, isolation: isolated (any Actor)? = #isolation)
    async throws
  {
    let id = state.withLock { state -> UInt64 in
      state.nextID += 1
      return state.nextID
    }
    defer {
      state.withLock {
        $0.cancelled.remove(id)
        // The task runs again: the driver's quiet window starts now, not at the advance that
        // woke it (a task kept waiting for a thread most of the window would otherwise have
        // almost none left to sleep again before time jumps under it).
        if $0.woken.remove(id) != nil { $0.activity &+= 1 }
      }
    }
    try await withTaskCancellationHandler(
      operation: {
        try await withCheckedThrowingContinuation(isolation: isolation) {
          (continuation: CheckedContinuation<Void, any Error>) in
          let outcome = state.withLock { state -> Result<Void, any Error>? in
            state.activity &+= 1
            if state.cancelled.remove(id) != nil { return .failure(CancellationError()) }
            if deadline <= state.now { return .success(()) }
            state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
            return nil
          }
          if let outcome { continuation.resume(with: outcome) }
        }
      },
      onCancel: {
        let sleeper = state.withLock { state -> Sleeper? in
          state.activity &+= 1
          guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
            state.cancelled.insert(id)
            return nil
          }
          return state.sleepers.remove(at: index)
        }
        sleeper?.continuation.resume(throwing: CancellationError())
      }, isolation: isolation)
  }

  /// Moves time forward by `duration`, resuming every sleeper it passes.
  public func advance(by duration: Duration) {
    advance(to: now.advanced(by: duration))
  }

  /// Moves time to `instant` (never backwards), resuming due sleepers earliest first.
  public func advance(to instant: Instant) {
    let due = state.withLock { state -> [Sleeper] in
      if instant > state.now { state.now = instant }
      state.activity &+= 1
      let due = state.sleepers.filter { $0.deadline <= state.now }.sorted {
        $0.deadline < $1.deadline
      }
      state.sleepers.removeAll { $0.deadline <= state.now }
      state.woken.formUnion(due.map(\.id))
      return due
    }
    for sleeper in due { sleeper.continuation.resume() }
  }

  /// Jumps to the earliest sleeper's deadline; false when nobody sleeps.
  @discardableResult
  public func advanceToNextDeadline() -> Bool {
    guard let next = nextDeadline else { return false }
    advance(to: next)
    return true
  }

  /// Marks that something happened that the auto-advance driver should not skip past.
  public func noteActivity() { state.withLock { $0.activity &+= 1 } }

  /// Holds time still until the returned token is ended: for work in flight that will
  /// produce events without sleeping (a frame being handled, a queue being drained).
  /// `hold` names it in ``activeHolds``.
  public func beginWork(_ hold: ClockHold = ClockHold("work")) -> WorkToken {
    state.withLock {
      $0.busy += 1
      $0.held[hold.name, default: 0] += 1
      $0.activity &+= 1
    }
    return WorkToken(clock: self, hold: hold)
  }

  /// Holds time from passing `horizon` until the returned token is ended: the auto-advance
  /// may still jump to sleepers due at or before it, never beyond. For a wait on a peer that
  /// may itself be sleeping on this clock (pacing its writes) while a far timer of the
  /// simulation must not fire before the peer had its real time. `hold` names it in
  /// ``activeHolds``.
  public func beginWork(_ hold: ClockHold, upTo horizon: Instant) -> WorkToken {
    let key = state.withLock { state -> UInt64 in
      state.nextHorizon += 1
      state.horizons[state.nextHorizon] = (hold, horizon)
      state.activity &+= 1
      return state.nextHorizon
    }
    return WorkToken(clock: self, hold: hold, horizon: key)
  }

  fileprivate func endHorizon(_ key: UInt64) {
    state.withLock {
      $0.horizons[key] = nil
      $0.activity &+= 1
    }
  }

  fileprivate func endWork(_ hold: ClockHold) {
    state.withLock {
      $0.busy -= 1
      $0.held[hold.name, default: 0] -= 1
      if $0.held[hold.name] == 0 { $0.held[hold.name] = nil }
      $0.activity &+= 1
    }
  }

  /// The holds in force now, by name, with how many of each (work tokens and busy probes):
  /// empty once everything that held the clock let go. A hold left here after a run is a
  /// leak that would stall the simulation.
  public var activeHolds: [String: Int] {
    state.withLock { state in
      var all = state.held
      for name in state.probeNames.values { all[name, default: 0] += 1 }
      for entry in state.horizons.values { all[entry.hold.name, default: 0] += 1 }
      return all
    }
  }

  /// Whether the auto-advance would hold still now: a work token is held or a busy probe
  /// answers true.
  public var isHeld: Bool {
    let (busy, probes) = state.withLock { ($0.busy, Array($0.probes.values)) }
    return busy > 0 || !horizonsHolding.isEmpty || probes.contains { $0() }
  }

  /// Where the auto-advance would move time once the system is quiet: the earliest
  /// sleeper's deadline; nil when nobody sleeps or a hold keeps time still (a work token,
  /// a busy probe, a woken sleeper not yet run, or a horizon hold the deadline lies beyond).
  public var autoAdvanceTarget: Instant? {
    let (busy, next, horizon, probes) = state.withLock {
      (
        $0.busy + $0.woken.count, $0.sleepers.map(\.deadline).min(),
        $0.horizons.values.map(\.instant).min(), Array($0.probes.values)
      )
    }
    guard busy == 0, let next, horizon.map({ next <= $0 }) ?? true,
      !probes.contains(where: { $0() })
    else { return nil }
    return next
  }

  /// The names of the horizon holds the earliest sleeper lies beyond (those that hold
  /// the next jump).
  private var horizonsHolding: Set<String> {
    state.withLock { state in
      guard let next = state.sleepers.map(\.deadline).min() else { return [] }
      return Set(state.horizons.values.filter { next > $0.instant }.map(\.hold.name))
    }
  }

  /// The names of what holds the clock still now: work tokens held, and busy probes that
  /// answer true.
  public var holding: Set<String> {
    let (held, probes) = state.withLock { state in
      (
        Set(state.held.filter { $0.value > 0 }.keys),
        state.probes.map { key, probe in (state.probeNames[key] ?? "probe", probe) }
      )
    }
    return held.union(probes.filter { $0.1() }.map(\.0)).union(horizonsHolding)
  }

  /// A hold on the clock; ``end()`` releases it (ending twice is harmless).
  public final class WorkToken: Sendable {
    private let clock: ManualClock
    private let hold: ClockHold
    /// The key of a horizon hold; nil for a hold of all time.
    private let horizon: UInt64?
    private let ended = Locked(false)
    init(clock: ManualClock, hold: ClockHold, horizon: UInt64? = nil) {
      self.clock = clock
      self.hold = hold
      self.horizon = horizon
    }
    public func end() {
      let first = ended.withLock { ended -> Bool in
        defer { ended = true }
        return !ended
      }
      guard first else { return }
      if let horizon {
        clock.endHorizon(horizon)
      } else {
        clock.endWork(hold)
      }
    }
    deinit { end() }
  }

  /// Starts advancing time automatically whenever the system is quiet: no work tokens held,
  /// no busy probe answering true, and no activity for `quietChecks` polls `pollInterval`
  /// of real time apart. Then the clock jumps to the earliest sleeper's deadline. Stop with
  /// ``stopAutoAdvance()``.
  ///
  /// The driver sleeps in real time between polls (it never spins), so it costs no CPU
  /// while the simulation works; each automatic jump costs about `quietChecks ×
  /// pollInterval` of real time. Work that takes real time but no simulated time (hashing,
  /// fsync, exporting) should hold a ``beginWork(_:)`` token so no jump happens under it.
  ///
  /// The default window, 20 polls (about 10 ms), is for a busy machine: a task that is ready
  /// to run but waits for a thread (no hold can mark it) must get one within the window,
  /// or time jumps under it. At 4 polls (2 ms), with three busy loops beside a test on 2
  /// cores, a sync noticed its device's silence late or early in 4 runs of 6.
  public func startAutoAdvance(pollInterval: Duration = .microseconds(500), quietChecks: Int = 20) {
    let task = Task.detached { [weak self] in
      var lastSeen: UInt64 = .max
      var quiet = 0
      while !Task.isCancelled {
        do { try await Task.sleep(for: pollInterval) } catch { return }
        guard let self else { return }
        let activity = self.state.withLock { $0.activity }
        if activity != lastSeen || self.autoAdvanceTarget == nil {
          lastSeen = activity
          quiet = 0
          continue
        }
        quiet += 1
        if quiet >= quietChecks {
          quiet = 0
          self.advanceToNextDeadline()
        }
      }
    }
    driver.withLock { old in
      old?.cancel()
      old = task
    }
  }

  /// Registers a check the auto-advance driver consults: while it returns true (a queue not
  /// yet drained, say), time holds still. Returns a key for ``removeBusyProbe(_:)``.
  @discardableResult
  public func addBusyProbe(
    _ hold: ClockHold = ClockHold("probe"), _ probe: @escaping @Sendable () -> Bool
  ) -> Int {
    state.withLock { state in
      state.nextProbe += 1
      state.probes[state.nextProbe] = probe
      state.probeNames[state.nextProbe] = hold.name
      return state.nextProbe
    }
  }

  /// Removes a probe added with ``addBusyProbe(_:_:)``.
  public func removeBusyProbe(_ key: Int) {
    state.withLock {
      _ = $0.probes.removeValue(forKey: key)
      _ = $0.probeNames.removeValue(forKey: key)
    }
  }

  /// Stops the auto-advance driver.
  public func stopAutoAdvance() {
    driver.withLock { old in
      old?.cancel()
      old = nil
    }
  }
}

extension AnyClock {
  /// Wraps a ``ManualClock``, for the code under simulation: it sleeps on the manual clock
  /// and knows nothing of its holds, which the simulation's side takes on the manual clock
  /// itself.
  public init(_ clock: ManualClock) {
    let origin = clock.now
    self.init(
      sleep: { duration in
        try await clock.sleep(until: clock.now.advanced(by: duration), tolerance: nil)
      },
      elapsed: { origin.duration(to: clock.now) })
  }
}
