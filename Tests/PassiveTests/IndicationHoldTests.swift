import HealthProfiles
import RecorderBluetooth
import RecorderConcurrency
import RecorderEmulator
import Testing

/// The emulated health peripheral holds a simulated clock while an indication it sent waits
/// unread at the central, so an auto-advance never jumps to the central's measurement timeout
/// past a reading that is already there (the simulation's boundary holds, not the SDK).
@Suite("Emulated health link: an unread indication holds the simulated clock")
struct IndicationHoldTests {
  @Test("held from the indication until the central reads it, and not after a disconnect")
  func unreadIndicationHoldsTheClock() async throws {
    let clock = ManualClock()  // no auto-advance: this test moves time itself
    var configuration = EmulatedHealthPeripheral.Configuration(kind: .thermometer)
    configuration.indicationDelay = .milliseconds(200)
    let thermometer = EmulatedHealthPeripheral(configuration: configuration, time: .manual(clock))
    await thermometer.powerOn()
    let central = HealthCentral(peripherals: [thermometer])
    let measurement = BluetoothUUID(HealthPeripheralKind.thermometer.measurement.uuid)
    let connecting = Task {
      try await central.connect(
        await thermometer.address, services: [await thermometer.serviceUUID],
        timeout: .seconds(5))
    }
    let link = try await connecting.value
    #expect(!clock.isHeld, "nothing is unread before subscribing")
    try await link.setNotifications(true, for: measurement)
    #expect(!clock.isHeld, "nothing is unread before the indication")
    clock.advance(by: .milliseconds(200))
    var turns = 0
    while link.events.buffered == 0, turns < 100_000 {
      await Task.yield()
      turns += 1
    }
    try #require(link.events.buffered == 1, "the indication never arrived")
    #expect(clock.isHeld, "an unread indication must hold the clock")
    var events = link.events.makeAsyncIterator()
    guard case .notification(let characteristic, _)? = await events.next() else {
      Issue.record("expected the indication")
      return
    }
    #expect(characteristic == measurement)
    #expect(!clock.isHeld, "read: the clock may move again")
    await link.disconnect()
    // The disconnect's own event stays unread here: it must not hold the clock.
    #expect(!clock.isHeld)
    #expect(clock.activeHolds["emulator indication unread"] == nil)
  }
}
