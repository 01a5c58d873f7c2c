import RecorderConcurrency
import RecorderEmulator
import Testing

@testable import RecorderKit

/// The SDK's one retry loop (`RetryPolicy.run`): its bounds, its waits and what it throws.
@Suite("RetryPolicy.run: the one retry loop")
struct RetryPolicyTests {
  struct Failure: Error, Equatable { let attempt: Int }

  /// Runs `policy` on a manual clock that advances whenever the loop waits; returns the
  /// outcome and the start time (virtual, from 0) of every try.
  func run(
    _ policy: RetryPolicy, succeedOn success: Int? = nil, finalOn final: Int? = nil
  ) async -> (result: Result<Int, Failure>, starts: [Duration]) {
    let clock = ManualClock()
    clock.startAutoAdvance()
    defer { clock.stopAutoAdvance() }
    let anyClock = AnyClock(clock)
    var starts: [Duration] = []
    do throws(Failure) {
      let value = try await policy.run(on: anyClock, cancelled: Failure(attempt: -1)) {
        attempt throws(Failure) -> RetryOutcome<Int, Failure> in
        starts.append(anyClock.elapsed)
        if attempt.number == final { throw Failure(attempt: attempt.number) }
        if attempt.number == success { return .success(attempt.number) }
        return .failed(Failure(attempt: attempt.number))
      }
      return (.success(value), starts)
    } catch {
      return (.failure(error), starts)
    }
  }

  @Test("count-bounded: the last failure after maximumAttempts tries, backoff doubling")
  func countBounded() async {
    let policy = RetryPolicy(
      maximumAttempts: 4, baseDelay: .seconds(1), maximumDelay: .seconds(3), jitter: nil)
    let (result, starts) = await run(policy)
    #expect(result == .failure(Failure(attempt: 4)))
    #expect(starts == [.zero, .seconds(1), .seconds(3), .seconds(6)])
  }

  @Test("a success ends it; a thrown failure ends it at once, whatever is left")
  func successAndFinalFailure() async {
    let policy = RetryPolicy.attempts(10)
    let succeeded = await run(policy, succeedOn: 3)
    #expect(succeeded.result == .success(3))
    #expect(succeeded.starts == [.zero, .zero, .zero])
    let final = await run(policy, finalOn: 2)
    #expect(final.result == .failure(Failure(attempt: 2)))
    #expect(final.starts.count == 2)
  }

  @Test("time-bounded: no try begins once the timeout has passed; the last wait is cut there")
  func timeBounded() async {
    let policy = RetryPolicy.within(.seconds(10), delay: .seconds(4))
    let (result, starts) = await run(policy)
    #expect(result == .failure(Failure(attempt: 3)))
    #expect(starts == [.zero, .seconds(4), .seconds(8)])
  }

  @Test("each try is told the time left before the timeout")
  func remainingTime() async {
    let clock = ManualClock()
    clock.startAutoAdvance()
    defer { clock.stopAutoAdvance() }
    var remaining: [Duration?] = []
    let policy = RetryPolicy.within(.seconds(5), delay: .seconds(2))
    _ = try? await policy.run(on: AnyClock(clock), cancelled: Failure(attempt: -1)) {
      attempt throws(Failure) -> RetryOutcome<Void, Failure> in
      remaining.append(attempt.remaining)
      return .failed(Failure(attempt: attempt.number))
    }
    #expect(remaining == [.seconds(5), .seconds(3), .seconds(1)])
  }

  @Test("jitter scales each wait into [0.5, 1) of the backoff, reproducibly for a seed")
  func jitter() {
    let policy = RetryPolicy(
      baseDelay: .seconds(2), maximumDelay: .seconds(8), jitter: RetryPolicy.seeded(11))
    let again = RetryPolicy(
      baseDelay: .seconds(2), maximumDelay: .seconds(8), jitter: RetryPolicy.seeded(11))
    for retry in 1...5 {
      let backoff = min(Duration.seconds(8), .seconds(2) * (1 << (retry - 1)))
      let delay = policy.delay(beforeRetry: retry)
      #expect(delay >= backoff / 2 && delay < backoff, "retry \(retry)")
      #expect(delay == again.delay(beforeRetry: retry))
    }
  }

  @Test("a wait cut short by cancellation throws the caller's cancellation")
  func cancelledWait() async {
    let clock = ManualClock()  // never advances: the wait only ends by cancellation
    let started = AsyncStream<Void>.makeStream()
    let task = Task { () -> Failure? in
      do throws(Failure) {
        _ = try await RetryPolicy.within(.seconds(60), delay: .seconds(30)).run(
          on: AnyClock(clock), cancelled: Failure(attempt: -1)
        ) { attempt throws(Failure) -> RetryOutcome<Void, Failure> in
          started.continuation.yield()
          return .failed(Failure(attempt: attempt.number))
        }
        return nil
      } catch {
        return error
      }
    }
    for await _ in started.stream { break }
    task.cancel()
    #expect(await task.value == Failure(attempt: -1))
  }
}
