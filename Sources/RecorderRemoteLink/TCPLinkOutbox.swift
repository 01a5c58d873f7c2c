import RecorderConcurrency
import RecorderSockets

/// The sending half of one TCP link connection: messages are appended from any task in the
/// order ``send(_:)`` is called and written by one writer task (``run(writingTo:)``), which
/// takes everything queued while its previous write was in flight as one batch, so a burst of
/// small messages costs one system call, not one each.
///
/// All state is in one `Locked`; continuations are resumed outside the lock.
final class TCPLinkOutbox: Sendable {
  private struct State {
    var pending: [UInt8] = []
    var writer: CheckedContinuation<[UInt8]?, Never>?
    var roomWaiters: [(limit: Int, continuation: CheckedContinuation<Void, Never>)] = []
    /// No more messages are accepted; the writer ends once `pending` is written.
    var finishing = false
    /// The socket failed or was closed: pending bytes are dropped.
    var closed = false
  }
  private let state = Locked(State())

  /// Queues `message`; false once the outbox is finishing or closed.
  @discardableResult
  func send(_ message: TCPLinkMessage) -> Bool {
    let bytes = message.encoded()
    let writer = state.withLock { state -> (CheckedContinuation<[UInt8]?, Never>?, Bool) in
      guard !state.finishing, !state.closed else { return (nil, false) }
      if let writer = state.writer {
        state.writer = nil
        return (writer, true)
      }
      state.pending += bytes
      return (nil, true)
    }
    writer.0?.resume(returning: bytes)
    return writer.1
  }

  /// Bytes queued and not yet handed to the socket.
  var pendingCount: Int { state.withLock { $0.pending.count } }

  /// Returns once fewer than `limit` bytes are queued (or the outbox is closed): producers of
  /// unsolicited messages (events, advertisements) call it so that a client that stops reading
  /// holds them back instead of growing this buffer without bound.
  func waitForRoom(below limit: Int) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let ready = state.withLock { state -> Bool in
        if state.closed || state.pending.count < limit { return true }
        state.roomWaiters.append((limit, continuation))
        return false
      }
      if ready { continuation.resume() }
    }
  }

  /// Accepts no more messages; the writer ends after writing what is queued.
  func finish() {
    let writer = state.withLock { state -> CheckedContinuation<[UInt8]?, Never>? in
      state.finishing = true
      defer { state.writer = nil }
      return state.writer
    }
    writer?.resume(returning: nil)
  }

  /// Drops what is queued and ends the writer at once.
  func close() {
    let (writer, waiters) = state.withLock { state in
      state.closed = true
      state.pending = []
      let writer = state.writer
      state.writer = nil
      let waiters = state.roomWaiters.map(\.continuation)
      state.roomWaiters = []
      return (writer, waiters)
    }
    writer?.resume(returning: nil)
    for waiter in waiters { waiter.resume() }
  }

  private func nextBatch() async -> [UInt8]? {
    await withCheckedContinuation { (continuation: CheckedContinuation<[UInt8]?, Never>) in
      let (batch, waiters, done) = state.withLock {
        state -> ([UInt8]?, [CheckedContinuation<Void, Never>], Bool) in
        if state.closed { return (nil, [], true) }
        if !state.pending.isEmpty {
          let batch = state.pending
          state.pending = []
          let waiters = state.roomWaiters.map(\.continuation)
          state.roomWaiters = []
          return (batch, waiters, false)
        }
        if state.finishing { return (nil, [], true) }
        state.writer = continuation
        let waiters = state.roomWaiters.map(\.continuation)
        state.roomWaiters = []
        return (nil, waiters, false)
      }
      for waiter in waiters { waiter.resume() }
      if let batch {
        continuation.resume(returning: batch)
      } else if done {
        continuation.resume(returning: nil)
      }
    }
  }

  /// The writer loop: writes batches until ``finish()`` (after the last batch) or ``close()``,
  /// or until the socket fails, which it reports by returning the error.
  func run(writingTo connection: SocketConnection) async -> SocketError? {
    while let batch = await nextBatch() {
      do {
        try await connection.write(batch)
      } catch {
        close()
        return error
      }
    }
    return nil
  }
}
