#if os(Linux)
  import RecorderConcurrency

  /// What a join waits for: a NetworkManager signal, or the bus going away.
  enum NetworkManagerEvent: Sendable {
    case signal(BusSignal)
    case busClosed
  }

  /// The signals of one join, queued from the bus thread until the join reads them, so that
  /// nothing sent between a call and the wait after it is lost.
  ///
  /// One reader at a time (the join's task); ``next(within:on:)`` waits for the next event or
  /// `timeout` of the injected clock, whichever comes first.
  final class NetworkManagerSignalInbox: Sendable {
    private struct State {
      var queue: [NetworkManagerEvent] = []
      var waiter: CheckedContinuation<NetworkManagerEvent?, Never>?
      var timer: Task<Void, Never>?
      /// Which wait a timer belongs to: a late timer never ends a later wait.
      var generation = 0
    }

    private let state = Locked(State())

    /// Queues `event` (bus thread), or hands it to the waiting reader.
    func deliver(_ event: NetworkManagerEvent) {
      let handoff = state.withLock {
        state -> (CheckedContinuation<NetworkManagerEvent?, Never>, Task<Void, Never>?)? in
        guard let waiter = state.waiter else {
          state.queue.append(event)
          return nil
        }
        state.waiter = nil
        defer { state.timer = nil }
        return (waiter, state.timer)
      }
      guard let (waiter, timer) = handoff else { return }
      timer?.cancel()
      waiter.resume(returning: event)
    }

    /// The next event, or nil when `timeout` of `clock` passes first or the task is cancelled.
    func next(within timeout: Duration, on clock: AnyClock) async -> NetworkManagerEvent? {
      if let queued = state.withLock({ $0.queue.isEmpty ? nil : $0.queue.removeFirst() }) {
        return queued
      }
      guard timeout > .zero, !Task.isCancelled else { return nil }
      return await withTaskCancellationHandler {
        await withCheckedContinuation {
          (continuation: CheckedContinuation<NetworkManagerEvent?, Never>) in
          let generation = state.withLock { state -> Int? in
            if !state.queue.isEmpty { return nil }
            state.generation += 1
            state.waiter = continuation
            return state.generation
          }
          guard let generation else {
            let queued = state.withLock { $0.queue.removeFirst() }
            continuation.resume(returning: queued)
            return
          }
          let timer = Task { [self] in
            try? await clock.sleep(for: timeout)
            expire(generation)
          }
          let kept = state.withLock { state -> Bool in
            guard state.generation == generation, state.waiter != nil else { return false }
            state.timer = timer
            return true
          }
          if !kept { timer.cancel() }
        }
      } onCancel: {
        expire(nil)
      }
    }

    /// Ends the wait of `generation` (any wait when nil) with no event.
    private func expire(_ generation: Int?) {
      let waiter = state.withLock { state -> CheckedContinuation<NetworkManagerEvent?, Never>? in
        guard let waiter = state.waiter, generation == nil || generation == state.generation
        else { return nil }
        state.waiter = nil
        state.timer?.cancel()
        state.timer = nil
        return waiter
      }
      waiter?.resume(returning: nil)
    }
  }
#endif
