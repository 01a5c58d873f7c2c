/// A type-erased Swift `Clock` measured in `Duration`, so actors can take an injected clock
/// without becoming generic: production passes `ContinuousClock`; a simulation passes its own
/// clock, built with ``init(sleep:elapsed:)``.
public struct AnyClock: Sendable {
  private let sleepBody: @Sendable (Duration) async throws -> Void
  private let elapsedBody: @Sendable () -> Duration

  /// Wraps `clock`; ``elapsed`` counts from this moment.
  public init<C: Clock>(_ clock: C) where C.Duration == Duration {
    let origin = clock.now
    sleepBody = { duration in
      try await clock.sleep(until: clock.now.advanced(by: duration), tolerance: nil)
    }
    elapsedBody = { origin.duration(to: clock.now) }
  }

  /// The real, continuous clock.
  public static var continuous: AnyClock { AnyClock(ContinuousClock()) }

  /// A continuous clock running `scale` times faster than real time (`recorder emulate
  /// --time-scale`): sleeps are divided by `scale`, elapsed time multiplied.
  public static func scaled(_ scale: Double) -> AnyClock {
    precondition(scale > 0, "time scale must be positive")
    let clock = ContinuousClock()
    let origin = clock.now
    return AnyClock(
      sleep: { duration in try await clock.sleep(for: duration / scale) },
      elapsed: { origin.duration(to: clock.now) * scale })
  }

  /// A clock from its operations: how to sleep for a duration, and the time elapsed since its
  /// origin.
  public init(
    sleep: @escaping @Sendable (Duration) async throws -> Void,
    elapsed: @escaping @Sendable () -> Duration
  ) {
    sleepBody = sleep
    elapsedBody = elapsed
  }

  /// Suspends for `duration` of this clock's time; throws `CancellationError` if cancelled.
  public func sleep(for duration: Duration) async throws {
    try await sleepBody(duration)
  }

  /// Time since this clock was wrapped.
  public var elapsed: Duration { elapsedBody() }
}

extension Duration {
  /// The duration in seconds as a `Double`.
  public var seconds: Double {
    let parts = components
    return Double(parts.seconds) + Double(parts.attoseconds) * 1e-18
  }
}

/// The first element of `stream` that `accept` takes, or nil when the stream ends first,
/// `timeout` of `clock` time passes, or the calling task is cancelled. Stops listening
/// either way.
public func firstElement<Element: Sendable>(
  of stream: AsyncStream<Element>, within timeout: Duration, on clock: AnyClock,
  where accept: @escaping @Sendable (Element) -> Bool = { _ in true }
) async -> Element? {
  await withTaskGroup(of: Element?.self) { group in
    group.addTask {
      for await element in stream where accept(element) { return element }
      return nil
    }
    group.addTask {
      try? await clock.sleep(for: timeout)
      return nil
    }
    let first = await group.next() ?? nil
    group.cancelAll()
    return first
  }
}
