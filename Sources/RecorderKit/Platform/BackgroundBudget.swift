import RecorderConcurrency

/// The limited time the OS grants an app in the background, abstracted so it can be tested
/// on a virtual clock (shared/seeds/003: iOS gives a few tens of seconds, then calls the
/// expiration handler; nothing extends it honestly).
///
/// ``run(granted:expiredSince:_:)`` runs the work as a child task and cancels it when the grant runs out
/// on the injected clock, or at once when the platform says so with ``expire()`` (the
/// expiration handler). Cancellation is how a sync stops: ``SyncEngine`` flushes and
/// journals the bytes it has (its checkpoint) on the way out, so the next grant resumes
/// where this one stopped. No keep-alive tricks: resumability is the answer.
///
/// Thread-safe: the running work's task handle sits in one `Locked`.
public final class BackgroundBudget: Sendable {
  /// How one run ended.
  public struct Run<Value: Sendable>: Sendable {
    /// The work's own result (for an expired run, usually a cancellation error).
    public var result: Result<Value, any Error>
    /// When the grant ran out (clock time), or nil if the work finished first.
    public var expiredAt: Duration?
    /// When the work had returned (clock time).
    public var endedAt: Duration

    /// How long the work took to stop after the expiry; nil if it never expired.
    public var stopLatency: Duration? { expiredAt.map { endedAt - $0 } }
  }

  private let clock: AnyClock
  private let running = Locked<[Int: @Sendable (Duration) -> Void]>([:])
  private let nextID = Locked(0)
  private let expiries = Locked(0)

  /// - Parameter clock: the clock the grant runs on (virtual in tests).
  public init(clock: AnyClock) { self.clock = clock }

  /// How many times ``expire()`` has been called. A caller that asks the platform for time
  /// notes it first and passes it to ``run(granted:expiredSince:_:)``, so an expiry that
  /// comes before the work is running still stops it.
  public var expiryCount: Int { expiries.withLock { $0 } }

  /// Runs `work` with `granted` time (nil: until ``expire()``); cancels it when the time is
  /// up and waits for it to return.
  /// - Parameters:
  ///   - granted: the time granted (nil: until ``expire()``).
  ///   - expiredSince: an ``expiryCount`` read earlier: if ``expire()`` was called since, the
  ///     work is cancelled as soon as it starts.
  ///   - work: what to run; cancellation is how it learns the time is up.
  public func run<Value: Sendable>(
    granted: Duration?, expiredSince: Int? = nil,
    _ work: @escaping @Sendable () async throws -> Value
  ) async -> Run<Value> {
    let id = nextID.withLock { next in
      next += 1
      return next
    }
    let expiry = Locked<Duration?>(nil)
    let clock = self.clock
    // The end is stamped by the work's own task the moment it returns: read later, from the
    // caller, a simulated clock could have moved on while the caller waited its turn.
    let ended = Locked<Duration?>(nil)
    let task = Task {
      defer { ended.withLock { $0 = clock.elapsed } }
      return try await work()
    }
    let cancel: @Sendable (Duration) -> Void = { now in
      let first = expiry.withLock { expiredAt in
        guard expiredAt == nil else { return false }
        expiredAt = now
        return true
      }
      if first { task.cancel() }
    }
    running.withLock { $0[id] = cancel }
    // An expiry between the caller's count and this registration found nothing to cancel.
    if let expiredSince, expiryCount != expiredSince { cancel(clock.elapsed) }
    let timer = Task {
      guard let granted else { return }
      // The grant ends at this instant, whenever this task next gets to run.
      let deadline = clock.elapsed + granted
      do { try await clock.sleep(for: granted) } catch { return }
      cancel(deadline)
    }
    let result = await task.result
    timer.cancel()
    running.withLock { $0[id] = nil }
    return Run(
      result: result, expiredAt: expiry.withLock { $0 },
      endedAt: ended.withLock { $0 } ?? clock.elapsed)
  }

  /// The platform ended background time early: every running work is cancelled now.
  public func expire() {
    expiries.withLock { $0 += 1 }
    let now = clock.elapsed
    for cancel in running.withLock({ Array($0.values) }) { cancel(now) }
  }
}
