import Foundation
import RecorderConcurrency
import RecorderProtocol
import RecorderWebSocket

/// The access point a device raises when asked over BLE (WIFI_OPEN, PROTOCOL.md §6).
/// The password never appears in a description.
public struct DeviceHotspot: Sendable, Equatable, CustomStringConvertible {
  /// The network name: the one the device reported, else its model's rule
  /// (`ModelCapabilities/hotspotSSID`: `PLAUD` or `Plaud` + the serial's last four
  /// characters).
  public var ssid: String
  /// The eight-character WPA password the device reported (or was given).
  public var password: String

  public init(ssid: String, password: String) {
    self.ssid = ssid
    self.password = password
  }

  public var description: String { "hotspot \(ssid) (password <redacted>)" }

  /// A hotspot password for WIFI_OPEN (PROTOCOL.md §3.1, §6): eight characters from
  /// `[A-Za-z0-9]`, drawn from the system's secure random source.
  package static func randomPassword() -> String {
    var random = SystemRandomNumberGenerator()
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
    return String(
      (0..<WiFiOpenRequest.passwordWidth).map { _ in alphabet.randomElement(using: &random)! })
  }
}

/// When and how often to try joining a device's hotspot (PROTOCOL.md §6): the access point
/// needs a few seconds after WIFI_OPEN, so the first attempt waits ``firstAttemptDelay``
/// (~3 s [sdk]), then a refused join is retried, the pause doubling from ``initialBackoff``
/// up to ``maximumBackoff``, until ``timeout`` has passed since the first wait began (the
/// vendor app keeps trying for up to 180 s [sdk]; 60 s [project]). Every failure counts as
/// "not yet": a platform join error rarely says more.
public struct HotspotJoinPolicy: Sendable, Equatable {
  public var firstAttemptDelay: Duration
  public var timeout: Duration
  public var initialBackoff: Duration
  public var maximumBackoff: Duration

  public init(
    firstAttemptDelay: Duration = .seconds(3), timeout: Duration = .seconds(60),
    initialBackoff: Duration = .milliseconds(500), maximumBackoff: Duration = .seconds(5)
  ) {
    self.firstAttemptDelay = firstAttemptDelay
    self.timeout = timeout
    self.initialBackoff = initialBackoff
    self.maximumBackoff = maximumBackoff
  }

  /// One attempt, at once (what a caller with a retry loop of its own wants).
  public static let once = HotspotJoinPolicy(firstAttemptDelay: .zero, timeout: .zero)
  /// Wait ~3 s, then retry with backoff for up to 60 s: for a real device.
  public static let afterStartup = HotspotJoinPolicy()

  /// Joins `hotspot` through `joiner` under this policy, every wait on `clock`.
  /// - Throws: the last join error once ``timeout`` has passed, or ``DeviceError/cancelled``.
  package func join(
    _ hotspot: DeviceHotspot, serverPort: UInt16, with joiner: any HotspotJoiner,
    clock: AnyClock
  ) async throws(DeviceError) {
    try await Self.pause(firstAttemptDelay, on: clock)
    // The timeout counts from the call, the first delay included.
    let retry = RetryPolicy.within(
      max(.zero, timeout - firstAttemptDelay), delay: initialBackoff,
      maximumDelay: maximumBackoff)
    try await retry.run(on: clock, cancelled: .cancelled) {
      _ throws(DeviceError) -> RetryOutcome<Void, DeviceError> in
      do throws(DeviceError) {
        return .success(try await joiner.join(hotspot, serverPort: serverPort))
      } catch .cancelled {
        throw .cancelled
      } catch {
        return .failed(error)
      }
    }
  }

  private static func pause(_ duration: Duration, on clock: AnyClock) async throws(DeviceError) {
    guard duration > .zero else { return }
    do { try await clock.sleep(for: duration) } catch { throw .cancelled }
  }
}

/// The platform's part of Wi-Fi Fast Transfer: joining a device's access point.
///
/// On iOS this is NEHotspotConfiguration; on Linux and in tests nobody joins a real network,
/// so the emulator host provides a joiner that tells the emulated device where the phone's
/// WebSocket server listens (RecorderTesting's `TCPHotspotJoiner`, or the `recorder` tool's,
/// both over RecorderRemoteLink's `HotspotJoinPort`). Everything after the join (the device
/// connecting to our server, the §6 session) is real TCP either way.
public protocol HotspotJoiner: Sendable {
  /// Joins `hotspot`. The phone's WebSocket server is already listening on `serverPort`; on
  /// a real network the device then connects to it at the address its DHCP handed out.
  /// Joining is idempotent: a network this host is on already counts as joined (iOS's
  /// "already associated"; the emulator's join port accepts a join while the device's
  /// session is still active, and serves it once that session ends).
  /// - Throws: ``DeviceError/wifiUnavailable(_:)`` when the network cannot be joined.
  func join(_ hotspot: DeviceHotspot, serverPort: UInt16) async throws(DeviceError)
  /// Leaves the network again (best effort).
  func leave(_ hotspot: DeviceHotspot) async
  /// The joined network's gateway as an IPv4 address ("a.b.c.d"): on a device's access
  /// point, the device itself, the only peer ``WiFiLink`` accepts under
  /// ``WiFiPeerRule/gateway``. nil when the joiner cannot tell (the default).
  func gatewayAddress(of hotspot: DeviceHotspot) async -> String?
  /// This host's IPv4 address and netmask on the joined network (the phone's Wi-Fi
  /// interface once on the device's access point); nil when the joiner cannot tell (the
  /// default). Needed when ``WiFiLink/Configuration/host`` is nil.
  func joinedNetwork(_ hotspot: DeviceHotspot) async -> JoinedNetwork?
}

extension HotspotJoiner {
  /// Not known: ``WiFiPeerRule/gateway`` then falls back to the joined network, or to
  /// loopback peers of a loopback server (an emulator on the same host).
  public func gatewayAddress(of hotspot: DeviceHotspot) async -> String? { nil }
  /// Not known.
  public func joinedNetwork(_ hotspot: DeviceHotspot) async -> JoinedNetwork? { nil }
}

/// An IPv4 network this host is on: its address there and the netmask.
public struct JoinedNetwork: Sendable, Equatable {
  /// This host's address ("a.b.c.d").
  public var address: String
  /// The netmask ("255.255.255.0").
  public var netmask: String

  public init(address: String, netmask: String) {
    self.address = address
    self.netmask = netmask
  }

  /// Whether `host` ("a.b.c.d") is on this network; false for anything that is not a
  /// dotted-quad IPv4 address.
  public func contains(_ host: String) -> Bool {
    guard let mine = Self.bits(address), let mask = Self.bits(netmask), let theirs = Self.bits(host)
    else { return false }
    return mine & mask == theirs & mask
  }

  static func bits(_ text: String) -> UInt32? {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 4 else { return nil }
    var value: UInt32 = 0
    for part in parts {
      guard part.count <= 3, let byte = UInt8(part) else { return nil }
      value = value << 8 | UInt32(byte)
    }
    return value
  }
}

/// Which client addresses a ``WiFiLink`` admits.
enum PeerFilter: Sendable, Equatable {
  case exact(String)
  case network(JoinedNetwork)

  func admits(_ host: String) -> Bool {
    switch self {
    case .exact(let address): host == address
    case .network(let network): network.contains(host)
    }
  }
}

/// Which client of our WebSocket server may be the device (DESIGN.md invariant 8: every
/// peer is hostile until it checks out). A client that fails the rule is closed before a
/// byte of the session is exchanged; the BLE token is sent only to one that passes it and
/// then says HELLO with the device's serial.
public enum WiFiPeerRule: Sendable, Equatable {
  /// The joined network's gateway (``HotspotJoiner/gatewayAddress(of:)``): on a device's
  /// access point the device is the gateway. When the joiner cannot name one: any address
  /// on the joined network (``HotspotJoiner/joinedNetwork(_:)``; a device's access point
  /// whose fresh password only we and the device know), else a loopback peer of a loopback
  /// server (an emulator on this host); otherwise nobody.
  case gateway
  /// Only this IPv4 address.
  case address(String)
}

extension DeviceSession {
  /// Asks the device to raise its hotspot (WIFI_OPEN, not for OTA) with `password`
  /// (eight ASCII characters; nil lets the device choose) and returns its name (the one the
  /// reply reports, else the model's rule, PROTOCOL.md §6) and password.
  /// - Throws: ``DeviceError/wifiUnavailable(_:)`` when the device has no Wi-Fi or answers a
  ///   non-zero status; a bad password is refused before anything is sent.
  public func openWiFi(password: String? = nil) async throws(DeviceError) -> DeviceHotspot {
    guard info.supportsWiFi else { throw .wifiUnavailable("this device has no Wi-Fi") }
    var passwordBytes: [UInt8]?
    if let password {
      let bytes = Array(password.utf8)
      guard bytes.count == WiFiOpenRequest.passwordWidth,
        bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
      else {
        throw .wifiUnavailable("a hotspot password is 8 printable ASCII characters")
      }
      passwordBytes = bytes
    }
    let reply = try await request(
      .wifiOpen(WiFiOpenRequest(forOta: 0, password: passwordBytes)), operation: "WIFI_OPEN"
    ) { message -> WiFiOpenResponse? in
      if case .wifiOpen(let reply) = message { return reply }
      return nil
    }
    guard reply.status == 0 else {
      throw .wifiUnavailable("the device refused to raise its hotspot (status \(reply.status))")
    }
    // Older firmware does not echo a password: it is then the serial's last eight characters.
    let reported = reply.password.flatMap { String(bytes: $0.prefix { $0 != 0 }, encoding: .ascii) }
    return DeviceHotspot(
      ssid: DeviceHotspot.ssid(
        reportedIn: reply, serial: info.serial, model: info.model, portVersion: info.portVersion),
      password: reported ?? password ?? String(info.serial.suffix(8)))
  }

  /// Asks the device to drop its hotspot (WIFI_CLOSE; the reply comes as `000A`).
  public func closeWiFi() async throws(DeviceError) {
    let status = try await request(.wifiClose, operation: "WIFI_CLOSE") { message -> UInt8? in
      switch message {
      case .wifiOpen(let reply): reply.status
      case .wifiClose(let status): status
      default: nil
      }
    }
    guard status == 0 else { throw .rejected(operation: "WIFI_CLOSE", status: status) }
  }
}

/// One Wi-Fi Fast Transfer connection, phone side: our WebSocket server, the joined hotspot
/// and the §6 session the device opened to it. Its `close()` ends all three; every path that
/// gives up on Wi-Fi must call it.
public actor WiFiLink {
  /// Where to listen and how long to wait.
  public struct Configuration: Sendable {
    /// Address the WebSocket server binds: loopback (the default) in tests and on a gateway
    /// talking to an emulator; nil on a phone: this host's address on the joined network, as
    /// the joiner reports it (``HotspotJoiner/joinedNetwork(_:)``), bound after the join on
    /// ``port``. Never every interface: "0.0.0.0", "::" and "" are refused
    /// (``isEveryInterface(_:)``), since any client on any network the host is on could then
    /// reach the device session.
    public var host: String?
    /// Which client may be the device.
    public var peer: WiFiPeerRule
    /// 8081 on a real device's network [sdk]; 0 lets the system choose (tests).
    public var port: UInt16
    /// How long the device may take to connect after the join.
    public var connectTimeout: Duration
    /// Limits of the WebSocket endpoint.
    public var webSocket: WebSocketConfiguration

    public init(
      host: String? = "127.0.0.1", port: UInt16 = 8081, connectTimeout: Duration = .seconds(30),
      webSocket: WebSocketConfiguration = WebSocketConfiguration(), peer: WiFiPeerRule = .gateway
    ) {
      self.host = host
      self.peer = peer
      self.port = port
      self.connectTimeout = connectTimeout
      self.webSocket = webSocket
    }

    /// Whether `host` means every interface ("0.0.0.0", "::", "*" or empty).
    public static func isEveryInterface(_ host: String) -> Bool {
      ["", "0.0.0.0", "::", "[::]", "*"].contains(host.trimmingCharacters(in: .whitespaces))
    }
  }

  /// The §6 session: a ``RecordingTransport`` for the sync engine.
  package nonisolated let transport: WiFiTransport
  /// The hotspot that was joined.
  package nonisolated let hotspot: DeviceHotspot
  private let server: WebSocketServer
  private let joiner: any HotspotJoiner
  private var closed = false

  private init(
    transport: WiFiTransport, hotspot: DeviceHotspot, server: WebSocketServer,
    joiner: any HotspotJoiner
  ) {
    self.transport = transport
    self.hotspot = hotspot
    self.server = server
    self.joiner = joiner
  }

  /// Starts our server, joins `hotspot` as `join` says (waiting on `clock`), waits
  /// for the device to connect and runs HELLO and the handshake
  /// (`WiFiTransport/open(connection:configuration:clock:)`).
  /// Cleans up after itself on every failure.
  /// - Throws: ``DeviceError/wifiUnavailable(_:)`` (cannot listen or join),
  ///   ``DeviceError/timeout(operation:)`` (the device never connected), or what
  ///   `WiFiTransport/open(connection:configuration:clock:)` throws.
  package static func connect(
    to hotspot: DeviceHotspot, joiner: any HotspotJoiner, session: WiFiTransport.Configuration,
    configuration: Configuration = Configuration(), clock: AnyClock = .continuous,
    join: HotspotJoinPolicy = .once
  ) async throws(DeviceError) -> WiFiLink {
    if let host = configuration.host, Configuration.isEveryInterface(host) {
      throw .wifiUnavailable(
        "refusing to listen on every interface (\(host.isEmpty ? "\"\"" : host)): "
          + "any client on any network could reach the device session; listen on the hotspot "
          + "interface's address")
    }
    // Who may connect, once known: before the join for an explicit address or a loopback
    // server, after it for a hotspot's gateway or network. Until then the server admits
    // everyone and the check below turns the others away.
    let filter = Locked<PeerFilter?>(nil)
    if case .address(let address) = configuration.peer {
      filter.withLock { $0 = .exact(address) }
    } else if let host = configuration.host, LoopbackHost.isLoopback(host) {
      filter.withLock { $0 = .exact("127.0.0.1") }
    }
    let admit: @Sendable (String) -> Bool = { peer in
      filter.withLock { $0 }.map { $0.admits(peer) } ?? true
    }
    var server: WebSocketServer?
    do throws(DeviceError) {
      var network: JoinedNetwork?
      if let host = configuration.host {
        // Listen first: an emulator's join tells its device our port at once.
        server = try listen(host, configuration, clock: clock, admit: admit)
        try await join.join(hotspot, serverPort: server!.port, with: joiner, clock: clock)
      } else {
        // On the joined network's own address: known only once joined, on a fixed port
        // (8081 on a device's network [sdk]) the device connects to.
        guard configuration.port != 0 else {
          throw .wifiUnavailable("listening on the joined network needs a fixed port (8081)")
        }
        try await join.join(hotspot, serverPort: configuration.port, with: joiner, clock: clock)
        guard let joined = await joiner.joinedNetwork(hotspot) else {
          throw .wifiUnavailable(
            "the hotspot joiner cannot tell this host's address on \(hotspot.ssid)")
        }
        network = joined
        server = try listen(joined.address, configuration, clock: clock, admit: admit)
      }
      let expected = try await peerFilter(
        configuration, network: network, hotspot: hotspot, joiner: joiner)
      filter.withLock { $0 = expected }
      guard
        let connection = await firstElement(
          of: server!.connections, within: configuration.connectTimeout, on: clock,
          where: { connection in
            guard expected.admits(WebSocketServer.host(of: connection.remoteAddress)) else {
              // Closed before one byte of the session: the slot is free for the device.
              Task { await connection.close(code: .policyViolation, reason: "not the device") }
              return false
            }
            return true
          })
      else { throw DeviceError.timeout(operation: "Wi-Fi connect") }
      let transport = try await WiFiTransport.open(
        connection: connection, configuration: session, clock: clock)
      return WiFiLink(transport: transport, hotspot: hotspot, server: server!, joiner: joiner)
    } catch {
      await server?.stop()
      await joiner.leave(hotspot)
      throw Task.isCancelled ? .cancelled : error
    }
  }

  private static func listen(
    _ host: String, _ configuration: Configuration, clock: AnyClock,
    admit: @escaping @Sendable (String) -> Bool
  ) throws(DeviceError) -> WebSocketServer {
    do {
      return try WebSocketServer(
        host: host, port: configuration.port, configuration: configuration.webSocket,
        clock: clock, admit: admit)
    } catch {
      throw .wifiUnavailable("cannot listen on \(host):\(configuration.port): \(error)")
    }
  }

  /// Which clients may be the device under `configuration.peer`: an explicit address; else
  /// the joiner's gateway; else any address on the joined network (a device's access point,
  /// whose password only we and the device know); else loopback for a loopback server.
  /// - Throws: ``DeviceError/wifiUnavailable(_:)`` when no peer could be trusted.
  private static func peerFilter(
    _ configuration: Configuration, network: JoinedNetwork?, hotspot: DeviceHotspot,
    joiner: any HotspotJoiner
  ) async throws(DeviceError) -> PeerFilter {
    switch configuration.peer {
    case .address(let address): return .exact(address)
    case .gateway:
      if let gateway = await joiner.gatewayAddress(of: hotspot) { return .exact(gateway) }
      if let network { return .network(network) }
      guard let host = configuration.host, LoopbackHost.isLoopback(host) else {
        throw .wifiUnavailable(
          "cannot tell which client is the device: the hotspot joiner names no gateway; "
            + "set the Wi-Fi peer rule to the device's address")
      }
      return .exact("127.0.0.1")
    }
  }

  /// STOP and close 1000 (`WiFiTransport/finish()`), stop the server, leave the hotspot.
  /// Idempotent.
  package func close() async {
    guard !closed else { return }
    closed = true
    await transport.finish()
    await server.stop()
    await joiner.leave(hotspot)
  }
}
