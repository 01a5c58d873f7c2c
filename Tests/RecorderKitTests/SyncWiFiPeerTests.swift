import Foundation
import RecorderConcurrency
import RecorderEmulator
import RecorderProtocol
import RecorderSockets
import RecorderTesting
import RecorderWebSocket
import Testing

@testable import RecorderKit

#if canImport(Glibc)
  import Glibc
#endif

/// Issue 12, finding 1: a rogue client on the phone's network. Our WebSocket server listens
/// on one address (never every interface), admits only the device's address, and the BLE
/// token goes only to a peer that passed that check and HELLO; a peer whose Wi-Fi LIST is
/// not the BLE LIST is abandoned for BLE before it can have anything stored or deleted.
@Suite("Wi-Fi peer checks")
struct SyncWiFiPeerTests {
  @Test("a rogue client that connects first never gets the token; the device's sync goes on")
  func rogueClientFirst() async throws {
    let (bench, template) = try await SyncWiFiTests.bench()
    defer { bench.cleanUp() }
    let join = try bench.joinPort()
    defer { join.stop() }
    let engine = try bench.makeEngine()
    let serial = bench.device.serial
    let rogue = RogueClient(serial: serial)
    var plan = bench.wifiPlan(join)
    plan.joiner = RogueFirstJoiner(real: TCPHotspotJoiner(port: join.port), rogue: rogue)

    let report = try await bench.syncOnce(engine, wifi: plan)

    let seen = await rogue.outcome()
    #expect(seen.messages.isEmpty, "the rogue client was sent \(seen.messages)")
    #expect(!seen.upgraded, "the rogue client got past the WebSocket handshake")
    #expect(report.wifiFallback == nil)
    #expect(report.files.map(\.transport) == Array(repeating: "wifi", count: 4))
    try await SyncWiFiTests.expectExactEndState(bench, template, report)
  }

  @Test("a Wi-Fi LIST that is not the BLE LIST: Wi-Fi is abandoned, BLE moves everything")
  func listDisagreement() async throws {
    let (bench, template) = try await SyncWiFiTests.bench()
    defer { bench.cleanUp() }
    await bench.device.setFaults(FaultPlan(wifiListsExtraRecording: true))
    let join = try bench.joinPort()
    defer { join.stop() }
    let engine = try bench.makeEngine()

    let report = try await bench.syncOnce(engine, wifi: bench.wifiPlan(join))

    guard case .wifiUnavailable(let reason)? = report.wifiFallback else {
      Issue.record("Wi-Fi was not abandoned: \(String(describing: report.wifiFallback))")
      return
    }
    #expect(reason.contains("disagrees with the BLE LIST"), "\(reason)")
    #expect(report.files.map(\.transport) == Array(repeating: "ble", count: 4))
    #expect(await bench.device.counters.wifiContentBytesSent == 0, "nothing moved over Wi-Fi")
    try await SyncWiFiTests.expectExactEndState(bench, template, report)
  }

  @Test("listening on every interface is refused before anything is bound")
  func everyInterfaceRefused() async throws {
    let hotspot = DeviceHotspot(ssid: "PLAUD1234", password: "abcdefgh")
    for host in ["0.0.0.0", "", "::"] {
      let joiner = CountingJoiner()
      do throws(DeviceError) {
        _ = try await WiFiLink.connect(
          to: hotspot, joiner: joiner,
          session: WiFiTransport.Configuration(
            serial: "8812345678", bleToken: Self.token),
          configuration: WiFiLink.Configuration(host: host, port: 0))
        Issue.record("listening on \"\(host)\" was accepted")
      } catch .wifiUnavailable(let reason) {
        #expect(reason.contains("every interface"), "\(reason)")
      } catch {
        Issue.record("unexpected \(error)")
      }
      #expect(joiner.joins.withLock { $0 } == 0, "joined although the server was refused")
    }
  }

  static let token = DeviceToken(String(repeating: "a", count: 32))!

  @Test("a device at another address than the rule names is refused: Wi-Fi times out, BLE syncs")
  func devicefromUnexpectedAddress() async throws {
    let (bench, template) = try await SyncWiFiTests.bench()
    defer { bench.cleanUp() }
    let join = try bench.joinPort()
    defer { join.stop() }
    let engine = try bench.makeEngine()
    var plan = bench.wifiPlan(join)
    plan.link.peer = .address("127.0.0.9")
    plan.link.connectTimeout = .seconds(2)

    let report = try await bench.syncOnce(engine, wifi: plan)

    #expect(report.wifiFallback == .timeout(operation: "Wi-Fi connect"))
    #expect(report.files.map(\.transport) == Array(repeating: "ble", count: 4))
    #expect(await bench.device.counters.wifiContentBytesSent == 0)
    try await SyncWiFiTests.expectExactEndState(bench, template, report)
  }

  @Test("LIST agreement: sizes, missing and extra recordings; the one being recorded aside")
  func disagreementRule() {
    func list(_ pairs: [(SessionID, UInt32)]) -> [Recording] {
      pairs.map { Recording(sessionId: $0.0, size: $0.1, scene: 1, attribute: nil, channels: 1) }
    }
    let ble = list([(1, 800), (2, 1600), (3, 2400)])
    #expect(WiFiTransport.disagreement(wifi: ble, ble: ble, skipping: nil) == nil)
    #expect(
      WiFiTransport.disagreement(wifi: list([(1, 800), (2, 1600)]), ble: ble, skipping: nil)
        == "3 is missing over Wi-Fi")
    #expect(
      WiFiTransport.disagreement(wifi: list([(1, 800), (2, 1600)]), ble: ble, skipping: 3) == nil)
    #expect(
      WiFiTransport.disagreement(
        wifi: list([(1, 800), (2, 1680), (3, 2400)]), ble: ble, skipping: nil)
        == "2 is 1680 B over Wi-Fi, 1600 B over BLE")
    #expect(
      WiFiTransport.disagreement(wifi: ble + list([(9, 80)]), ble: ble, skipping: nil)
        == "9 is not on the BLE LIST")
  }
}

/// A phone on a device's access point (``WiFiLink/Configuration/host`` nil): the server is
/// bound on the joined network's own address after the join, and only addresses on that
/// network are admitted.
@Suite("Wi-Fi server on the joined network")
struct WiFiJoinedNetworkTests {
  @Test("bound on the joined network's address after the join; the device in, others out")
  func listensOnTheJoinedNetwork() async throws {
    let port = try Self.freePort()
    // The "network" is 127.0.0.1/32: the device connects from 127.0.0.1, a rogue from
    // 127.0.0.2 is not on it.
    let joiner = NetworkJoiner(
      network: JoinedNetwork(address: "127.0.0.1", netmask: "255.255.255.255"))
    let serial = "8812345678901234"
    let device = Task { try await Self.playDevice(port: port, serial: serial) }
    let rogue = RogueClient(serial: serial)
    let rogueTask = Task { await rogue.start(port: port, retrying: true) }
    let link = try await WiFiLink.connect(
      to: DeviceHotspot(ssid: "PLAUD1234", password: "abcdefgh"), joiner: joiner,
      session: WiFiTransport.Configuration(serial: serial, bleToken: SyncWiFiPeerTests.token),
      configuration: WiFiLink.Configuration(host: nil, port: port, connectTimeout: .seconds(20)))
    #expect(joiner.joins.withLock { $0 } == [port], "joined with the fixed port")
    #expect(try await device.value == 1, "the device got the handshake")
    await rogueTask.value
    let seen = await rogue.outcome()
    #expect(!seen.upgraded && seen.messages.isEmpty, "a client off the network got in")
    await link.close()
  }

  @Test("host nil needs a fixed port and a joiner that knows the network")
  func joinedNetworkNeedsPortAndNetwork() async throws {
    let hotspot = DeviceHotspot(ssid: "PLAUD1234", password: "abcdefgh")
    let session = WiFiTransport.Configuration(
      serial: "8812345678", bleToken: SyncWiFiPeerTests.token)
    for (joiner, port, words) in [
      (NetworkJoiner(network: nil), UInt16(8081), "cannot tell this host's address"),
      (
        NetworkJoiner(network: JoinedNetwork(address: "127.0.0.1", netmask: "255.0.0.0")), 0,
        "fixed port"
      ),
    ] {
      do throws(DeviceError) {
        _ = try await WiFiLink.connect(
          to: hotspot, joiner: joiner, session: session,
          configuration: WiFiLink.Configuration(host: nil, port: port))
        Issue.record("accepted: port \(port)")
      } catch .wifiUnavailable(let reason) {
        #expect(reason.contains(words), "\(reason)")
      } catch {
        Issue.record("unexpected \(error)")
      }
    }
  }

  @Test("network membership and the loopback interface's address")
  func networkMembership() {
    let network = JoinedNetwork(address: "192.168.4.2", netmask: "255.255.255.0")
    #expect(network.contains("192.168.4.1"))
    #expect(!network.contains("192.168.5.1"))
    #expect(!network.contains("192.168.4"))
    #expect(!network.contains("192.168.4.300"))
    #expect(!network.contains("::1"))
    let loopback = NetworkInterfaces.ipv4(named: "lo")
    #expect(loopback?.address == "127.0.0.1" && loopback?.netmask == "255.0.0.0")
    #expect(NetworkInterfaces.ipv4(named: "no-such-interface0") == nil)
  }

  /// A port free a moment ago (the system's choice for port 0).
  static func freePort() throws -> UInt16 {
    let probe = try SocketListener(host: "127.0.0.1", port: 0)
    defer { probe.close() }
    return probe.port
  }

  /// Plays the device's side of HELLO and the handshake from 127.0.0.1, connecting as soon
  /// as the server is up; returns how many handshakes it was sent.
  static func playDevice(port: UInt16, serial: String) async throws -> Int {
    var connection: WebSocketConnection?
    for _ in 0..<2_000 where connection == nil {
      connection = try? await WebSocketConnection.connect(host: "127.0.0.1", port: port)
      if connection == nil { await Task.yield() }
    }
    let device = try #require(connection, "the server never came up")
    let hello = WiFiDeviceMessage.hello(
      token: DeviceToken(WiFiTransport.helloToken(serial: serial))!, protocolVersion: 1)
    try await device.send(binary: try hello.encoded())
    var handshakes = 0
    if case .binary(let pdu) = try await device.receive(),
      case .handshake = try WiFiPhoneMessage(decoding: pdu)
    {
      handshakes += 1
      try await device.send(binary: try WiFiDeviceMessage.handshakeResult(status: 0).encoded())
    }
    return handshakes
  }
}

/// A joiner that joins nothing and reports `network` as this host's.
struct NetworkJoiner: HotspotJoiner {
  let network: JoinedNetwork?
  let joins = Locked<[UInt16]>([])
  func join(_ hotspot: DeviceHotspot, serverPort: UInt16) async throws(DeviceError) {
    joins.withLock { $0.append(serverPort) }
  }
  func leave(_ hotspot: DeviceHotspot) async {}
  func joinedNetwork(_ hotspot: DeviceHotspot) async -> JoinedNetwork? { network }
}

/// A client on the phone's network that is not the device: it connects from 127.0.0.2 (a
/// loopback address of its own), says HELLO with the device's serial (which is public) and
/// keeps whatever the phone sends it.
final class RogueClient: Sendable {
  struct Outcome: Sendable {
    var upgraded = false
    var messages: [WiFiPhoneMessage] = []
  }

  let serial: String
  private let state = Locked(Outcome())
  private let attempt = Locked<Task<Void, Never>?>(nil)

  init(serial: String) { self.serial = serial }

  /// Connects; returns once the opening handshake succeeded or failed (so the rogue is
  /// first in line), then plays the device until the phone closes.
  func start(port: UInt16, retrying: Bool = false) async {
    let (ready, signal) = AsyncStream.makeStream(of: Void.self)
    let task = Task { [serial, state] in
      // Retrying: while nothing listens yet (connection refused); the first attempt that
      // reaches a server is the one that counts.
      var connection: WebSocketConnection?
      for _ in 0..<(retrying ? 2_000 : 1) {
        do throws(WebSocketError) {
          connection = try await WebSocketConnection.connect(
            host: "127.0.0.1", port: port, localHost: "127.0.0.2")
          break
        } catch .socket(.system(_, let code, _)) where code == ECONNREFUSED {
          await Task.yield()
        } catch {
          break
        }
      }
      guard let connection else { return signal.finish() }
      state.withLock { $0.upgraded = true }
      signal.finish()
      let hello = WiFiDeviceMessage.hello(
        token: DeviceToken(WiFiTransport.helloToken(serial: serial))!, protocolVersion: 1)
      guard let bytes = try? hello.encoded(), (try? await connection.send(binary: bytes)) != nil
      else { return }
      while case .binary(let pdu)? = try? await connection.receive() {
        if let message = try? WiFiPhoneMessage(decoding: pdu) {
          state.withLock { $0.messages.append(message) }
        }
      }
    }
    attempt.withLock { $0 = task }
    for await _ in ready {}
  }

  /// What the rogue saw, once its connection ended.
  func outcome() async -> Outcome {
    await attempt.withLock { $0 }?.value
    return state.withLock { $0 }
  }
}

/// Lets the rogue connect first, then joins for real.
struct RogueFirstJoiner: HotspotJoiner {
  let real: TCPHotspotJoiner
  let rogue: RogueClient

  func join(_ hotspot: DeviceHotspot, serverPort: UInt16) async throws(DeviceError) {
    await rogue.start(port: serverPort)
    try await real.join(hotspot, serverPort: serverPort)
  }

  func leave(_ hotspot: DeviceHotspot) async { await real.leave(hotspot) }
}

/// Counts joins and joins nothing.
struct CountingJoiner: HotspotJoiner {
  let joins = Locked(0)
  func join(_ hotspot: DeviceHotspot, serverPort: UInt16) async throws(DeviceError) {
    joins.withLock { $0 += 1 }
  }
  func leave(_ hotspot: DeviceHotspot) async {}
}
