import RecorderBluetooth
import RecorderConcurrency
import RecorderSockets

/// One client of a ``TCPCentralServer``: reads its requests, calls the served central and
/// links, and sends replies and events back through one `TCPLinkOutbox`.
///
/// Thread-safe: mutable state is in `state` (a `Locked`). Per link, requests run one at a
/// time on that link's operation task, in arrival order; its events are pumped by another task.
final class TCPCentralServerConnection: Sendable {
  /// Unsolicited bytes (events, advertisements) queued for the client above which the pumps
  /// wait, so a client that stops reading holds the served link back.
  static let outboxLimit = 256 * 1024

  private typealias Operation = @Sendable () async -> Void

  private struct ServedLink {
    let link: any PeripheralLink
    let operations: AsyncStream<Operation>.Continuation
  }

  private struct State {
    var links: [UInt32: ServedLink] = [:]
    var scans: [UInt32: Task<Void, Never>] = [:]
    var tasks: [Task<Void, Never>] = []
    var nextLink: UInt32 = 0
    var closed = false
  }

  private let central: any Central
  private let socket: SocketConnection
  private let outbox = TCPLinkOutbox()
  private let state = Locked(State())

  init(central: any Central, socket: SocketConnection) {
    self.central = central
    self.socket = socket
  }

  /// Closes the connection; ``run()`` then cleans up.
  func close() { socket.close() }

  /// Serves the client until its connection ends, then disconnects its links.
  func run() async {
    let writer = Task { [outbox, socket] in
      _ = await outbox.run(writingTo: socket)
      socket.close()
    }
    await readLoop()
    await cleanUp()
    await writer.value
  }

  private func readLoop() async {
    var decoder = TCPLinkMessageDecoder()
    var greeted = false
    while true {
      do {
        while let message = try decoder.next() {
          if !greeted {
            guard case .hello(let version) = message, version == TCPLinkMessage.version else {
              refuse("expected hello version \(TCPLinkMessage.version), got \(message)")
              return
            }
            greeted = true
            outbox.send(.hello(version: TCPLinkMessage.version))
            continue
          }
          guard handle(message) else { return }
        }
      } catch {
        refuse("malformed message: \(error)")
        return
      }
      guard let bytes = try? await socket.read(upTo: 65536), !bytes.isEmpty else { return }
      decoder.append(bytes)
    }
  }

  /// Says why, then ends the connection once the goodbye is written.
  private func refuse(_ reason: String) {
    outbox.send(.goodbye(reason: reason))
    outbox.finish()
  }

  private func cleanUp() async {
    let (links, scans, tasks) = state.withLock { state in
      state.closed = true
      defer {
        state.links = [:]
        state.scans = [:]
      }
      return (Array(state.links.values), Array(state.scans.values), state.tasks)
    }
    outbox.finish()
    for scan in scans { scan.cancel() }
    for served in links {
      served.operations.finish()
      await served.link.disconnect()
    }
    for task in tasks { task.cancel() }
  }

  private func spawn(_ body: @escaping @Sendable () async -> Void) {
    let task = Task { await body() }
    state.withLock { state in
      state.tasks.removeAll { $0.isCancelled }
      if state.tasks.count > 256 { state.tasks.removeFirst(state.tasks.count - 256) }
      state.tasks.append(task)
    }
  }

  /// Handles one message after the hello; false ends the connection.
  private func handle(_ message: TCPLinkMessage) -> Bool {
    switch message {
    case .goodbye:
      return false
    case .getState(let request):
      spawn { [central, outbox] in
        outbox.send(.stateReply(request: request, state: await central.state))
      }
    case .getRestoredPeripherals(let request):
      spawn { [central, outbox] in
        outbox.send(
          .peripheralsReply(request: request, peripherals: await central.restoredPeripherals()))
      }
    case .startScan(let scan, let services):
      startScan(scan, services: services)
    case .stopScan(let scan):
      state.withLock { $0.scans.removeValue(forKey: scan) }?.cancel()
    case .connect(let request, let peripheral, let nanoseconds, let services):
      let timeout = Duration.nanoseconds(Int64(clamping: nanoseconds))
      spawn { await self.connect(request, peripheral, services: services, timeout: timeout) }
    case .disconnect(let request, let id):
      guard let served = state.withLock({ $0.links[id] }) else {
        outbox.send(.doneReply(request: request))
        return true
      }
      spawn { [outbox] in
        await served.link.disconnect()
        outbox.send(.doneReply(request: request))
      }
    case .requestMTU(let request, let id, let mtu):
      onLink(id, request) { link, outbox throws(LinkError) in
        let value = try await link.requestMTU(Int(mtu))
        outbox.send(.integerReply(request: request, value: UInt32(clamping: max(value, 0))))
      }
    case .getMaximumWriteLength(let request, let id, let type):
      onLink(id, request) { link, outbox throws(LinkError) in
        let value = await link.maximumWriteLength(for: type)
        outbox.send(.integerReply(request: request, value: UInt32(clamping: max(value, 0))))
      }
    case .read(let request, let id, let characteristic):
      onLink(id, request) { link, outbox throws(LinkError) in
        outbox.send(.valueReply(request: request, value: try await link.read(characteristic)))
      }
    case .write(let request, let id, let characteristic, let type, let value):
      onLink(id, request) { link, outbox throws(LinkError) in
        try await link.write(value, to: characteristic, type: type)
        outbox.send(.doneReply(request: request))
      }
    case .setNotifications(let request, let id, let characteristic, let enabled):
      onLink(id, request) { link, outbox throws(LinkError) in
        try await link.setNotifications(enabled, for: characteristic)
        outbox.send(.doneReply(request: request))
      }
    case .getBondState(let request, let id):
      onLink(id, request) { link, outbox throws(LinkError) in
        outbox.send(.bondStateReply(request: request, state: await link.bondState))
      }
    case .hello, .stateReply, .connected, .peripheralsReply, .integerReply, .valueReply,
      .doneReply, .bondStateReply, .errorReply, .advertisement, .scanEnded, .event:
      refuse("a client may not send \(message)")
      return false
    }
    return true
  }

  /// Queues `body` on link `id`'s operation task; a thrown error becomes the reply.
  private func onLink(
    _ id: UInt32, _ request: UInt32,
    _ body: @escaping @Sendable (any PeripheralLink, TCPLinkOutbox) async throws(LinkError) -> Void
  ) {
    guard let served = state.withLock({ $0.links[id] }) else {
      outbox.send(.errorReply(request: request, error: .disconnected(.linkLoss)))
      return
    }
    let outbox = self.outbox
    let operation: Operation = {
      do throws(LinkError) {
        try await body(served.link, outbox)
      } catch {
        outbox.send(.errorReply(request: request, error: error))
      }
    }
    if case .terminated = served.operations.yield(operation) {
      outbox.send(.errorReply(request: request, error: .disconnected(.linkLoss)))
    }
  }

  private func startScan(_ scan: UInt32, services: [BluetoothUUID]?) {
    let task = Task { [central, outbox] in
      for await advertisement in central.scan(services: services) {
        outbox.send(.advertisement(scan: scan, advertisement))
        await outbox.waitForRoom(below: Self.outboxLimit)
      }
      outbox.send(.scanEnded(scan: scan))
    }
    let keep = state.withLock { state -> Bool in
      guard !state.closed else { return false }
      state.scans.removeValue(forKey: scan)?.cancel()
      state.scans[scan] = task
      return true
    }
    if !keep { task.cancel() }
  }

  private func connect(
    _ request: UInt32, _ peripheral: PeripheralID, services: [BluetoothUUID], timeout: Duration
  ) async {
    let link: any PeripheralLink
    do {
      link = try await central.connect(peripheral, services: services, timeout: timeout)
    } catch {
      outbox.send(.errorReply(request: request, error: error))
      return
    }
    let (operations, queue) = AsyncStream.makeStream(of: Operation.self)
    let id = state.withLock { state -> UInt32? in
      guard !state.closed else { return nil }
      state.nextLink &+= 1
      while state.links[state.nextLink] != nil || state.nextLink == 0 { state.nextLink &+= 1 }
      state.links[state.nextLink] = ServedLink(link: link, operations: queue)
      return state.nextLink
    }
    guard let id else {
      await link.disconnect()
      return
    }
    // The reply goes out before any event of the link, so the client knows the link first.
    outbox.send(.connected(request: request, link: id))
    Task {
      for await operation in operations { await operation() }
    }
    Task { [outbox] in
      var ended = false
      for await event in link.events {
        outbox.send(.event(link: id, event))
        if case .disconnected = event {
          ended = true
          break
        }
        await outbox.waitForRoom(below: Self.outboxLimit)
      }
      if !ended { outbox.send(.event(link: id, .disconnected(.linkLoss))) }
      let served = self.state.withLock { $0.links.removeValue(forKey: id) }
      served?.operations.finish()
    }
  }
}
