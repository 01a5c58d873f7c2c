import Foundation
import HealthProfiles
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import TestSupport
import Testing

/// Issue 39, item 7: a gateway runs for months, so what the reader holds must not grow with
/// the number of readings. Peripherals power on, are read, power off and stay quiet past the
/// cooldown, again and again, in virtual time.
@Suite("Passive: what a long run holds")
struct RunBoundsTests {
  static let cycles = 12

  /// Records the reader committed (its `onRecord`), waited for in real time: a commit is
  /// real work (SQLite, fsync) that the auto-advancing virtual clock does not wait for, so a
  /// virtual-time bound on it fails on a busy machine.
  final class Commits: Sendable {
    private let counts: AsyncStream<Int>
    private let state: Locked<(count: Int, continuation: AsyncStream<Int>.Continuation)>

    init() {
      let (counts, continuation) = AsyncStream.makeStream(
        of: Int.self, bufferingPolicy: .bufferingNewest(1))
      self.counts = counts
      state = Locked((0, continuation))
    }

    var onRecord: @Sendable (HealthRecord) -> Void {
      { [state] _ in
        state.withLock { state in
          state.count += 1
          state.continuation.yield(state.count)
        }
      }
    }

    /// Returns once `target` records were committed; throws `TimedOut` after 120 s.
    func wait(for target: Int) async throws {
      try await withTimeout(120) { [counts] in
        for await count in counts where count >= target { return }
      }
    }
  }

  static func reader(
    _ bench: PassiveBench, _ commits: Commits, options: PassiveReader.Options = .init()
  ) async throws -> (PassiveReader, Task<Void, Never>) {
    let reader = try PassiveReader(
      journal: try bench.journal(), central: bench.central, clock: bench.anyClock,
      options: options, onRecord: commits.onRecord)
    for index in bench.peripherals.indices {
      try await reader.register(await bench.registration(index))
    }
    return (reader, Task { await reader.run() })
  }

  @Test func whatTheReaderHoldsDoesNotGrowWithTheReadings() async throws {
    let bench = try PassiveBench([.thermometer, .scale])
    let commits = Commits()
    let (reader, task) = try await Self.reader(bench, commits)
    defer { task.cancel() }
    var samples: [PassiveHoldings] = []
    for cycle in 1...Self.cycles {
      for peripheral in bench.peripherals { await peripheral.powerOn() }
      // Committed, so each cooldown began before the power-off.
      try await commits.wait(for: cycle * bench.peripherals.count)
      for peripheral in bench.peripherals { await peripheral.powerOff() }
      try await bench.pass(.seconds(20))  // quiet past the 15 s cooldown
      samples.append(await reader.holdings)
    }
    #expect(try bench.pendingOutbox().count == Self.cycles * bench.peripherals.count)
    // One scan and one worker, however many readings.
    #expect(samples.map(\.runTasks).allSatisfy { $0 <= 2 }, "\(samples.map(\.runTasks))")
    #expect(samples.allSatisfy { $0.cooldownEntries <= bench.peripherals.count })
    // A retry entry only after a failure (a busy machine), one per peripheral at most.
    #expect(samples.allSatisfy { $0.retryEntries <= bench.peripherals.count })
    #expect(samples.allSatisfy { $0.discoveries == 0 })
    task.cancel()
    await task.value
    #expect(await reader.holdings.runTasks == 0)
  }

  @Test func eventsNobodyReadsAreKeptUpToTheBuffer() async throws {
    let bench = try PassiveBench([.thermometer])
    let thermometer = bench.peripherals[0]
    let commits = Commits()
    var options = PassiveReader.Options()
    options.eventBuffer = 2
    let (reader, task) = try await Self.reader(bench, commits, options: options)
    defer { task.cancel() }
    // Restored, then three readings, and nobody listening.
    for reading in 1...3 {
      await thermometer.powerOn()
      try await commits.wait(for: reading)  // its event came first
      await thermometer.powerOff()
      try await bench.pass(.seconds(20))
    }
    // Two are buffered, so both arrive at once: the newest two.
    var iterator = reader.events.makeAsyncIterator()
    var kept: [PassiveEvent] = []
    for _ in 0..<2 { kept += [await iterator.next()].compactMap { $0 } }
    let keys = try bench.pendingOutbox().map(\.idempotencyKey)
    let recorded = kept.compactMap { event -> String? in
      guard case .recorded(let record) = event else { return nil }
      return record.idempotencyKey
    }
    #expect(recorded == Array(keys.suffix(2)), "\(kept)")
  }

  @Test func uploadEventsNobodyReadsAreKeptUpToTheBuffer() async throws {
    let bench = try PassiveBench([])
    let journal = try bench.journal()
    var options = RecordUploader.Options(endpoint: try #require(URL(string: "http://records")))
    options.eventBuffer = 2
    let uploader = RecordUploader(
      journal: journal, options: options, poster: EndpointModel(), clock: bench.anyClock)
    let keys = ["k1", "k2", "k3"]
    for key in keys {
      try journal.write { _ = try $0.enqueueOutbox(idempotencyKey: key, body: Array("{}".utf8)) }
    }
    #expect(await uploader.uploadPending().delivered == keys)
    var iterator = uploader.events.makeAsyncIterator()
    var kept: [UploadEvent] = []
    for _ in 0..<2 { kept += [await iterator.next()].compactMap { $0 } }
    #expect(kept == [.delivered(idempotencyKey: "k2"), .delivered(idempotencyKey: "k3")])
  }

  @Test func anUnregisteredPeripheralLeavesNothingBehind() async throws {
    let bench = try PassiveBench([.thermometer])
    let thermometer = bench.peripherals[0]
    let commits = Commits()
    let (reader, task) = try await Self.reader(bench, commits)
    defer { task.cancel() }
    await thermometer.powerOn()
    try await commits.wait(for: 1)  // committed after its cooldown began
    #expect(await reader.holdings.cooldownEntries == 1)
    try await reader.unregister(await thermometer.address.rawValue)
    #expect(await reader.holdings.cooldownEntries == 0)
  }
}
