import RecorderBluetooth
import RecorderConcurrency
import RecorderCoreBluetooth
import RecorderEmulator
import Testing

@Suite("CoreBluetoothCentral state restoration", .timeLimit(.minutes(1)))
struct CoreBluetoothRestorationTests {
  let connected = PeripheralID("6F0C1A2B-0000-4000-8000-0000000000A1")
  let pending = PeripheralID("6F0C1A2B-0000-4000-8000-0000000000A2")
  let lost = PeripheralID("6F0C1A2B-0000-4000-8000-0000000000A3")

  func relaunch() -> ScriptedBench {
    ScriptedBench(
      restoreIdentifier: "ai.plaud.recorderkit.central",
      restored: RestoredStateMirror(
        peripherals: [
          .init(peripheral: connected, state: .connected),
          .init(peripheral: pending, state: .connecting),
          .init(peripheral: lost, state: .disconnected),
        ], scanServices: [RecorderGATT.service]))
  }

  @Test("restored links and pending connects are re-attached; a disconnected one is not")
  func reattach() async throws {
    let bench = relaunch()
    #expect(bench.manager.restoreIdentifier == "ai.plaud.recorderkit.central")
    let restored = Task { await bench.central.restoredPeripherals() }
    bench.manager.fire(.didUpdateState(.poweredOn))
    #expect(await restored.value == [connected, pending].sorted { $0.rawValue < $1.rawValue })

    var commands = bench.manager.commands.makeAsyncIterator()
    // The restored link needs no connect, only discovery.
    let first = Task { try await bench.central.connect(connected, timeout: .seconds(5)) }
    await bench.acceptConnect(&commands, peripheral: connected, issued: false)
    #expect(try await first.value.peripheral == connected)

    // The restored pending connect is joined, not issued again; the system completes it.
    let second = Task { try await bench.central.connect(pending, timeout: .seconds(5)) }
    await bench.sleepers(1)
    bench.manager.fire(.didConnect(pending))
    await bench.acceptConnect(&commands, peripheral: pending, issued: false)
    #expect(try await second.value.peripheral == pending)
    #expect(await bench.central.restoredPeripherals() == [])
  }

  @Test("a restored connect that never completes is bounded, and left pending with the system")
  func restoredConnectBound() async throws {
    let bench = relaunch()
    bench.manager.fire(.didUpdateState(.poweredOn))
    var commands = bench.manager.commands.makeAsyncIterator()
    // Even a caller without a timeout is bounded by restoredConnectTimeout.
    let attach = Task {
      try await bench.central.connect(pending, services: RecorderGATT.services, timeout: nil)
    }
    await bench.sleepers(1)
    bench.clock.advance(by: .seconds(10))
    await #expect(throws: LinkError.connectTimeout) { try await attach.value }
    // No cancel was sent: the system may still connect and relaunch the app.
    #expect(await bench.central.restoredPeripherals().contains(pending))
    bench.manager.fire(.didConnect(pending))
    let again = Task { try await bench.central.connect(pending, timeout: .seconds(5)) }
    await bench.acceptConnect(&commands, peripheral: pending, issued: false)
    _ = try await again.value
  }

  @Test("a peripheral lost during restoration is dropped, and a connect waiting on it fails")
  func lostDuringRestoration() async throws {
    let bench = relaunch()
    bench.manager.fire(.didUpdateState(.poweredOn))
    let attach = Task { try await bench.central.connect(pending, timeout: .seconds(5)) }
    await bench.sleepers(1)
    bench.manager.fire(.didFailToConnect(pending, .central(6)))
    await #expect(throws: LinkError.disconnected(.linkLoss)) { try await attach.value }
    // The restored link drops before anyone attached to it.
    bench.manager.fire(.didDisconnect(connected, .central(7)))
    #expect(await bench.central.restoredPeripherals() == [])
  }
}
