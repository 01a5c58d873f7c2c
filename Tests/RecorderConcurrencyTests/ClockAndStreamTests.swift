import TestSupport
import Testing

@testable import RecorderConcurrency

@Suite("BackpressureStream")
struct BackpressureStreamTests {
  @Test func deliversInOrderThenFinishes() async {
    let (stream, continuation) = BackpressureStream<Int>.makeStream()
    for value in 0..<1000 { continuation.yield(value) }
    continuation.finish()
    continuation.yield(1000)  // ignored after finish
    var seen: [Int] = []
    for await value in stream { seen.append(value) }
    #expect(seen == Array(0..<1000))
  }

  @Test func waitForRoomReturnsWhenTheConsumerCatchesUp() async throws {
    try await withTimeout {
      let (stream, continuation) = BackpressureStream<Int>.makeStream()
      for value in 0..<10 { continuation.yield(value) }
      #expect(continuation.buffered == 10)
      let waiter = Task { await continuation.waitForRoom(below: 3) }
      var iterator = stream.makeAsyncIterator()
      for expected in 0..<8 { #expect(await iterator.next() == expected) }
      await waiter.value
      #expect(continuation.buffered == 2)
    }
  }

  @Test func cancellingAWaitingConsumerEndsItsIteration() async throws {
    try await withTimeout {
      let (stream, _) = BackpressureStream<Int>.makeStream()
      let consumer = Task {
        var count = 0
        for await _ in stream { count += 1 }
        return count
      }
      consumer.cancel()
      #expect(await consumer.value == 0)
    }
  }
}

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

  /// Issue 11: every hold is named; ``ManualClock/activeHolds`` says which are in force.
  @Test func holdsAreNamedAndReleased() {
    let manual = ManualClock()
    let clock = AnyClock(manual)
    let write = clock.holdTime(.requestWrite)
    let again = clock.holdTime(.requestWrite)
    let backlog = Locked(true)
    let probe = clock.holdTime(.receiveBacklog, while: { backlog.withLock { $0 } })
    #expect(manual.activeHolds == ["request write": 2, "receive backlog": 1])
    write()
    write()  // releasing twice is harmless
    #expect(manual.activeHolds == ["request write": 1, "receive backlog": 1])
    again()
    probe()
    #expect(manual.activeHolds.isEmpty)
    // Real clocks ignore holds.
    let real = AnyClock.continuous.holdTime(.storageWork)
    real()
  }
}
