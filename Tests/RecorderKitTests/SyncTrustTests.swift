import Foundation
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import RecorderStore
import TestSupport
import Testing

/// Issue 12, findings 3, 4 and 7: a DELETE trusts only the bytes we hold now and what the
/// device lists now (DESIGN.md invariant 8).
@Suite("Sync: trust only what was checked")
struct SyncTrustTests {
  /// A transport whose LIST reports every recording at `size` bytes (a device that lies, or
  /// one seen while its recording was shorter).
  static func listing(size: UInt32) -> @Sendable (BLETransport) -> any RecordingTransport {
    { base in
      WatchedTransport(
        base: base,
        alterList: { list in
          list.map { recording in
            var changed = recording
            changed.size = size
            return changed
          }
        })
    }
  }

  static func keepOnDevice() -> SyncEngine.Options {
    var options = SyncEngine.Options.fast
    options.deleteFromDevice = false
    return options
  }

  @Test("a local raw file removed or altered after a keep-on-device sync is fetched again")
  func localCopyRecheckedBeforeDelete() async throws {
    let seed: UInt64 = 0x7A57_0003
    let template = try await SyncFlashTemplate.make(seed: seed, durations: [.seconds(4)])
    defer { template.cleanUp() }
    for damage in ["removed", "altered"] {
      let bench = try SyncBench(seed: seed, template: template)
      defer { bench.cleanUp() }
      _ = try await bench.syncOnce(try bench.makeEngine(options: Self.keepOnDevice()))
      let id = try #require(template.digests.keys.first)
      let raw = bench.rawPath(id)
      if damage == "removed" {
        try FileManager.default.removeItem(atPath: raw)
      } else {
        let handle = try #require(FileHandle(forUpdatingAtPath: raw))
        try handle.seek(toOffset: 200)
        handle.write(Data([0x00, 0x11]))
        try handle.close()
      }
      let report = try await bench.syncOnce(try bench.makeEngine())
      #expect(report.bytesReceived == Int64(template.totalBytes), "\(damage): fetched again")
      #expect(sha256(ofFile: raw) == template.digests[id], "\(damage)")
      #expect(await bench.device.deleteLog.map(\.sessionId) == [id], "\(damage)")
    }
  }

  @Test("an export removed after a keep-on-device sync is made again before the DELETE")
  func exportRecheckedBeforeDelete() async throws {
    let seed: UInt64 = 0x7A57_0013
    let template = try await SyncFlashTemplate.make(seed: seed, durations: [.seconds(3)])
    defer { template.cleanUp() }
    let bench = try SyncBench(seed: seed, template: template)
    defer { bench.cleanUp() }
    _ = try await bench.syncOnce(try bench.makeEngine(options: Self.keepOnDevice()))
    for name in bench.exportNames() {
      try FileManager.default.removeItem(atPath: bench.exportDirectory + "/" + name)
    }
    _ = try await bench.syncOnce(try bench.makeEngine())
    #expect(bench.exportNames().count == 1)
    #expect(await bench.device.deleteLog.count == 1)
  }

  @Test("a recording that grew on the device is fetched to its new end before any DELETE")
  func grownRecordingFetchesTheRest() async throws {
    let seed: UInt64 = 0x7A57_0004
    let template = try await SyncFlashTemplate.make(seed: seed, durations: [.seconds(6)])
    defer { template.cleanUp() }
    let bench = try SyncBench(seed: seed, template: template)
    defer { bench.cleanUp() }
    let id = try #require(template.digests.keys.first)
    let full = try #require(template.recordings.first).size
    let earlier = UInt32(full / 2 / 80 * 80)
    // The first sync sees the recording while it was shorter (paused), keeps it on the device.
    let shorter = Self.listing(size: earlier)
    _ = try await bench.syncOnce(try bench.makeEngine(options: Self.keepOnDevice()), wrap: shorter)
    #expect(try bench.journalRecords()[id]?.size == Int64(earlier))
    // Resumed under the same id: the next sync fetches only the rest, then deletes.
    let report = try await bench.syncOnce(try bench.makeEngine())
    #expect(report.bytesReceived == Int64(full) - Int64(earlier))
    #expect(sha256(ofFile: bench.rawPath(id)) == template.digests[id])
    #expect(try bench.journalRecords()[id]?.stage == .deletedFromDevice)
    #expect(await bench.device.deleteLog.map(\.sessionId) == [id])
  }

  @Test("a recording that shrank after a partial transfer starts over")
  func shrunkRecordingStartsOver() async throws {
    let seed: UInt64 = 0x7A57_0014
    let template = try await SyncFlashTemplate.make(seed: seed, durations: [.seconds(6)])
    defer { template.cleanUp() }
    let bench = try SyncBench(seed: seed, template: template)
    defer { bench.cleanUp() }
    let id = try #require(template.digests.keys.first)
    let full = try #require(template.recordings.first).size
    await bench.device.setFaults(FaultPlan(dropLinkAfterNotifiedBytes: Int(full) * 3 / 4))
    _ = try? await bench.syncOnce(try bench.makeEngine())
    let partial = try #require(try bench.journalRecords()[id]).durableBytes
    #expect(partial > 0)
    let smaller = UInt32(partial / 2 / 80 * 80)
    let shrunk = Self.listing(size: smaller)
    let report = try await bench.syncOnce(
      try bench.makeEngine(options: Self.keepOnDevice()), wrap: shrunk)
    #expect(report.bytesReceived == Int64(smaller), "started over from byte 0")
    let record = try #require(try bench.journalRecords()[id])
    #expect(record.size == Int64(smaller))
    #expect(record.checked.weakestLevel(upTo: record.size) == .deviceCRC)
  }

  @Test("a session id listed twice is synced once; with two sizes it is left alone")
  func duplicateListEntries() async throws {
    let seed: UInt64 = 0x7A57_0007
    let template = try await SyncFlashTemplate.make(
      seed: seed, durations: [.seconds(3), .seconds(4)])
    defer { template.cleanUp() }
    for sameSize in [true, false] {
      let bench = try SyncBench(seed: seed, template: template)
      defer { bench.cleanUp() }
      let twice: @Sendable (BLETransport) -> any RecordingTransport = { base in
        WatchedTransport(
          base: base,
          alterList: { list in
            guard var copy = list.first else { return list }
            if !sameSize { copy.size -= 80 }
            return list + [copy]
          })
      }
      let report = try await bench.syncOnce(try bench.makeEngine(), wrap: twice)
      let first = try #require(template.recordings.first).sessionId
      let deletes = await bench.device.deleteLog.map(\.sessionId)
      if sameSize {
        #expect(report.files.count == 2)
        #expect(deletes.sorted() == template.digests.keys.sorted())
        #expect(bench.exportNames().count == 2)
      } else {
        #expect(report.skippedContradictory == [first])
        #expect(!deletes.contains(first))
        #expect(deletes.count == 1)
      }
    }
  }
}

/// Issue 19, finding 9: the summary of a run comes from the journal's record of it.
@Suite("Sync: the summary of a run")
struct SyncSummaryTests {
  @Test("a file whose DELETE reply was lost to a link drop is in the summary, deleted")
  func lostDeleteReplyStaysInTheSummary() async throws {
    let seed: UInt64 = 0x5077_0009
    let template = try await SyncFlashTemplate.make(
      seed: seed, durations: [.seconds(3), .seconds(4)])
    defer { template.cleanUp() }
    let bench = try SyncBench(seed: seed, template: template)
    defer { bench.cleanUp() }
    let engine = try bench.makeEngine()
    // The device deletes the first recording, then the link drops before its reply.
    let replyLost: @Sendable (BLETransport) -> any RecordingTransport = { base in
      LostDeleteReply(base: base)
    }
    var merged = SyncReport()
    do {
      merged = try await bench.syncOnce(engine, wrap: replyLost)
      Issue.record("the first attempt should have lost the link")
    } catch {
      merged = await engine.interruptedReport ?? SyncReport()
    }
    let second = try await bench.syncOnce(engine)
    merged.files += second.files
    let summary = try await engine.summary(of: merged, serial: bench.device.serial)
    #expect(summary.files.map(\.sessionId) == template.digests.keys.sorted())
    #expect(summary.files.allSatisfy { $0.deletedFromDevice }, "\(summary.files)")
    #expect(summary.files.allSatisfy { $0.exportPath != nil }, "\(summary.files)")
  }
}

/// Carries out the first DELETE, then fails as a link drop would before its reply.
struct LostDeleteReply: RecordingTransport {
  let base: BLETransport
  var name: String { base.name }
  var serial: String { get async { await base.serial } }
  var audioChannels: Int { get async { await base.audioChannels } }
  func listRecordings() async throws(DeviceError) -> [Recording] {
    try await base.listRecordings()
  }
  func recordingInProgress() async throws(DeviceError) -> SessionID? {
    try await base.recordingInProgress()
  }
  func stream(
    sessionId: SessionID, start: UInt32, end: UInt32,
    receive: @Sendable (BulkFrame) async -> StreamDecision
  ) async throws(DeviceError) -> SyncTail? {
    try await base.stream(sessionId: sessionId, start: start, end: end, receive: receive)
  }
  func delete(sessionId: SessionID) async throws(DeviceError) {
    try await base.delete(sessionId: sessionId)
    throw .disconnected(.linkLoss)
  }
}
