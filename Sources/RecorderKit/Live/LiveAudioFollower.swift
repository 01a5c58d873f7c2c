import RecorderConcurrency
import RecorderProtocol

/// The task behind a ``LiveAudioStream``: issues SYNC_STARTs of one recording from the next
/// byte it lacks until the recording has stopped and every byte arrived (the loop described
/// on ``DeviceSession/liveAudio(sessionId:start:end:options:)``).
struct LiveAudioFollower: Sendable {
  let session: DeviceSession
  let sessionId: SessionID
  let start: UInt32
  let end: UInt32
  let options: LiveAudioOptions
  let out: BackpressureStream<Result<LiveAudioEvent, LiveAudioError>>.Continuation

  /// How one SYNC_START ended.
  private enum RoundEnd: Sendable, Equatable {
    /// The device's tail.
    case tail
    /// Nothing arrived for the silence timeout (SYNC_STOP answered).
    case quiet
    /// A frame past the next byte: stopped, to be re-issued.
    case gap
    /// A command waits for the link: stopped, to be re-issued after it.
    case yielded
    /// The head's status was not 0.
    case refused(UInt8)
    /// The consumer is too far behind.
    case overflow
    /// The stream was stopped (its task cancelled).
    case cancelled
    /// The recording's first bytes are an E2EE header.
    case encrypted
  }

  func run() async {
    do throws(LiveAudioError) {
      try await follow()
    } catch {
      out.yield(.failure(error))
    }
    out.finish()
  }

  private func follow() async throws(LiveAudioError) {
    let info = await session.info
    if info.oggAudio { throw .oggNotSupported }
    let cursor = try LiveFrameCursor(channels: info.audioChannels, start: start, end: end)
    guard let first = try await recordingState() else {
      // A finished recording: one range, re-issued only across gaps.
      try await finish(cursor, scene: nil)
      return
    }
    var scene = first.scene
    var reissues = 0
    while !Task.isCancelled, !cursor.reachedEnd {
      let before = cursor.offset
      let ended = try await round(cursor, scene: scene)
      let progressed = cursor.offset > before
      switch ended {
      case .cancelled: return
      case .overflow: throw .consumerTooSlow(bufferLimit: options.bufferLimit)
      case .encrypted: throw .endToEndEncrypted
      case .yielded: continue
      case .gap:
        reissues = progressed ? 0 : reissues + 1
        if reissues > options.maximumReissues { throw .noProgress(offset: UInt32(before)) }
        continue
      case .tail, .quiet, .refused: reissues = 0
      }
      guard let now = try await recordingState() else {
        // Stopped since this round began: whatever it recorded since comes in one last pass.
        try await finish(cursor, scene: scene)
        return
      }
      scene = now.scene
      if !progressed {
        do {
          try await session.configuration.clock.sleep(for: options.pollInterval)
        } catch {
          return
        }
      }
    }
    if !Task.isCancelled { emit(cursor.finish()) }
  }

  /// The recording is over: SYNC_STARTs until the device's tail (re-issued across gaps and
  /// quiet spells), then the end of the stream.
  private func finish(_ cursor: LiveFrameCursor, scene: UInt8?) async throws(LiveAudioError) {
    var reissues = 0
    let firstOffset = cursor.offset
    while !Task.isCancelled, !cursor.reachedEnd {
      let before = cursor.offset
      let ended = try await round(cursor, scene: scene)
      let progressed = cursor.offset > before
      switch ended {
      case .cancelled: return
      case .overflow: throw .consumerTooSlow(bufferLimit: options.bufferLimit)
      case .encrypted: throw .endToEndEncrypted
      case .tail: break
      case .refused(let status):
        // Refused at the very start: nothing of it could be sent. Refused later: the
        // previous pass already reached the end.
        if before == firstOffset, before == Int64(start) { throw .refused(status: status) }
      case .yielded: continue
      case .gap, .quiet:
        reissues = progressed ? 0 : reissues + 1
        if reissues > options.maximumReissues { throw .noProgress(offset: UInt32(before)) }
        continue
      }
      break
    }
    if !Task.isCancelled { emit(cursor.finish()) }
  }

  /// GET_STATE: the device's state while it records this recording, nil otherwise.
  private func recordingState() async throws(LiveAudioError) -> DeviceState? {
    do {
      let state = try await session.state()
      return state.sessionId == sessionId ? state : nil
    } catch {
      throw .device(error)
    }
  }

  /// One SYNC_START from the cursor's offset.
  private func round(_ cursor: LiveFrameCursor, scene: UInt8?) async throws(LiveAudioError)
    -> RoundEnd
  {
    let from = UInt32(clamping: cursor.offset)
    let decision = Locked<RoundEnd?>(nil)
    let announced = Locked(false)
    let announce: @Sendable () -> Void = {
      let first = announced.withLock { done -> Bool in
        defer { done = true }
        return !done
      }
      if first { emit([.requested(offset: from, scene: scene)]) }
    }
    let (options, out, session) = (self.options, self.out, self.session)
    let checksEncryption = from == 0
    let tail: SyncTail?
    do throws(DeviceError) {
      tail = try await session.streamRange(
        sessionId: sessionId, start: from, end: end, silenceTimeout: options.silenceTimeout
      ) { frame in
        announce()
        if checksEncryption, frame.offset == 0, E2EEFileHeader.looksEncrypted(frame.data) {
          decision.withLock { $0 = .encrypted }
          return .stop
        }
        switch cursor.take(frame) {
        case .gap:
          decision.withLock { $0 = .gap }
          return .stop
        case .events(let events):
          for event in events { out.yield(.success(event)) }
        }
        if out.buffered > options.bufferLimit {
          decision.withLock { $0 = .overflow }
          return .stop
        }
        if options.yieldsToCommands, await session.commandsWaiting > 0 {
          decision.withLock { $0 = .yielded }
          return .stop
        }
        return .continue
      }
    } catch {
      switch error {
      case .rejected(operation: "SYNC_START", let status): return .refused(status)
      case .cancelled: return .cancelled
      default: throw .device(error)
      }
    }
    if let tail {
      announce()
      emit([.tail(tail)])
      return .tail
    }
    let decided = decision.withLock { $0 }
    if decided == .encrypted { throw .endToEndEncrypted }
    return decided ?? .quiet
  }

  private func emit(_ events: [LiveAudioEvent]) {
    for event in events { out.yield(.success(event)) }
  }
}
