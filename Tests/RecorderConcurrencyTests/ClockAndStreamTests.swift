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
}
