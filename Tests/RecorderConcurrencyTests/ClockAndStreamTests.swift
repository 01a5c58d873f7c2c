import TestSupport
import Testing

@testable import RecorderConcurrency

@Suite("BackpressureStream")
struct BackpressureStreamTests {
  @Test func deliversInOrderThenFinishes() async {
    let (stream, continuation) = BackpressureStream<Int>.makeStream()
    for value in 0..<1000 { continuation.yield(value) }
    continuation.finish()
    continuation.yield(1000)  // ignored after finish
    var seen: [Int] = []
    for await value in stream { seen.append(value) }
    #expect(seen == Array(0..<1000))
  }

  @Test func waitForRoomReturnsWhenTheConsumerCatchesUp() async throws {
    try await withTimeout {
      let (stream, continuation) = BackpressureStream<Int>.makeStream()
      for value in 0..<10 { continuation.yield(value) }
      #expect(continuation.buffered == 10)
      let waiter = Task { await continuation.waitForRoom(below: 3) }
      var iterator = stream.makeAsyncIterator()
      for expected in 0..<8 { #expect(await iterator.next() == expected) }
      await waiter.value
      #expect(continuation.buffered == 2)
    }
  }

  @Test func cancellingAWaitingConsumerEndsItsIteration() async throws {
    try await withTimeout {
      let (stream, _) = BackpressureStream<Int>.makeStream()
      let consumer = Task {
        var count = 0
        for await _ in stream { count += 1 }
        return count
      }
      consumer.cancel()
      #expect(await consumer.value == 0)
    }
  }

  @Test("an element is unconsumed from its yield until the consumer asks for the next one")
  func unconsumedCountsTheElementInHand() async throws {
    try await withTimeout {
      let (stream, continuation) = BackpressureStream<Int>.makeStream()
      var iterator = stream.makeAsyncIterator()
      continuation.yield(1)
      #expect(continuation.unconsumed == 1)
      #expect(await iterator.next() == 1)
      #expect(continuation.buffered == 0)
      #expect(continuation.unconsumed == 1, "in hand until the consumer comes back")
      // A consumer that waits: the hand-over counts before its task runs again.
      let consumer = Task {
        var iterator = stream.makeAsyncIterator()
        return await iterator.next()
      }
      while continuation.unconsumed > 0 { await Task.yield() }
      continuation.yield(2)
      #expect(continuation.unconsumed == 1)
      #expect(await consumer.value == 2)
      #expect(continuation.unconsumed == 1)
      continuation.finish()
      #expect(continuation.unconsumed == 0, "a finished stream has nothing in hand")
    }
  }
}
