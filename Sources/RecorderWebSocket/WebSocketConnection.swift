import RecorderConcurrency
import RecorderSockets

/// One open WebSocket connection, server or client side, after the opening handshake.
///
/// Contract:
/// - One task calls ``receive()`` at a time (a second concurrent call throws
///   ``WebSocketError/concurrentReceive``); any task may ``send(_:)``, ``ping(_:)`` or
///   ``close(code:reason:)`` meanwhile. Each frame is one socket write, so frames never
///   interleave.
/// - Pings are answered inside ``receive()``; pongs are swallowed.
/// - Every fault ends the connection the same way: a close frame with the fault's code
///   (``WebSocketError/closeCode``) when one applies, then the TCP socket is closed, and the
///   error is thrown from this and every later call. No path leaves the socket open.
/// - Cancelling a task inside ``receive()`` or ``send(_:)`` closes the connection without a
///   close frame (the socket layer's rule: a half-done read or write leaves the stream
///   unusable). Callers that must survive cancellation send from a task of their own.
/// - Waiting uses the injected clock: a peer that stops mid-frame is closed with 1008 after
///   ``WebSocketConfiguration/frameTimeout`` of that clock's time.
public actor WebSocketConnection {
  /// Which side this is.
  public nonisolated let role: WebSocketRole
  /// The peer as "a.b.c.d:port".
  public nonisolated let remoteAddress: String
  /// The limits in force.
  public nonisolated let configuration: WebSocketConfiguration

  private let socket: SocketConnection
  private let clock: AnyClock
  private var parser: WebSocketParser
  private var receiving = false
  private var closeSent = false
  private var ended: WebSocketError?
  private var lingering: Task<Void, Never>?
  /// ``close(code:reason:)`` calls waiting for the receiving task to end the connection.
  private var closeWaiters: [CheckedContinuation<Void, Never>] = []
  private let endedFlag = Locked(false)

  /// Wraps a socket whose opening handshake is done; `leftover` holds bytes that arrived
  /// after the HTTP head (the first frames).
  init(
    socket: SocketConnection, role: WebSocketRole, configuration: WebSocketConfiguration,
    clock: AnyClock, leftover: [UInt8] = []
  ) {
    self.socket = socket
    self.role = role
    self.remoteAddress = socket.remoteAddress
    self.configuration = configuration
    self.clock = clock
    self.parser = WebSocketParser(role: role, maxMessageSize: configuration.maxMessageSize)
    self.parser.append(leftover)
  }

  /// True once the connection has ended (closed by either side, or failed). Readable from any
  /// thread; the server uses it to know when its one session slot is free again.
  public nonisolated var isClosed: Bool { endedFlag.withLock { $0 } }

  /// The next data message. Answers pings meanwhile.
  /// - Throws: ``WebSocketError/closedByPeer(code:reason:)`` when the peer closed (after our
  ///   answering close frame), the protocol error that made us close, ``WebSocketError/stalledMidFrame``,
  ///   ``WebSocketError/connectionLost``, …; once thrown, every later call throws the same.
  public func receive() async throws(WebSocketError) -> WebSocketMessage {
    if let ended { throw ended }
    guard !receiving else { throw .concurrentReceive }
    receiving = true
    defer { receiving = false }
    while true {
      let event: WebSocketEvent?
      do {
        event = try parser.next()
      } catch {
        throw await fail(error)
      }
      guard let event else {
        try await fill()
        continue
      }
      switch event {
      case .message(let message): return message
      case .ping(let payload):
        if !closeSent { try await write(WebSocketFrame(opcode: .pong, payload: payload)) }
      case .pong: continue
      case .close(let code, let reason):
        // Ended from the moment the peer's close is read, before our answer goes out: a
        // peer that has the answer finds this side closed (``isClosed``), never still open.
        endedFlag.withLock { $0 = true }
        if !closeSent {
          closeSent = true
          // Echo the code (§5.5.1); a close without status is answered without one.
          let payload =
            code == .noStatusReceived ? [] : WebSocketFrame.closePayload(code: code, reason: "")
          try? await rawWrite(WebSocketFrame(opcode: .close, payload: payload))
        }
        throw finish(.closedByPeer(code: code, reason: reason))
      }
    }
  }

  /// Sends one data message (fragmented per ``WebSocketConfiguration/outgoingFragmentSize``).
  public func send(_ message: WebSocketMessage) async throws(WebSocketError) {
    if let ended { throw ended }
    guard !closeSent else { throw .closedLocally(code: .normalClosure) }
    let (opcode, bytes): (WebSocketOpcode, [UInt8]) =
      switch message {
      case .binary(let bytes): (.binary, bytes)
      case .text(let text): (.text, Array(text.utf8))
      }
    guard let size = configuration.outgoingFragmentSize, bytes.count > size else {
      try await write(WebSocketFrame(opcode: opcode, payload: bytes))
      return
    }
    var start = 0
    while start < bytes.count {
      let end = min(start + size, bytes.count)
      try await write(
        WebSocketFrame(
          fin: end == bytes.count, opcode: start == 0 ? opcode : .continuation,
          payload: Array(bytes[start..<end])))
      start = end
    }
  }

  /// Sends a binary message: the framing every §6 PDU uses.
  public func send(binary bytes: [UInt8]) async throws(WebSocketError) {
    try await send(.binary(bytes))
  }

  /// Sends a ping (at most 125 bytes of payload).
  public func ping(_ payload: [UInt8] = []) async throws(WebSocketError) {
    precondition(payload.count <= WebSocketFrame.maxControlPayload, "ping payload over 125 bytes")
    if let ended { throw ended }
    try await write(WebSocketFrame(opcode: .ping, payload: payload))
  }

  /// Starts the closing handshake and ends the connection: sends a close frame with `code`,
  /// waits up to ``WebSocketConfiguration/closeTimeout`` for the peer's answer (discarding
  /// data that arrives meanwhile), then closes TCP. If another task is inside ``receive()``,
  /// that call sees the answer and ends the connection, and this call waits for it; the
  /// socket is dropped at the timeout regardless. Either way, when this returns the peer has
  /// answered (it heard the close) or the timeout has passed.
  /// Never throws: closing is best effort and always ends with the socket closed.
  public func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") async {
    guard ended == nil else { return }
    if !closeSent {
      closeSent = true
      try? await rawWrite(
        WebSocketFrame(
          opcode: .close, payload: WebSocketFrame.closePayload(code: code, reason: reason)))
    }
    if receiving {
      if lingering == nil {
        let socket = self.socket
        let clock = self.clock
        let timeout = configuration.closeTimeout
        lingering = Task {
          try? await clock.sleep(for: timeout)
          guard !Task.isCancelled else { return }
          socket.close()
          self.lingerExpired(code)
        }
      }
      guard ended == nil else { return }
      await withCheckedContinuation { closeWaiters.append($0) }
      return
    }
    receiving = true
    defer { receiving = false }
    while ended == nil {
      do {
        switch try parser.next() {
        case .close?:
          _ = finish(.closedLocally(code: code))
        case .some: continue
        case nil:
          let outcome = await readChunk(timeout: configuration.closeTimeout, onTimeout: nil)
          guard case .bytes(let bytes) = outcome, !bytes.isEmpty else {
            _ = finish(.closedLocally(code: code))
            break
          }
          parser.append(bytes)
        }
      } catch {
        _ = finish(.closedLocally(code: code))
      }
    }
  }

  /// Drops TCP at once, without a close frame: what the peer sees when a device loses power
  /// or leaves the network (the emulator's fault injection). Calls in progress and every later
  /// call throw ``WebSocketError/connectionLost``. Idempotent.
  public func abort() {
    _ = finish(.connectionLost)
  }

  // MARK: - Internals

  /// Reads more bytes into the parser, applying the frame or idle timeout.
  private func fill() async throws(WebSocketError) {
    let midMessage = parser.isMidMessage
    let timeout = midMessage ? configuration.frameTimeout : configuration.idleTimeout
    let timeoutError: WebSocketError = midMessage ? .stalledMidFrame : .idleTimeout
    var onTimeout: [UInt8]? = nil
    if !closeSent, let code = timeoutError.closeCode {
      onTimeout = encode(
        WebSocketFrame(
          opcode: .close,
          payload: WebSocketFrame.closePayload(code: code, reason: timeoutError.description)))
    }
    switch await readChunk(timeout: timeout, onTimeout: onTimeout) {
    case .bytes(let bytes):
      guard !bytes.isEmpty else { throw finish(.connectionLost) }
      parser.append(bytes)
    case .timedOut:
      closeSent = true
      throw finish(timeoutError)
    case .failed(let error):
      if closeSent { throw finish(.closedLocally(code: .normalClosure)) }
      throw finish(error == .closed ? .connectionLost : .socket(error))
    }
  }

  private enum ReadOutcome: Sendable {
    case bytes([UInt8])
    case timedOut
    case failed(SocketError)
  }

  /// One socket read, raced against `timeout` on the injected clock. On timeout the racing
  /// task first writes `onTimeout` (our close frame) and then the read is cancelled, which
  /// closes the socket: the close frame goes out before TCP ends.
  private func readChunk(timeout: Duration?, onTimeout: [UInt8]?) async -> ReadOutcome {
    let socket = self.socket
    let size = configuration.readChunkSize
    guard let timeout else {
      do { return .bytes(try await socket.read(upTo: size)) } catch { return .failed(error) }
    }
    let clock = self.clock
    return await withTaskGroup(of: ReadOutcome?.self) { group in
      group.addTask {
        do throws(SocketError) {
          return .bytes(try await socket.read(upTo: size))
        } catch {
          return .failed(error)
        }
      }
      group.addTask {
        do { try await clock.sleep(for: timeout) } catch { return nil }
        if let onTimeout { try? await socket.write(onTimeout) }
        return .timedOut
      }
      var outcome: ReadOutcome = .timedOut
      for await result in group {
        guard let result else { continue }
        outcome = result
        break
      }
      group.cancelAll()
      if case .timedOut = outcome { socket.close() }
      return outcome
    }
  }

  /// Sends the close frame for `error` (when it has a code and none was sent), closes the
  /// socket, and returns the error for the caller to throw.
  private func fail(_ error: WebSocketError) async -> WebSocketError {
    if !closeSent, let code = error.closeCode {
      closeSent = true
      try? await rawWrite(
        WebSocketFrame(
          opcode: .close,
          payload: WebSocketFrame.closePayload(code: code, reason: error.description)
        ))
    }
    return finish(error)
  }

  /// Ends the connection for good: closes the socket, remembers why.
  private func finish(_ error: WebSocketError) -> WebSocketError {
    if ended == nil { ended = error }
    endedFlag.withLock { $0 = true }
    lingering?.cancel()
    lingering = nil
    socket.close()
    let waiters = closeWaiters
    closeWaiters.removeAll()
    for waiter in waiters { waiter.resume() }
    return ended ?? error
  }

  /// The close timeout passed with another task still inside ``receive()``: the socket is
  /// closed; the connection ends here even if that task has not noticed yet.
  private func lingerExpired(_ code: WebSocketCloseCode) {
    _ = finish(.closedLocally(code: code))
  }

  private func write(_ frame: WebSocketFrame) async throws(WebSocketError) {
    do {
      try await rawWrite(frame)
    } catch {
      throw finish(
        error == .closed && closeSent ? .closedLocally(code: .normalClosure) : .socket(error))
    }
  }

  private func rawWrite(_ frame: WebSocketFrame) async throws(SocketError) {
    try await socket.write(encode(frame))
  }

  /// The frame's bytes: masked with a fresh random key when we are the client (§5.3).
  private func encode(_ frame: WebSocketFrame) -> [UInt8] {
    guard role == .client else { return frame.encoded() }
    var generator = SystemRandomNumberGenerator()
    let key = (0..<4).map { _ in UInt8.random(in: 0...255, using: &generator) }
    return frame.encoded(maskingKey: key)
  }
}
