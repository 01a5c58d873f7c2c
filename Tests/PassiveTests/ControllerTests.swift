import Foundation
import HealthProfiles
import RecorderBluetooth
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderRemoteLink
import TestSupport
import Testing

/// Issue 17: one operation at a time (busy, cancel), pair then read with instructions, and
/// each emulated profile read in process and over the TCP link.
@Suite("Passive: controller")
struct ControllerTests {
  /// Waits (without sleeping) until the controller runs something.
  static func untilRunning(_ controller: PeripheralController) async {
    while controller.currentOperation == nil { await Task.yield() }
  }

  @Test func aSecondRequestWhileOneRunsIsBusyAndTheRunningOneCanBeCancelled() async throws {
    let bench = try PassiveBench([.thermometer, .pulseOximeter])
    let controller = PeripheralController(central: bench.central, clock: bench.anyClock)
    let thermometer = await bench.registration(0)
    // The thermometer is off: the read waits for it to be heard.
    let running = Task { try await controller.read(thermometer) }
    await Self.untilRunning(controller)
    await #expect(throws: PassiveError.busy(running: .read(identifier: thermometer.identifier))) {
      try await controller.pair(await bench.registration(1))
    }
    await #expect(throws: PassiveError.busy(running: .read(identifier: thermometer.identifier))) {
      _ = try await controller.read(await bench.registration(1))
    }
    controller.cancel()
    let result = await running.result
    #expect(throws: PassiveError.cancelled) { try result.get() }
    #expect(controller.currentOperation == nil)
    // Free again: the other peripheral is read.
    await bench.peripherals[1].powerOn()
    let record = try await controller.read(await bench.registration(1))
    #expect(record.kind == .pulseOximeter)
  }

  @Test func aProfileThatNeedsPairingIsPairedThenRead() async throws {
    let bench = try PassiveBench([.scale])
    let scale = bench.peripherals[0]
    let journal = try bench.journal()
    let registry = PassiveRegistry(journal: journal)
    var registration = await bench.registration()
    #expect(registration.requiresPairing)
    try registry.register(registration)
    let controller = PeripheralController(
      central: bench.central, clock: bench.anyClock, registry: registry)
    await scale.powerOn()
    await #expect(throws: PassiveError.notPaired(identifier: registration.identifier)) {
      _ = try await controller.read(registration)
    }
    let stages = Locked<[PeripheralStage]>([])
    try await controller.pair(registration) { stage in stages.withLock { $0.append(stage) } }
    #expect(
      stages.withLock { $0 } == [
        .pairingInstructions(registration.instructions), .connecting, .connected, .bonding,
        .paired,
      ])
    #expect(await scale.isBonded)
    #expect(try registry.peripheral(registration.identifier)?.isPaired == true)
    registration.isPaired = true
    let record = try await controller.read(registration)
    guard case .weight(let weight) = record.measurement else {
      Issue.record("not a weight: \(record.measurement)")
      return
    }
    #expect(weight.weight?.doubleValue == 70.5)
    #expect(record.peripheral == registration.identifier)
  }

  @Test func theReaderPairsARegisteredMonitorWhenHeardThenReadsIt() async throws {
    let bench = try PassiveBench([.bloodPressure])
    let reader = try PassiveReader(
      journal: try bench.journal(), central: bench.central, clock: bench.anyClock)
    let registration = await bench.registration()
    try await reader.register(registration)
    let collected = Locked<[PassiveEvent]>([])
    let events = Task {
      for await event in reader.events { collected.withLock { $0.append(event) } }
    }
    defer { events.cancel() }
    let run = Task { await reader.run() }
    defer { run.cancel() }
    await bench.peripherals[0].powerOn()
    let recorded = try await bench.within(.seconds(60)) {
      collected.withLock { $0.contains { if case .recorded = $0 { true } else { false } } }
    }
    #expect(recorded)
    let seen = collected.withLock { $0 }
    #expect(seen.count == 4, "\(seen)")
    #expect(seen.first == .restored([]))
    #expect(
      seen.dropFirst().first
        == .pairingInstructions(
          identifier: registration.identifier, instructions: registration.instructions))
    #expect(seen.dropFirst(2).first == .paired(identifier: registration.identifier))
    #expect(try PassiveRegistry(journal: bench.journal()).peripherals().first?.isPaired == true)
    #expect(try bench.pendingOutbox().count == 1)
  }

  /// Every profile's emulated reading decodes with HealthProfiles, in process.
  @Test(arguments: HealthPeripheralKind.allCases)
  func eachProfileIsReadInProcess(kind: HealthPeripheralKind) async throws {
    let bench = try PassiveBench([kind])
    let controller = PeripheralController(central: bench.central, clock: bench.anyClock)
    var registration = await bench.registration()
    await bench.peripherals[0].powerOn()
    if registration.requiresPairing {
      try await controller.pair(registration)
      registration.isPaired = true
    }
    let record = try await controller.read(registration)
    #expect(record.kind == kind)
    #expect(record.measurement.characteristic == kind.measurement)
    #expect(record.measurement.timestamp == HealthReading.defaultTime)
    #expect(await bench.peripherals[0].deliveredReadings == [record.rawValue])
    // One reading per power-on: a second read finds nothing to indicate.
    await #expect(throws: PassiveError.noMeasurement(identifier: registration.identifier)) {
      _ = try await controller.read(registration)
    }
  }

  /// The same over the TCP link (docs/tcp-link.md), on a real clock: bond events, the
  /// refused CCCD write and the indication all cross it.
  @Test func pairAndReadOverTheTCPLink() async throws {
    let time = EmulatorTime.real(.scaled(20))
    let thermometer = EmulatedHealthPeripheral(
      configuration: .init(kind: .thermometer), time: time)
    let monitor = EmulatedHealthPeripheral(
      configuration: .init(kind: .bloodPressure), time: time)
    let server = TCPCentralServer(
      central: CombinedCentral([HealthCentral(peripherals: [thermometer, monitor])]))
    let port = try await server.start()
    defer { server.stop() }
    let central = try TCPCentral(url: "tcp://127.0.0.1:\(port)")
    let controller = PeripheralController(central: central)
    await thermometer.powerOn()
    await monitor.powerOn()
    let plain = PassivePeripheral(
      identifier: await thermometer.address.rawValue, kind: .health(.thermometer))
    let record = try await controller.read(plain)
    #expect(record.measurement.characteristic == .temperatureMeasurement)
    let bonded = PassivePeripheral(
      identifier: await monitor.address.rawValue, kind: .health(.bloodPressure))
    await #expect(throws: PassiveError.notPaired(identifier: bonded.identifier)) {
      _ = try await controller.read(bonded)
    }
    try await controller.pair(bonded)
    let pressure = try await controller.read(bonded)
    guard case .bloodPressure(let value) = pressure.measurement else {
      Issue.record("not a blood pressure: \(pressure.measurement)")
      return
    }
    #expect(value.systolic.description == "121")
  }
}
