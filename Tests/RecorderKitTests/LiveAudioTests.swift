import Foundation
import RecorderAudio
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import RecorderTesting
import TestSupport
import Testing

/// Live audio while recording (docs/live-audio.md): `DeviceSession.liveAudio` against an
/// emulated recording that grows in virtual time, under both readings of what a device does
/// with a SYNC of the recording in progress, and against a scripted device that sends
/// malformed frames.
/// A hang guard fired.
struct WaitTimedOut: Error, CustomStringConvertible {
  let what: String
  var description: String { "timed out waiting for \(what)" }
}

/// Keeps a manual clock stepping 20 ms at a time while it runs: with auto-advance alone an
/// idle moment would jump virtual time straight to the emulator's next timer (a recording's
/// five-hour limit), ending a recording a test means to keep going.
struct Metronome {
  let task: Task<Void, Never>

  init(_ clock: ManualClock, step: Duration = .milliseconds(20)) {
    task = Task {
      while !Task.isCancelled {
        do { try await clock.sleep(for: step) } catch { return }
      }
    }
  }

  func stop() { task.cancel() }
}

@Suite("Live audio")
struct LiveAudioTests {
  /// Everything a stream delivered, gathered by its consumer.
  final class Gathered: Sendable {
    let events = Locked<[LiveAudioEvent]>([])
    let failure = Locked<LiveAudioError?>(nil)

    var bytes: [UInt8] {
      events.withLock { events in
        events.flatMap { event -> [UInt8] in
          if case .data(_, let bytes) = event { return bytes }
          return []
        }
      }
    }
    var dataOffsetsAreContiguous: Bool {
      events.withLock { events in
        var next: UInt32?
        for case .data(let offset, let bytes) in events {
          if let next, offset != next { return false }
          next = offset + UInt32(bytes.count)
        }
        return true
      }
    }
    var chunks: [LivePCMChunk] {
      events.withLock { events in
        events.compactMap { event -> LivePCMChunk? in
          if case .pcm(let chunk) = event { return chunk }
          return nil
        }
      }
    }
    var requests: [UInt32] {
      events.withLock { events in
        events.compactMap { event -> UInt32? in
          if case .requested(let offset, _) = event { return offset }
          return nil
        }
      }
    }
    var undecodable: [UInt32] {
      events.withLock { events in
        events.compactMap { event -> UInt32? in
          if case .undecodable(let offset, _) = event { return offset }
          return nil
        }
      }
    }
  }

  /// Consumes `stream` into a ``Gathered`` until it ends.
  static func consume(_ stream: LiveAudioStream) -> (Gathered, Task<Void, Never>) {
    let gathered = Gathered()
    let task = Task {
      do throws(LiveAudioError) {
        for try await event in stream { gathered.events.withLock { $0.append(event) } }
      } catch {
        gathered.failure.withLock { $0 = error }
      }
    }
    return (gathered, task)
  }

  /// The PCM a fresh decoder makes of `bytes` (whole frames), frame by frame.
  static func decode(_ bytes: [UInt8], channels: Int = 1) throws -> [[Int16]] {
    let decoder = try DeviceOpusDecoder(channels: channels)
    let frame = 80 * channels
    return try stride(from: 0, to: bytes.count - bytes.count % frame, by: frame).map {
      try decoder.decode(Array(bytes[$0..<$0 + frame]), offset: $0)
    }
  }

  static func bench(_ behaviour: LiveSyncBehaviour) throws -> EmulatorBench {
    var configuration = DeviceConfiguration(seed: 26)
    configuration.liveSync = behaviour
    return try EmulatorBench(configuration: configuration)
  }

  /// Waits (real time, bounded) until `condition` holds; the manual clock runs meanwhile.
  static func waitFor(_ what: String, _ condition: @Sendable () async -> Bool) async throws {
    for _ in 0..<20_000 {
      if await condition() { return }
      try await Task.sleep(for: .milliseconds(1))
    }
    throw WaitTimedOut(what: what)
  }

  @Test(
    "the recording in progress streams as it grows and ends when REC_STOP stops it",
    arguments: LiveSyncBehaviour.allCases)
  func followsTheRecording(_ behaviour: LiveSyncBehaviour) async throws {
    let bench = try Self.bench(behaviour)
    let metronome = Metronome(bench.clock)
    defer {
      metronome.stop()
      bench.cleanUp()
    }
    let session = try await bench.connect()
    let clock = AnyClock(bench.clock)
    let started = try await session.startRecording()
    let stream = session.liveAudio(sessionId: started.sessionId)
    let (gathered, consumer) = Self.consume(stream)
    // Three seconds of recording (virtual): frames arrive while the device records.
    try await clock.sleep(for: .seconds(3))
    try await Self.waitFor("live frames") { gathered.chunks.count >= 100 }
    let beforeStop = gathered.chunks.count
    let stopped = try await session.stopRecording()
    await consumer.value
    #expect(gathered.failure.current == nil)
    #expect(beforeStop >= 100)

    let recording = try #require(
      try await bench.device.recordings().first { $0.sessionId == started.sessionId })
    #expect(!recording.isRecording)
    #expect(recording.size == Int(stopped.fileSize ?? 0))
    let file = try [UInt8](Data(contentsOf: URL(fileURLWithPath: recording.path)))
    // Every byte once, in order, and the PCM of every frame, equal to decoding the file.
    #expect(gathered.dataOffsetsAreContiguous)
    #expect(gathered.bytes == file)
    let chunks = gathered.chunks
    #expect(chunks.count == file.count / 80)
    #expect(chunks.count * 20 == recording.durationMs)
    #expect(chunks.map(\.millisecond) == (0..<chunks.count).map { $0 * 20 })
    #expect(chunks.allSatisfy { $0.littleEndianBytes.count == 640 })
    #expect(chunks.map(\.samples) == (try Self.decode(file)))
    #expect(recording.durationMs >= 3_000)
    // REC_STOP got through while the stream held the link (else the recording would run
    // on to its five-hour limit; virtual time runs as fast as frames are consumed).
    #expect(recording.durationMs < 60_000)
    #expect(gathered.undecodable.isEmpty)
    switch behaviour {
    case .follows:
      // One SYNC followed the recording; REC_STOP took the link once in between.
      #expect(gathered.requests.count >= 2)
    case .sendsRecordedSoFar:
      // The device sends only what exists: the stream re-issued many times.
      #expect(gathered.requests.count > 5)
    }
    // The link is free and the session healthy afterwards.
    #expect(try await session.state().sessionId == 0)
    await session.close()
  }

  @Test(
    "a pause longer than the silence timeout: the stream waits, then follows the resumed recording",
    arguments: LiveSyncBehaviour.allCases)
  func pauseAndResume(_ behaviour: LiveSyncBehaviour) async throws {
    let bench = try Self.bench(behaviour)
    let metronome = Metronome(bench.clock)
    defer {
      metronome.stop()
      bench.cleanUp()
    }
    let session = try await bench.connect()
    let clock = AnyClock(bench.clock)
    let started = try await session.startRecording()
    let (gathered, consumer) = Self.consume(session.liveAudio(sessionId: started.sessionId))
    try await clock.sleep(for: .seconds(1))
    let paused = try await session.pauseRecording()
    // Seven quiet seconds: past the 5 s silence timeout of one SYNC_START.
    try await clock.sleep(for: .seconds(7))
    let pausedFrames = Int(paused.fileSize ?? 0) / 80
    try await Self.waitFor("the frames recorded before the pause") {
      gathered.chunks.count == pausedFrames
    }
    _ = try await session.resumeRecording()
    try await clock.sleep(for: .seconds(1))
    try await Self.waitFor("frames after the resume") { gathered.chunks.count > pausedFrames }
    _ = try await session.stopRecording()
    await consumer.value
    #expect(gathered.failure.current == nil)
    let recording = try #require(
      try await bench.device.recordings().first { $0.sessionId == started.sessionId })
    let file = try [UInt8](Data(contentsOf: URL(fileURLWithPath: recording.path)))
    #expect(gathered.bytes == file)
    #expect(gathered.dataOffsetsAreContiguous)
    #expect(gathered.chunks.count * 20 == recording.durationMs)
    #expect(gathered.chunks.map(\.samples) == (try Self.decode(file)))
    // The pause cost the SYNC (silence, or a device that sends only what exists): re-issued.
    #expect(gathered.requests.count >= 3)
    await session.close()
  }

  @Test("stop() ends the stream with SYNC_STOP; the recording goes on")
  func stopEndsTheStream() async throws {
    let bench = try Self.bench(.follows)
    let metronome = Metronome(bench.clock)
    defer {
      metronome.stop()
      bench.cleanUp()
    }
    let session = try await bench.connect()
    let started = try await session.startRecording()
    await bench.device.recordWireTrace(true)
    let stream = session.liveAudio(sessionId: started.sessionId)
    let (gathered, consumer) = Self.consume(stream)
    try await Self.waitFor("live frames") { gathered.chunks.count >= 25 }
    await stream.stopAndWait()
    await consumer.value
    #expect(gathered.failure.current == nil)
    // The stop is with the link when stopAndWait returns; it reaches the device at the
    // link's next connection event, in virtual time the metronome moves on.
    let stop = WireEvent.written(PhoneMessage.syncStop.encoded())
    do {
      try await Self.waitFor("SYNC_STOP at the device") {
        await bench.device.wireTrace.contains(stop)
      }
    } catch {
      Issue.record("no SYNC_STOP reached the device; writes: \(await bench.device.wireTrace)")
    }
    let count = gathered.events.current.count
    // Nothing more arrives, and the device still records.
    try await AnyClock(bench.clock).sleep(for: .seconds(1))
    #expect(gathered.events.current.count == count)
    #expect(try await session.state().sessionId == started.sessionId)
    _ = try await session.stopRecording()
    await session.close()
  }

  @Test("a finished recording streams [start, end) with its PCM positions")
  func finishedRange() async throws {
    let bench = try Self.bench(.follows)
    defer { bench.cleanUp() }
    let made = try await bench.device.addRecording(duration: .seconds(2))
    let session = try await bench.connect()
    let file = try [UInt8](Data(contentsOf: URL(fileURLWithPath: made.path)))
    // Starts mid-frame: the partial frame is delivered as bytes, decoding starts at 880.
    let stream = session.liveAudio(sessionId: made.sessionId, start: 830, end: 4_000)
    let (gathered, consumer) = Self.consume(stream)
    await consumer.value
    #expect(gathered.failure.current == nil)
    #expect(gathered.bytes == Array(file[830..<4_000]))
    let chunks = gathered.chunks
    #expect(chunks.first?.millisecond == 220)
    #expect(chunks.count == (4_000 - 880) / 80)
    let decoded = try Self.decode(Array(file[880..<4_000]))
    #expect(chunks.map(\.samples) == decoded)
    #expect(gathered.requests == [830])

    // The whole recording with end 0; an unknown one is refused with a typed error.
    let (all, allDone) = Self.consume(session.liveAudio(sessionId: made.sessionId))
    await allDone.value
    #expect(all.bytes == file)
    #expect(all.chunks.count * 20 == made.durationMs)
    let (missing, missingDone) = Self.consume(session.liveAudio(sessionId: SessionID(12345)))
    await missingDone.value
    #expect(missing.failure.current == .refused(status: 1))
    await session.close()
  }

  @Test("malformed, undecodable and short frames: dropped or reported, never a crash")
  func malformedFrames() async throws {
    let id = SessionID(0x69D2_6658)
    let encoder = try DeviceOpusEncoder(channels: 1)
    var signal = SpeechLikeSignal(seed: 3)
    let good = try encoder.encode(signal.nextFrame())
    let frames: [[UInt8]] = [
      DeviceMessage.syncHead(SessionStatus(sessionId: id, status: 0)).encoded(),
      Frame.bulk(BulkFrame(sessionId: id, offset: 0, data: good)).encoded(),
      // `len` says 80, 10 bytes follow: invalid, dropped by the decoder.
      [0x02, 0x58, 0x66, 0xD2, 0x69, 0x50, 0x00, 0x00, 0x00, 0x50]
        + [UInt8](repeating: 1, count: 10),
      // Too short to be a data frame at all.
      [0x02, 0x58, 0x66],
      // Not the device's Opus (TOC 00): bytes delivered, no PCM.
      Frame.bulk(BulkFrame(sessionId: id, offset: 80, data: [UInt8](repeating: 0, count: 80)))
        .encoded(),
      // The recording ends 30 bytes into a frame.
      Frame.bulk(BulkFrame(sessionId: id, offset: 160, data: Array(good.prefix(30)))).encoded(),
      Frame.bulk(.terminal(sessionId: id)).encoded(),
      DeviceMessage.syncTail(SyncTail(sessionId: id, crc: 0)).encoded(),
    ]
    let central = ScriptedCentral { message in
      if case .syncStart = message { return frames }
      return V0095Replies.standard(message)
    }
    let session = try await DeviceSessionTests.connect(central)
    let (gathered, consumer) = Self.consume(session.liveAudio(sessionId: id))
    await consumer.value
    #expect(gathered.failure.current == nil)
    #expect(gathered.bytes == good + [UInt8](repeating: 0, count: 80) + good.prefix(30))
    #expect(gathered.chunks.map(\.offset) == [0])
    #expect(gathered.undecodable == [80, 160])
    #expect(await session.malformedFrames >= 2)
    await session.close()
  }
}
