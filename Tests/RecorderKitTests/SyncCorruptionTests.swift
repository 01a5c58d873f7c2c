import Foundation
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import RecorderStore
import TestSupport
import Testing

/// Issue 5, "Corruption": flipped, duplicated and dropped data frames are caught (tail CRC,
/// offsets) and repaired (re-read from the last good byte). Bytes before a gap pass only
/// the framing checks (on a real radio, the link layer's CRC-24 catches a flipped bit; the
/// emulator's flip is after it): with strict verification those ranges are read again with
/// their own tail CRC, so even a flip followed by a gap ends byte-identical and verified.
/// When identical bytes still disagree with the device's CRC under every coverage we know,
/// the file is "verified by agreement": exported, left on the device unless the sync trusts
/// agreement (PROTOCOL.md §10).
@Suite("Sync: corruption")
struct SyncCorruptionTests {
  enum Fault: String, CaseIterable, Sendable {
    case flipped, duplicated, dropped, all
  }

  @Test(arguments: Fault.allCases)
  func faultyFramesAreCaughtAndRepaired(_ fault: Fault) async throws {
    let baseSeed: UInt64 = 0xC022_0000
    let template = try await SyncFlashTemplate.make(
      seed: baseSeed, durations: [8, 3, 6].map { .seconds($0) })
    defer { template.cleanUp() }
    let frames = Int(template.totalBytes / 80)
    // Seeded frame indices, plus the very last data frame of the sync (the tail then comes
    // early) and the first.
    var random = SplitMix64(seed: baseSeed ^ UInt64(fault.rawValue.utf8.count))
    var indices = (0..<4).map { _ in random.next(in: 1...frames - 2) }
    indices += [0, frames - 1]
    for (round, index) in indices.enumerated() {
      let seed = baseSeed &+ UInt64(round)
      let context = "seed \(seed), \(fault) frame \(index)"
      let bench = try SyncBench(seed: seed, template: template)
      defer { bench.cleanUp() }
      let plan =
        switch fault {
        case .flipped: FaultPlan(corruptDataFrame: index)
        case .duplicated: FaultPlan(duplicateDataFrame: index)
        case .dropped: FaultPlan(dropDataFrame: index)
        case .all:
          FaultPlan(
            corruptDataFrame: index, duplicateDataFrame: (index + 7) % frames,
            dropDataFrame: (index + 3) % frames)
        }
      await bench.device.setFaults(plan)
      // A flip followed by a gap in the same request is caught only by strict verification.
      var options = SyncEngine.Options.fast
      options.strictVerify = fault == .all
      let report = try await bench.syncOnce(try bench.makeEngine(options: options))
      let left = await bench.device.faultPlan
      #expect(
        left.corruptDataFrame == nil && left.dropDataFrame == nil, "\(context): fault never fired")
      if fault != .duplicated {
        #expect(report.reissues >= 1, "\(context): nothing re-issued")
      }
      try await expectSyncedIntact(
        bench, template: template, context: context,
        levels: fault == .all ? [.verified] : [.verified, .framing])
    }
  }

  /// A transport whose tail CRC never matches: identical bytes that still disagree.
  @Test func crcThatNeverMatchesIsVerifiedByAgreementAndStaysOnTheDevice() async throws {
    let seed: UInt64 = 0xC0C0_0001
    let template = try await SyncFlashTemplate.make(
      seed: seed, durations: [4, 6].map { .seconds($0) })
    defer { template.cleanUp() }
    let bench = try SyncBench(seed: seed, template: template)
    defer { bench.cleanUp() }
    let engine = try bench.makeEngine()
    let lying: @Sendable (BLETransport) -> any RecordingTransport = { base in
      WatchedTransport(
        base: base, alterTail: { SyncTail(sessionId: $0.sessionId, crc: $0.crc ^ 0x5A5A) })
    }
    let report = try await bench.syncOnce(engine, wrap: lying)
    #expect(report.files.count == 2)
    #expect(report.files.allSatisfy { !$0.deletedFromDevice && $0.exportPath != nil })
    let records = try bench.journalRecords()
    for (id, digest) in template.digests {
      #expect(records[id]?.verification == .agreement, "seed \(seed): \(id)")
      #expect(records[id]?.stage == .exported, "seed \(seed): \(id)")
      #expect(sha256(ofFile: bench.rawPath(id)) == digest, "seed \(seed): kept \(id)")
    }
    #expect(bench.exportNames().count == 2, "seed \(seed): agreed files are exported")
    #expect(await bench.device.deleteLog.isEmpty, "seed \(seed): agreed files deleted")
    #expect(try await bench.device.recordings().count == 2)

    // A later run leaves them on the device too, until the sync trusts agreement.
    let again = try await bench.syncOnce(engine)
    #expect(again.bytesReceived == 0)
    #expect(await bench.device.deleteLog.isEmpty, "seed \(seed)")
    var trusting = SyncEngine.Options.fast
    trusting.trustAgreement = true
    _ = try await bench.syncOnce(try bench.makeEngine(options: trusting))
    #expect(await bench.device.deleteLog.count == 2, "seed \(seed): --trust-agreement deletes")
  }
}

/// Every recording of `template` is stored byte-identical, verified, exported once and
/// deleted from the device once; nothing else is in the exports.
func expectSyncedIntact(
  _ bench: SyncBench, template: SyncFlashTemplate, context: String,
  levels: Set<RecordingRecord.Verification> = [.verified, .framing]
) async throws {
  let records = try bench.journalRecords()
  for (id, digest) in template.digests {
    #expect(
      records[id].map { levels.contains($0.verification) } == true,
      "\(context): \(id) \(String(describing: records[id]))")
    #expect(records[id]?.stage == .deletedFromDevice, "\(context): \(id)")
    #expect(sha256(ofFile: bench.rawPath(id)) == digest, "\(context): raw \(id) differs")
    #expect(records[id]?.sha256 == digest, "\(context): journal digest \(id)")
  }
  let expectedNames = template.recordings.map { "\(bench.device.serial)-\($0.sessionId).opus" }
    .sorted()
  #expect(bench.exportNames() == expectedNames, "\(context)")
  #expect(try await bench.device.recordings().isEmpty, "\(context)")
  let deletes = await bench.device.deleteLog.map(\.sessionId)
  #expect(deletes.sorted() == template.digests.keys.sorted(), "\(context)")
  for id in deletes {
    #expect(
      records[id].map { levels.contains($0.verification) } == true,
      "\(context): deleted unchecked \(id)")
  }
}
