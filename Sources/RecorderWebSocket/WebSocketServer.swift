import RecorderConcurrency
import RecorderSockets

/// The phone-side WebSocket server of Wi-Fi Fast Transfer (PROTOCOL.md §6): the device joins
/// the phone's network and connects here as the client.
///
/// It serves **one device session at a time**: the first client to finish the opening
/// handshake is handed out on ``connections``; until that connection ends (closed by either
/// side, or failed: see ``WebSocketConnection/isClosed``), any further client completes the
/// handshake and is closed at once with 1013 (try again later). Authentication (the §6 HELLO
/// token) is the session layer's job; it closes a connection that fails it, which frees the
/// slot.
///
/// Every client that breaks the handshake gets an HTTP error status and is disconnected; one
/// that stalls in it is disconnected after ``WebSocketConfiguration/handshakeTimeout`` on the
/// injected clock. Nothing a client sends can crash the server or hold it.
public final class WebSocketServer: Sendable {
  /// The port actually bound (the system's choice when asked for port 0).
  public let port: UInt16
  /// The bound address as "a.b.c.d:port".
  public let localAddress: String
  /// Authenticated-to-be device connections, one at a time, in order. One consumer.
  public let connections: AsyncStream<WebSocketConnection>

  private let listener: SocketListener
  private let configuration: WebSocketConfiguration
  private let clock: AnyClock
  private let continuation: AsyncStream<WebSocketConnection>.Continuation
  private let admit: @Sendable (_ peerHost: String) -> Bool

  private struct State {
    var active: WebSocketConnection?
    var pending: [ObjectIdentifier: SocketConnection] = [:]
    var acceptLoop: Task<Void, Never>?
    var stopped = false
    var refusedPeers = 0
  }
  /// All mutable state: the session slot, sockets still in their handshake, the accept loop.
  private let state = Locked(State())

  /// Binds `host:port` (loopback by default; the Wi-Fi path binds the hotspot interface on
  /// 8081) and starts accepting. The accept loop keeps the server alive until ``stop()``:
  /// every server must be stopped.
  ///
  /// `admit` is asked for each client's address ("a.b.c.d") as it is accepted: a client it
  /// refuses is disconnected before one byte is read or written, so it can neither take the
  /// session slot nor learn anything (counted in ``refusedPeers``).
  /// - Throws: ``WebSocketError/socket(_:)`` when the address cannot be bound.
  public init(
    host: String = "127.0.0.1", port: UInt16 = 0,
    configuration: WebSocketConfiguration = WebSocketConfiguration(),
    clock: AnyClock = .continuous,
    admit: @escaping @Sendable (_ peerHost: String) -> Bool = { _ in true }
  ) throws(WebSocketError) {
    self.admit = admit
    do {
      listener = try SocketListener(host: host, port: port)
    } catch {
      throw .socket(error)
    }
    self.port = listener.port
    self.localAddress = listener.localAddress
    self.configuration = configuration
    self.clock = clock
    (connections, continuation) = AsyncStream.makeStream(of: WebSocketConnection.self)
    let loop = Task { [listener] in
      while let socket = try? await listener.accept() {
        Task { await self.serve(socket) }
      }
    }
    state.withLock { $0.acceptLoop = loop }
  }

  /// Clients ``init(host:port:configuration:clock:admit:)``'s `admit` turned away.
  public var refusedPeers: Int { state.withLock { $0.refusedPeers } }

  /// "a.b.c.d" of "a.b.c.d:port".
  public static func host(of address: String) -> String {
    guard let colon = address.lastIndex(of: ":") else { return address }
    return String(address[..<colon])
  }

  /// Whether a device session currently holds the slot.
  public var hasActiveSession: Bool {
    state.withLock { $0.active.map { !$0.isClosed } ?? false }
  }

  /// Stops accepting, drops clients still in their handshake, closes the active session with
  /// 1001 (going away) and finishes ``connections``. Idempotent.
  public func stop() async {
    let (active, pending) = state.withLock { state in
      state.stopped = true
      state.acceptLoop?.cancel()
      defer { state.pending = [:] }
      return (state.active, Array(state.pending.values))
    }
    listener.close()
    pending.forEach { $0.close() }
    continuation.finish()
    await active?.close(code: .goingAway, reason: "server stopping")
  }

  /// Runs the opening handshake on one accepted socket and hands the connection out, or
  /// refuses it.
  private func serve(_ socket: SocketConnection) async {
    guard admit(Self.host(of: socket.remoteAddress)) else {
      state.withLock { $0.refusedPeers += 1 }
      return socket.close()
    }
    let key = ObjectIdentifier(socket)
    let admitted = state.withLock { state in
      if !state.stopped { state.pending[key] = socket }
      return !state.stopped
    }
    guard admitted else { return socket.close() }
    defer { _ = state.withLock { $0.pending.removeValue(forKey: key) } }

    let upgrade: (request: WebSocketHandshake.Request, leftover: [UInt8])
    switch await readHead(socket) {
    case .success(let result): upgrade = result
    case .failure(.handshake(let error)):
      try? await socket.write(WebSocketHandshake.refusal(error))
      return socket.close()
    case .failure:
      return socket.close()
    }
    do {
      try await socket.write(WebSocketHandshake.response(to: upgrade.request))
    } catch {
      return socket.close()
    }
    let connection = WebSocketConnection(
      socket: socket, role: .server, configuration: configuration, clock: clock,
      leftover: upgrade.leftover)
    // Out of `pending` in the same step as taking the slot: from here on the connection, not
    // the handshake, owns the socket, and ``stop()`` closes it with a close frame.
    let slot = state.withLock { state -> Bool? in
      state.pending.removeValue(forKey: key)
      if state.stopped { return nil }
      if let active = state.active, !active.isClosed { return false }
      state.active = connection
      return true
    }
    switch slot {
    case true?: continuation.yield(connection)
    case false?:
      await connection.close(code: .tryAgainLater, reason: "one device session at a time")
    case nil: await connection.close(code: .goingAway, reason: "server stopping")
    }
  }

  /// Reads and validates the HTTP head within the handshake timeout.
  private func readHead(_ socket: SocketConnection) async -> Result<
    (request: WebSocketHandshake.Request, leftover: [UInt8]), WebSocketError
  > {
    let clock = self.clock
    let timeout = configuration.handshakeTimeout
    let limits = configuration.headLimits
    return await withTaskGroup(
      of: Result<(request: WebSocketHandshake.Request, leftover: [UInt8]), WebSocketError>?.self
    ) { group in
      group.addTask {
        var bytes: [UInt8] = []
        while true {
          do throws(HTTPUpgradeError) {
            if let (head, consumed) = try HTTPUpgradeHead.parse(bytes, limits: limits) {
              let request = try WebSocketHandshake.validate(head)
              return .success((request, Array(bytes[consumed...])))
            }
          } catch {
            return .failure(.handshake(error))
          }
          do throws(SocketError) {
            let chunk = try await socket.read(upTo: 4096)
            guard !chunk.isEmpty else { return .failure(.connectionLost) }
            bytes += chunk
          } catch {
            return .failure(.socket(error))
          }
        }
      }
      group.addTask {
        do { try await clock.sleep(for: timeout) } catch { return nil }
        return .failure(.handshakeTimeout)
      }
      var outcome:
        Result<(request: WebSocketHandshake.Request, leftover: [UInt8]), WebSocketError> =
          .failure(.handshakeTimeout)
      for await result in group {
        guard let result else { continue }
        outcome = result
        break
      }
      group.cancelAll()
      return outcome
    }
  }
}
