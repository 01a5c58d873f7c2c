import Foundation
import RecorderConcurrency
import RecorderKit
import RecorderProtocol

/// The vendor's `syncFile(sessionId:start:end:)` / `stopSyncFile()`: a translation of
/// RecorderKit's `DeviceSession.liveAudio(sessionId:start:end:options:)` onto the delegate.
///
/// Events become callbacks in arrival order: the stream's bytes → `bleData(sessionId:start:
/// data:)`; each decoded 20 ms frame → `blePcmData(sessionId:millsec:pcmData:isMusic:)` (640
/// bytes, 16 kHz mono s16le, `millsec` its position in the recording, `isMusic` for scene 4);
/// the end of the recording (all of it delivered) → `bleDataComplete()`.
extension AgentCore {
  /// The live sync running now, per agent core (an actor extension cannot hold it).
  /// `Locked` guards the table; an entry is added and taken away by its core's actor, or
  /// removed by its own delivery task when the stream ended (only if it is still that
  /// generation's).
  private static let liveSyncs = Locked<[ObjectIdentifier: LiveSync]>([:])

  /// One `syncFile` in flight: the RecorderKit stream and the task turning it into callbacks.
  struct LiveSync: Sendable {
    let generation: UInt64
    let stream: LiveAudioStream
    let delivery: Task<Void, Never>
  }

  private static let generations = Locked<UInt64>(0)

  /// Starts streaming `sessionId` from byte `start` to `end` (0: to its end, following it
  /// while the device records it). Returns once the stream is running; a sync already
  /// running is stopped first (the device serves one at a time). Not connected, or an id or
  /// offset outside the device's `u32`: nothing is sent, `lastError` says why.
  func syncFile(sessionId: Int, start: Int, end: Int) async {
    await stopLiveSync()
    guard let current = session else {
      fail(.notConnected)
      return
    }
    guard let id = SessionID(exactly: sessionId), let first = UInt32(exactly: start),
      let last = UInt32(exactly: end)
    else {
      fail(
        .operationFailed(
          "syncFile: session \(sessionId), start \(start), end \(end) do not fit the device's u32"
        ))
      return
    }
    let stream = current.liveAudio(sessionId: id, start: first, end: last)
    let generation = Self.generations.withLock { value -> UInt64 in
      value += 1
      return value
    }
    let emit = self.emit
    let key = ObjectIdentifier(self)
    let delivery = Task { [weak self] in
      let failure = await Self.deliver(stream, sessionId: sessionId, emit: emit)
      if let failure { self?.fail(failure) }
      Self.liveSyncs.withLock { table in
        if table[key]?.generation == generation { table[key] = nil }
      }
    }
    Self.liveSyncs.withLock {
      $0[key] = LiveSync(generation: generation, stream: stream, delivery: delivery)
    }
  }

  /// Stops the sync in flight, if any: SYNC_STOP reaches the device before this returns,
  /// and no callback of it follows.
  func stopSyncFile() async {
    let stopped = await stopLiveSync()
    if stopped { emit { $0.bleSyncFileStop() } }
  }

  /// Stops the sync in flight; false when none was.
  @discardableResult
  private func stopLiveSync() async -> Bool {
    let key = ObjectIdentifier(self)
    guard let running = Self.liveSyncs.withLock({ $0.removeValue(forKey: key) }) else {
      return false
    }
    running.delivery.cancel()
    await running.stream.stopAndWait()
    await running.delivery.value
    return true
  }

  /// Turns the stream's events into callbacks until it ends: `bleDataComplete` when every
  /// byte arrived; nothing more once stopped. Returns the failure that ended it, if any.
  private static func deliver(
    _ stream: LiveAudioStream, sessionId: Int,
    emit: @escaping @Sendable (@escaping DelegateEvent) -> Void
  ) async -> PlaudSDKError? {
    var isMusic = false
    var headed = false
    var tails = 0
    do throws(LiveAudioError) {
      for try await event in stream {
        if Task.isCancelled { return nil }
        switch event {
        case .requested(_, let scene):
          isMusic = scene == RecordingScene.music
          if !headed {
            headed = true
            emit { $0.bleSyncFileHead(sessionId: sessionId, status: 0) }
          }
        case .data(let offset, let bytes):
          let data = Data(bytes)
          let start = Int(offset)
          emit { $0.bleData(sessionId: sessionId, start: start, data: data) }
        case .pcm(let chunk):
          let pcm = Data(chunk.littleEndianBytes)
          let millsec = chunk.millisecond
          let music = isMusic
          emit {
            $0.blePcmData(sessionId: sessionId, millsec: millsec, pcmData: pcm, isMusic: music)
          }
        case .undecodable(let offset, _):
          let start = Int(offset)
          emit { $0.bleDecodeFail(start: start) }
        case .tail:
          tails += 1
        }
      }
    } catch {
      if case .refused(let status) = error {
        let code = Int(status)
        emit { $0.bleSyncFileHead(sessionId: sessionId, status: code) }
      }
      return .operationFailed(error.description)
    }
    if Task.isCancelled { return nil }
    // The CRC is not used for Opus-era files [sdk header]; RecorderKit verifies by length
    // and decoding, so 0.
    if tails > 0 { emit { $0.bleSyncFileTail(sessionId: sessionId, crc: 0) } }
    emit { $0.bleDataComplete() }
    return nil
  }
}

/// Recording scenes (PROTOCOL.md §3.2 [sdk]).
enum RecordingScene {
  /// The music scene: `blePcmData`'s `isMusic`.
  static let music: UInt8 = 4
}
