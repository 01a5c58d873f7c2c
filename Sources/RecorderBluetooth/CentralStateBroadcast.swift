import RecorderConcurrency

/// The state of a radio and everyone listening to it: what a ``Central`` implementation keeps
/// to serve ``Central/state`` and ``Central/stateUpdates()``.
///
/// Thread-safe: the state and the listeners live in one `Locked` value, so the platform's
/// callback thread may ``update(_:)`` while any task subscribes.
public final class CentralStateBroadcast: Sendable {
  private struct Listeners {
    var state: CentralState
    var next = 0
    var continuations: [Int: AsyncStream<CentralState>.Continuation] = [:]
  }

  private let listeners: Locked<Listeners>

  /// Starts in `initial` (``CentralState/unknown`` for a radio that has not reported yet).
  public init(_ initial: CentralState) { listeners = Locked(Listeners(state: initial)) }

  /// The state now.
  public var current: CentralState { listeners.withLock { $0.state } }

  /// The state now, then every change, until the consumer stops.
  public func updates() -> AsyncStream<CentralState> {
    let (stream, continuation) = AsyncStream<CentralState>.makeStream(
      bufferingPolicy: .bufferingNewest(8))
    let id = listeners.withLock { listeners -> Int in
      let id = listeners.next
      listeners.next += 1
      listeners.continuations[id] = continuation
      continuation.yield(listeners.state)
      return id
    }
    continuation.onTermination = { [listeners] _ in
      listeners.withLock { _ = $0.continuations.removeValue(forKey: id) }
    }
    return stream
  }

  /// Records `state` and tells every listener when it changed.
  public func update(_ state: CentralState) {
    listeners.withLock { listeners in
      guard listeners.state != state else { return }
      listeners.state = state
      for continuation in listeners.continuations.values { continuation.yield(state) }
    }
  }
}
