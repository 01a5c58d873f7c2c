import Foundation
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import RecorderStore
import TestSupport
import Testing

/// Issue 12, finding 13: the tail CRC's coverage is unknown (PROTOCOL.md §10). Whichever of
/// the plausible coverages the device uses, files end verified by its CRC, and the coverage
/// is remembered for the firmware.
@Suite("Sync: tail-CRC coverage")
struct SyncCRCCoverageTests {
  @Test(arguments: TailCRCCoverage.allCases)
  func everyPlausibleCoverageVerifies(_ coverage: TailCRCCoverage) async throws {
    let seed: UInt64 = 0xC0FE_0000 &+ UInt64(coverage.rawValue.utf8.count)
    let template = try await SyncFlashTemplate.make(
      seed: seed, durations: [.seconds(4), .seconds(3)])
    defer { template.cleanUp() }
    let bench = try SyncBench(seed: seed, template: template, tailCRCCoverage: coverage)
    defer { bench.cleanUp() }
    // A drop part-way makes the next request start mid-file, where the coverages differ (from
    // offset 0 the request's bytes and the file from 0 are the same bytes).
    let first = try #require(template.recordings.first).size
    await bench.device.setFaults(FaultPlan(dropLinkAfterNotifiedBytes: Int(first) / 2))
    _ = try? await bench.syncOnce(try bench.makeEngine())
    _ = try await bench.syncOnce(try bench.makeEngine())
    let records = try bench.journalRecords()
    for (id, digest) in template.digests {
      // The bytes before the drop passed the framing checks; the CRC covered the rest (and,
      // under file coverage, all of it).
      let level = records[id]?.verification
      #expect(
        level == .verified || (level == .framing && coverage != .fileFromStart),
        "\(coverage): \(id) \(String(describing: level))")
      #expect(sha256(ofFile: bench.rawPath(id)) == digest, "\(coverage): \(id)")
    }
    #expect(await bench.device.deleteLog.count == 2, "\(coverage)")
    let journal = try Journal(path: bench.journalPath)
    let learnt = try journal.read { try $0.crcCoverage(firmware: "V0095") }
    #expect(learnt == coverage.rawValue, "\(coverage)")
  }
}
