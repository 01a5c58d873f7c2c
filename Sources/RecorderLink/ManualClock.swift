/// A `Clock` whose time moves only when told to: tests and the emulator's link model run on
/// it, so a one-hour transfer takes seconds of real time and timeouts fire deterministically.
///
/// Time moves in two ways:
/// - explicitly, with ``advance(by:)`` / ``advance(to:)``, which resume every sleeper whose
///   deadline has been reached, earliest first;
/// - automatically, when ``startAutoAdvance()`` is on: whenever the system has gone quiet
///   (nobody holds a ``beginWork()`` token and no sleeper or explicit ``noteActivity()``
///   arrived for a while), the clock jumps to the earliest sleeper's deadline. This is a
///   discrete-event simulation: nothing happens between events, so nothing is lost by
///   skipping the gap.
///
/// Thread-safe: all state sits in one ``Locked``; sleepers are resumed outside the lock.
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
    let id = state.withLock { state -> UInt64 in
      state.nextID += 1
      return state.nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        let outcome = state.withLock { state -> Result<Void, any Error>? in
          state.activity &+= 1
          if state.cancelled.remove(id) != nil { return .failure(CancellationError()) }
          if deadline <= state.now { return .success(()) }
          state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
          return nil
        }
        if let outcome { continuation.resume(with: outcome) }
      }
    } onCancel: {
      let sleeper = state.withLock { state -> Sleeper? in
        state.activity &+= 1
        guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
          state.cancelled.insert(id)
          return nil
        }
        return state.sleepers.remove(at: index)
      }
      sleeper?.continuation.resume(throwing: CancellationError())
    }
    state.withLock { $0.cancelled.remove(id) }
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
      let due = state.sleepers.filter { $0.deadline <= state.now }.sorted { $0.deadline < $1.deadline }
      state.sleepers.removeAll { $0.deadline <= state.now }
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
  public func beginWork() -> WorkToken {
    state.withLock {
      $0.busy += 1
      $0.activity &+= 1
    }
    return WorkToken(clock: self)
  }

  fileprivate func endWork() {
    state.withLock {
      $0.busy -= 1
      $0.activity &+= 1
    }
  }

  /// A hold on the clock; ``end()`` releases it (ending twice is harmless).
  public final class WorkToken: Sendable {
    private let clock: ManualClock
    private let ended = Locked(false)
    init(clock: ManualClock) { self.clock = clock }
    public func end() {
      let first = ended.withLock { ended -> Bool in
        defer { ended = true }
        return !ended
      }
      if first { clock.endWork() }
    }
    deinit { end() }
  }

  /// Starts advancing time automatically whenever the system is quiet: no work tokens held
  /// and no activity across `quietYields` scheduler turns. Stop with ``stopAutoAdvance()``.
  public func startAutoAdvance(quietYields: Int = 64) {
    let task = Task.detached(priority: .low) { [weak self] in
      var lastSeen: UInt64 = .max
      var quiet = 0
      while !Task.isCancelled {
        await Task.yield()
        guard let self else { return }
        let (activity, busy, hasSleepers) = self.state.withLock {
          ($0.activity, $0.busy, !$0.sleepers.isEmpty)
        }
        if activity != lastSeen || busy > 0 || !hasSleepers {
          lastSeen = activity
          quiet = 0
          continue
        }
        quiet += 1
        if quiet >= quietYields {
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

  /// Stops the auto-advance driver.
  public func stopAutoAdvance() {
    driver.withLock { old in
      old?.cancel()
      old = nil
    }
  }
}
