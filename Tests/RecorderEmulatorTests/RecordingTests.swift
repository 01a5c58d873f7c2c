import Foundation
import RecorderEmulator
import RecorderProtocol
import TestSupport
import Testing

/// REC_* commands, unsolicited REC_* events, and a recording growing in virtual time.
@Suite(.timeLimit(.minutes(5)))
struct RecordingTests {
  @Test func appControlledRecordingGrowsWithVirtualTime() async throws {
    let bench = try TestBench()
    defer { bench.cleanUp() }
    let phone = try await bench.authenticatedPhone()
    guard case .recordStarted(let started) = try await phone.request(.recordStart(RecordCommand()))
    else {
      Issue.record("no REC_START reply")
      return
    }
    #expect(started.status == 0 && started.start == 0)
    try await bench.sleep(for: .seconds(10))
    guard case .listPage(let page) = try await phone.request(.list(ListRequest(requestTag: 1)))
    else { return }
    let size = try #require(page.entries.first?.size)
    #expect(size >= 40_000 && size <= 41_000)
    #expect(page.entries.first?.attribute == 1)

    guard
      case .recordPaused(let paused) = try await phone.request(
        .recordPause(RecordSessionCommand(sessionId: started.sessionId)))
    else { return }
    try await bench.sleep(for: .seconds(30))
    guard
      case .recordResumed(let resumed) = try await phone.request(
        .recordResume(RecordSessionCommand(sessionId: started.sessionId)))
    else { return }
    #expect(resumed.start == paused.fileSize)
    try await bench.sleep(for: .seconds(5))
    guard case .recordStopped(let stopped) = try await phone.request(.recordStop(RecordCommand()))
    else { return }
    let bytes = try #require(stopped.fileSize)
    // ~15 s of audio: the 30 s pause recorded nothing.
    #expect(bytes >= 60_000 && bytes <= 61_000)
    let info = try #require(try await bench.device.recordings().first)
    #expect(info.size == Int(bytes) && !info.isRecording)
    guard case .state(let state) = try await phone.request(.getState) else { return }
    #expect(state.state == 1)
  }

  @Test func buttonPressesSendUnsolicitedEvents() async throws {
    let bench = try TestBench()
    defer { bench.cleanUp() }
    let phone = try await bench.authenticatedPhone()
    let id = try #require(await bench.device.startRecordingOnDevice(scene: 7))
    guard case .recordStarted(let started) = try await phone.nextMessage() else {
      Issue.record("no unsolicited REC_START")
      return
    }
    #expect(started.sessionId == id && started.scene == 7)
    try await bench.sleep(for: .seconds(2))
    await bench.device.pauseRecordingOnDevice()
    guard case .recordPaused = try await phone.nextMessage() else { return }
    await bench.device.resumeRecordingOnDevice()
    guard case .recordResumed = try await phone.nextMessage() else { return }
    try await bench.sleep(for: .seconds(1))
    await bench.device.stopRecordingOnDevice()
    guard case .recordStopped(let stopped) = try await phone.nextMessage() else { return }
    #expect(stopped.sessionId == id)
    let size = try #require(stopped.fileSize)
    #expect(size >= 12_000 && size <= 12_400, "3 s of audio and a few connection events")
  }

  @Test func syncWithEndZeroFollowsALiveRecording() async throws {
    let bench = try TestBench()
    defer { bench.cleanUp() }
    let phone = try await bench.authenticatedPhone()
    let id = try #require(await bench.device.startRecordingOnDevice())
    _ = try await phone.nextMessage()  // the unsolicited REC_START
    try await bench.sleep(for: .seconds(3))
    let device = bench.device
    let result = try await phone.sync(SyncStartRequest(sessionId: id)) { frame, _ in
      // Once the phone has caught up past 6 s of audio, the user stops recording.
      if frame.offset == 6 * 4000 { await device.stopRecordingOnDevice() }
    }
    let info = try #require(try await device.recordings().first)
    #expect(info.size >= 6 * 4000 + 80)
    #expect(result.bytes.count == info.size)
    let file = try [UInt8](Data(contentsOf: URL(fileURLWithPath: info.path)))
    #expect(result.tail?.crc == CRC16.checksum(file))
    #expect(result.interleaved.contains { if case .recordStopped = $0 { true } else { false } })
  }

  @Test("an idle jump of the manual clock moves a recording on by one flash write, not to its end")
  func idleJumpMovesARecordingByOneFlashWrite() async throws {
    let bench = try TestBench(autoAdvance: false)
    defer { bench.cleanUp() }
    let sessionId = try #require(await bench.device.startRecordingOnDevice())
    for second in 1...3 {
      // The recording's next flash write is what an idle auto-advance would jump to.
      #expect(await eventually { bench.clock.sleeperCount > 0 })
      #expect(bench.clock.advanceToNextDeadline())
      #expect(bench.clock.elapsed == .seconds(second), "\(bench.clock.elapsed)")
      let info = try #require(try await bench.device.recordings().first)
      #expect(info.sessionId == sessionId && info.isRecording)
      #expect(info.size == second * 50 * 80)
    }
  }

  @Test func fiveHourLimitStopsTheRecording() async throws {
    let configuration = DeviceConfiguration(maximumRecordingDuration: .seconds(4))
    let bench = try TestBench(configuration: configuration)
    defer { bench.cleanUp() }
    let phone = try await bench.authenticatedPhone()
    _ = try await phone.request(.recordStart(RecordCommand()))
    guard
      case .recordStopped(let stopped) = try await bench.letTimePass({
        try await phone.nextMessage()
      })
    else {
      Issue.record("no REC_STOP at the limit")
      return
    }
    #expect(stopped.reason == RecordingStopReason.lengthLimit && stopped.fileSize == 16_000)
  }
}
