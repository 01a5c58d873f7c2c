import RecorderBluetooth
import RecorderConcurrency
import RecorderEmulator
import RecorderProtocol
import TestSupport
import Testing

/// While it is the central's turn to write, the emulated link holds a simulated clock: from
/// the connection until the first write, and from a Mode B key exchange message until the
/// answer. The central's work in between takes real time only, so the device's
/// authentication timer must not be jumped to (the simulation's boundary holds, not the SDK).
@Suite("Emulated link: the central's turn holds the simulated clock")
struct CentralTurnHoldTests {
  static let setUp = "emulator set-up grace"
  static let keyExchange = "emulator key exchange"
  static let unread = "emulator unread events"

  @Test("from the connection until the central's first write")
  func setUpHoldsUntilTheFirstWrite() async throws {
    let bench = try TestBench(autoAdvance: false)
    defer { bench.cleanUp() }
    let phone = try await bench.connectPhone()
    #expect(bench.clock.activeHolds[Self.setUp] == 1, "\(bench.clock.activeHolds)")
    try await phone.send(.handshake(HandshakeRequest(token: bench.device.configuration.token)))
    #expect(bench.clock.activeHolds[Self.setUp] == nil, "\(bench.clock.activeHolds)")
  }

  @Test("from a Mode B key exchange message until the central's answer")
  func keyExchangeHoldsUntilTheAnswer() async throws {
    let bench = try TestBench(
      configuration: DeviceConfiguration(portVersion: ProtocolDefaults.modeBPortVersion),
      autoAdvance: false)
    defer { bench.cleanUp() }
    let phone = try await bench.connectPhone()
    // The serial signature: the device holds no user key yet, so it asks for one (FE11).
    for chunk in PreHandshakeChunk.chunks(type: ModeB.signatureType, payload: [1, 2, 3]) {
      try await phone.sendRaw(chunk.encoded)
    }
    guard case .preHandshake(let asked) = try await phone.nextFrame() else {
      Issue.record("expected the device's FE11")
      return
    }
    #expect(asked.type == ModeB.wantsUserKeyType)
    #expect(bench.clock.activeHolds[Self.keyExchange] == 1, "\(bench.clock.activeHolds)")
    // Any write is the central's answer; the link's end would release it too.
    try await phone.sendRaw([0x01, 0x00, 0x00])
    #expect(bench.clock.activeHolds[Self.keyExchange] == nil, "\(bench.clock.activeHolds)")
    _ = await phone.disconnectAndDrain()
    #expect(bench.clock.activeHolds[Self.setUp] == nil)
  }

  @Test("while notifications wait at the central, read or not, until it comes back for more")
  func unreadNotificationsHoldTheClock() async throws {
    let bench = try TestBench(autoAdvance: false)
    defer { bench.cleanUp() }
    let phone = try await bench.connectPhone()
    try await phone.send(.handshake(HandshakeRequest(token: bench.device.configuration.token)))
    var turns = 0
    while phone.link.events.buffered == 0, turns < 100_000 {
      await Task.yield()
      turns += 1
    }
    try #require(phone.link.events.buffered > 0, "the reply never arrived")
    #expect(bench.clock.holding.contains(Self.unread), "\(bench.clock.holding)")
    _ = try await phone.nextMessage()
    #expect(phone.link.events.buffered == 0)
    // The reply is in the central's hand: its handling takes no simulated time either.
    #expect(bench.clock.holding.contains(Self.unread), "\(bench.clock.holding)")
    // The central comes back for the next event: it is done with the reply.
    let events = phone.link.events
    let back = Task {
      var iterator = events.makeAsyncIterator()
      _ = await iterator.next()
    }
    defer { back.cancel() }
    // (Waits on the stream, not on `holding`: each look at a hold counts against its
    // patience.)
    turns = 0
    while events.unconsumed > 0, turns < 100_000 {
      await Task.yield()
      turns += 1
    }
    #expect(!bench.clock.holding.contains(Self.unread), "\(bench.clock.holding)")
  }
}
