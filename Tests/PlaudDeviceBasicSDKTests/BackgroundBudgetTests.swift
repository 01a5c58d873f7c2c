import Foundation
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import TestSupport
import Testing

@Suite("BackgroundBudget: expiry stops a multi-file sync within 1 s, checkpoint committed")
struct BackgroundBudgetTests {
  /// SplitMix64, so the 30 moments are the same on every run.
  struct Moments {
    var random: SplitMix64
    mutating func next(in range: ClosedRange<Double>) -> Double {
      range.lowerBound + random.nextUnit() * (range.upperBound - range.lowerBound)
    }
  }

  @Test("30 seeded expiry moments: each stop ≤ 1 s virtual, checkpoint on disk, exact end state")
  func thirtyExpiries() async throws {
    var moments = Moments(random: SplitMix64(seed: 2026))
    var latencies: [Double] = []
    let started = ContinuousClock.now
    for round in 0..<30 {
      let moment = moments.next(in: 0.2...9.0)
      latencies.append(try await expire(at: .seconds(moment), round: round))
    }
    let real = ContinuousClock.now - started
    print(
      "budget expiry: 30 stops, latency max \(latencies.max() ?? 0) s, mean "
        + "\(latencies.reduce(0, +) / Double(latencies.count)) s virtual; \(real) real")
    #expect(latencies.allSatisfy { $0 <= 1.0 })
  }

  private func expire(at moment: Duration, round: Int) async throws -> Double {
    let clock = ManualClock()
    let directory = NSTemporaryDirectory() + "plaud-budget-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let device = try EmulatedDevice(
      configuration: DeviceConfiguration(seed: UInt64(round + 1)),
      flashDirectory: directory + "/flash",
      time: .manual(clock))
    for seconds in [20.0, 25, 15, 20] { try await device.addRecording(duration: .seconds(seconds)) }
    let digests = Dictionary(
      uniqueKeysWithValues: try await device.recordings(includingDigests: true).map {
        ($0.sessionId, $0.sha256 ?? "")
      })
    let central = EmulatorCentral(device: device)
    clock.startAutoAdvance()
    defer { clock.stopAutoAdvance() }
    let anyClock = AnyClock(clock)
    let workspace = try SyncWorkspace(root: directory + "/store")
    var configuration = DeviceSession.Configuration(token: DeviceConfiguration.exampleToken)
    configuration.clock = anyClock
    let sessionConfiguration = configuration

    @Sendable func connect() async throws -> DeviceSession {
      let found = try await RecorderScanner(central: central, clock: anyClock).find(
        serial: device.serial, timeout: .seconds(10))
      return try await DeviceSession.connect(
        to: found, using: central, configuration: sessionConfiguration)
    }

    // The first background window: the OS takes the time back at `moment`.
    let budget = BackgroundBudget(clock: anyClock)
    let session = try await connect()
    let engine = workspace.makeEngine(
      format: .mp3, exportDirectory: directory + "/exports", deleteFromDevice: true, clock: anyClock
    )
    let grantedAt = clock.elapsed
    let run = await budget.run(granted: moment) {
      try await engine.sync(using: BLETransport(session: session))
    }
    let latency = try #require(
      run.stopLatency, "round \(round): the sync finished before \(moment)")
    // The timer sees the deadline at the first clock event at or after it.
    #expect(run.expiredAt.map { $0 - grantedAt >= moment } == true)
    #expect(latency <= .seconds(1), "round \(round): stopped \(latency) after expiry")
    // The checkpoint is committed: the journal's durable bytes are on disk.
    for checkpoint in try workspace.checkpoints(serial: device.serial)
    where checkpoint.stage == .transferring {
      let onDisk =
        (try? FileManager.default.attributesOfItem(atPath: checkpoint.partialPath)[.size])
        as? Int64 ?? 0
      #expect(onDisk >= checkpoint.durableBytes, "round \(round)")
      #expect(checkpoint.durableBytes % 80 == 0 || checkpoint.durableBytes == onDisk)
    }
    await session.close()

    // The next wake-up: resume, finish, exact end state.
    let again = try await connect()
    let resumed = await budget.run(granted: nil) {
      try await workspace.makeEngine(
        format: .mp3, exportDirectory: directory + "/exports", deleteFromDevice: true,
        clock: anyClock
      ).sync(using: BLETransport(session: again))
    }
    _ = try resumed.result.get()
    await again.close()
    #expect(try await device.recordings().isEmpty)
    let checkpoints = try workspace.checkpoints(serial: device.serial)
    #expect(checkpoints.count == 4)
    for checkpoint in checkpoints {
      #expect(checkpoint.stage == .deletedFromDevice)
      #expect(checkpoint.sha256 == digests[checkpoint.sessionId])
    }
    let exports = try FileManager.default.contentsOfDirectory(atPath: directory + "/exports")
      .sorted()
    #expect(exports == digests.keys.sorted().map { "\(device.serial)-\($0).mp3" }.sorted())
    return latency.seconds
  }
}
