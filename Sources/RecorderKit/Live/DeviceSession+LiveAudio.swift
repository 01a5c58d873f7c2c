import RecorderConcurrency
import RecorderProtocol

extension DeviceSession {
  /// Streams a recording as the device sends it: SYNC_START of `sessionId` from `start`, and,
  /// while the device is recording it, following it as it grows until it stops
  /// (docs/live-audio.md).
  ///
  /// With `end` 0 the stream runs to the recording's end: for the recording in progress
  /// that is the moment it stops (REC_STOP from this phone or the device's button) and its
  /// last byte arrived; for a finished one, its last byte. A non-zero `end` stops at that
  /// byte. Whether the device keeps one SYNC open while it records or ends each with its
  /// tail does not matter: after every tail (or a quiet spell, or a gap) the stream asks
  /// GET_STATE whether the recording is still going and re-issues from the next byte it
  /// lacks, waiting ``LiveAudioOptions/pollInterval`` when nothing new came; once GET_STATE
  /// says the recording is over, one last SYNC_START fetches what is left.
  ///
  /// While the stream holds the link, a command another task sends (REC_STOP, GET_STATE)
  /// waits until the stream's next frame, which stops the SYNC with SYNC_STOP, lets the
  /// command through and re-issues after it (``LiveAudioOptions/yieldsToCommands``).
  ///
  /// Every byte is delivered once, in order, as ``LiveAudioEvent/data(offset:bytes:)``;
  /// every whole device frame from the first frame boundary at or after `start` is decoded
  /// with `DeviceOpusDecoder` (RecorderAudio) into 16 kHz mono ``LiveAudioEvent/pcm(_:)``, or reported
  /// ``LiveAudioEvent/undecodable(offset:reason:)``. Failures end the stream with a
  /// ``LiveAudioError``.
  public nonisolated func liveAudio(
    sessionId: SessionID, start: UInt32 = 0, end: UInt32 = 0,
    options: LiveAudioOptions = LiveAudioOptions()
  ) -> LiveAudioStream {
    let (events, continuation) = BackpressureStream<Result<LiveAudioEvent, LiveAudioError>>
      .makeStream()
    let follower = LiveAudioFollower(
      session: self, sessionId: sessionId, start: start, end: end, options: options,
      out: continuation)
    let task = Task { await follower.run() }
    return LiveAudioStream(events: events, task: task)
  }

  /// Commands waiting for the link behind the request in flight (a live stream gives way
  /// to them).
  var commandsWaiting: Int { get async { await channel.queuedRequests } }
}

extension RecorderConnection {
  /// ``DeviceSession/liveAudio(sessionId:start:end:options:)`` on this connection's session.
  public func liveAudio(
    sessionId: SessionID, start: UInt32 = 0, end: UInt32 = 0,
    options: LiveAudioOptions = LiveAudioOptions()
  ) -> LiveAudioStream {
    session.liveAudio(sessionId: sessionId, start: start, end: end, options: options)
  }
}
