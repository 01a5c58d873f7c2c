import Foundation
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import RecorderStore
import RecorderTesting
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Issue 5, "Disk full": the output runs out of space partway through a sync → a clear
/// ``SyncError/storage(_:)`` error, the device copy kept, the journal consistent (no more
/// bytes claimed durable than the partial file holds; nothing `stored` that is not on disk),
/// and the next run completes once space is free. Injected (``PowerLossFileSystem``) and, when
/// the machine lets us mount one, for real on a 2 MB tmpfs.
@Suite("Sync: disk full", .blockingWaits)
struct SyncDiskFullTests {
  @Test(arguments: [150, 500, 900])
  func injectedNoSpacePartwayThenFreed(afterFrames: Int) async throws {
    let seed: UInt64 = 0xD15C_F011 &+ UInt64(afterFrames)
    let context = "seed \(seed), full after \(afterFrames) frames"
    let template = try await SyncFlashTemplate.make(
      seed: seed, durations: [6, 9, 4].map { .seconds($0) })
    defer { template.cleanUp() }
    let bench = try SyncBench(seed: seed, template: template)
    defer { bench.cleanUp() }
    let fileSystem = PowerLossFileSystem()
    let engine = try bench.makeEngine(fileSystem: fileSystem)
    let seen = Locked(0)
    let fillUp: @Sendable (BLETransport) -> any RecordingTransport = { base in
      WatchedTransport(
        base: base,
        onFrame: { _ in
          let count = seen.withLock { count -> Int in
            count += 1
            return count
          }
          if count == afterFrames { fileSystem.failWritesWithNoSpace(true) }
        })
    }
    do {
      let report = try await bench.syncOnce(engine, wrap: fillUp)
      Issue.record("\(context): no error; \(report)")
    } catch let error as SyncError {
      guard case .storage(.noSpace) = error else {
        Issue.record("\(context): expected no space, got \(error)")
        return
      }
      print("disk full (injected): \(error)")
    }
    try await expectConsistentAfterFailure(bench, template: template, context: context)

    fileSystem.failWritesWithNoSpace(false)
    _ = try await bench.syncOnce(engine)
    try await expectSyncedIntact(bench, template: template, context: context)
  }

  /// The real thing: the sync root on a 2 MB tmpfs, recordings worth more than that.
  @Test func realTmpfsRunsOutOfSpaceThenGrows() async throws {
    let seed: UInt64 = 0x7F5_0002
    let context = "seed \(seed), tmpfs"
    let template = try await SyncFlashTemplate.make(
      seed: seed, durations: [150, 200, 180].map { .seconds($0) })
    defer { template.cleanUp() }
    let bench = try SyncBench(seed: seed, template: template)
    defer { bench.cleanUp() }
    try FileManager.default.createDirectory(atPath: bench.root, withIntermediateDirectories: true)
    let mounted = run("/bin/mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", bench.root])
    guard mounted.status == 0 else {
      print(
        "SKIPPED realTmpfsRunsOutOfSpaceThenGrows: cannot mount a tmpfs (\(mounted.output)); needs root and CAP_SYS_ADMIN"
      )
      return
    }
    defer { _ = run("/bin/umount", ["-l", bench.root]) }
    let engine = try bench.makeEngine()
    do {
      let report = try await bench.syncOnce(engine)
      Issue.record("\(context): 2 MB held \(template.totalBytes) bytes? \(report)")
    } catch let error as SyncError {
      print("disk full (tmpfs 2 MB, \(template.totalBytes) file bytes): \(error)")
      switch error {
      case .storage(.noSpace): break
      case .journal(let text): #expect(text.lowercased().contains("full"), "\(context): \(error)")
      default: Issue.record("\(context): expected no space, got \(error)")
      }
    }
    try await expectConsistentAfterFailure(bench, template: template, context: context)

    let grown = run("/bin/mount", ["-o", "remount,size=32m", bench.root])
    try #require(grown.status == 0, "\(context): remount failed: \(grown.output)")
    _ = try await bench.syncOnce(engine)
    try await expectSyncedIntact(bench, template: template, context: context)
  }

  /// After a failed run: no device copy deleted unless verified and stored; every journal
  /// claim holds on disk.
  private func expectConsistentAfterFailure(
    _ bench: SyncBench, template: SyncFlashTemplate, context: String
  ) async throws {
    let records = try bench.journalRecords()
    let deleted = await bench.device.deleteLog.map(\.sessionId)
    for id in deleted {
      #expect(
        records[id].map { $0.stage >= .stored && $0.verification == .verified } == true,
        "\(context): \(id) deleted")
    }
    let left = Set(try await bench.device.recordings().map(\.sessionId))
    #expect(left.count + deleted.count == template.recordings.count, "\(context)")
    for record in records.values {
      switch record.stage {
      case .seen: break
      case .transferring:
        #expect(
          record.durableBytes <= max(0, fileSize(bench.partPath(SessionID(record.sessionId)))),
          "\(context): \(record)")
      case .stored, .exported, .deletedFromDevice:
        #expect(
          sha256(ofFile: bench.rawPath(SessionID(record.sessionId)))
            == template.digests[SessionID(record.sessionId)],
          "\(context): \(record)")
      }
      if record.stage >= .exported, let stored = record.exportPath {
        // The journal keeps paths relative to the sync root.
        let path = stored.hasPrefix("/") ? stored : bench.root + "/" + stored
        #expect(FileManager.default.fileExists(atPath: path), "\(context): \(record)")
      }
    }
    #expect(
      !bench.exportNames().contains { !$0.hasPrefix(".partial-") && !$0.hasSuffix(".opus") },
      "\(context)")
  }
}

/// Runs a program, returns its status and combined output.
func run(_ executable: String, _ arguments: [String]) -> (status: Int32, output: String) {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: executable)
  process.arguments = arguments
  let pipe = Pipe()
  process.standardOutput = pipe
  process.standardError = pipe
  do {
    try process.run()
  } catch {
    return (-1, "\(error)")
  }
  let data = pipe.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}
