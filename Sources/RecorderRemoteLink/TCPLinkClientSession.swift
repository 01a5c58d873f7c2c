import RecorderBluetooth
import RecorderConcurrency
import RecorderSockets

/// One TCP connection of a ``TCPCentral`` to a ``TCPCentralServer``: the request/reply
/// bookkeeping, the reader that dispatches replies and events, and the links and scans that
/// live on this connection.
///
/// Thread-safe: all mutable state is in `state` (a `Locked`); continuations are resumed
/// outside the lock. Only the reader task consumes the socket; only the outbox writes it.
final class TCPLinkClientSession: Sendable {
  private enum Pending {
    /// A request awaiting its reply.
    case reply(CheckedContinuation<Result<TCPLinkMessage, LinkError>, Never>, link: UInt32?)
    /// A connect awaiting ``TCPLinkMessage/connected(request:link:)``: the reader makes the
    /// link itself, so no event of the new link can arrive before the link exists.
    case connect(CheckedContinuation<Result<TCPPeripheralLink, LinkError>, Never>, PeripheralID)
    /// A write without response inside a link's window: its acknowledgement frees a slot.
    case windowedWrite(link: UInt32)
  }

  private struct State {
    var nextRequest: UInt32 = 0
    var nextScan: UInt32 = 0
    var pending: [UInt32: Pending] = [:]
    var timers: [UInt32: Task<Void, Never>] = [:]
    var links: [UInt32: TCPPeripheralLink] = [:]
    var scans: [UInt32: AsyncStream<Advertisement>.Continuation] = [:]
    var closedReason: String?

    mutating func allocateRequest() -> UInt32 {
      nextRequest &+= 1
      while pending[nextRequest] != nil { nextRequest &+= 1 }
      return nextRequest
    }
  }

  private let connection: SocketConnection
  private let outbox = TCPLinkOutbox()
  private let state = Locked(State())
  let options: TCPCentral.Options

  private init(connection: SocketConnection, options: TCPCentral.Options) {
    self.connection = connection
    self.options = options
  }

  var isClosed: Bool { state.withLock { $0.closedReason != nil } }

  // MARK: - Opening

  /// Connects, exchanges hellos and starts the reader and writer.
  static func open(host: String, port: UInt16, options: TCPCentral.Options) async -> Result<
    TCPLinkClientSession, LinkError
  > {
    let connection: SocketConnection
    do {
      connection = try await SocketConnection.connect(
        host: host, port: port, timeout: options.openTimeout)
    } catch {
      return .failure(.transport("cannot reach \(host):\(port): \(error)"))
    }
    let guardTask = Task {
      try? await Task.sleep(for: options.openTimeout)
      if !Task.isCancelled { connection.close() }
    }
    defer { guardTask.cancel() }
    var decoder = TCPLinkMessageDecoder()
    do {
      try await connection.write(TCPLinkMessage.hello(version: TCPLinkMessage.version).encoded())
      while true {
        if let message = try decoder.next() {
          switch message {
          case .hello(let version) where version == TCPLinkMessage.version: break
          case .goodbye(let reason):
            connection.close()
            return .failure(.transport("the server refused us: \(reason)"))
          default:
            connection.close()
            return .failure(.transport("the server answered hello with \(message)"))
          }
          break
        }
        let bytes = try await connection.read(upTo: 65536)
        guard !bytes.isEmpty else {
          connection.close()
          return .failure(.transport("the server closed the connection during hello"))
        }
        decoder.append(bytes)
      }
    } catch let error as SocketError {
      connection.close()
      let text = error == .closed ? "no hello within \(options.openTimeout)" : "\(error)"
      return .failure(.transport("hello with \(host):\(port) failed: \(text)"))
    } catch {
      connection.close()
      return .failure(.transport("hello with \(host):\(port) failed: \(error)"))
    }
    let session = TCPLinkClientSession(connection: connection, options: options)
    Task { [outbox = session.outbox] in
      if let error = await outbox.run(writingTo: connection) {
        session.shutdown(because: "write failed: \(error)")
      }
    }
    Task { await session.readLoop(decoder) }
    return .success(session)
  }

  // MARK: - Requests

  /// Sends the request `make(id)` and waits for its reply (an ``TCPLinkMessage/errorReply``
  /// becomes a failure). `link` scopes the request to a link, so it fails with that link's
  /// disconnection reason when the link or the connection goes away.
  func request(
    link: UInt32? = nil, timeout: Duration?, _ make: (UInt32) -> TCPLinkMessage
  ) async -> Result<TCPLinkMessage, LinkError> {
    let result = await withCheckedContinuation {
      (continuation: CheckedContinuation<Result<TCPLinkMessage, LinkError>, Never>) in
      let id = state.withLock { state -> UInt32? in
        guard state.closedReason == nil else { return nil }
        let id = state.allocateRequest()
        state.pending[id] = .reply(continuation, link: link)
        return id
      }
      guard let id else {
        continuation.resume(returning: .failure(lostError(link: link)))
        return
      }
      outbox.send(make(id))
      if let timeout {
        armTimer(id, after: timeout, error: .transport("no reply within \(timeout)"))
      }
    }
    if case .success(.errorReply(_, let error)) = result { return .failure(error) }
    return result
  }

  /// Connects through the server; `guardTime` beyond `timeout` covers a silent server.
  func connect(
    _ peripheral: PeripheralID, services: [BluetoothUUID], timeout: Duration,
    guardTime: Duration
  ) async throws(LinkError) -> TCPPeripheralLink {
    let nanoseconds = Self.nanoseconds(timeout)
    let result = await withCheckedContinuation {
      (continuation: CheckedContinuation<Result<TCPPeripheralLink, LinkError>, Never>) in
      let id = state.withLock { state -> UInt32? in
        guard state.closedReason == nil else { return nil }
        let id = state.allocateRequest()
        state.pending[id] = .connect(continuation, peripheral)
        return id
      }
      guard let id else {
        continuation.resume(returning: .failure(lostError(link: nil)))
        return
      }
      outbox.send(
        .connect(
          request: id, peripheral: peripheral, timeoutNanoseconds: nanoseconds, services: services))
      armTimer(id, after: timeout + guardTime, error: .connectTimeout)
    }
    return try result.get()
  }

  /// Queues a write without response inside `link`'s window (the caller holds a slot).
  /// False when the connection is gone.
  func sendWindowedWrite(
    link: UInt32, characteristic: BluetoothUUID, value: [UInt8]
  ) -> Bool {
    let id = state.withLock { state -> UInt32? in
      guard state.closedReason == nil else { return nil }
      let id = state.allocateRequest()
      state.pending[id] = .windowedWrite(link: link)
      return id
    }
    guard let id else { return false }
    return outbox.send(
      .write(
        request: id, link: link, characteristic: characteristic, type: .withoutResponse,
        value: value))
  }

  /// Starts a remote scan feeding `continuation`; returns the function that stops it.
  func startScan(
    services: [BluetoothUUID]?, into continuation: AsyncStream<Advertisement>.Continuation
  ) -> @Sendable () -> Void {
    let scan = state.withLock { state -> UInt32? in
      guard state.closedReason == nil else { return nil }
      state.nextScan &+= 1
      state.scans[state.nextScan] = continuation
      return state.nextScan
    }
    guard let scan else {
      continuation.finish()
      return {}
    }
    outbox.send(.startScan(scan: scan, services: services))
    return { [weak self] in
      guard let self else { return }
      let removed = self.state.withLock { $0.scans.removeValue(forKey: scan) }
      if removed != nil { self.outbox.send(.stopScan(scan: scan)) }
    }
  }

  private func armTimer(_ id: UInt32, after timeout: Duration, error: LinkError) {
    let timer = Task { [weak self] in
      try? await Task.sleep(for: timeout)
      guard !Task.isCancelled else { return }
      self?.fail(request: id, with: error)
    }
    let keep = state.withLock { state -> Bool in
      guard state.pending[id] != nil else { return false }
      state.timers[id] = timer
      return true
    }
    if !keep { timer.cancel() }
  }

  private func fail(request id: UInt32, with error: LinkError) {
    let pending = state.withLock { state -> Pending? in
      state.timers.removeValue(forKey: id)
      return state.pending.removeValue(forKey: id)
    }
    switch pending {
    case .reply(let continuation, _): continuation.resume(returning: .failure(error))
    case .connect(let continuation, _): continuation.resume(returning: .failure(error))
    case .windowedWrite, nil: break
    }
  }

  private func lostError(link: UInt32?) -> LinkError {
    if link != nil { return .disconnected(.linkLoss) }
    let reason = state.withLock { $0.closedReason } ?? "closed"
    return .transport("connection to the server lost: \(reason)")
  }

  static func nanoseconds(_ duration: Duration) -> UInt64 {
    let (seconds, attoseconds) = duration.components
    guard seconds >= 0 else { return 0 }
    let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
    guard !overflow else { return .max }
    return whole.addingReportingOverflow(UInt64(attoseconds / 1_000_000_000)).partialValue
  }

  // MARK: - Reading

  private func readLoop(_ initial: TCPLinkMessageDecoder) async {
    var decoder = initial
    var reason = "the server closed the connection"
    reading: while true {
      do {
        while let message = try decoder.next() {
          if let goodbye = await handle(message) {
            reason = "the server said goodbye: \(goodbye)"
            break reading
          }
        }
      } catch {
        outbox.send(.goodbye(reason: "malformed message: \(error)"))
        outbox.finish()
        reason = "malformed message from the server: \(error)"
        break
      }
      let bytes: [UInt8]
      do {
        bytes = try await connection.read(upTo: 65536)
      } catch {
        reason = "read failed: \(error)"
        break
      }
      if bytes.isEmpty { break }
      decoder.append(bytes)
    }
    shutdown(because: reason)
  }

  /// Dispatches one message from the server; returns the reason of a goodbye.
  private func handle(_ message: TCPLinkMessage) async -> String? {
    switch message {
    case .goodbye(let reason):
      return reason
    case .advertisement(let scan, let advertisement):
      _ = state.withLock { $0.scans[scan] }?.yield(advertisement)
    case .scanEnded(let scan):
      state.withLock { $0.scans.removeValue(forKey: scan) }?.finish()
    case .event(let id, let event):
      guard let link = state.withLock({ $0.links[id] }) else { return nil }
      if case .disconnected(let reason) = event {
        linkEnded(id, reason: reason)
      } else {
        await link.deliver(event, bufferLimit: options.eventBufferLimit)
      }
    default:
      guard let id = message.replyRequestID else {
        return "unexpected message \(message)"
      }
      settle(id, with: message)
    }
    return nil
  }

  private func settle(_ id: UInt32, with message: TCPLinkMessage) {
    let pending = state.withLock { state -> Pending? in
      state.timers.removeValue(forKey: id)?.cancel()
      return state.pending.removeValue(forKey: id)
    }
    switch pending {
    case .reply(let continuation, _):
      continuation.resume(returning: .success(message))
    case .windowedWrite(let linkID):
      let link = state.withLock { $0.links[linkID] }
      if case .errorReply(_, let error) = message {
        link?.acknowledgeWrite(failure: error)
      } else {
        link?.acknowledgeWrite(failure: nil)
      }
    case .connect(let continuation, let peripheral):
      switch message {
      case .connected(_, let linkID):
        let link = TCPPeripheralLink(peripheral: peripheral, id: linkID, session: self)
        state.withLock { $0.links[linkID] = link }
        continuation.resume(returning: .success(link))
      case .errorReply(_, let error):
        continuation.resume(returning: .failure(error))
      default:
        continuation.resume(
          returning: .failure(.transport("unexpected reply to connect: \(message)")))
      }
    case nil:
      // A connect we gave up on (timeout) succeeded after all: nobody owns the link.
      if case .connected(_, let linkID) = message {
        outbox.send(.disconnect(request: 0, link: linkID))
      }
    }
  }

  /// Link `id` is gone: it delivers its last event, and its pending requests fail.
  private func linkEnded(_ id: UInt32, reason: DisconnectReason) {
    let (link, failed) = state.withLock {
      state -> (TCPPeripheralLink?, [CheckedContinuation<Result<TCPLinkMessage, LinkError>, Never>])
      in
      let link = state.links.removeValue(forKey: id)
      var failed: [CheckedContinuation<Result<TCPLinkMessage, LinkError>, Never>] = []
      for (request, pending) in state.pending {
        switch pending {
        case .reply(let continuation, let link) where link == id:
          failed.append(continuation)
          state.pending[request] = nil
          state.timers.removeValue(forKey: request)?.cancel()
        case .windowedWrite(let link) where link == id:
          state.pending[request] = nil
        default: break
        }
      }
      return (link, failed)
    }
    link?.ended(reason)
    for continuation in failed { continuation.resume(returning: .failure(.disconnected(reason))) }
  }

  // MARK: - Shutdown

  /// Closes the connection: every link ends with `.disconnected(.linkLoss)`, pending requests
  /// fail, scans end. Idempotent.
  func shutdown(because reason: String) {
    let (links, pending, timers, scans) = state.withLock { state in
      guard state.closedReason == nil else {
        return (
          [UInt32: TCPPeripheralLink](), [UInt32: Pending](), [Task<Void, Never>](),
          [AsyncStream<Advertisement>.Continuation]()
        )
      }
      state.closedReason = reason
      defer {
        state.links = [:]
        state.pending = [:]
        state.timers = [:]
        state.scans = [:]
      }
      return (state.links, state.pending, Array(state.timers.values), Array(state.scans.values))
    }
    outbox.finish()
    connection.close()
    for timer in timers { timer.cancel() }
    for link in links.values { link.ended(.linkLoss) }
    let lost = LinkError.transport("connection to the server lost: \(reason)")
    for entry in pending.values {
      switch entry {
      case .reply(let continuation, let link):
        continuation.resume(returning: .failure(link == nil ? lost : .disconnected(.linkLoss)))
      case .connect(let continuation, _): continuation.resume(returning: .failure(lost))
      case .windowedWrite: break
      }
    }
    for scan in scans { scan.finish() }
  }
}
