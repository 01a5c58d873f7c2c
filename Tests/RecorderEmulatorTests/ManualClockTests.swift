import RecorderConcurrency
import RecorderEmulator
import TestSupport
import Testing

@Suite("ManualClock")
struct ManualClockTests {
  /// Waits (without sleeping in real time) until `count` tasks sleep on `clock`.
  private func sleepers(_ clock: ManualClock, _ count: Int) async {
    while clock.sleeperCount < count { await Task.yield() }
  }

  @Test func advanceResumesSleepersInDeadlineOrder() async throws {
    try await withTimeout {
      let clock = ManualClock()
      let woken = Locked<[Int]>([])
      let tasks = [3, 1, 2].map { seconds in
        Task {
          try await clock.sleep(until: .init(offset: .seconds(seconds)), tolerance: nil)
          woken.withLock { $0.append(seconds) }
        }
      }
      await sleepers(clock, 3)
      for expected in 1...3 {
        #expect(clock.advanceToNextDeadline())
        #expect(clock.elapsed == .seconds(expected))
        while woken.withLock({ $0.count }) < expected { await Task.yield() }
      }
      #expect(woken.withLock { $0 } == [1, 2, 3])
      for task in tasks { try await task.value }
      #expect(!clock.advanceToNextDeadline())
    }
  }

  @Test func cancellationThrowsAndRemovesTheSleeper() async throws {
    try await withTimeout {
      let clock = ManualClock()
      let task = Task { try await clock.sleep(for: .seconds(10)) }
      await sleepers(clock, 1)
      task.cancel()
      await #expect(throws: CancellationError.self) { try await task.value }
      #expect(clock.sleeperCount == 0)
      #expect(clock.elapsed == .zero)
    }
  }

  @Test func autoAdvanceJumpsToTheNextDeadlineWhenQuiet() async throws {
    try await withTimeout {
      let clock = ManualClock()
      clock.startAutoAdvance()
      defer { clock.stopAutoAdvance() }
      try await clock.sleep(for: .seconds(3600))
      #expect(clock.elapsed == .seconds(3600))
    }
  }

  @Test func workTokensHoldTime() async throws {
    try await withTimeout {
      let clock = ManualClock()
      let token = clock.beginWork()
      clock.startAutoAdvance(quietChecks: 2)
      defer { clock.stopAutoAdvance() }
      let sleeper = Task { try await clock.sleep(for: .seconds(5)) }
      await sleepers(clock, 1)
      for _ in 0..<200 { await Task.yield() }
      #expect(clock.elapsed == .zero)
      token.end()
      try await sleeper.value
      #expect(clock.elapsed == .seconds(5))
    }
  }

  /// A horizon hold lets the auto-advance reach sleepers due at or before its horizon (a
  /// peer pacing itself on the clock) and holds it before any later one (a far timer).
  @Test func horizonHoldsLetTimeReachTheHorizonOnly() async throws {
    try await withTimeout {
      let clock = ManualClock()
      let token = clock.beginWork(ClockHold("peer's turn"), upTo: .init(offset: .seconds(1)))
      let far = Task { try await clock.sleep(for: .seconds(60)) }
      await sleepers(clock, 1)
      #expect(clock.autoAdvanceTarget == nil)
      #expect(clock.isHeld)
      #expect(clock.activeHolds == ["peer's turn": 1])
      let near = Task { try await clock.sleep(for: .milliseconds(300)) }
      await sleepers(clock, 2)
      #expect(clock.autoAdvanceTarget == .init(offset: .milliseconds(300)))
      // The driver moves time through the peer's paced sleeps, up to the horizon.
      clock.startAutoAdvance(quietChecks: 2)
      defer { clock.stopAutoAdvance() }
      try await near.value
      for _ in 0..<2 { try await clock.sleep(for: .milliseconds(300)) }
      #expect(clock.elapsed == .milliseconds(900))
      #expect(clock.autoAdvanceTarget == nil)
      token.end()
      #expect(clock.autoAdvanceTarget == .init(offset: .seconds(60)))
      try await far.value
      #expect(clock.elapsed == .seconds(60))
      #expect(clock.activeHolds.isEmpty)
    }
  }

  /// Issue 11: every hold is named; ``ManualClock/activeHolds`` says which are in force.
  @Test func holdsAreNamedAndReleased() {
    let manual = ManualClock()
    let write = manual.beginWork(ClockHold("request write"))
    let again = manual.beginWork(ClockHold("request write"))
    let backlog = Locked(true)
    let probe = manual.addBusyProbe(ClockHold("receive backlog")) { backlog.withLock { $0 } }
    #expect(manual.activeHolds == ["request write": 2, "receive backlog": 1])
    write.end()
    write.end()  // releasing twice is harmless
    #expect(manual.activeHolds == ["request write": 1, "receive backlog": 1])
    again.end()
    manual.removeBusyProbe(probe)
    #expect(manual.activeHolds.isEmpty)
  }
}

/// An executor that runs its jobs only when told to: a thread the machine is slow to give.
private final class GatedExecutor: SerialExecutor {
  private let jobs = Locked<[UnownedJob]>([])

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    jobs.withLock { $0.append(job) }
  }

  /// Runs what is queued now (on the calling thread); how many jobs ran.
  @discardableResult
  func runQueued() -> Int {
    let queued = jobs.withLock { jobs in
      defer { jobs = [] }
      return jobs
    }
    for job in queued { job.runSynchronously(on: asUnownedSerialExecutor()) }
    return queued.count
  }

  var queued: Int { jobs.withLock { $0.count } }
}

/// An actor on a ``GatedExecutor``.
private actor GatedSleeper {
  let executor = GatedExecutor()
  nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
  /// Sleeps in this actor's isolation; the time it ran again at.
  func sleep(until seconds: Int64, on clock: ManualClock) async throws -> Duration {
    try await clock.sleep(until: .init(offset: .seconds(seconds)), isolation: self)
    return clock.elapsed
  }
}

@Suite("ManualClock: a woken sleeper holds the auto-advance until it runs")
struct ManualClockWokenSleeperTests {
  @Test("time does not jump past a sleeper that was woken but has not had a thread yet")
  func wokenSleeperHoldsTheAutoAdvance() async throws {
    let clock = ManualClock()
    let later = Task { try await clock.sleep(until: .init(offset: .seconds(10)), tolerance: nil) }
    let actor = GatedSleeper()
    let sleeping = Task { try await actor.sleep(until: 1, on: clock) }
    // Let the actor's task reach its sleep: its jobs run only when the test runs them.
    var turns = 0
    while clock.sleeperCount < 2, turns < 1_000_000 {
      actor.executor.runQueued()
      await Task.yield()
      turns += 1
    }
    try #require(clock.sleeperCount == 2)
    clock.startAutoAdvance()
    defer { clock.stopAutoAdvance() }
    // The driver moves time to 1 s; the actor's wake-up waits at its gate.
    turns = 0
    while actor.executor.queued == 0, turns < 10_000_000 {
      await Task.yield()
      turns += 1
    }
    try #require(actor.executor.queued > 0, "the sleeper was never woken")
    // However many polls the driver makes now, it must not jump to the 10 s sleeper.
    for _ in 0..<20_000 { await Task.yield() }
    #expect(clock.elapsed == .seconds(1))
    actor.executor.runQueued()
    #expect(try await sleeping.value == .seconds(1))
    try await later.value
    #expect(clock.elapsed == .seconds(10))
  }
}
