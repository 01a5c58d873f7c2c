/// A single-consumer async sequence whose producer can see how far behind the consumer is.
///
/// `yield` never blocks (a radio does not wait for the app), but a producer that models a
/// link in virtual time calls ``Continuation/waitForRoom(below:)`` before moving time on, so a
/// slow consumer holds the simulated radio back instead of the clock running ahead of it.
public struct BackpressureStream<Element: Sendable>: AsyncSequence, Sendable {
  private let storage: Storage

  /// A new stream and the continuation that feeds it.
  public static func makeStream() -> (stream: BackpressureStream, continuation: Continuation) {
    let storage = Storage()
    return (BackpressureStream(storage: storage), Continuation(storage: storage))
  }

  private init(storage: Storage) { self.storage = storage }

  public func makeAsyncIterator() -> Iterator { Iterator(storage: storage) }

  /// Elements buffered and not yet consumed (the consumer's view of its backlog).
  public var buffered: Int { storage.bufferedCount }

  /// Elements the consumer has not finished with: those ``buffered``, plus the one it last
  /// received until it asks for the next (or the stream has finished). An element handed
  /// to a waiting consumer counts from the hand-over, before the consumer's task runs again.
  public var unconsumed: Int { storage.unconsumedCount }

  public struct Iterator: AsyncIteratorProtocol {
    fileprivate let storage: Storage
    public mutating func next() async -> Element? { await storage.next() }
  }

  /// The producer's end.
  public struct Continuation: Sendable {
    fileprivate let storage: Storage

    /// Appends `element`; ignored after ``finish()``.
    public func yield(_ element: Element) { storage.yield(element) }

    /// Ends the stream once buffered elements are consumed.
    public func finish() { storage.finish() }

    /// Elements buffered and not yet consumed.
    public var buffered: Int { storage.bufferedCount }

    /// Elements the consumer has not finished with (``BackpressureStream/unconsumed``).
    public var unconsumed: Int { storage.unconsumedCount }

    /// Returns when fewer than `limit` elements are buffered (or the stream has finished, or
    /// the consumer went away).
    public func waitForRoom(below limit: Int) async { await storage.waitForRoom(below: limit) }
  }

  fileprivate final class Storage: Sendable {
    private struct State {
      var buffer: [Element] = []
      var head = 0
      var finished = false
      var consumer: CheckedContinuation<Element?, Never>?
      /// The consumer's task was cancelled before it parked in `consumer`.
      var consumerCancelled = false
      var roomWaiters: [(limit: Int, continuation: CheckedContinuation<Void, Never>)] = []
      /// The consumer received an element and has not asked for the next one yet.
      var inHand = false
      var count: Int { buffer.count - head }
    }
    private let state = Locked(State())

    var bufferedCount: Int { state.withLock { $0.count } }

    var unconsumedCount: Int {
      state.withLock { $0.count + ($0.inHand && !$0.finished ? 1 : 0) }
    }

    func yield(_ element: Element) {
      let consumer = state.withLock { state -> CheckedContinuation<Element?, Never>? in
        guard !state.finished else { return nil }
        if let consumer = state.consumer {
          state.consumer = nil
          state.inHand = true
          return consumer
        }
        state.buffer.append(element)
        return nil
      }
      consumer?.resume(returning: element)
    }

    func finish() {
      let (consumer, waiters) = state.withLock { state in
        state.finished = true
        let consumer = state.count == 0 ? state.consumer : nil
        if consumer != nil { state.consumer = nil }
        let waiters = state.roomWaiters.map(\.continuation)
        state.roomWaiters = []
        return (consumer, waiters)
      }
      consumer?.resume(returning: nil)
      for waiter in waiters { waiter.resume() }
    }

    /// The next element; nil once finished and drained, or when the consuming task is
    /// cancelled while it waits (like `AsyncStream`), so a cancelled consumer never hangs.
    func next() async -> Element? {
      await withTaskCancellationHandler {
        await waitForNext()
      } onCancel: {
        let consumer = state.withLock { state -> CheckedContinuation<Element?, Never>? in
          guard let consumer = state.consumer else {
            state.consumerCancelled = true
            return nil
          }
          state.consumer = nil
          return consumer
        }
        consumer?.resume(returning: nil)
      }
    }

    private func waitForNext() async -> Element? {
      await withCheckedContinuation { (continuation: CheckedContinuation<Element?, Never>) in
        let (result, ready) = state.withLock {
          state -> (Element??, [CheckedContinuation<Void, Never>]) in
          // The consumer is back: it has finished with what it received before.
          state.inHand = false
          if state.count > 0 {
            state.inHand = true
            let element = state.buffer[state.head]
            state.head += 1
            if state.head > 256, state.head * 2 > state.buffer.count {
              state.buffer.removeFirst(state.head)
              state.head = 0
            }
            let count = state.count
            let ready = state.roomWaiters.filter { count < $0.limit }.map(\.continuation)
            state.roomWaiters.removeAll { count < $0.limit }
            return (.some(element), ready)
          }
          if state.finished { return (.some(nil), []) }
          if state.consumerCancelled {
            state.consumerCancelled = false
            return (.some(nil), [])
          }
          state.consumer = continuation
          let ready = state.roomWaiters.map(\.continuation)
          state.roomWaiters = []
          return (nil, ready)
        }
        for waiter in ready { waiter.resume() }
        if let result { continuation.resume(returning: result) }
      }
    }

    func waitForRoom(below limit: Int) async {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let ready = state.withLock { state -> Bool in
          if state.finished || state.count < limit { return true }
          state.roomWaiters.append((limit, continuation))
          return false
        }
        if ready { continuation.resume() }
      }
    }
  }
}
