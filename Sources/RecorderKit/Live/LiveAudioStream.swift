import RecorderConcurrency

/// A live audio stream of one recording: the device's bytes and their PCM as they arrive
/// (``LiveAudioEvent``), ending when the recording has stopped and every byte of it (from
/// `start`, up to `end`) was delivered. Made by ``DeviceSession/liveAudio(sessionId:start:end:options:)``.
///
/// Single consumer. Iterating it throws ``LiveAudioError``; ``stop()`` (or cancelling the
/// consuming task) ends it cleanly: the device gets SYNC_STOP and iteration returns nil.
/// Memory is bounded: a consumer more than ``LiveAudioOptions/bufferLimit`` events behind
/// gets ``LiveAudioError/consumerTooSlow(bufferLimit:)``.
public struct LiveAudioStream: AsyncSequence, Sendable {
  public typealias Element = LiveAudioEvent
  public typealias Failure = LiveAudioError

  let events: BackpressureStream<Result<LiveAudioEvent, LiveAudioError>>
  let task: Task<Void, Never>

  public func makeAsyncIterator() -> Iterator { Iterator(base: events.makeAsyncIterator()) }

  /// Stops the stream: SYNC_STOP goes to the device at once; the consumer sees the events
  /// already buffered, then the end. Returns at once (see ``stopAndWait()``).
  public func stop() { task.cancel() }

  /// ``stop()``, returning once the device's stream is stopped and the link is free.
  public func stopAndWait() async {
    task.cancel()
    await task.value
  }

  /// Returns once the stream has ended, whichever way.
  public func waitUntilEnded() async { await task.value }

  public struct Iterator: AsyncIteratorProtocol {
    public typealias Element = LiveAudioEvent
    public typealias Failure = LiveAudioError

    var base: BackpressureStream<Result<LiveAudioEvent, LiveAudioError>>.Iterator

    /// The next event; nil once the stream ended (the recording stopped and was delivered,
    /// or ``LiveAudioStream/stop()``), or when the consuming task is cancelled.
    public mutating func next() async throws(LiveAudioError) -> LiveAudioEvent? {
      guard let result = await base.next() else { return nil }
      return try result.get()
    }
  }
}
