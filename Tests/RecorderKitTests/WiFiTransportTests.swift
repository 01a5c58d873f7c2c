import Foundation
import RecorderConcurrency
import RecorderCrypto
import RecorderEmulator
import RecorderProtocol
import RecorderWebSocket
import TestSupport
import Testing

@testable import RecorderKit

/// The device side, scripted by each test, over our own WebSocket client on loopback.
private struct ScriptedWiFiDevice {
  let socket: WebSocketConnection

  func send(_ message: WiFiDeviceMessage, version: UInt8 = 1) async throws {
    try await socket.send(binary: message.encoded(version: version))
  }

  /// The next PDU from the phone and the pduVersion it carried.
  func receiveWithVersion() async throws -> (WiFiPhoneMessage, UInt8) {
    guard case .binary(let bytes) = try await socket.receive() else {
      throw WiFiPDUError.jsonNotAnObject
    }
    let pdu = try WiFiPDU(decoding: bytes)
    return (try WiFiPhoneMessage(pdu), pdu.version)
  }

  func receive() async throws -> WiFiPhoneMessage { try await receiveWithVersion().0 }
}

/// Stops the phone's server while the scripted device reads on, as a WebSocket peer does
/// (RFC 6455 §5.5.1): the device answers the phone's close frame, so the closing handshake
/// ends at once instead of after the phone's close timeout (5 s of real time, counted
/// against `within`'s bound).
private func stop(_ server: WebSocketServer, answering device: ScriptedWiFiDevice) async {
  let answering = Task { while (try? await device.socket.receive()) != nil {} }
  await server.stop()
  await answering.value
}

/// A phone-side server, a connected device and the phone's end of the connection.
private func connectDevice() async throws -> (
  WebSocketServer, ScriptedWiFiDevice, WebSocketConnection
) {
  let server = try WebSocketServer()
  async let device = WebSocketConnection.connect(host: "127.0.0.1", port: server.port)
  var iterator = server.connections.makeAsyncIterator()
  let phone = try #require(await iterator.next())
  return (server, ScriptedWiFiDevice(socket: try await device), phone)
}

private let serial = "888317426911003"
private let configuration = WiFiTransport.Configuration(
  serial: serial, bleToken: DeviceToken("BLETOKEN123")!, unixTime: { 1_775_000_000 })

/// Fails the test rather than hanging it; never paces it (generous: a loaded machine took
/// more than 20 s over a sealed session's set-up).
private func within<T: Sendable>(
  _ seconds: Double = 120, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
  try await withThrowingTaskGroup(of: T?.self) { group in
    group.addTask { try await body() }
    group.addTask {
      try? await Task.sleep(for: .seconds(seconds))
      return nil
    }
    guard let result = try await group.next() ?? nil else {
      group.cancelAll()
      throw CancellationError()
    }
    group.cancelAll()
    return result
  }
}

/// Yields (never sleeps) until `condition` holds, for at most `limit` real seconds.
private func eventually(_ limit: Double = 10, _ condition: @Sendable () -> Bool) async -> Bool {
  let start = ContinuousClock.now
  while ContinuousClock.now - start < .seconds(limit) {
    if condition() { return true }
    await Task.yield()
  }
  return false
}

/// Opens a transport: the device says HELLO with `token` and answers the handshake `status`.
private func open(
  _ device: ScriptedWiFiDevice, _ phone: WebSocketConnection, clock: ManualClock,
  token: String = WiFiTransport.helloToken(serial: serial), status: Int64 = 0
) async throws -> Task<WiFiTransport, any Error> {
  let opening = Task {
    try await WiFiTransport.open(
      connection: phone, configuration: configuration, clock: AnyClock(clock))
  }
  try await device.send(.hello(token: DeviceToken(token)!, protocolVersion: 3), version: 3)
  if token == WiFiTransport.helloToken(serial: serial) {
    let (handshake, version) = try await device.receiveWithVersion()
    #expect(version == 3)  // the device's pduVersion from HELLO
    #expect(
      handshake
        == .handshake(token: DeviceToken("BLETOKEN123000000000000000000000")!, stamp: 1_775_000_000)
    )
    try await device.send(.handshakeResult(status: status))
  }
  return opening
}

@Suite("WiFiTransport: the phone side of §6 against a scripted device", .serialized)
struct WiFiTransportTests {
  @Test func helloTokenIsUpperCaseHexMD5OfTheSerial() {
    #expect(WiFiTransport.helloToken(serial: serial) == "4A62025500822F2FAC0E56B1BB5FCBC4")
    #expect(WiFiTransport.helloToken(serial: "") == "D41D8CD98F00B204E9800998ECF8427E")
  }

  @Test func fullSessionHelloListSyncKeepAliveDeleteStop() async throws {
    try await within {
      let (server, device, phone) = try await connectDevice()
      let clock = ManualClock()
      let transport = try await open(device, phone, clock: clock).value

      try await device.send(.ping(volume: 1, voltage: 2, charging: 0))
      #expect(try await device.receive() == .pong)

      let listing = Task { try await transport.listRecordings() }
      guard case .list(let uid, 0, 0) = try await device.receive() else {
        Issue.record("no LIST request")
        return
      }
      let a: SessionID = 1_700_000_001
      let b: SessionID = 1_700_000_002
      try await device.send(
        .list(
          WiFiListPage(
            uid: uid, count: 2, offset: 0,
            entries: [
              WiFiListEntry(sessionId: a, size: 2000, scene: 2),
              WiFiListEntry(sessionId: b, size: 800, scene: 1),
            ])))
      let recordings = try await listing.value
      #expect(recordings.map(\.sessionId) == [a, b] && recordings[0].scene == 2)

      let content = (0..<2000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
      let frames = Locked<[BulkFrame]>([])
      let streaming = Task {
        try await transport.stream(sessionId: a, start: 100, end: 1100) { frame in
          frames.withLock { $0.append(frame) }
          return .continue
        }
      }
      #expect(try await device.receive() == .sync(session: a, scene: 2, start: 100, end: 1100))
      try await device.send(.syncStatus(session: a, status: 0))
      try await device.send(
        .content(WiFiContent(session: a, offset: 100, last: false, data: Array(content[100..<600])))
      )
      try await device.send(.ping(volume: 1, voltage: 2, charging: 1))
      #expect(try await device.receive() == .pong)  // answered mid-transfer
      try await device.send(
        .content(WiFiContent(session: a, offset: 600, last: true, data: Array(content[600..<1100])))
      )
      let tail = try await streaming.value
      // §6 content has no checksum: the tail only marks the end (crc 0, not a device CRC).
      #expect(tail == SyncTail(sessionId: a, crc: 0))
      #expect(transport.tailCarriesDeviceCRC == false)
      let got = frames.withLock { $0 }
      #expect(got.allSatisfy { $0.sessionId == a })
      #expect(got.map(\.data.count) == [500, 500], "one frame per content PDU")
      var next: UInt32 = 100
      for frame in got {
        #expect(frame.offset == next)
        next += UInt32(frame.data.count)
      }
      #expect(got.flatMap(\.data) == Array(content[100..<1100]))

      // Idle: only the keep-alive sleeps on the clock; its acknowledgement is no error.
      #expect(await eventually { clock.sleeperCount == 1 })
      clock.advance(by: .seconds(30))
      #expect(try await device.receive() == .keepAlive)
      try await device.send(.error(cmd: 16, status: 0))

      let deleting = Task { try await transport.delete(sessionId: a) }
      #expect(try await device.receive() == .delete(session: a, scene: 2))
      try await device.send(.deleteResult(session: a, status: 0))
      try await deleting.value

      let finishing = Task { await transport.finish() }
      #expect(try await device.receive() == .stop(session: a, scene: 2))
      try await device.send(.stopResult(status: 0))
      await finishing.value
      await #expect(throws: WebSocketError.closedByPeer(code: .normalClosure, reason: "")) {
        _ = try await device.receive()
      }
      await #expect(throws: DeviceError.closed) { _ = try await transport.listRecordings() }
      await stop(server, answering: device)
    }
  }

  @Test func wrongHelloTokenIsRefusedAndClosed() async throws {
    try await within {
      let (server, device, phone) = try await connectDevice()
      let opening = try await open(device, phone, clock: ManualClock(), token: "0123456789ABCDEF")
      await #expect(throws: DeviceError.self) { _ = try await opening.value }
      do {
        _ = try await device.receive()
        Issue.record("the connection stayed open")
      } catch let error as WebSocketError {
        #expect(error == .closedByPeer(code: .policyViolation, reason: ""))
      }
      await stop(server, answering: device)
    }
  }

  @Test func refusedHandshakeIsATypedErrorAndCloses() async throws {
    try await within {
      let (server, device, phone) = try await connectDevice()
      let opening = try await open(device, phone, clock: ManualClock(), status: 1)
      await #expect(throws: DeviceError.handshakeRefused(status: 1)) { _ = try await opening.value }
      await #expect(throws: WebSocketError.self) { _ = try await device.receive() }
      await stop(server, answering: device)
    }
  }

  @Test func noHelloTimesOutOnTheClock() async throws {
    try await within {
      let (server, device, phone) = try await connectDevice()
      let clock = ManualClock()
      let opening = Task {
        try await WiFiTransport.open(
          connection: phone, configuration: configuration, clock: AnyClock(clock))
      }
      #expect(await eventually { clock.sleeperCount == 1 })
      clock.advance(by: .seconds(10))
      await #expect(throws: DeviceError.timeout(operation: "HELLO")) { _ = try await opening.value }
      await #expect(throws: WebSocketError.self) { _ = try await device.receive() }
      await stop(server, answering: device)
    }
  }

  @Test func consumerStopSendsSTOPAndReturnsNil() async throws {
    try await within {
      let (server, device, phone) = try await connectDevice()
      let transport = try await open(device, phone, clock: ManualClock()).value
      let streaming = Task {
        try await transport.stream(sessionId: 5, start: 0, end: 1000) { _ in .stop }
      }
      #expect(try await device.receive() == .sync(session: 5, scene: 1, start: 0, end: 1000))
      try await device.send(
        .content(WiFiContent(session: 5, offset: 0, last: false, data: [1, 2, 3])))
      #expect(try await device.receive() == .stop(session: 5, scene: 1))
      try await device.send(.content(WiFiContent(session: 5, offset: 3, last: false, data: [4])))
      try await device.send(.stopResult(status: 0))
      #expect(try await streaming.value == nil)
      let finishing = Task { await transport.finish() }
      #expect(try await device.receive() == .stop(session: 5, scene: 1))
      try await device.send(.stopResult(status: 0))
      await finishing.value
      await stop(server, answering: device)
    }
  }

  @Test func deviceClosingMidStreamIsADisconnect() async throws {
    try await within {
      let (server, device, phone) = try await connectDevice()
      let transport = try await open(device, phone, clock: ManualClock()).value
      let streaming = Task {
        try await transport.stream(sessionId: 5, start: 0, end: 1000) { _ in .continue }
      }
      #expect(try await device.receive() == .sync(session: 5, scene: 1, start: 0, end: 1000))
      try await device.send(.content(WiFiContent(session: 5, offset: 0, last: false, data: [1])))
      await device.socket.close()
      await #expect(throws: DeviceError.disconnected(.remoteTerminated)) {
        _ = try await streaming.value
      }
      await #expect(throws: DeviceError.disconnected(.remoteTerminated)) {
        _ = try await transport.listRecordings()
      }
      await stop(server, answering: device)
    }
  }

  /// Cancelling the caller mid-transfer still ends the session properly: STOP, then 1000.
  @Test func cancelledStreamSendsSTOPAndCloses() async throws {
    try await within {
      let (server, device, phone) = try await connectDevice()
      let transport = try await open(device, phone, clock: ManualClock()).value
      let streaming = Task {
        try await transport.stream(sessionId: 5, start: 0, end: 1000) { _ in .continue }
      }
      #expect(try await device.receive() == .sync(session: 5, scene: 1, start: 0, end: 1000))
      streaming.cancel()
      await #expect(throws: DeviceError.cancelled) { _ = try await streaming.value }
      #expect(try await device.receive() == .stop(session: 5, scene: 1))
      try await device.send(.stopResult(status: 0))
      await #expect(throws: WebSocketError.closedByPeer(code: .normalClosure, reason: "")) {
        _ = try await device.receive()
      }
      await #expect(throws: DeviceError.closed) { _ = try await transport.listRecordings() }
      await stop(server, answering: device)
    }
  }

  @Test func rejectedSyncLeavesTheSessionUsable() async throws {
    try await within {
      let (server, device, phone) = try await connectDevice()
      let transport = try await open(device, phone, clock: ManualClock()).value
      let streaming = Task {
        try await transport.stream(sessionId: 5, start: 0, end: 10) { _ in .continue }
      }
      _ = try await device.receive()
      try await device.send(.syncStatus(session: 5, status: 3))
      await #expect(throws: DeviceError.rejected(operation: "SYNC", status: 3)) {
        _ = try await streaming.value
      }
      let deleting = Task { try await transport.delete(sessionId: 5) }
      #expect(try await device.receive() == .delete(session: 5, scene: 1))
      try await device.send(.deleteResult(session: 5, status: 0))
      try await deleting.value
      let finishing = Task { await transport.finish() }
      #expect(try await device.receive() == .stop(session: 5, scene: 1))
      try await device.send(.stopResult(status: 0))
      await finishing.value
      await stop(server, answering: device)
    }
  }
}

/// Issue 16: Wi-Fi PDUs of a Mode B device are sealed like its BLE frames (PROTOCOL.md §9
/// step 4), with ChaCha20-Poly1305 or AES-256-GCM; the phone learns which from the HELLO.
@Suite("WiFiTransport: sealed PDUs of a Mode B device", .serialized)
struct WiFiTransportModeBTests {
  static let material = SessionKeyMaterial(
    key: Array(0..<32), nonce: Array(100..<112), associatedData: Array(200..<212),
    box: [UInt8](repeating: 0, count: 16))

  /// The device side sealing with `algorithm`, counting its own sequence numbers, and
  /// opening the phone's (which must come 1, 2, 3 … in order).
  fileprivate final class SealedDevice: Sendable {
    let plain: ScriptedWiFiDevice
    let algorithm: AEADAlgorithm
    private let nextSend = Locked<UInt32>(1)
    private let expectedReceive = Locked<UInt32>(1)

    fileprivate init(_ plain: ScriptedWiFiDevice, _ algorithm: AEADAlgorithm) {
      self.plain = plain
      self.algorithm = algorithm
    }

    func sealed(_ message: WiFiDeviceMessage, sequence: UInt32? = nil) throws -> [UInt8] {
      let sequence =
        sequence
        ?? nextSend.withLock { next in
          defer { next += 1 }
          return next
        }
      let material = WiFiTransportModeBTests.material
      return try algorithm.seal(
        ModeB.sequenced(sequence, message.encoded()), key: material.key, nonce: material.nonce,
        authenticating: material.associatedData)
    }

    func send(_ message: WiFiDeviceMessage) async throws {
      try await plain.socket.send(binary: sealed(message))
    }

    func receive() async throws -> WiFiPhoneMessage {
      guard case .binary(let bytes) = try await plain.socket.receive() else {
        throw WiFiPDUError.jsonNotAnObject
      }
      let material = WiFiTransportModeBTests.material
      let (sequence, pdu) = try ModeB.unsequenced(
        algorithm.open(
          bytes, key: material.key, nonce: material.nonce,
          authenticating: material.associatedData))
      let expected = expectedReceive.withLock { next in
        defer { next += 1 }
        return next
      }
      #expect(sequence == expected, "the phone's writes are sealed 1, 2, 3 … in order")
      return try WiFiPhoneMessage(WiFiPDU(decoding: pdu))
    }
  }

  fileprivate func openSealed(
    _ algorithm: AEADAlgorithm
  ) async throws -> (WebSocketServer, SealedDevice, WiFiTransport) {
    let (server, plain, phone) = try await connectDevice()
    let device = SealedDevice(plain, algorithm)
    var sealedConfiguration = configuration
    sealedConfiguration.sealing = WiFiSealing(Self.material)
    let opening = Task {
      try await WiFiTransport.open(
        connection: phone, configuration: sealedConfiguration, clock: AnyClock(ManualClock()))
    }
    try await device.send(
      .hello(token: DeviceToken(WiFiTransport.helloToken(serial: serial))!, protocolVersion: 1))
    #expect(
      try await device.receive()
        == .handshake(token: DeviceToken("BLETOKEN123000000000000000000000")!, stamp: 1_775_000_000)
    )
    try await device.send(.handshakeResult(status: 0))
    return (server, device, try await opening.value)
  }

  @Test(arguments: AEADAlgorithm.allCases)
  func sealedSessionWithEitherAEAD(algorithm: AEADAlgorithm) async throws {
    try await within {
      let (server, device, transport) = try await openSealed(algorithm)
      let listing = Task { try await transport.listRecordings() }
      guard case .list(let uid, 0, 0) = try await device.receive() else {
        Issue.record("no LIST request")
        return
      }
      try await device.send(
        .list(
          WiFiListPage(
            uid: uid, count: 1, offset: 0,
            entries: [WiFiListEntry(sessionId: 1_700_000_001, size: 2000, scene: 1)])))
      #expect(try await listing.value.map(\.sessionId) == [1_700_000_001])
      #expect(await transport.refusedSealedPDUs == 0)
      await stop(server, answering: device.plain)
    }
  }

  @Test("a replayed, a tampered and a plain PDU are dropped and counted, never answered")
  func replayedTamperedAndPlainPDUsAreDropped() async throws {
    try await within {
      let (server, device, transport) = try await openSealed(.aes256GCM)
      let ping = try device.sealed(.ping(volume: 1, voltage: 2, charging: 0))
      try await device.plain.socket.send(binary: ping)
      #expect(try await device.receive() == .pong)
      try await device.plain.socket.send(binary: ping)  // the same sequence number again
      var tampered = try device.sealed(.ping(volume: 1, voltage: 2, charging: 0))
      tampered[tampered.count - 1] ^= 1
      try await device.plain.socket.send(binary: tampered)
      try await device.plain.send(.ping(volume: 1, voltage: 2, charging: 0))  // not sealed
      // Only this one is answered: the three before it were dropped.
      try await device.send(.ping(volume: 9, voltage: 9, charging: 1))
      #expect(try await device.receive() == .pong)
      #expect(await transport.refusedSealedPDUs == 3)
      await stop(server, answering: device.plain)
    }
  }

  /// Issue 43: the CAPABILITY bitmap's bit 3 names the AEAD (§3.1, §6): only that one is
  /// taken. A HELLO sealed with the other is dropped and counted like any PDU that does not
  /// open (it is no longer tried as the other AEAD); the one sealed as named opens the session.
  @Test(
    "the AEAD the CAPABILITY bitmap named is the only one taken: a HELLO sealed with the other is dropped",
    arguments: AEADAlgorithm.allCases)
  func bitmapNamesTheAEAD(named: AEADAlgorithm) async throws {
    let other: AEADAlgorithm = named == .aes256GCM ? .chaCha20Poly1305 : .aes256GCM
    try await within {
      let (server, plain, phone) = try await connectDevice()
      var sealedConfiguration = configuration
      sealedConfiguration.sealing = WiFiSealing(Self.material, cipher: named)
      let opening = Task {
        try await WiFiTransport.open(
          connection: phone, configuration: sealedConfiguration, clock: AnyClock(ManualClock()))
      }
      let hello = WiFiDeviceMessage.hello(
        token: DeviceToken(WiFiTransport.helloToken(serial: serial))!, protocolVersion: 1)
      try await SealedDevice(plain, other).send(hello)
      let device = SealedDevice(plain, named)
      try await device.send(hello)
      #expect(
        try await device.receive()
          == .handshake(
            token: DeviceToken("BLETOKEN123000000000000000000000")!, stamp: 1_775_000_000))
      try await device.send(.handshakeResult(status: 0))
      let transport = try await opening.value
      #expect(await transport.refusedSealedPDUs == 1)
      await stop(server, answering: plain)
    }
  }

  @Test("a plain HELLO where Mode B was agreed is refused: no downgrade, no token sent")
  func plainHelloIsRefused() async throws {
    try await within {
      let (server, device, phone) = try await connectDevice()
      var sealedConfiguration = configuration
      sealedConfiguration.sealing = WiFiSealing(Self.material)
      let opening = Task {
        try await WiFiTransport.open(
          connection: phone, configuration: sealedConfiguration, clock: AnyClock(ManualClock()))
      }
      // Reading at once answers the phone's close (else it waits out the close timeout).
      let deviceSees = Task { try await device.receive() }
      try await device.send(
        .hello(token: DeviceToken(WiFiTransport.helloToken(serial: serial))!, protocolVersion: 1))
      await #expect(
        throws: DeviceError.malformedReply(
          operation: "HELLO",
          reason: "the first PDU does not authenticate under the Mode B session key")
      ) { _ = try await opening.value }
      // Closed without the handshake (which carries the BLE token) ever being sent.
      await #expect(throws: WebSocketError.self) { _ = try await deviceSees.value }
      await stop(server, answering: device)
    }
  }

  @Test("the key never shows in a description or a reflection")
  func sealingIsRedacted() {
    let sealing = WiFiSealing(Self.material)
    var sealedConfiguration = configuration
    sealedConfiguration.sealing = sealing
    for text in [
      "\(sealing)", String(reflecting: sealing), "\(sealedConfiguration)", "\(Self.material)",
    ] {
      // The key (0, 1, 2 …) and nonce (100, 101 …) in any form a print could take.
      for form in [
        "100, 101", "0, 1, 2", "000102030405", "646566676869", "AAECAwQF", "ZGVmZ2hp",
      ] {
        #expect(!text.contains(form), "\(text)")
      }
    }
  }
}
