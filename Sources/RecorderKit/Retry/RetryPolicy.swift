import RecorderConcurrency

/// How the cloud client retries a request that failed for a reason that may pass (5xx, a
/// timeout, a dropped connection): at most ``maximumAttempts`` tries, waiting an exponential
/// backoff with jitter between them on the client's injected clock.
///
/// Delay before retry *n* (1-based) = `min(maximumDelay, baseDelay × 2^(n−1))`, scaled by a
/// factor in `[0.5, 1.0)` drawn from ``jitter`` ("equal jitter"), so clients that failed
/// together do not retry together.
public struct RetryPolicy: Sendable {
  /// Tries in all, the first included (≥ 1).
  public var maximumAttempts: Int
  public var baseDelay: Duration
  public var maximumDelay: Duration
  /// Uniform numbers in `[0, 1)`; ``seeded(_:)`` makes a reproducible sequence for tests.
  public var jitter: @Sendable () -> Double

  /// 4 attempts, 0.5 s doubling up to 8 s, system randomness.
  public init(
    maximumAttempts: Int = 4, baseDelay: Duration = .milliseconds(500),
    maximumDelay: Duration = .seconds(8),
    jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
  ) {
    self.maximumAttempts = max(1, maximumAttempts)
    self.baseDelay = baseDelay
    self.maximumDelay = maximumDelay
    self.jitter = jitter
  }

  /// The wait before retry `retry` (1 = the first retry).
  public func delay(beforeRetry retry: Int) -> Duration {
    var backoff = baseDelay
    for _ in 1..<max(1, retry) where backoff < maximumDelay { backoff = backoff * 2 }
    backoff = min(backoff, maximumDelay)
    let factor = 0.5 + 0.5 * min(max(jitter(), 0), 0.999_999)
    return backoff * factor
  }

  /// A jitter source that repeats for the same seed (SplitMix64).
  public static func seeded(_ seed: UInt64) -> @Sendable () -> Double {
    let random = Locked(SplitMix64(seed: seed))
    return { random.withLock { $0.nextUnit() } }
  }
}
