import Foundation
import RecorderBluetooth
import RecorderConcurrency
import RecorderCoreBluetooth
import RecorderEmulator
import RecorderKit
import RecorderStore
import TestSupport
import Testing

@Suite("A sync through CoreBluetoothCentral to an emulated device", .timeLimit(.minutes(2)))
struct CoreBluetoothEmulatorSyncTests {
  @Test("mirror → CoreBluetoothCentral → DeviceSession → emulator: every recording byte-exact")
  func syncByteExact() async throws {
    let seed: UInt64 = 14
    let bench = try RecorderBench("corebt-sync", seed: seed)
    defer { bench.cleanUp() }
    let (clock, device) = (bench.clock, bench.device)
    for seconds in [20, 75, 3] { try await device.addRecording(duration: .seconds(seconds)) }
    let made = try await device.recordings(includingDigests: true)
    let emulator = bench.central
    let mirror = Locked<EmulatedSystemBluetooth?>(nil)
    let system = CoreBluetoothCentral(
      configuration: CoreBluetoothCentral.Configuration(clock: AnyClock(clock))
    ) { _, sink in
      let made = EmulatedSystemBluetooth(central: emulator, clock: clock, sink: sink)
      mirror.withLock { $0 = made }
      return made
    }
    let central = UnconsumedHoldCentral(system, clock: clock)
    clock.startAutoAdvance()

    var configuration = DeviceSession.Configuration(token: device.configuration.token)
    configuration.clock = AnyClock(clock)
    let found = try await RecorderScanner(central: central, clock: AnyClock(clock)).find(
      serial: device.serial, timeout: .seconds(30))
    let session = try await DeviceSession.connect(
      to: found, using: central, configuration: configuration)
    let root = bench.root
    let engine = try bench.makeEngine()
    let report = try await engine.sync(using: BLETransport(session: session))
    await session.close()

    #expect(report.files.count == made.count, "seed \(seed)")
    #expect(report.bytesReceived == made.reduce(0) { $0 + Int64($1.size) }, "seed \(seed)")
    for recording in made {
      let raw = root + "/\(device.serial)/\(recording.sessionId).opus-raw"
      #expect(
        try FileDigest.sha256Hex(ofFile: raw) == recording.sha256,
        "seed \(seed): recording \(recording.sessionId)")
    }
    #expect(try await device.recordings().isEmpty, "seed \(seed): synced files are deleted")
  }
}
