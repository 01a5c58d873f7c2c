import Foundation
import RecorderBluetooth
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import RecorderRemoteLink
import RecorderTesting
import RecorderWebSocket
import TestSupport
import Testing

/// An emulated device with Wi-Fi, the SDK's BLE session to it (in process, virtual time) and
/// its join port. The Wi-Fi side runs on real TCP and the phone's side of it on ``clock``, as
/// its BLE side does; the device's idle timer on ``wifiClock``, advanced only by the test.
struct WiFiBench {
  let clock = ManualClock()
  let wifiClock = ManualClock()
  let device: EmulatedDevice
  let central: EmulatorCentral
  let directory: String
  let joinServer: HotspotJoinServer

  init(
    supportWifi: UInt8 = 1, chunkBytes: Int = 16 << 10, pageEntries: Int = 100,
    pingInterval: Duration? = nil, hotspotStartupDelay: Duration = .zero,
    refusesJoinWhileActive: Bool = false, contentBytesPerSecond: Int? = 1_000_000
  ) throws {
    directory = NSTemporaryDirectory() + "emulator-wifi-\(UUID().uuidString)"
    // No start-up delay unless a test is about it: these tests join on real time while the
    // device runs on a manual clock.
    let wifi = WiFiParameters(
      clock: AnyClock(wifiClock), contentChunkBytes: chunkBytes, listPageEntries: pageEntries,
      pingInterval: pingInterval, hotspotStartupDelay: hotspotStartupDelay)
    var configured = wifi
    configured.refusesJoinWhileActive = refusesJoinWhileActive
    configured.contentBytesPerSecond = contentBytesPerSecond
    device = try EmulatedDevice(
      configuration: DeviceConfiguration(supportWifi: supportWifi, wifi: configured),
      flashDirectory: directory, time: .manual(clock))
    central = EmulatorCentral(device: device)
    let device = self.device
    joinServer = try HotspotJoinServer { await device.joinHotspot($0) }
    clock.startAutoAdvance()
  }

  /// The §4 session over the in-process BLE link (no scanner: the first advert will do).
  func bleSession() async throws -> DeviceSession {
    var found: DiscoveredDevice?
    for await advertisement in central.scan(services: [RecorderGATT.service]) {
      found = RecorderScanner.recognise(advertisement)
      if found != nil { break }
    }
    var configuration = DeviceSession.Configuration(token: DeviceConfiguration.exampleToken)
    configuration.clock = AnyClock(clock)
    configuration.unixTime = { 1_775_395_281 }
    configuration.timeZoneSeconds = { 3 * 3600 }
    return try await DeviceSession.connect(
      to: try #require(found), using: central, configuration: configuration)
  }

  /// The phone's §6 session settings: the right BLE token unless told otherwise, no
  /// keep-alive (tests are short and the idle timer is the test's to drive).
  func sessionConfiguration(token: DeviceToken = DeviceConfiguration.exampleToken)
    -> WiFiTransport.Configuration
  {
    WiFiTransport.Configuration(
      serial: device.serial, bleToken: token, keepAliveInterval: nil,
      unixTime: { 1_775_395_281 })
  }

  /// WiFiLink over the join port, on loopback, on the bench's clock.
  func link(to hotspot: DeviceHotspot, token: DeviceToken = DeviceConfiguration.exampleToken)
    async throws(DeviceError) -> WiFiLink
  {
    try await WiFiLink.connect(
      to: hotspot, joiner: TCPHotspotJoiner(port: joinServer.port),
      session: sessionConfiguration(token: token),
      configuration: WiFiLink.Configuration(
        host: "127.0.0.1", port: 0, connectTimeout: .seconds(10)), clock: AnyClock(clock))
  }

  /// The bytes of a recording on the emulated flash.
  func flashBytes(_ sessionId: SessionID) async throws -> [UInt8] {
    let info = try #require(try await device.recordings().first { $0.sessionId == sessionId })
    return [UInt8](try Data(contentsOf: URL(fileURLWithPath: info.path)))
  }

  func cleanUp() {
    joinServer.stop()
    clock.stopAutoAdvance()
    try? FileManager.default.removeItem(atPath: directory)
  }
}

/// The phone side played by hand: our WebSocket server, a JOIN, HELLO and handshake, so a
/// test can see close codes and send bytes WiFiTransport never would.
struct RawWiFiPhone {
  let server: WebSocketServer
  let connection: WebSocketConnection

  static func join(_ bench: WiFiBench, hotspot: DeviceHotspot) async throws -> RawWiFiPhone {
    let server = try WebSocketServer(host: "127.0.0.1", port: 0)
    try await HotspotJoinClient.join(
      host: "127.0.0.1", port: bench.joinServer.port, ssid: hotspot.ssid,
      password: hotspot.password, serverPort: server.port)
    let connection = try await withHangGuard {
      for await connection in server.connections { return connection }
      throw TestFailure("the server stopped")
    }
    let phone = RawWiFiPhone(server: server, connection: connection)
    guard case .hello(let token, let version) = try await phone.next() else {
      throw TestFailure("the first PDU is not HELLO")
    }
    #expect(token.revealed == WiFiTransport.helloToken(serial: bench.device.serial))
    #expect(version == 1)
    try await phone.send(.handshake(token: DeviceConfiguration.exampleToken, stamp: 1))
    #expect(try await phone.next() == .handshakeResult(status: 0))
    return phone
  }

  func send(_ message: WiFiPhoneMessage) async throws {
    try await connection.send(binary: try message.encoded())
  }

  func next() async throws -> WiFiDeviceMessage {
    let connection = self.connection
    return try await withHangGuard {
      guard case .binary(let bytes) = try await connection.receive() else {
        throw TestFailure("a text message")
      }
      return try WiFiDeviceMessage(decoding: bytes)
    }
  }

  /// Reads content PDUs (nothing else may come between them) until `count` bytes came, the
  /// last of them flagged `last` or not.
  func content(upTo count: Int, last: Bool = false) async throws -> [UInt8] {
    var bytes: [UInt8] = []
    while bytes.count < count {
      guard case .content(let content) = try await next() else {
        throw TestFailure("not content after \(bytes.count) of \(count) bytes")
      }
      bytes += content.data
      let isLast = bytes.count >= count
      guard content.last == (isLast && last) else {
        throw TestFailure("last is \(content.last) after \(bytes.count) of \(count) bytes")
      }
    }
    guard bytes.count == count else { throw TestFailure("\(bytes.count) bytes, not \(count)") }
    return bytes
  }

  /// The close code the device ended the connection with (draining messages until then).
  func closeCode() async throws -> WebSocketCloseCode? {
    let connection = self.connection
    return try await withHangGuard {
      while true {
        do throws(WebSocketError) {
          _ = try await connection.receive()
        } catch {
          if case .closedByPeer(let code, _) = error { return code }
          return nil
        }
      }
    }
  }

  func stop() async {
    await connection.close()
    await server.stop()
  }
}

/// Runs `body`, failing instead of hanging after `limit` of real time.
func withHangGuard<T: Sendable>(
  _ limit: Duration = .seconds(10), _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
  try await withThrowingTaskGroup(of: T?.self) { group in
    group.addTask { try await body() }
    group.addTask {
      try await Task.sleep(for: limit)
      return nil
    }
    defer { group.cancelAll() }
    guard let first = try await group.next(), let value = first else {
      throw TestFailure("no result within \(limit)")
    }
    return value
  }
}

/// Waits (yielding, never sleeping) until `condition` holds; false after `limit` real time.
func eventually(_ limit: Duration = .seconds(10), _ condition: () async -> Bool) async -> Bool {
  let deadline = ContinuousClock.now + limit
  while ContinuousClock.now < deadline {
    if await condition() { return true }
    await Task.yield()
  }
  return await condition()
}

/// Collects streamed frames from a `@Sendable` callback.
final class ByteSink: Sendable {
  private let state = Locked<(bytes: [UInt8], next: UInt32?)>(([], nil))

  /// Appends a frame; `.stop` when it is not contiguous with the last.
  func take(_ frame: BulkFrame) -> StreamDecision {
    state.withLock { state in
      if let next = state.next, next != frame.offset { return .stop }
      state.bytes += frame.data
      state.next = frame.offset + UInt32(frame.data.count)
      return .continue
    }
  }

  var bytes: [UInt8] { state.withLock { $0.bytes } }
}

@Suite("The emulator's Wi-Fi side (PROTOCOL.md §6) against the SDK over real TCP")
struct EmulatorWiFiTests {
  @Test("WIFI_OPEN raises PLAUD+last 4 with the serial's last 8 (or the given password)")
  func openReportsHotspot() async throws {
    let bench = try WiFiBench()
    defer { bench.cleanUp() }
    let session = try await bench.bleSession()
    let hotspot = try await session.openWiFi()
    #expect(hotspot == DeviceHotspot(ssid: "PLAUD0123", password: "67890123"))
    #expect(await bench.device.hotspotSSID == "PLAUD0123")
    let again = try await session.openWiFi(password: "secret99")
    #expect(again.password == "secret99")
    try await session.closeWiFi()
    #expect(await bench.device.hotspotSSID == nil)
    await session.close()
  }

  @Test("a device without Wi-Fi, or one whose hotspot fails, answers WIFI_OPEN with status 1")
  func openRefused() async throws {
    let plain = try TestBench(configuration: DeviceConfiguration(supportWifi: 0))
    defer { plain.cleanUp() }
    let phone = try await plain.authenticatedPhone()
    let reply = try await phone.request(.wifiOpen(WiFiOpenRequest(forOta: 0)))
    #expect(reply == .wifiOpen(WiFiOpenResponse(status: 1)))
    #expect(await plain.device.hotspotSSID == nil)

    let bench = try WiFiBench()
    defer { bench.cleanUp() }
    await bench.device.setFaults(FaultPlan(refuseWiFiOpen: true))
    let session = try await bench.bleSession()
    await #expect(throws: DeviceError.self) { try await session.openWiFi() }
    await session.close()
  }

  @Test("LIST over Wi-Fi (paged) equals BLE LIST")
  func listMatchesBLE() async throws {
    let bench = try WiFiBench(pageEntries: 2)
    defer { bench.cleanUp() }
    for (index, seconds) in [3, 5, 2, 4, 6].enumerated() {
      try await bench.device.addRecording(
        duration: .seconds(seconds), scene: index == 2 ? 7 : 1,
        sessionId: SessionID(1_775_000_000 + UInt32(index) * 100))
    }
    let session = try await bench.bleSession()
    let viaBLE = try await session.listRecordings()
    let link = try await bench.link(to: try await session.openWiFi())
    let viaWiFi = try await link.transport.listRecordings()
    #expect(viaWiFi.count == 5)
    #expect(viaWiFi.map(\.sessionId) == viaBLE.map(\.sessionId))
    #expect(viaWiFi.map(\.size) == viaBLE.map(\.size))
    #expect(viaWiFi.map(\.scene) == viaBLE.map(\.scene))
    #expect(await bench.device.counters.wifiSessions == 1)
    let hotspot = link.hotspot
    // A join while the session is alive is already joined (idempotent), not refused: the
    // device keeps serving this session and goes to port 9 (where nothing listens) after it.
    try await HotspotJoinClient.join(
      host: "127.0.0.1", port: bench.joinServer.port, ssid: hotspot.ssid,
      password: hotspot.password, serverPort: 9)
    #expect(await bench.device.counters.wifiJoinsWhileActive == 1)
    #expect(await bench.device.counters.wifiSessions == 1)
    #expect(try await link.transport.listRecordings().count == 5)
    await link.close()
    // A phone that closed may join again at once.
    let again = try await bench.link(to: hotspot)
    #expect(try await again.transport.listRecordings().map(\.sessionId) == viaBLE.map(\.sessionId))
    await again.close()
    // This link's session, the one to port 9 (over at once), the second link's.
    #expect(await bench.device.counters.wifiSessions == 3)
    #expect(await bench.device.counters.wifiJoinsRefused == 0)
    await session.close()
  }

  @Test("a phone's close returns once the device heard it: the session is over, a join is fresh")
  func closeIsHeardBeforeItReturns() async throws {
    let bench = try WiFiBench()
    defer { bench.cleanUp() }
    let session = try await bench.bleSession()
    let hotspot = try await session.openWiFi()
    for round in 1...5 {
      let link = try await bench.link(to: hotspot)
      _ = try await link.transport.listRecordings()
      await link.close()
      // No waiting: the close handshake is complete when close() returns, so the device's
      // session is over and the next join starts a new one at once.
      #expect(await !bench.device.hasWiFiSession, "round \(round)")
    }
    #expect(await bench.device.counters.wifiSessions == 5)
    #expect(await bench.device.counters.wifiJoinsWhileActive == 0)
    await session.close()
  }

  @Test("a join while a session is alive is already joined: the device comes once it is free")
  func joinWhileActiveIsJoined() async throws {
    let bench = try WiFiBench()
    defer { bench.cleanUp() }
    let session = try await bench.bleSession()
    let hotspot = try await session.openWiFi()
    // The first session stays up (a phone whose earlier attempt is still connected).
    let first = try await RawWiFiPhone.join(bench, hotspot: hotspot)
    let second = Task { try await bench.link(to: hotspot) }
    // The second join is accepted, not refused; the device serves its server only once
    // the first session has ended.
    #expect(await eventually { await bench.device.counters.wifiJoinsWhileActive == 1 })
    #expect(await bench.device.counters.wifiSessions == 1)
    #expect(await bench.device.counters.wifiJoinsRefused == 0)
    await first.stop()
    let link = try await withHangGuard { try await second.value }
    #expect(try await link.transport.listRecordings().isEmpty)
    #expect(await bench.device.counters.wifiSessions == 2)
    await link.close()
    await session.close()
  }

  @Test(
    "a device that refuses a join while a session is alive: WiFiSession joins again once it is free"
  )
  func joinWhileActiveRefusedIsRetried() async throws {
    let bench = try WiFiBench(refusesJoinWhileActive: true)
    defer { bench.cleanUp() }
    let session = try await bench.bleSession()
    let hotspot = try await session.openWiFi()
    let first = try await RawWiFiPhone.join(bench, hotspot: hotspot)
    // The retry waits on real time (100 ms apart) while the join port and the sockets do.
    let configuration = WiFiSession.Configuration(
      link: WiFiLink.Configuration(host: "127.0.0.1", port: 0, connectTimeout: .seconds(10)),
      retryInterval: .milliseconds(100), clock: .continuous)
    let sessionConfiguration = bench.sessionConfiguration()
    let joinPort = bench.joinServer.port
    let connecting = Task {
      try await WiFiSession.connect(
        to: hotspot, joiner: TCPHotspotJoiner(port: joinPort), session: sessionConfiguration,
        timeout: .seconds(60), configuration: configuration)
    }
    // Refused while the first session lives; joined once it has ended.
    #expect(await eventually { await bench.device.counters.wifiJoinsRefused >= 1 })
    #expect(await bench.device.counters.wifiJoinsWhileActive == 0)
    await first.stop()
    let wifi = try await withHangGuard { try await connecting.value }
    #expect(try await wifi.listRecordings().isEmpty)
    #expect(await bench.device.counters.wifiSessions == 2)
    await wifi.close()
    await session.close()
  }

  @Test("WiFiSession's first attempt waits for the device's connect, not for its timeout")
  func firstAttemptBoundByDeviceConnect() async throws {
    let bench = try WiFiBench()
    defer { bench.cleanUp() }
    let session = try await bench.bleSession()
    let hotspot = try await session.openWiFi()
    // The phone is on the network at once, but the device connects late (a busy machine):
    // the join port hears of the join only when the test says so.
    let joiner = DeferredJoiner(port: bench.joinServer.port)
    let clock = ManualClock()
    let configuration = WiFiSession.Configuration(
      link: WiFiLink.Configuration(host: "127.0.0.1", port: 0, connectTimeout: .seconds(20)),
      retryInterval: .milliseconds(100), clock: AnyClock(clock))
    let sessionConfiguration = bench.sessionConfiguration()
    let connecting = Task {
      try await WiFiSession.connect(
        to: hotspot, joiner: joiner, session: sessionConfiguration, timeout: .seconds(5),
        configuration: configuration)
    }
    // Waiting for the device; then more than the whole timeout passes, less than the
    // device's connect bound.
    #expect(await eventually { clock.sleeperCount == 1 && joiner.serverPort != nil })
    clock.advance(by: .seconds(6))
    try await joiner.forward(hotspot)
    let wifi = try await withHangGuard { try await connecting.value }
    #expect(try await wifi.listRecordings().isEmpty)
    #expect(await bench.device.counters.wifiSessions == 1)
    await wifi.close()
    await session.close()
  }

  @Test("a whole file and a ranged part arrive byte-exact from flash; a wrong scene is refused")
  func download() async throws {
    let bench = try WiFiBench(chunkBytes: 10_000)
    defer { bench.cleanUp() }
    let long = try await bench.device.addRecording(duration: .seconds(20), sessionId: 1_775_000_000)
    let call = try await bench.device.addRecording(
      duration: .seconds(2), scene: 7, sessionId: 1_775_000_500)
    let session = try await bench.bleSession()
    let link = try await bench.link(to: try await session.openWiFi())
    let transport = link.transport

    // Before any LIST the transport does not know the scene and sends 1: the device refuses.
    await #expect(throws: DeviceError.rejected(operation: "SYNC", status: 2)) {
      _ = try await transport.stream(sessionId: call.sessionId, start: 0, end: 0) { _ in .continue }
    }
    _ = try await transport.listRecordings()

    let whole = ByteSink()
    let tail = try await transport.stream(sessionId: long.sessionId, start: 0, end: 0) {
      whole.take($0)
    }
    let flash = try await bench.flashBytes(long.sessionId)
    #expect(flash.count == 80_000)
    #expect(whole.bytes == flash)
    #expect(tail != nil, "the stream ended with the PDU marked last")

    let part = ByteSink()
    _ = try await transport.stream(sessionId: long.sessionId, start: 12_345, end: 54_321) {
      part.take($0)
    }
    #expect(part.bytes == Array(flash[12_345..<54_321]))

    let scene7 = ByteSink()
    _ = try await transport.stream(sessionId: call.sessionId, start: 0, end: 0) { scene7.take($0) }
    #expect(scene7.bytes == (try await bench.flashBytes(call.sessionId)))
    await #expect(throws: DeviceError.rejected(operation: "SYNC", status: 1)) {
      _ = try await transport.stream(sessionId: 42, start: 0, end: 0) { _ in .continue }
    }
    #expect(await bench.device.counters.wifiContentBytesSent == 80_000 + 41_976 + 8_000)
    await link.close()
    await session.close()
  }

  @Test("the device's content moves its manual clock on at the modeled Wi-Fi rate")
  func contentIsPacedOnTheDevicesClock() async throws {
    let bench = try WiFiBench(chunkBytes: 10_000, contentBytesPerSecond: 400_000)
    defer { bench.cleanUp() }
    let long = try await bench.device.addRecording(duration: .seconds(20), sessionId: 1_775_000_000)
    let session = try await bench.bleSession()
    let link = try await bench.link(to: try await session.openWiFi())
    _ = try await link.transport.listRecordings()
    let before = bench.clock.elapsed
    let whole = ByteSink()
    _ = try await link.transport.stream(sessionId: long.sessionId, start: 0, end: 0) {
      whole.take($0)
    }
    #expect(whole.bytes.count == 80_000)
    // 80,000 bytes at 400,000 bytes a second: 200 ms of the device's time, at the least.
    let took = bench.clock.elapsed - before
    #expect(took >= .milliseconds(200), "\(took)")
    await link.close()
    await session.close()
  }

  @Test("a Wi-Fi session holds the simulated clock from the device's connect until it ends")
  func sessionHoldsTheClock() async throws {
    let bench = try WiFiBench()
    defer { bench.cleanUp() }
    let session = try await bench.bleSession()
    let hotspot = try await session.openWiFi()
    let name = ClockHold.emulatorWiFiSession.name
    #expect(bench.clock.activeHolds[name] == nil, "\(bench.clock.activeHolds)")
    let phone = try await RawWiFiPhone.join(bench, hotspot: hotspot)
    #expect(bench.clock.activeHolds[name] == 1, "\(bench.clock.activeHolds)")
    await phone.stop()
    #expect(await eventually { bench.clock.activeHolds[name] == nil }, "\(bench.clock.activeHolds)")
    await session.close()
  }

  @Test("a Wi-Fi session's hold lets go after its patience without a message, and comes back")
  func progressHoldPatience() throws {
    let clock = ManualClock()
    var hold = EmulatorTime.manual(clock).holdWhileProgressing(ClockHold("test: session"))
    #expect(EmulatorTime.real(.continuous).holdWhileProgressing(ClockHold("real")) == nil)
    // Each look at the clock is one check of the auto-advance driver.
    let held = (0..<UnreadHold.patience).filter { _ in clock.isHeld }.count
    #expect(held == UnreadHold.patience - 1)
    #expect(!clock.isHeld)
    try #require(hold).note()
    #expect(clock.isHeld)
    hold = nil
    #expect(clock.activeHolds["test: session"] == nil)
    #expect(!clock.isHeld)
  }

  @Test("STOP mid-transfer ends the transfer, not the session")
  func stopMidTransfer() async throws {
    let bench = try WiFiBench(chunkBytes: 4_000)
    defer { bench.cleanUp() }
    let file = try await bench.device.addRecording(duration: .seconds(20), sessionId: 1_775_000_000)
    let session = try await bench.bleSession()
    let link = try await bench.link(to: try await session.openWiFi())
    _ = try await link.transport.listRecordings()
    let counted = Locked(0)
    let stopped = try await link.transport.stream(sessionId: file.sessionId, start: 0, end: 0) {
      frame in
      counted.withLock { total -> Int in
        total += frame.data.count
        return total
      } > 10_000 ? .stop : .continue
    }
    #expect(stopped == nil)
    let rest = ByteSink()
    _ = try await link.transport.stream(sessionId: file.sessionId, start: 70_000, end: 0) {
      rest.take($0)
    }
    #expect(rest.bytes == Array(try await bench.flashBytes(file.sessionId)[70_000...]))
    await link.close()
    await session.close()
  }

  @Test("DELETE over Wi-Fi deletes from flash and logs it as BLE DELETE does")
  func deleteOverWiFi() async throws {
    let bench = try WiFiBench()
    defer { bench.cleanUp() }
    let first = try await bench.device.addRecording(duration: .seconds(2), sessionId: 1_775_000_000)
    let second = try await bench.device.addRecording(
      duration: .seconds(2), scene: 7, sessionId: 1_775_000_100)
    let session = try await bench.bleSession()
    let link = try await bench.link(to: try await session.openWiFi())
    _ = try await link.transport.listRecordings()
    try await link.transport.delete(sessionId: second.sessionId)
    await #expect(throws: DeviceError.rejected(operation: "DELETE", status: 1)) {
      try await link.transport.delete(sessionId: second.sessionId)
    }
    #expect(try await bench.device.recordings().map(\.sessionId) == [first.sessionId])
    #expect(await bench.device.deleteLog.map(\.sessionId) == [second.sessionId])
    #expect(try await session.listRecordings().map(\.sessionId) == [first.sessionId])
    #expect(try await link.transport.listRecordings().map(\.sessionId) == [first.sessionId])
    await link.close()
    await session.close()
  }

  @Test("joins with a wrong password or SSID, without a hotspot, or under the fault are refused")
  func joinRefused() async throws {
    let bench = try WiFiBench()
    defer { bench.cleanUp() }
    let port = bench.joinServer.port
    await #expect(throws: HotspotJoinError.refused("no hotspot is raised")) {
      try await HotspotJoinClient.join(
        host: "127.0.0.1", port: port, ssid: "PLAUD0123", password: "67890123", serverPort: 9)
    }
    let session = try await bench.bleSession()
    let hotspot = try await session.openWiFi()
    await #expect(throws: HotspotJoinError.refused("wrong password")) {
      try await HotspotJoinClient.join(
        host: "127.0.0.1", port: port, ssid: hotspot.ssid, password: "wrongpw1", serverPort: 9)
    }
    await #expect(throws: HotspotJoinError.refused("wrong SSID")) {
      try await HotspotJoinClient.join(
        host: "127.0.0.1", port: port, ssid: "PLAUD9999", password: hotspot.password,
        serverPort: 9)
    }
    let wrong = DeviceHotspot(ssid: hotspot.ssid, password: "wrongpw1")
    await #expect(throws: DeviceError.self) { _ = try await bench.link(to: wrong) }
    await bench.device.setFaults(FaultPlan(refuseHotspotJoins: true))
    await #expect(throws: DeviceError.self) { _ = try await bench.link(to: hotspot) }
    #expect(await bench.device.counters.wifiJoinsRefused == 5)
    #expect(await bench.device.counters.wifiSessions == 0)
    await session.close()
  }

  @Test("a wrong BLE token in the Wi-Fi handshake is refused (status 1) and the socket closed")
  func wrongTokenRefused() async throws {
    let bench = try WiFiBench()
    defer { bench.cleanUp() }
    let session = try await bench.bleSession()
    let hotspot = try await session.openWiFi()
    let wrong = try #require(DeviceToken("ffffffffffffffffffffffffffffffff"))
    await #expect(throws: DeviceError.handshakeRefused(status: 1)) {
      _ = try await bench.link(to: hotspot, token: wrong)
    }
    #expect(await eventually { await !bench.device.hasWiFiSession })
    // The slot is free again: the right token gets in.
    let link = try await bench.link(to: hotspot)
    _ = try await link.transport.listRecordings()
    await link.close()
    await session.close()
  }

  @Test("WIFI_CLOSE closes the session with 1000 and drops the hotspot")
  func wifiCloseClosesSocket() async throws {
    let bench = try WiFiBench()
    defer { bench.cleanUp() }
    let session = try await bench.bleSession()
    let hotspot = try await session.openWiFi()
    let phone = try await RawWiFiPhone.join(bench, hotspot: hotspot)
    defer { Task { await phone.stop() } }
    try await phone.send(.keepAlive)
    #expect(try await phone.next() == .error(cmd: 16, status: 0))
    try await session.closeWiFi()
    #expect(try await phone.closeCode() == .normalClosure)
    #expect(await bench.device.hotspotSSID == nil)
    #expect(await eventually { await !bench.device.hasWiFiSession })
    await session.close()
  }

  @Test("an idle hotspot quits after 2 minutes on the Wi-Fi clock (close 1000)")
  func idleClose() async throws {
    let bench = try WiFiBench()
    defer { bench.cleanUp() }
    let session = try await bench.bleSession()
    let phone = try await RawWiFiPhone.join(bench, hotspot: try await session.openWiFi())
    defer { Task { await phone.stop() } }
    #expect(await eventually { bench.wifiClock.sleeperCount > 0 })
    bench.wifiClock.advance(by: .seconds(60))
    try await phone.send(.keepAlive)  // activity: the two minutes start again
    #expect(try await phone.next() == .error(cmd: 16, status: 0))
    bench.wifiClock.advance(by: .seconds(61))
    #expect(await bench.device.hotspotSSID != nil)
    #expect(await eventually { bench.wifiClock.sleeperCount > 0 })
    bench.wifiClock.advance(by: .seconds(60))
    #expect(try await phone.closeCode() == .normalClosure)
    #expect(await bench.device.hotspotSSID == nil)
    #expect(await bench.device.counters.wifiIdleCloses == 1)

    // A hotspot nobody joins quits the same way.
    _ = try await session.openWiFi()
    #expect(await eventually { bench.wifiClock.sleeperCount > 0 })
    bench.wifiClock.advance(by: .seconds(120))
    #expect(await eventually { await bench.device.hotspotSSID == nil })
    await session.close()
  }

  @Test("malformed messages are counted and ignored; the session goes on")
  func malformedIgnored() async throws {
    let bench = try WiFiBench()
    defer { bench.cleanUp() }
    let session = try await bench.bleSession()
    let phone = try await RawWiFiPhone.join(bench, hotspot: try await session.openWiFi())
    defer { Task { await phone.stop() } }
    try await phone.connection.send(binary: [1, 2, 3])
    try await phone.connection.send(.text("hello"))
    try await phone.connection.send(
      binary: try WiFiPDU(type: 99, json: .object([])).encoded())
    try await phone.connection.send(
      binary: try WiFiPDU(type: WiFiPDUType.sync, json: .object([("session", .int(-1))]))
        .encoded())
    try await phone.send(.list(uid: 7, start: 0, single: 0))
    #expect(try await phone.next() == .list(WiFiListPage(uid: 7, count: 0, offset: 0, entries: [])))
    #expect(await bench.device.counters.wifiMalformedMessages == 4)
    try await phone.send(.stop(session: 0, scene: 1))
    #expect(try await phone.next() == .stopResult(status: 0))
    // The STOP grace (1 s) runs next to the idle timer; then a final STOP ends the session.
    #expect(await eventually { bench.wifiClock.sleeperCount == 2 })
    bench.wifiClock.advance(by: .seconds(1))
    #expect(try await phone.closeCode() == .normalClosure)
    await session.close()
  }

  @Test("the drop fault cuts TCP after exactly N content bytes; the file then finishes on BLE")
  func dropMidFile() async throws {
    let bench = try WiFiBench(chunkBytes: 8_000)
    defer { bench.cleanUp() }
    let file = try await bench.device.addRecording(duration: .seconds(10), sessionId: 1_775_000_000)
    await bench.device.setFaults(FaultPlan(dropWiFiAfterContentBytes: 20_000))
    let session = try await bench.bleSession()
    let link = try await bench.link(to: try await session.openWiFi())
    _ = try await link.transport.listRecordings()
    let sink = ByteSink()
    await #expect(throws: DeviceError.disconnected(.linkLoss)) {
      _ = try await link.transport.stream(sessionId: file.sessionId, start: 0, end: 0) {
        sink.take($0)
      }
    }
    await link.close()
    #expect(sink.bytes.count == 20_000)
    #expect(await eventually { await !bench.device.hasWiFiSession })
    #expect(await bench.device.faultPlan.dropWiFiAfterContentBytes == nil)

    let rest = ByteSink()
    _ = try await session.streamRange(sessionId: file.sessionId, start: 20_000) { rest.take($0) }
    #expect(sink.bytes + rest.bytes == (try await bench.flashBytes(file.sessionId)))
    await session.close()
  }

  @Test("the pause fault stops content after exactly N bytes until the phone speaks; STOP ends it")
  func pauseUntilThePhoneSpeaks() async throws {
    let bench = try WiFiBench(chunkBytes: 8_000)
    defer { bench.cleanUp() }
    let file = try await bench.device.addRecording(duration: .seconds(10), sessionId: 1_775_000_000)
    let flash = try await bench.flashBytes(file.sessionId)
    let paused = "emulator Wi-Fi content paused"
    let session = try await bench.bleSession()
    let phone = try await RawWiFiPhone.join(bench, hotspot: try await session.openWiFi())
    defer { Task { await phone.stop() } }

    // Mid-PDU: 8,000 then a cut of 4,000; then one PDU more on a step, then nothing until
    // the LIST, whose page is the next thing the phone hears; then the rest of the file.
    await bench.device.setFaults(FaultPlan(pauseWiFiContentAfterBytes: 12_000))
    try await phone.send(.sync(session: file.sessionId, scene: 1, start: 0, end: 0))
    #expect(try await phone.next() == .syncStatus(session: file.sessionId, status: 0))
    var received = try await phone.content(upTo: 12_000)
    #expect(received == Array(flash.prefix(12_000)))
    #expect(await bench.device.counters.wifiContentBytesSent == 12_000)
    #expect(await bench.device.faultPlan.pauseWiFiContentAfterBytes == nil)
    // The phone's turn: the device holds the manual clock for it.
    #expect(bench.clock.activeHolds[paused] == 1)
    // A step lets one PDU out, and the stream pauses again behind it.
    await bench.device.stepWiFiContent()
    received += try await phone.content(upTo: 8_000)
    #expect(bench.clock.activeHolds[paused] == 1)
    try await phone.send(.list(uid: 3, start: 0, single: 0))
    guard case .list(let page) = try await phone.next() else {
      throw TestFailure("content, not the LIST page, followed the pause")
    }
    #expect(page.entries.map(\.sessionId) == [file.sessionId])
    received += try await phone.content(upTo: file.size - 20_000, last: true)
    #expect(received == flash)
    #expect(bench.clock.activeHolds[paused] == nil)

    // On a PDU boundary this time; a STOP in the pause ends the transfer: its result comes
    // next, and no content after it.
    await bench.device.setFaults(FaultPlan(pauseWiFiContentAfterBytes: 16_000))
    try await phone.send(.sync(session: file.sessionId, scene: 1, start: 0, end: 0))
    #expect(try await phone.next() == .syncStatus(session: file.sessionId, status: 0))
    #expect(try await phone.content(upTo: 16_000) == Array(flash.prefix(16_000)))
    #expect(bench.clock.activeHolds[paused] == 1)
    try await phone.send(.stop(session: file.sessionId, scene: 1))
    #expect(try await phone.next() == .stopResult(status: 0))
    #expect(bench.clock.activeHolds[paused] == nil)
    try await phone.send(.list(uid: 4, start: 0, single: 0))
    guard case .list = try await phone.next() else {
      throw TestFailure("content followed the STOP's result")
    }
    #expect(await bench.device.counters.wifiContentBytesSent == file.size + 16_000)
    await session.close()
  }

  @Test("PINGs on the Wi-Fi clock are answered with PONG; a reboot drops TCP without a close")
  func pingThenReboot() async throws {
    let bench = try WiFiBench(pingInterval: .seconds(10))
    defer { bench.cleanUp() }
    let session = try await bench.bleSession()
    let link = try await bench.link(to: try await session.openWiFi())
    #expect(await eventually { bench.wifiClock.sleeperCount == 2 })  // idle timer + pinger
    bench.wifiClock.advance(by: .seconds(10))
    #expect(await eventually { await bench.device.counters.wifiPongsReceived == 1 })
    _ = try await link.transport.listRecordings()
    await bench.device.reboot()
    #expect(await bench.device.hotspotSSID == nil)
    #expect(await eventually { link.transport.connection.isClosed })
    await #expect(throws: DeviceError.disconnected(.linkLoss)) {
      _ = try await link.transport.listRecordings()
    }
    await link.close()
    await session.close()
  }
}

/// A joiner that answers at once and tells the emulator's join port only when
/// ``forward(_:)`` is called: a phone on the network whose device connects late.
final class DeferredJoiner: HotspotJoiner {
  private let port: UInt16
  private let server = Locked<UInt16?>(nil)

  init(port: UInt16) { self.port = port }

  /// Our WebSocket server's port, once a join named it.
  var serverPort: UInt16? { server.withLock { $0 } }

  func join(_ hotspot: DeviceHotspot, serverPort: UInt16) async throws(DeviceError) {
    server.withLock { $0 = serverPort }
  }

  func leave(_ hotspot: DeviceHotspot) async {}

  /// The join port hears of the last join now: the device connects.
  func forward(_ hotspot: DeviceHotspot) async throws {
    let serverPort = try #require(self.serverPort)
    try await HotspotJoinClient.join(
      host: "127.0.0.1", port: port, ssid: hotspot.ssid, password: hotspot.password,
      serverPort: serverPort)
  }
}
