import RecorderBluetooth
import RecorderConcurrency
import RecorderCoreBluetooth
import RecorderEmulator
import RecorderProtocol
import TestSupport
import Testing

/// Through the CoreBluetooth translation, an answer reaches the app by way of the system's
/// queue and the link's stream. The emulated device holds the simulated clock until the
/// system side took its notification, the system's queue while it has work, and the app's
/// side (``UnconsumedHoldCentral``) until the app's reader comes back for the next event: a
/// request's timeout must not be jumped to while its answer waits for the app.
@Suite("The app's side of a simulated system radio holds the clock while it handles an event")
struct UnconsumedHoldTests {
  @Test("an answer through CoreBluetoothCentral holds the clock until the app comes back")
  func answerHoldsUntilTheAppComesBack() async throws {
    let bench = try TestBench(autoAdvance: false)
    defer { bench.cleanUp() }
    let clock = AnyClock(bench.clock)
    let system = CoreBluetoothCentral(configuration: .init(clock: clock)) { _, sink in
      EmulatedSystemBluetooth(central: bench.central, clock: bench.clock, sink: sink)
    }
    let central = UnconsumedHoldCentral(system, clock: bench.clock)
    let peripheral = await bench.device.peripheralID
    for await advertisement in central.scan(services: nil)
    where advertisement.peripheral == peripheral {
      break
    }
    let link = try await central.connect(peripheral, timeout: .seconds(10))
    try await link.setNotifications(true, for: RecorderGATT.notifyCharacteristic)
    let phone = Phone(link: link, portVersion: bench.device.configuration.portVersion)
    try await phone.send(.handshake(HandshakeRequest(token: bench.device.configuration.token)))
    // (Waits on the stream, not on `holding`: each look at a hold counts against its
    // patience.)
    var turns = 0
    while link.events.buffered == 0, turns < 100_000 {
      await Task.yield()
      turns += 1
    }
    try #require(link.events.buffered > 0, "the answer never reached the app")
    let name = UnconsumedHoldCentral.hold.name
    #expect(bench.clock.holding.contains(name), "unread: \(bench.clock.holding)")
    _ = try await phone.nextMessage()
    #expect(bench.clock.holding.contains(name), "in the app's hand: \(bench.clock.holding)")
    let events = link.events
    let back = Task {
      var iterator = events.makeAsyncIterator()
      _ = await iterator.next()
    }
    defer { back.cancel() }
    turns = 0
    while events.unconsumed > 0, turns < 100_000 {
      await Task.yield()
      turns += 1
    }
    #expect(!bench.clock.holding.contains(name), "the app came back: \(bench.clock.holding)")
  }
}
