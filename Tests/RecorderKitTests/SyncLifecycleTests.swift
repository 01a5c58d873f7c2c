import Foundation
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import RecorderStore
import TestSupport
import Testing

/// Issue 5: a recording still being recorded is left on the device until it is complete;
/// cancelling the sync task stops it at any point, and a re-run completes.
@Suite("Sync: lifecycle")
struct SyncLifecycleTests {
  @Test func recordingInProgressIsSkippedAndLeftOnTheDevice() async throws {
    let seed: UInt64 = 0x11FE_0001
    let template = try await SyncFlashTemplate.make(
      seed: seed, durations: [5, 3].map { .seconds($0) })
    defer { template.cleanUp() }
    let bench = try SyncBench(seed: seed, template: template)
    defer { bench.cleanUp() }
    let pacing = bench.pacing()
    defer { pacing.cancel() }
    let live = try #require(await bench.device.startRecordingOnDevice())
    let engine = try bench.makeEngine()
    let report = try await bench.syncOnce(engine)
    #expect(report.skippedInProgress == [live], "seed \(seed)")
    #expect(report.files.map(\.sessionId).sorted() == template.digests.keys.sorted())
    let left = try await bench.device.recordings()
    #expect(left.map(\.sessionId) == [live], "seed \(seed): \(left)")
    #expect(left.first?.isRecording == true)
    #expect(try bench.journalRecords()[live] == nil, "seed \(seed): the live one was journalled")
    #expect(!(await bench.device.deleteLog.map(\.sessionId).contains(live)))

    // Once it is complete, the next run takes it.
    try await bench.clock.sleep(for: .seconds(3))
    await bench.device.stopRecordingOnDevice()
    let finished = try await bench.device.recordings(includingDigests: true)
    let second = try await bench.syncOnce(engine)
    #expect(second.files.map(\.sessionId) == [live], "seed \(seed)")
    #expect(sha256(ofFile: bench.rawPath(live)) == finished.first?.sha256, "seed \(seed)")
    #expect(try await bench.device.recordings().isEmpty)
  }

  /// Cancels the sync task from inside, after `afterFrames` data frames (0: as the second
  /// file's stream starts; a frame count past the first file's end lands in its export).
  @Test(arguments: [1, 120, 450, 700, 940])
  func cancellationStopsTheSyncAndARerunCompletes(afterFrames: Int) async throws {
    let seed: UInt64 = 0xCA9C_0000 &+ UInt64(afterFrames)
    let context = "seed \(seed), cancel after \(afterFrames) frames"
    let template = try await SyncFlashTemplate.make(
      seed: seed, durations: [6, 9, 4].map { .seconds($0) })
    defer { template.cleanUp() }
    let bench = try SyncBench(seed: seed, template: template)
    defer { bench.cleanUp() }
    let engine = try bench.makeEngine()
    let seen = Locked(0)
    let framesAtCancel = Locked(0)
    let cancelling: @Sendable (BLETransport) -> any RecordingTransport = { base in
      WatchedTransport(
        base: base,
        onFrame: { _ in
          let count = seen.withLock { count -> Int in
            count += 1
            return count
          }
          if count == afterFrames { withUnsafeCurrentTask { $0?.cancel() } }
        })
    }
    let session = try await bench.connect()
    let task = Task {
      try await engine.sync(using: cancelling(BLETransport(session: session)))
    }
    let result = await task.result
    framesAtCancel.withLock { $0 = seen.withLock { $0 } }
    await session.close()
    switch result {
    case .success(let report): Issue.record("\(context): not cancelled: \(report)")
    case .failure(let error):
      #expect(error as? SyncError == .cancelled, "\(context): \(error)")
    }
    // It stopped: at most the frames already queued to the session when it was cancelled.
    let taken = framesAtCancel.withLock { $0 }
    #expect(taken >= afterFrames && taken <= afterFrames + 64, "\(context): \(taken) frames taken")
    let records = try bench.journalRecords()
    for id in await bench.device.deleteLog.map(\.sessionId) {
      #expect(records[id]?.verification == .verified, "\(context): \(id)")
      #expect(sha256(ofFile: bench.rawPath(id)) == template.digests[id], "\(context): \(id)")
    }
    #expect(!bench.exportNames().contains { $0.hasPrefix(".partial-") }, "\(context)")

    _ = try await bench.syncOnce(engine)
    try await expectSyncedIntact(bench, template: template, context: context)
  }
}
