import HealthProfiles
import RecorderBluetooth
import RecorderConcurrency
import RecorderEmulator
import Testing

/// A scan of emulated peripherals holds a simulated clock from the moment an advertisement is
/// published until the scanner comes back for the next one. Without it, a simulation jumps
/// seconds ahead while the scanner is still on its way to an advertisement, and a steady
/// advertiser looks silent: a passive reader's cooldown then ends and the same reading is
/// read twice.
@Suite("Emulated scan: an unread advertisement holds the simulated clock")
struct ScanHoldTests {
  @Test("held from each advertisement until the scanner asks for the next, released at the end")
  func unreadAdvertisementHoldsTheClock() async throws {
    let clock = ManualClock()  // no auto-advance: this test moves time itself
    let thermometer = EmulatedHealthPeripheral(
      configuration: .init(kind: .thermometer), time: .manual(clock))
    await thermometer.powerOn()
    let central = HealthCentral(peripherals: [thermometer])
    let scan = central.scan(services: nil)
    var advertisements = scan.makeAsyncIterator()
    // The scan's start holds until the thermometer was asked; its current advertisement then
    // holds until it is read.
    #expect(clock.holding.contains("emulator scan unread"), "the scan's start must hold")
    #expect(await advertisements.next() != nil)
    #expect(clock.isHeld, "the scanner has not come back: the clock must hold")
    // Coming back for the next one releases it: the next advertisement is a second away.
    let next = Task { [advertisements] in
      var advertisements = advertisements
      return await advertisements.next()
    }
    var turns = 0
    while clock.isHeld, turns < 100_000 {
      await Task.yield()
      turns += 1
    }
    #expect(!clock.isHeld, "waiting for the next advertisement must not hold the clock")
    clock.advance(by: .seconds(1))
    #expect(await next.value != nil)
    #expect(clock.isHeld, "the second advertisement is unread until the scanner comes back")
    next.cancel()
    _ = consume scan
  }

  @Test("a scan the scanner lets go releases the clock")
  func endedScanReleasesTheClock() async throws {
    let clock = ManualClock()
    let thermometer = EmulatedHealthPeripheral(
      configuration: .init(kind: .thermometer), time: .manual(clock))
    await thermometer.powerOn()
    let central = HealthCentral(peripherals: [thermometer])
    let reader = Task {
      for await _ in central.scan(services: nil) { return true }
      return false
    }
    #expect(await reader.value)
    #expect(!clock.isHeld, "a scan nobody reads any more must not hold the clock")
  }
}
