import Foundation
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import RecorderStore
import TestSupport
import Testing

/// Issue 5, "Utilization" (DESIGN.md invariant 4: the link is never idle by our fault), in
/// virtual time, so deterministic: file bytes ÷ (capacity × virtual time from the first
/// SYNC_START to the last DELETE reply), capacity being the data bytes per second the link
/// model carries at 2M PHY, 15 ms interval, 5 packets per event, 80 data bytes per frame.
///
/// The slow ones: run alone with `--filter SyncUtilization`.
@Suite("Sync utilization", .serialized)
struct SyncUtilizationTests {
  @Test func oneHourRecording() async throws {
    let figure = try await measure(seed: 0x07_1117_0001, durations: [.seconds(3600)])
    #expect(figure.utilization >= 0.95, "seed \(figure.seed): \(figure)")
  }

  @Test func hundredRecordingsOfThirtySeconds() async throws {
    let figure = try await measure(
      seed: 0x07_1117_0100, durations: Array(repeating: .seconds(30), count: 100))
    #expect(figure.utilization >= 0.85, "seed \(figure.seed): \(figure)")
  }

  struct Figure: CustomStringConvertible {
    var seed: UInt64
    var files: Int
    var bytes: Int64
    var capacity: Double
    var virtual: Duration
    var real: Duration
    var utilization: Double { Double(bytes) / (capacity * virtual.seconds) }
    var description: String {
      "\(files) file(s), \(bytes) bytes, capacity \(String(format: "%.1f", capacity)) B/s, "
        + "first SYNC_START → last DELETE reply \(virtual) virtual: utilization "
        + String(format: "%.4f", utilization) + " (real time \(real))"
    }
  }

  private func measure(seed: UInt64, durations: [Duration]) async throws -> Figure {
    let link = LinkParameters(
      connectionInterval: .milliseconds(15), packetsPerConnectionEvent: 5, phy: .le2M)
    let capacity = link.syncThroughput(bytesPerFrame: 80)
    #expect(abs(capacity - 5 * 80 / 0.015) < 1, "capacity \(capacity)")
    let template = try await SyncFlashTemplate.make(seed: seed, durations: durations)
    defer { template.cleanUp() }
    let bench = try SyncBench(seed: seed, template: template, link: link)
    defer { bench.cleanUp() }
    let engine = try bench.makeEngine()
    let clock = bench.clock
    let firstStart = Locked<Duration?>(nil)
    let lastDelete = Locked<Duration?>(nil)
    let watched: @Sendable (BLETransport) -> any RecordingTransport = { base in
      WatchedTransport(
        base: base,
        onStream: { firstStart.withLock { $0 = $0 ?? clock.elapsed } },
        onDeleted: { lastDelete.withLock { $0 = clock.elapsed } })
    }
    let started = ContinuousClock.now
    let report = try await bench.syncOnce(engine, wrap: watched)
    let real = ContinuousClock.now - started
    #expect(report.files.count == durations.count && report.files.allSatisfy(\.deletedFromDevice))
    let from = try #require(firstStart.withLock { $0 })
    let to = try #require(lastDelete.withLock { $0 })
    let figure = Figure(
      seed: seed, files: durations.count, bytes: template.totalBytes, capacity: capacity,
      virtual: to - from, real: real)
    print("utilization: \(figure)")
    return figure
  }
}
