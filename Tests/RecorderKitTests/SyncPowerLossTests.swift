import Foundation
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import RecorderStore
import RecorderTesting
import TestSupport
import Testing

/// Issue 5, "Power loss": a multi-file sync through ``PowerLossFileSystem`` loses power at
/// 200 seeded points spread over its file operations; after each, the disk is brought back
/// as it would be after the cut, a new engine on a new session syncs to completion, and:
/// every recording is exactly once in the exports (no duplicate, no `.partial-`, no short
/// file under a final name), every raw copy is byte-identical to the device's (SHA-256), and
/// no device copy was deleted unless its raw copy and journal entry survived the cut.
@Suite("Sync: power loss")
struct SyncPowerLossTests {
  static let seed: UInt64 = 0x504F_5745_5200_0005
  static let crashPoints = 200
  /// Checkpoints every 2 KiB: a crash point lands inside a transfer more often than not.
  static var options: SyncEngine.Options {
    var options = SyncEngine.Options.fast
    options.checkpointBytes = 2 * 1024
    return options
  }

  /// Against a plain device and a Mode B one (every frame sealed, PROTOCOL.md §9).
  @Test(arguments: PortVersions.plainAndModeB)
  func twoHundredCrashPointsAcrossAMultiFileSync(portVersion: UInt16) async throws {
    let seed = Self.seed
    let started = ContinuousClock.now
    // Small files: the point is the number of crash points, not the bytes.
    let template = try await SyncFlashTemplate.make(
      seed: seed, durations: [6, 2, 9, 4, 7].map { .seconds($0) })
    defer { template.cleanUp() }
    let digests = template.digests

    // An uninterrupted run: how many file operations a sync takes, and the exports' sizes.
    let reference = try SyncBench(seed: seed, template: template, portVersion: portVersion)
    defer { reference.cleanUp() }
    let counting = PowerLossFileSystem()
    let report = try await reference.syncOnce(
      try reference.makeEngine(fileSystem: counting, options: Self.options))
    let operations = counting.operationCount
    #expect(report.files.count == template.recordings.count, seedComment(seed))
    let referenceSizes = Dictionary(
      uniqueKeysWithValues: reference.exportNames().map {
        ($0, fileSize(reference.exportDirectory + "/" + $0))
      })
    #expect(referenceSizes.count == template.recordings.count, seedComment(seed))
    #expect(operations >= Self.crashPoints / 2, "too few operations to spread crash points over")

    // Crash points: one per stratum of the operation count, seeded within it.
    var random = SplitMix64(seed: seed)
    let points = (0..<Self.crashPoints).map { index -> Int in
      let low = operations * index / Self.crashPoints
      let high = max(low, operations * (index + 1) / Self.crashPoints - 1)
      return random.next(in: low...high)
    }
    var crashed = 0
    var deletedBeforeCrash = 0
    for point in points {
      let outcome = try await crashThenResume(
        at: point, seed: seed, template: template, digests: digests,
        referenceSizes: referenceSizes, portVersion: portVersion)
      if outcome.crashed { crashed += 1 }
      deletedBeforeCrash += outcome.deletedBeforeCrash
    }
    print(
      "power loss: \(points.count) crash points over \(operations) operations (seed \(seed)); "
        + "\(crashed) lost power mid-sync, \(deletedBeforeCrash) device deletes happened before a "
        + "cut; \(ContinuousClock.now - started) real time")
    #expect(crashed >= points.count * 9 / 10, seedComment(seed))
  }

  struct Outcome {
    var crashed: Bool
    var deletedBeforeCrash: Int
  }

  private func crashThenResume(
    at point: Int, seed: UInt64, template: SyncFlashTemplate, digests: [SessionID: String],
    referenceSizes: [String: Int64], portVersion: UInt16
  ) async throws -> Outcome {
    let context = "seed \(seed), port \(portVersion), crash after \(point) operations"
    let bench = try SyncBench(seed: seed, template: template, portVersion: portVersion)
    defer { bench.cleanUp() }

    // 1. The run that loses power.
    let fileSystem = PowerLossFileSystem(crashAfter: point)
    do {
      _ = try await bench.syncOnce(
        try bench.makeEngine(fileSystem: fileSystem, options: Self.options))
    } catch let error as SyncError {
      #expect(error == .storage(.powerLost), "\(context)")
    } catch let error as StorageError {
      #expect(error == .powerLost, "\(context)")  // creating the root
    }
    try fileSystem.recoverFromPowerLoss()

    // 2. What survived the cut: every deleted device copy must have a durable raw copy and
    //    a journal entry that says it was safe.
    let deletedBefore = await bench.device.deleteLog.map(\.sessionId)
    let records =
      FileManager.default.fileExists(atPath: bench.journalPath) ? try bench.journalRecords() : [:]
    for id in deletedBefore {
      let record = records[id]
      #expect(
        record.map { $0.stage >= .stored } == true,
        "\(context): deleted \(id) unsafe: \(String(describing: record))")
      #expect(
        sha256(ofFile: bench.rawPath(id)) == digests[id],
        "\(context): deleted \(id) without its raw copy")
    }
    for record in records.values {
      if record.stage >= .stored {
        #expect(
          sha256(ofFile: bench.rawPath(SessionID(record.sessionId)))
            == digests[SessionID(record.sessionId)],
          "\(context): \(record)")
      } else if record.stage == .transferring {
        #expect(
          record.durableBytes <= max(0, fileSize(bench.partPath(SessionID(record.sessionId)))),
          "\(context): \(record)")
      }
      if record.stage >= .exported, let stored = record.exportPath {
        // The journal keeps paths relative to the sync root.
        let path = stored.hasPrefix("/") ? stored : bench.root + "/" + stored
        let name = (path as NSString).lastPathComponent
        #expect(fileSize(path) == referenceSizes[name], "\(context): export lost: \(record)")
      }
    }

    // 3. Power is back: a new engine on a new session finishes the job.
    let report = try await bench.syncOnce(
      try bench.makeEngine(fileSystem: PowerLossFileSystem(), options: Self.options))
    #expect(report.files.allSatisfy { $0.verified }, "\(context)")

    // 4. Exactly once, intact, and the device emptied once each.
    let names = bench.exportNames()
    #expect(names == referenceSizes.keys.sorted(), "\(context)")
    for name in names {
      #expect(
        fileSize(bench.exportDirectory + "/" + name) == referenceSizes[name], "\(context): \(name)")
    }
    for (id, digest) in digests {
      #expect(sha256(ofFile: bench.rawPath(id)) == digest, "\(context): raw \(id)")
    }
    let left = try await bench.device.recordings()
    #expect(left.isEmpty, "\(context)")
    let deletes = await bench.device.deleteLog.map(\.sessionId)
    #expect(deletes.sorted() == digests.keys.sorted(), "\(context): deletes \(deletes)")
    return Outcome(crashed: fileSystem.hasCrashed, deletedBeforeCrash: deletedBefore.count)
  }
}

func fileSize(_ path: String) -> Int64 {
  ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? -1
}
