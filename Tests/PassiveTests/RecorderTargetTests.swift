import Foundation
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderStore
import TestSupport
import Testing

/// Issue 17: the recorder is a passive target too. When a registered recorder appears, the
/// reader syncs its new recordings with the existing sync (``SessionRecorderSync``), through
/// the same one-operation controller; an unregistered one is left alone.
@Suite("Passive: recorder target")
struct RecorderTargetTests {
  @Test func aRegisteredRecorderThatAppearsIsSynced() async throws {
    let bench = try PassiveBench([])
    let device = try EmulatedDevice(
      configuration: DeviceConfiguration(seed: 0x17), flashDirectory: bench.directory + "/flash",
      time: .manual(bench.clock))
    for seconds in [2, 3] { try await device.addRecording(duration: .seconds(seconds)) }
    let before = try await device.recordings(includingDigests: true)
    let central = EmulatorCentral(device: device)
    let journal = try bench.journal()
    let root = bench.directory + "/root"
    var configuration = DeviceSession.Configuration(token: device.configuration.token)
    configuration.clock = bench.anyClock
    var options = SyncEngine.Options()
    options.format = nil  // raw device bytes only: no encoder in this test
    let sync = SessionRecorderSync(
      central: central, configuration: configuration,
      engine: SyncEngine(journal: journal, root: root, options: options, clock: bench.anyClock))
    let reader = try PassiveReader(
      journal: journal, central: central, clock: bench.anyClock, recorderSync: sync)
    try await reader.register(
      PassivePeripheral(identifier: device.configuration.serial, kind: .recorder))
    let collected = Locked<[PassiveEvent]>([])
    let events = Task {
      for await event in reader.events { collected.withLock { $0.append(event) } }
    }
    defer { events.cancel() }
    let run = Task { await reader.run() }
    defer { run.cancel() }

    let synced = try await bench.within(.seconds(300)) {
      collected.withLock {
        $0.contains(.recorderSynced(serial: device.configuration.serial, files: 2))
      }
    }
    #expect(synced, "\(collected.withLock { $0 })")
    #expect(try await device.recordings().isEmpty, "synced, verified, then deleted")
    let stored = try journal.read { try $0.recordings(serial: device.configuration.serial) }
    #expect(stored.map(\.sessionId) == before.map(\.sessionId.rawValue))
    #expect(stored.allSatisfy { $0.isSafeLocally })
    #expect(stored.map(\.sha256) == before.map(\.sha256))
  }

  @Test func anUnregisteredRecorderIsLeftAlone() async throws {
    let bench = try PassiveBench([])
    let device = try EmulatedDevice(
      configuration: DeviceConfiguration(seed: 0x18), flashDirectory: bench.directory + "/flash",
      time: .manual(bench.clock))
    try await device.addRecording(duration: .seconds(2))
    let central = EmulatorCentral(device: device)
    let journal = try bench.journal()
    struct Refuse: PassiveRecorderSync {
      func syncRecorder(_ device: DiscoveredDevice) async throws -> Int {
        Issue.record("synced an unregistered recorder \(device.serial)")
        return 0
      }
    }
    let reader = try PassiveReader(
      journal: journal, central: central, clock: bench.anyClock, recorderSync: Refuse())
    let run = Task { await reader.run() }
    defer { run.cancel() }
    try await bench.pass(.seconds(30))
    #expect(try await device.recordings().count == 1)
  }
}
