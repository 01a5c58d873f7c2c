import RecorderConcurrency

/// Thrown by ``withTimeout(_:_:)`` when the guard fires.
public struct TimedOut: Error, CustomStringConvertible {
  public var seconds: Double
  public var description: String { "test did not finish within \(seconds) s" }
}

/// Runs `body`, failing with ``TimedOut`` after `seconds` (a failure guard, never a pacing
/// sleep). A body that ignores cancellation is left behind rather than hanging the suite.
public func withTimeout<T: Sendable>(
  _ seconds: Double = 120, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
  let result = await withCheckedContinuation {
    (continuation: CheckedContinuation<Result<T, any Error>, Never>) in
    let once = Locked(false)
    let finish: @Sendable (Result<T, any Error>) -> Void = { result in
      let first = once.withLock { done -> Bool in
        defer { done = true }
        return !done
      }
      if first { continuation.resume(returning: result) }
    }
    let work = Task {
      do { finish(.success(try await body())) } catch { finish(.failure(error)) }
    }
    Task {
      try? await Task.sleep(for: .seconds(seconds))
      finish(.failure(TimedOut(seconds: seconds)))
      work.cancel()
    }
  }
  return try result.get()
}
