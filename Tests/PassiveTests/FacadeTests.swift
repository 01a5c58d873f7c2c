import Foundation
import HealthProfiles
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import TestSupport
import Testing

/// Issue 17: the seed's controller model as a delegate facade: pair, then read, one
/// operation at a time, a callback per stage.
@Suite("Passive: delegate facade")
struct FacadeTests {
  /// Records every callback as one line.
  final class Delegate: PeripheralControllerDelegate {
    let lines = Locked<[String]>([])

    func peripheralController(
      _ controller: PeripheralControllerFacade, shouldPresentInstructions instructions: String,
      for peripheral: PassivePeripheral
    ) { lines.withLock { $0.append("instructions \(peripheral.identifier): \(instructions)") } }

    func peripheralController(
      _ controller: PeripheralControllerFacade, didPair peripheral: PassivePeripheral
    ) { lines.withLock { $0.append("paired \(peripheral.identifier)") } }

    func peripheralController(
      _ controller: PeripheralControllerFacade, didConnect peripheral: PassivePeripheral
    ) { lines.withLock { $0.append("connected \(peripheral.identifier)") } }

    func peripheralController(
      _ controller: PeripheralControllerFacade, didReceive record: HealthRecord,
      from peripheral: PassivePeripheral
    ) { lines.withLock { $0.append("record \(record.measurement.characteristic.uuidString)") } }

    func peripheralController(
      _ controller: PeripheralControllerFacade, didFail operation: PeripheralOperation,
      error: PassiveError
    ) { lines.withLock { $0.append("failed \(operation): \(error)") } }
  }

  @Test func pairThenReadWithACallbackPerStage() async throws {
    let bench = try PassiveBench([.scale])
    let facade = PeripheralControllerFacade(
      core: PeripheralController(central: bench.central, clock: bench.anyClock))
    let delegate = Delegate()
    facade.delegate = delegate
    var scale = await bench.registration()
    await bench.peripherals[0].powerOn()

    try facade.pair(scale)
    #expect(throws: PassiveError.busy(running: .pair(identifier: scale.identifier))) {
      try facade.read(scale)
    }
    #expect(try await bench.within(.seconds(30)) { delegate.lines.withLock { $0.count } == 3 })
    scale.isPaired = true
    try facade.read(scale)
    #expect(try await bench.within(.seconds(30)) { delegate.lines.withLock { $0.count } == 5 })
    #expect(
      delegate.lines.withLock { $0 } == [
        "instructions \(scale.identifier): \(scale.instructions)",
        "connected \(scale.identifier)", "paired \(scale.identifier)",
        "connected \(scale.identifier)", "record 2A9D",
      ])
  }

  @Test func cancellingTheRunningOperationReportsItAndFreesTheController() async throws {
    let bench = try PassiveBench([.thermometer])
    let facade = PeripheralControllerFacade(
      core: PeripheralController(central: bench.central, clock: bench.anyClock))
    let delegate = Delegate()
    facade.delegate = delegate
    let thermometer = await bench.registration()
    try facade.read(thermometer)  // it is off: the read waits for it
    facade.cancel()
    #expect(try await bench.within(.seconds(5)) { delegate.lines.withLock { $0.count } == 1 })
    #expect(
      delegate.lines.withLock { $0 } == ["failed reading \(thermometer.identifier): cancelled"])
    #expect(facade.core.currentOperation == nil)
  }
}
