import RecorderBluetooth
import RecorderConcurrency

/// A `Central` in another process, reached over TCP: the SDK's side of `recorder emulate`
/// (or of any ``TCPCentralServer``). docs/tcp-link.md describes the messages.
///
/// The TCP connection is opened on first use (or by ``open()``) and shared by every scan and
/// every link of this central; one central may hold several links at once. When the TCP
/// connection goes away, every link on it ends with `.disconnected(.linkLoss)`, pending
/// requests fail, and the next operation opens a new connection (so an emulator that
/// restarted on the same port is found again, as a rebooted device would be).
///
/// The link model (MTU, timing, faults, the connect timeout) is the served central's; this
/// type only relays. Writes without response are pipelined: up to ``Options/writeWindow``
/// may be outstanding, each acknowledged once the served link accepted it, so throughput is
/// not one round trip per write and the served link's back pressure reaches the caller.
///
/// Thread-safe: all mutable state is in `Locked` values; any task may call any method.
public final class TCPCentral: Central {
  /// Tuning and guards. The defaults suit loopback to `recorder emulate`.
  public struct Options: Sendable {
    /// How long opening the TCP connection and the hello exchange may take.
    public var openTimeout: Duration = .seconds(5)
    /// How long a request may wait for its reply before it fails with
    /// `LinkError/transport(_:)` (a guard against a stuck server; the served central applies
    /// its own ATT timeouts). `connect` waits its own timeout plus this.
    public var requestTimeout: Duration = .seconds(30)
    /// Writes without response in flight per link before `write` waits for acknowledgements.
    public var writeWindow = 64
    /// Link events buffered and not yet consumed before the reader stops taking bytes from the
    /// socket, which holds back the server and, through it, the served link.
    public var eventBufferLimit = 8192

    public init() {}
  }

  public let host: String
  public let port: UInt16
  public let options: Options

  private struct Slot {
    var session: TCPLinkClientSession?
    var opening: Task<Result<TCPLinkClientSession, LinkError>, Never>?
  }
  private let slot = Locked(Slot())

  /// A central that will talk to the ``TCPCentralServer`` at `host:port`. Does no I/O.
  public init(host: String, port: UInt16, options: Options = Options()) {
    self.host = host
    self.port = port
    self.options = options
  }

  /// A central for `url`, written `tcp://HOST:PORT` (what `recorder emulate` prints).
  /// - Throws: `LinkError/transport(_:)` for another scheme, a missing host or a bad port.
  public convenience init(url: String, options: Options = Options()) throws(LinkError) {
    let prefix = "tcp://"
    guard url.hasPrefix(prefix) else { throw .transport("not a tcp:// address: \(url)") }
    var rest = Substring(url.dropFirst(prefix.count))
    if rest.hasSuffix("/") { rest = rest.dropLast() }
    guard let colon = rest.lastIndex(of: ":"), colon != rest.startIndex,
      let port = UInt16(rest[rest.index(after: colon)...]), port != 0
    else { throw .transport("expected tcp://HOST:PORT, got \(url)") }
    self.init(host: String(rest[..<colon]), port: port, options: options)
  }

  /// Opens the TCP connection now (it is otherwise opened on first use), to report an
  /// unreachable server early.
  /// - Throws: `LinkError/transport(_:)` when the server cannot be reached or does not
  ///   speak this protocol.
  public func open() async throws(LinkError) {
    _ = try await session()
  }

  /// Closes the TCP connection: links on it end with `.disconnected(.linkLoss)`, scans end.
  /// Later operations open a new connection.
  public func close() {
    let session = slot.withLock { slot -> TCPLinkClientSession? in
      defer { slot.session = nil }
      return slot.session
    }
    session?.shutdown(because: "closed by the client")
  }

  /// The served central's state; `.unknown` when the server cannot be reached.
  public var state: CentralState {
    get async {
      guard let session = try? await session() else { return .unknown }
      let reply = await session.request(timeout: options.requestTimeout) { .getState(request: $0) }
      guard case .success(.stateReply(_, let state)) = reply else { return .unknown }
      return state
    }
  }

  /// Advertisements relayed from the served central's scan. The stream ends when the consumer
  /// stops (which stops the remote scan), when the served scan ends, or when the server
  /// cannot be reached or goes away. Keeps the newest 1024 advertisements if the consumer
  /// falls behind.
  public func scan(services: [BluetoothUUID]?) -> AsyncStream<Advertisement> {
    let (stream, continuation) = AsyncStream.makeStream(
      of: Advertisement.self, bufferingPolicy: .bufferingNewest(1024))
    let control = Locked<(terminated: Bool, stop: (@Sendable () -> Void)?)>((false, nil))
    continuation.onTermination = { _ in
      let stop = control.withLock { control -> (@Sendable () -> Void)? in
        control.terminated = true
        defer { control.stop = nil }
        return control.stop
      }
      stop?()
    }
    Task {
      guard let session = try? await self.session() else {
        continuation.finish()
        return
      }
      let stop = session.startScan(services: services, into: continuation)
      let alreadyOver = control.withLock { control -> Bool in
        if control.terminated { return true }
        control.stop = stop
        return false
      }
      if alreadyOver { stop() }
    }
    return stream
  }

  /// Asks the served central to connect; its link is relayed as a `PeripheralLink`.
  /// - Throws: what the served central threw (`LinkError/connectTimeout`,
  ///   `LinkError/unknownPeripheral(_:)`, …), `LinkError/connectTimeout` when no reply came
  ///   within `timeout` plus ``Options/requestTimeout``, `LinkError/transport(_:)` when the
  ///   server cannot be reached or went away.
  public func connect(
    _ peripheral: PeripheralID, services: [BluetoothUUID], timeout: Duration
  ) async throws(LinkError) -> any PeripheralLink {
    let session = try await session()
    return try await session.connect(
      peripheral, services: services, timeout: timeout, guardTime: options.requestTimeout)
  }

  /// The served central's state once (the link reports state on request, not as it changes),
  /// then nothing until the consumer stops.
  public func stateUpdates() -> AsyncStream<CentralState> {
    let (stream, continuation) = AsyncStream<CentralState>.makeStream()
    let task = Task { continuation.yield(await self.state) }
    continuation.onTermination = { _ in task.cancel() }
    return stream
  }

  /// The served central's restored peripherals; empty when the server cannot be reached.
  public func restoredPeripherals() async -> [PeripheralID] {
    guard let session = try? await session() else { return [] }
    let reply = await session.request(timeout: options.requestTimeout) {
      .getRestoredPeripherals(request: $0)
    }
    guard case .success(.peripheralsReply(_, let peripherals)) = reply else { return [] }
    return peripherals
  }

  /// The live session, opening one (once, shared by concurrent callers) when there is none.
  private func session() async throws(LinkError) -> TCPLinkClientSession {
    let (ready, opening) = slot.withLock {
      slot -> (TCPLinkClientSession?, Task<Result<TCPLinkClientSession, LinkError>, Never>?) in
      if let session = slot.session, !session.isClosed { return (session, nil) }
      if let opening = slot.opening { return (nil, opening) }
      let (host, port, options) = (self.host, self.port, self.options)
      let opening = Task {
        await TCPLinkClientSession.open(host: host, port: port, options: options)
      }
      slot.opening = opening
      return (nil, opening)
    }
    if let ready { return ready }
    guard let opening else { throw .transport("internal: no session and no opening") }
    let result = await opening.value
    slot.withLock { slot in
      slot.opening = nil
      if case .success(let session) = result { slot.session = session }
    }
    return try result.get()
  }
}
