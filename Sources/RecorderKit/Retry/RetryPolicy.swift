import RecorderConcurrency

/// How the SDK tries again after a failure that may pass: a cloud request, a connection
/// to a recorder, a hotspot join, a reconnect after a firmware push. One rule for all of
/// them: at most ``maximumAttempts`` tries and, when ``timeout`` is set, no try after it has
/// passed since the first began; between tries a backoff on the caller's injected clock.
///
/// Delay before retry *n* (1-based) = `min(maximumDelay, baseDelay × 2^(n−1))`, scaled by a
/// factor in `[0.5, 1.0)` drawn from ``jitter`` when there is one ("equal jitter"), so
/// clients that failed together do not retry together. With a ``timeout``, no try begins
/// once it has passed: a wait that reaches it ends there, with the last failure.
public struct RetryPolicy: Sendable {
  /// Tries in all, the first included (≥ 1).
  public var maximumAttempts: Int
  /// Time from the start of the first try after which no retry begins (nil: none).
  public var timeout: Duration?
  public var baseDelay: Duration
  public var maximumDelay: Duration
  /// Uniform numbers in `[0, 1)`, or nil for waits without jitter. A seeded source makes
  /// the waits reproducible.
  public var jitter: (@Sendable () -> Double)?

  /// 4 attempts, 0.5 s doubling up to 8 s, system randomness: the cloud client's default.
  public init(
    maximumAttempts: Int = 4, timeout: Duration? = nil, baseDelay: Duration = .milliseconds(500),
    maximumDelay: Duration = .seconds(8),
    jitter: (@Sendable () -> Double)? = { Double.random(in: 0..<1) }
  ) {
    self.maximumAttempts = max(1, maximumAttempts)
    self.timeout = timeout
    self.baseDelay = baseDelay
    self.maximumDelay = maximumDelay
    self.jitter = jitter
  }

  /// Tries for as long as `timeout` allows, waiting `delay` doubling up to `maximumDelay`
  /// between them, without jitter.
  public static func within(
    _ timeout: Duration, delay: Duration, maximumDelay: Duration? = nil
  ) -> RetryPolicy {
    RetryPolicy(
      maximumAttempts: .max, timeout: timeout, baseDelay: delay,
      maximumDelay: maximumDelay ?? delay, jitter: nil)
  }

  /// At most `attempts` tries, one straight after the other.
  public static func attempts(_ attempts: Int) -> RetryPolicy {
    RetryPolicy(maximumAttempts: attempts, baseDelay: .zero, maximumDelay: .zero, jitter: nil)
  }

  /// The wait before retry `retry` (1 = the first retry).
  package func delay(beforeRetry retry: Int) -> Duration {
    var backoff = baseDelay
    for _ in 1..<max(1, retry) where backoff < maximumDelay { backoff = backoff * 2 }
    backoff = min(backoff, maximumDelay)
    guard let jitter else { return backoff }
    let factor = 0.5 + 0.5 * min(max(jitter(), 0), 0.999_999)
    return backoff * factor
  }

  /// A jitter source that repeats for the same seed (SplitMix64).
  package static func seeded(_ seed: UInt64) -> @Sendable () -> Double {
    let random = Locked(SplitMix64(seed: seed))
    return { random.withLock { $0.nextUnit() } }
  }
}

/// One try of ``RetryPolicy/run(on:cancelled:_:)``.
package struct RetryAttempt: Sendable {
  /// 1 for the first try.
  package let number: Int
  /// Time left before the policy's timeout (nil without one).
  package let remaining: Duration?
}

/// What a try came to.
package enum RetryOutcome<Value, Failure: Error> {
  /// Done: ``RetryPolicy/run(on:cancelled:_:)`` returns it.
  case success(Value)
  /// A failure that may pass: tried again after the policy's delay, while attempts and time
  /// are left; else it is thrown.
  case failed(Failure)
}

extension RetryOutcome: Sendable where Value: Sendable, Failure: Sendable {}

extension RetryPolicy {
  /// The SDK's retry loop: runs `attempt` until it succeeds, throws (a failure that will
  /// not pass), or the policy's bounds are spent, when the last failure is thrown. Waits
  /// are on `clock`; a wait cut short by cancellation throws `cancelled`. `attempt` runs in
  /// the caller's isolation.
  package func run<Value, Failure: Error>(
    isolation: isolated (any Actor)? = #isolation, on clock: AnyClock, cancelled: Failure,
    _ attempt: (RetryAttempt) async throws(Failure) -> RetryOutcome<Value, Failure>
  ) async throws(Failure) -> Value {
    let started = clock.elapsed
    var number = 0
    while true {
      number += 1
      let remaining = timeout.map { max(.zero, $0 - (clock.elapsed - started)) }
      let failure: Failure
      switch try await attempt(RetryAttempt(number: number, remaining: remaining)) {
      case .success(let value): return value
      case .failed(let error): failure = error
      }
      guard number < maximumAttempts else { throw failure }
      var pause = delay(beforeRetry: number)
      if let timeout {
        let left = timeout - (clock.elapsed - started)
        guard left > .zero else { throw failure }
        pause = min(pause, left)
      }
      if pause > .zero {
        do { try await clock.sleep(for: pause) } catch { throw cancelled }
      }
      if let timeout, clock.elapsed - started >= timeout { throw failure }
    }
  }
}
