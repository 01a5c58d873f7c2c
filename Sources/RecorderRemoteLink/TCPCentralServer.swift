import RecorderBluetooth
import RecorderConcurrency
import RecorderSockets

/// Serves any `Central` on a TCP port, for ``TCPCentral`` clients in other processes: the
/// emulator's side of `recorder emulate` (the iOS Simulator, CI).
///
/// A thin, exact relay: every request is answered by calling the served central or link, and
/// every advertisement and link event is forwarded in the order the served central produced
/// it. The link model (timing, MTU, faults, connect timeouts) stays in the served central.
///
/// Each TCP connection is one client; a client may scan and hold several links at once, and
/// several clients may be connected at the same time. Whether two clients may connect to the
/// same peripheral is the served central's decision (the server relays its answer). Requests
/// of one link are served one after the other, in the order they arrived, so writes keep
/// their order; a write without response is acknowledged only when the served link's write
/// returned, which relays its back pressure. `disconnect` bypasses that queue.
///
/// When a client's connection ends (or ``stop()`` is called), the server disconnects every
/// link that client held, so the served central sees the phone go away.
///
/// Thread-safe: mutable state is in `state` (a `Locked`); any task may call any method.
public final class TCPCentralServer: Sendable {
  public let central: any Central
  public let host: String
  private let requestedPort: UInt16

  private struct State {
    var listener: SocketListener?
    var acceptTask: Task<Void, Never>?
    var connections: [Int: TCPCentralServerConnection] = [:]
    var nextConnection = 0
    var stopped = false
  }
  private let state = Locked(State())

  /// A server for `central` that will listen on `host:port` once started. `host`
  /// "127.0.0.1" (the default) accepts local clients only; "0.0.0.0" accepts any. Port 0
  /// lets the system choose. Does no I/O.
  public init(central: any Central, host: String = "127.0.0.1", port: UInt16 = 0) {
    self.central = central
    self.host = host
    self.requestedPort = port
  }

  /// Binds and listens, then accepts clients in the background until ``stop()``.
  /// - Returns: the bound port (the chosen one when the port asked for was 0).
  /// - Throws: `LinkError/transport(_:)` when the address cannot be bound, or when the
  ///   server was already started or stopped.
  @discardableResult
  public func start() async throws(LinkError) -> UInt16 {
    let listener: SocketListener
    do {
      listener = try SocketListener(host: host, port: requestedPort)
    } catch {
      throw .transport("cannot listen on \(host):\(requestedPort): \(error)")
    }
    let accepted = state.withLock { state -> Bool in
      guard state.listener == nil, !state.stopped else { return false }
      state.listener = listener
      state.acceptTask = Task { await self.acceptLoop(listener) }
      return true
    }
    guard accepted else {
      listener.close()
      throw .transport("server already started or stopped")
    }
    return listener.port
  }

  /// The bound port, once started.
  public var port: UInt16? { state.withLock { $0.listener?.port } }

  /// Clients connected now.
  public var connectionCount: Int { state.withLock { $0.connections.count } }

  /// Stops listening and closes every client connection (their links end with
  /// `.disconnected(.linkLoss)` on the client side; the served links are disconnected).
  /// Idempotent; the server cannot be started again.
  public func stop() {
    let (listener, task, connections) = state.withLock { state in
      state.stopped = true
      defer { state.connections = [:] }
      return (state.listener, state.acceptTask, Array(state.connections.values))
    }
    listener?.close()
    task?.cancel()
    for connection in connections { connection.close() }
  }

  private func acceptLoop(_ listener: SocketListener) async {
    while true {
      let socket: SocketConnection
      do {
        socket = try await listener.accept()
      } catch {
        return
      }
      let served = TCPCentralServerConnection(central: central, socket: socket)
      let key = state.withLock { state -> Int? in
        guard !state.stopped else { return nil }
        state.nextConnection += 1
        state.connections[state.nextConnection] = served
        return state.nextConnection
      }
      guard let key else {
        socket.close()
        return
      }
      Task {
        await served.run()
        self.state.withLock { _ = $0.connections.removeValue(forKey: key) }
      }
    }
  }
}
