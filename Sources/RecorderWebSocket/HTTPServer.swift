import RecorderConcurrency
import RecorderSockets

/// A small HTTP/1.1 server for plain requests (the cloud emulator's), one request per
/// connection: it reads a request within `requestTimeout`, asks `handler` for the response,
/// sends it as the response's ``HTTPResponse/Delivery`` says, and closes.
///
/// A client that breaks the request rules gets the matching 4xx/5xx (``HTTPMessageError``)
/// and is disconnected; one that stalls is disconnected after the timeout. Nothing a client
/// sends can crash the server or hold it. Loopback by default.
public final class HTTPServer: Sendable {
  /// What answers each request.
  public typealias Handler = @Sendable (HTTPRequest) async -> HTTPResponse

  /// The port actually bound (the system's choice when asked for port 0).
  public let port: UInt16
  /// The bound address as "a.b.c.d:port".
  public let localAddress: String

  private let listener: SocketListener
  private let limits: HTTPRequest.Limits
  private let requestTimeout: Duration
  private let clock: AnyClock
  private let handler: Handler

  private struct State {
    var open: [ObjectIdentifier: SocketConnection] = [:]
    var acceptLoop: Task<Void, Never>?
    var stopped = false
  }
  /// The accept loop and the connections being served.
  private let state = Locked(State())

  /// Binds `host:port` and starts serving with `handler`. Every server must be ``stop()``ped.
  /// - Parameters:
  ///   - host: the address to listen on.
  ///   - port: the port (0: any free one).
  ///   - limits: the largest request head and body taken.
  ///   - requestTimeout: how long a client may take to send its whole request.
  ///   - clock: the clock of the request timeout and of trickled deliveries.
  ///   - handler: answers each request.
  /// - Throws: `SocketError` when the address cannot be bound.
  public init(
    host: String = "127.0.0.1", port: UInt16 = 0, limits: HTTPRequest.Limits = .init(),
    requestTimeout: Duration = .seconds(10), clock: AnyClock = .continuous,
    handler: @escaping Handler
  ) throws(SocketError) {
    listener = try SocketListener(host: host, port: port)
    self.port = listener.port
    localAddress = listener.localAddress
    self.limits = limits
    self.requestTimeout = requestTimeout
    self.clock = clock
    self.handler = handler
    let loop = Task { [listener] in
      while let socket = try? await listener.accept() {
        Task { await self.serve(socket) }
      }
    }
    state.withLock { $0.acceptLoop = loop }
  }

  /// Stops accepting and drops every open connection. Idempotent.
  public func stop() {
    let open = state.withLock { state in
      state.stopped = true
      state.acceptLoop?.cancel()
      defer { state.open = [:] }
      return Array(state.open.values)
    }
    listener.close()
    open.forEach { $0.close() }
  }

  private func serve(_ socket: SocketConnection) async {
    let key = ObjectIdentifier(socket)
    let admitted = state.withLock { state in
      if !state.stopped { state.open[key] = socket }
      return !state.stopped
    }
    defer {
      socket.close()
      _ = state.withLock { $0.open.removeValue(forKey: key) }
    }
    guard admitted else { return }
    switch await readRequest(socket) {
    case .success(let request):
      await send(await handler(request), to: socket)
    case .failure(let error):
      await send(.json(error.status, #"{"error":"\#(error.description)"}"#), to: socket)
    case nil:
      return
    }
  }

  /// The request, a parse error, or nil when the client went away or timed out.
  private func readRequest(_ socket: SocketConnection) async -> Result<
    HTTPRequest, HTTPMessageError
  >? {
    let limits = self.limits
    let clock = self.clock
    let timeout = requestTimeout
    return await withTaskGroup(of: Result<HTTPRequest, HTTPMessageError>??.self) { group in
      group.addTask {
        var bytes: [UInt8] = []
        while true {
          do throws(HTTPMessageError) {
            if let (request, _) = try HTTPRequest.parse(bytes, limits: limits) {
              return .some(.success(request))
            }
          } catch {
            return .some(.failure(error))
          }
          guard let chunk = try? await socket.read(upTo: 16 * 1024), !chunk.isEmpty else {
            return .some(nil)
          }
          bytes += chunk
        }
      }
      group.addTask {
        do { try await clock.sleep(for: timeout) } catch { return nil }
        return .some(nil)
      }
      var outcome: Result<HTTPRequest, HTTPMessageError>?
      for await result in group {
        guard let result else { continue }
        outcome = result
        break
      }
      group.cancelAll()
      return outcome
    }
  }

  private func send(_ response: HTTPResponse, to socket: SocketConnection) async {
    do {
      switch response.delivery {
      case .whole:
        try await socket.write(response.encodedHead() + response.body)
      case .truncated(let count):
        try await socket.write(
          response.encodedHead() + response.body.prefix(max(0, min(count, response.body.count))))
      case .trickled(let chunk, let pause):
        try await socket.write(response.encodedHead())
        var offset = 0
        while offset < response.body.count {
          let end = min(response.body.count, offset + max(1, chunk))
          try await socket.write(Array(response.body[offset..<end]))
          offset = end
          if offset < response.body.count { try? await clock.sleep(for: pause) }
        }
      case .stalled:
        try await socket.write(response.encodedHead())
        // Wait for the client to give up: a read returns when it closes (or on stop()).
        _ = try? await socket.read(upTo: 1)
      }
    } catch {
      return
    }
  }
}
