import RecorderBluetooth
import RecorderConcurrency
import RecorderProtocol

/// The request multiplexer under a ``DeviceSession``: one request in flight at a time, as the
/// device allows (PROTOCOL.md §4), each watched by a timeout on the injected clock, with the
/// link's notifications demultiplexed into that request's replies, bulk data, and device
/// events.
///
/// Rules it keeps, each for a reason the device taught us:
/// - **One at a time, first come first served.** A request waits at the gate while another
///   is in flight; a request whose task is cancelled while it waits leaves the queue and
///   never writes its command.
/// - **A stream owns the link until it ends.** Between SYNC_START and the end of its stream
///   (the tail, or SYNC_STOP's reply) nothing is written but SYNC_STOP: the stream holds the
///   gate through its stop ([device]: a DELETE slipped in before SYNC_STOP was lost).
/// - **Silence is not a failure of the link.** A stream that goes quiet for its silence
///   timeout is stopped with SYNC_STOP on the same link and reported as `StreamEnd/silent`
///   so the caller re-issues from its last good byte (§3.3); only a SYNC_STOP that gets no
///   answer ends in ``DeviceError/timeout(operation:)``.
/// - **Back pressure reaches the radio.** The receive loop parks while the request in flight
///   is more than ``backlogLimit`` frames behind, so frames never pile up in memory and a
///   simulated radio waits instead of racing ahead.
///
/// Unsolicited frames (REC_* from the button, battery) and the link's end go to `events`.
/// Malformed frames are counted and dropped, never trusted.
actor RequestChannel {
  /// What the receive loop hands to the request in flight.
  enum Incoming: Sendable {
    case message(DeviceMessage)
    case bulk(BulkFrame)
    /// A Mode B chunk before the handshake (PROTOCOL.md §9).
    case preHandshake(PreHandshakeChunk)
  }

  /// How a stream ended.
  enum StreamEnd: Sendable, Equatable {
    /// The device sent its tail.
    case tail(SyncTail)
    /// The consumer asked to stop (a gap, a bad frame); SYNC_STOP was answered.
    case stopped
    /// Nothing arrived for the silence timeout; SYNC_STOP was answered.
    case silent
  }

  private struct ActiveRequest {
    let id: UInt64
    let accepts: @Sendable (Incoming) -> Bool
    let continuation: AsyncThrowingStream<Incoming, any Error>.Continuation
    /// The clock's elapsed time at the last frame handed to the request (when the request
    /// was with the link, before any): silence is measured from here.
    var lastDelivery: Duration
  }

  /// Frames the request in flight may fall behind before the receive loop parks.
  static let backlogLimit = 64

  let link: any PeripheralLink
  let clock: AnyClock
  private let replyTimeout: Duration
  private let events: AsyncStream<DeviceEvent>.Continuation
  /// The battery level and charging state as last reported, by a reply or on its own.
  nonisolated let battery: Locked<BatteryStatus?> = Locked(nil)
  /// The CAPABILITY bitmap the device pushed last (PROTOCOL.md §3.1), nil until one came.
  nonisolated let capability: Locked<CapabilityBitmap?> = Locked(nil)
  /// Decodes frames by the device's portVersion (known after HANDSHAKE).
  private(set) var portVersion: UInt16
  private var active: ActiveRequest?
  private var nextRequestID: UInt64 = 0
  private var gateBusy = false
  private var gateWaiters: [(id: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []
  private(set) var endReason: DeviceError?
  private(set) var malformedFrames = 0
  /// Mode B's channel once the pre-handshake is done: writes are sealed, notifications
  /// opened (`SessionCipher`); nil for a plain device.
  var cipher: SessionCipher?
  /// Sealed notifications dropped because their sequence did not move forward.
  private(set) var replayedFrames = 0
  /// Sealed notifications dropped because they did not authenticate.
  private(set) var unauthenticFrames = 0
  private var receiver: Task<Void, Never>?
  /// Frames handed to the request in flight and not yet handled: they tell the watchdog the
  /// device spoke, however far behind this side is.
  private let unhandled = Locked(0)
  private var backlogWaiter: CheckedContinuation<Void, Never>?

  init(
    link: any PeripheralLink, clock: AnyClock, replyTimeout: Duration, portVersion: UInt16,
    events: AsyncStream<DeviceEvent>.Continuation
  ) {
    self.link = link
    self.clock = clock
    self.replyTimeout = replyTimeout
    self.portVersion = portVersion
    self.events = events
  }

  func setPortVersion(_ version: UInt16) { portVersion = version }

  /// Requests waiting at the gate (for tests of the queue).
  var queuedRequests: Int { gateWaiters.count }

  // MARK: - Requests

  /// Sends `message` and returns the first reply `extract` accepts.
  func request<Reply: Sendable>(
    _ message: PhoneMessage, operation: String, timeout: Duration? = nil,
    extract: @escaping @Sendable (DeviceMessage) -> Reply?
  ) async throws(DeviceError) -> Reply {
    try await enterGate()
    defer { leaveGate() }
    return try await requestHoldingGate(
      message, operation: operation, timeout: timeout, extract: extract)
  }

  /// Sends `message` and feeds every accepted frame to `handle`, which folds it into `state`,
  /// until `handle` says the exchange is complete. Fails after `timeout` without a frame.
  func exchange<State: Sendable>(
    _ message: PhoneMessage, operation: String, timeout: Duration, initial: State,
    accepts: @escaping @Sendable (Incoming) -> Bool,
    handle: @Sendable (inout State, Incoming) async -> Bool
  ) async throws(DeviceError) -> State {
    try await enterGate()
    defer { leaveGate() }
    var state = initial
    try await exchangeHoldingGate(
      message, operation: operation, timeout: timeout, accepts: accepts
    ) { incoming in await handle(&state, incoming) }
    return state
  }

  /// SYNC_START for `[start, end)` of `sessionId`: every data frame goes to `onData` in
  /// arrival order; the stream ends with the device's tail, with a stop `onData` asked for,
  /// or with silence. A stop (asked for, silence, or the caller's cancellation) sends
  /// SYNC_STOP before the gate opens for anything else.
  ///
  /// - Throws: ``DeviceError/rejected(operation:status:)`` for a non-zero head status,
  ///   ``DeviceError/cancelled``, ``DeviceError/timeout(operation:)`` when SYNC_STOP gets no
  ///   answer, link errors.
  func stream(
    sessionId: SessionID, start: UInt32, end: UInt32, silenceTimeout: Duration,
    onData: @Sendable (BulkFrame) async -> StreamDecision
  ) async throws(DeviceError) -> StreamEnd {
    // Given up before asking: nothing to start, nothing to stop.
    if Task.isCancelled { throw .cancelled }
    try await enterGate()
    defer { leaveGate() }
    // A caller that gives up (a background budget expired) must stop the device at once:
    // SYNC_STOP goes straight to the link, never ahead of SYNC_START, and is out before the
    // gate opens for the next request (sealed, a later write must not overtake it).
    let pendingStop = PendingStreamStop(
      link: link, frame: PhoneMessage.syncStop.encoded(portVersion: portVersion), cipher: cipher)
    let outcome: Result<StreamEnd, DeviceError>
    do throws(DeviceError) {
      outcome = .success(
        try await streamHoldingGate(
          sessionId: sessionId, start: start, end: end, silenceTimeout: silenceTimeout,
          pendingStop: pendingStop, onData: onData))
    } catch {
      outcome = .failure(error)
    }
    // Owed only when the stream ended because its caller gave up: a tail, a refusal or a
    // stop already answered leaves nothing to stop.
    var gaveUp = false
    if case .failure(.cancelled) = outcome { gaveUp = true }
    await pendingStop.settle(callerGaveUp: gaveUp)
    return try outcome.get()
  }

  /// ``stream(sessionId:start:end:silenceTimeout:onData:)`` once the gate is held.
  private func streamHoldingGate(
    sessionId: SessionID, start: UInt32, end: UInt32, silenceTimeout: Duration,
    pendingStop: PendingStreamStop, onData: @Sendable (BulkFrame) async -> StreamDecision
  ) async throws(DeviceError) -> StreamEnd {
    var tail: SyncTail?
    var headStatus: UInt8?
    var stopAsked = false
    let request = PhoneMessage.syncStart(
      SyncStartRequest(sessionId: sessionId, start: start, end: end))
    do {
      try await withTaskCancellationHandler {
        try await exchangeHoldingGate(
          request, operation: "SYNC_START", timeout: silenceTimeout,
          onWritten: { await pendingStop.requestWritten() },
          accepts: { Self.belongs($0, to: sessionId) }
        ) { incoming in
          switch incoming {
          case .message(.syncHead(let head)):
            headStatus = head.status
            return head.status != 0
          case .bulk(let frame) where !frame.isTerminal && headStatus != nil:
            stopAsked = await onData(frame) == .stop
            return stopAsked
          case .message(.syncTail(let reply)) where headStatus != nil:
            tail = reply
            return true
          default: return false
          }
        }
      } onCancel: {
        pendingStop.cancelled()
      }
    } catch let error as DeviceError {
      if case .timeout = error, !Task.isCancelled {
        // Silence (§3.3): stop on the same link; the caller re-issues from its last good byte.
        pendingStop.stopSentByStream()
        try await stopStreamHoldingGate()
        return .silent
      }
      throw Task.isCancelled ? .cancelled : error
    } catch {
      throw .cancelled
    }
    if let headStatus, headStatus != 0 {
      throw .rejected(operation: "SYNC_START", status: headStatus)
    }
    if let tail { return .tail(tail) }
    if Task.isCancelled { throw .cancelled }
    pendingStop.stopSentByStream()
    try await stopStreamHoldingGate()
    return stopAsked ? .stopped : .silent
  }

  /// SYNC_STOP, whose reply is `001E` [sdk]; the caller holds the gate.
  private func stopStreamHoldingGate() async throws(DeviceError) {
    _ = try await requestHoldingGate(.syncStop, operation: "SYNC_STOP", timeout: nil) {
      message -> Bool? in
      if case .syncStopped = message { return true }
      return nil
    }
  }

  /// Whether `incoming` belongs to a stream of `sessionId` (frames of an earlier request that
  /// arrive late are dropped by the caller's offset check).
  private static func belongs(_ incoming: Incoming, to sessionId: SessionID) -> Bool {
    switch incoming {
    case .bulk(let frame): frame.sessionId == sessionId
    case .message(.syncHead(let head)): head.sessionId == sessionId
    case .message(.syncTail(let tail)): tail.sessionId == sessionId
    default: false
    }
  }

  private func requestHoldingGate<Reply: Sendable>(
    _ message: PhoneMessage, operation: String, timeout: Duration?,
    extract: @escaping @Sendable (DeviceMessage) -> Reply?
  ) async throws(DeviceError) -> Reply {
    var reply: Reply?
    try await exchangeHoldingGate(
      message, operation: operation, timeout: timeout ?? replyTimeout,
      accepts: { incoming in
        if case .message(let message) = incoming { return extract(message) != nil }
        return false
      }
    ) { incoming in
      if case .message(let message) = incoming { reply = extract(message) }
      return reply != nil
    }
    guard let reply else { throw .timeout(operation: operation) }
    return reply
  }

  /// Writes the frame and feeds every accepted incoming frame to `handle` until it returns
  /// true. Fails after `timeout` without a frame. `onWritten` runs as soon as the frame is
  /// with the link, before any reply is awaited. The caller holds the gate.
  func exchangeHoldingGate(
    _ message: PhoneMessage, operation: String, timeout: Duration,
    onWritten: (@Sendable () async -> Void)? = nil,
    accepts: @escaping @Sendable (Incoming) -> Bool,
    handle: (Incoming) async -> Bool
  ) async throws(DeviceError) {
    try await exchangeHoldingGate(
      frames: [message.encoded(portVersion: portVersion)], operation: operation,
      timeout: timeout, onWritten: onWritten, accepts: accepts, handle: handle)
  }

  /// ``exchangeHoldingGate(_:operation:timeout:onWritten:accepts:handle:)`` for frames
  /// already encoded (Mode B's pre-handshake chunks), written in order.
  func exchangeHoldingGate(
    frames: [[UInt8]], operation: String, timeout: Duration,
    onWritten: (@Sendable () async -> Void)? = nil,
    accepts: @escaping @Sendable (Incoming) -> Bool,
    handle: (Incoming) async -> Bool
  ) async throws(DeviceError) {
    if let endReason { throw endReason }
    nextRequestID += 1
    let id = nextRequestID
    let (stream, continuation) = AsyncThrowingStream.makeStream(of: Incoming.self)
    active = ActiveRequest(
      id: id, accepts: accepts, continuation: continuation, lastDelivery: clock.elapsed)
    defer {
      if active?.id == id { active = nil }
    }
    do {
      for frame in sealed(frames) {
        try await link.write(frame, to: RecorderGATT.writeCharacteristic, type: .withoutResponse)
      }
      await onWritten?()
    } catch {
      throw .disconnected(Self.reason(error))
    }
    // Fails the request `timeout` after its last frame, or after the request was with the
    // link (a write waiting for room is bounded by the link itself: room comes back at its
    // next connection event, or the link drops). It wakes when that deadline is due and, if a
    // frame came meanwhile, sleeps on to the new one, so silence is noticed at `timeout`, not
    // anywhere up to twice that. Frames of this request handed over and not yet handled mean
    // the device spoke: a reader that fell behind is not a silent device, so the deadline
    // moves on. (Only the request's own frames count: a device flooding the link with others
    // cannot keep a request alive.)
    markDelivery(id)
    let unhandled = self.unhandled
    let watchdog = Task { [clock] in
      var due = timeout
      while !Task.isCancelled {
        do { try await clock.sleep(for: due) } catch { return }
        guard let last = self.lastDelivery(of: id) else { return }
        if unhandled.withLock({ $0 > 0 }) {
          due = timeout
          continue
        }
        let quiet = clock.elapsed - last
        guard quiet < timeout else {
          self.fail(id, with: .timeout(operation: operation))
          return
        }
        due = timeout - quiet
      }
    }
    defer { watchdog.cancel() }
    // From here we wait for the device: simulated time may pass.
    defer {
      unhandled.withLock { $0 = 0 }
      resumeReceiving()
    }
    do {
      for try await incoming in stream {
        let done = await handle(incoming)
        // Done: the watchdog's sleeper goes at once, not when this scope ends.
        if done { watchdog.cancel() }
        let left = unhandled.withLock { count -> Int in
          count -= 1
          return count
        }
        if left <= Self.backlogLimit / 2 { resumeReceiving() }
        if done { return }
      }
    } catch let error as DeviceError {
      throw error
    } catch {
      throw .cancelled
    }
    if Task.isCancelled { throw .cancelled }
    throw endReason ?? .closed
  }

  // MARK: - The gate

  /// Waits for this request's turn. A task cancelled while it waits leaves the queue and
  /// throws ``DeviceError/cancelled``: its command is never written.
  func enterGate() async throws(DeviceError) {
    if let endReason { throw endReason }
    if !gateBusy {
      gateBusy = true
    } else {
      nextRequestID += 1
      let ticket = nextRequestID
      let admitted = await withTaskCancellationHandler {
        await withCheckedContinuation { continuation in
          if Task.isCancelled {
            continuation.resume(returning: false)
          } else {
            gateWaiters.append((ticket, continuation))
          }
        }
      } onCancel: {
        Task { await self.withdraw(ticket) }
      }
      guard admitted else { throw .cancelled }
    }
    if Task.isCancelled {
      leaveGate()
      throw .cancelled
    }
    if let endReason {
      leaveGate()
      throw endReason
    }
  }

  /// Takes a cancelled waiter out of the queue.
  private func withdraw(_ ticket: UInt64) {
    guard let index = gateWaiters.firstIndex(where: { $0.id == ticket }) else { return }
    gateWaiters.remove(at: index).continuation.resume(returning: false)
  }

  func leaveGate() {
    if gateWaiters.isEmpty {
      gateBusy = false
    } else {
      gateWaiters.removeFirst().continuation.resume(returning: true)
    }
  }

  /// Counts the request in flight's silence from now: this side just sent what the device
  /// asked for (a paced firmware frame), so the device is waiting, not silent.
  func noteOutgoing() {
    active?.lastDelivery = clock.elapsed
  }

  /// Counts the request's silence from now (its frames are with the link).
  private func markDelivery(_ id: UInt64) {
    guard active?.id == id else { return }
    active?.lastDelivery = clock.elapsed
  }

  private func lastDelivery(of id: UInt64) -> Duration? {
    guard let active, active.id == id else { return nil }
    return active.lastDelivery
  }

  private func fail(_ id: UInt64, with error: DeviceError) {
    guard let active, active.id == id else { return }
    active.continuation.finish(throwing: error)
    self.active = nil
  }

  // MARK: - Receiving

  /// Starts the receive loop over the link's events.
  func startReceiving() {
    let linkEvents = link.events
    receiver = Task { [weak self] in
      for await event in linkEvents {
        guard let self else { return }
        await self.receive(event)
        await self.waitForBacklog()
      }
      await self?.linkEnded(.remoteTerminated)
    }
  }

  private func waitForBacklog() async {
    guard unhandled.withLock({ $0 }) > Self.backlogLimit, endReason == nil else { return }
    await withCheckedContinuation { backlogWaiter = $0 }
  }

  private func resumeReceiving() {
    backlogWaiter?.resume()
    backlogWaiter = nil
  }

  private func receive(_ event: LinkEvent) {
    switch event {
    case .notification(let characteristic, let value):
      if characteristic == RecorderGATT.notifyCharacteristic { receiveFrame(value) }
      if characteristic == RecorderGATT.batteryLevel, let level = value.first {
        let status = battery.withLock { battery -> BatteryStatus in
          var status = battery ?? BatteryStatus(level: level)
          status.level = level
          battery = status
          return status
        }
        events.yield(.battery(status))
      }
    case .disconnected(let reason): linkEnded(reason)
    case .readyToSendWriteWithoutResponse, .bondStateChanged: break
    }
  }

  /// `frames` as the link must carry them: sealed in order once Mode B's channel is open.
  func sealed(_ frames: [[UInt8]]) -> [[UInt8]] {
    cipher?.seal(frames) ?? frames
  }

  private func receiveFrame(_ sealedBytes: [UInt8]) {
    var bytes = sealedBytes
    if let cipher {
      do {
        bytes = try cipher.open(sealedBytes)
      } catch .replayed {
        replayedFrames += 1
        return
      } catch {
        unauthenticFrames += 1
        return
      }
    }
    let incoming: Incoming
    do {
      switch try Frame(decoding: bytes, portVersion: portVersion) {
      case .control(let control):
        incoming = .message(try DeviceMessage(control, portVersion: portVersion))
      case .bulk(let bulk): incoming = .bulk(bulk)
      case .preHandshake(let chunk) where cipher == nil: incoming = .preHandshake(chunk)
      default: return
      }
    } catch {
      malformedFrames += 1
      return
    }
    if var request = active, request.accepts(incoming) {
      unhandled.withLock { $0 += 1 }
      request.lastDelivery = clock.elapsed
      active = request
      request.continuation.yield(incoming)
      return
    }
    guard case .message(let message) = incoming else { return }
    switch message {
    case .recordStarted(let value): events.yield(.recordingStarted(value))
    case .recordPaused(let value): events.yield(.recordingPaused(value))
    case .recordResumed(let value): events.yield(.recordingResumed(value))
    case .recordStopped(let value): events.yield(.recordingStopped(value))
    case .battery(let value):
      battery.withLock { $0 = value }
      events.yield(.battery(value))
    case .capability(let bitmap):
      capability.withLock { $0 = bitmap }
      answerCapability()
    default: events.yield(.unsolicited(opcode: message.frame().opcode.rawValue))
    }
  }

  /// The host's answer to a CAPABILITY push, `01 8A 00 FF` (§3.1) [sdk-code]: written
  /// without response (it gets no reply), in its turn at the gate, so that under Mode B its
  /// sequence number is sealed and written in order with every other write.
  private func answerCapability() {
    Task { await self.writeCapabilityAnswer() }
  }

  private func writeCapabilityAnswer() async {
    do {
      try await enterGate()
    } catch {
      return
    }
    defer { leaveGate() }
    let frames = sealed([
      PhoneMessage.capability(bitmap: CapabilityBitmap.hostAnswer).encoded(portVersion: portVersion)
    ])
    for frame in frames {
      try? await link.write(frame, to: RecorderGATT.writeCharacteristic, type: .withoutResponse)
    }
  }

  private func linkEnded(_ reason: DisconnectReason) {
    guard endReason == nil || endReason == .closed else { return }
    let wasClosed = endReason == .closed
    if !wasClosed { endReason = .disconnected(reason) }
    active?.continuation.finish(throwing: endReason ?? .disconnected(reason))
    active = nil
    events.yield(.disconnected(reason))
    events.finish()
    resumeReceiving()
  }

  /// Ends the channel: fails the request in flight and every waiter, drops the link.
  func close() async {
    resumeReceiving()
    if endReason == nil { endReason = .closed }
    active?.continuation.finish(throwing: endReason ?? .closed)
    active = nil
    for waiter in gateWaiters { waiter.continuation.resume(returning: true) }
    gateWaiters.removeAll()
    await link.disconnect()
    receiver?.cancel()
    events.finish()
  }

  private static func reason(_ error: LinkError) -> DisconnectReason {
    if case .disconnected(let reason) = error { return reason }
    return .other(error.description)
  }
}

/// The SYNC_STOP owed to a stream whose caller gave up, sent at most once and never ahead of
/// its SYNC_START. The link delivers writes in the order they are made, but a cancellation
/// handler runs on whichever thread cancels, concurrently with the request's own write: had
/// it written SYNC_STOP while SYNC_START was still on its way, the device would stop nothing
/// and then stream the whole range. So the handler sends it only once SYNC_START is with the
/// link; a cancellation that comes earlier is acted on by the request's task, right after
/// its SYNC_START write returns.
///
/// The stream waits for it (``settle()``) before it leaves the gate: in Mode B the stop is
/// sealed with the next send sequence, and a next request sealed after it but written before
/// it would make the device drop the stop as a sequence gone backwards.
///
/// Thread-safe: `state` sits in one `Locked`; the write happens outside the lock.
private final class PendingStreamStop: Sendable {
  private struct State {
    var requestWritten = false
    var cancelled = false
    var sent = false
    /// The stream has left: nothing may be sent from here on.
    var settled = false
    /// The cancellation handler's send, while it runs.
    var sending: Task<Void, Never>?
  }

  private let state = Locked(State())
  private let link: any PeripheralLink
  private let frame: [UInt8]
  /// Mode B: the stop is sealed when it is sent, so it takes the next send sequence.
  private let cipher: SessionCipher?

  init(link: any PeripheralLink, frame: [UInt8], cipher: SessionCipher?) {
    self.link = link
    self.frame = frame
    self.cipher = cipher
  }

  /// From the cancellation handler: stops the device now if SYNC_START is out.
  func cancelled() {
    state.withLock { state in
      state.cancelled = true
      guard Self.mustSend(state) else { return }
      state.sent = true
      state.sending = Task { await self.send() }
    }
  }

  /// From the stream, about to send SYNC_STOP itself (silence, or its consumer asked): no
  /// second one is owed, whatever happens next.
  func stopSentByStream() {
    state.withLock { $0.sent = true }
  }

  /// From the stream, before it leaves the gate: waits for a stop the cancellation handler
  /// is sending, or, when the stream ended because its caller gave up (`callerGaveUp`),
  /// sends the one the handler has not reached yet (it may run a moment after the stream saw
  /// the cancellation). The write runs in a task of its own: this one is cancelled, and a
  /// link may abandon a cancelled task's write. Nothing is sent after.
  func settle(callerGaveUp: Bool) async {
    let (sending, owed) = state.withLock { state -> (Task<Void, Never>?, Bool) in
      if callerGaveUp { state.cancelled = true }
      let owed = Self.mustSend(state)
      if owed { state.sent = true }
      state.settled = true
      return (state.sending, owed)
    }
    if owed { await Task { await self.send() }.value }
    await sending?.value
  }

  /// From the request's task, once SYNC_START is with the link: stops the device at once if
  /// the caller already gave up (writing from a task of its own: this one is cancelled).
  func requestWritten() async {
    guard claim({ $0.requestWritten = true }) else { return }
    await Task { await self.send() }.value
  }

  /// Records one side's news; true for the one caller that must now send SYNC_STOP.
  private func claim(_ update: (inout State) -> Void) -> Bool {
    state.withLock { state in
      update(&state)
      guard Self.mustSend(state) else { return false }
      state.sent = true
      return true
    }
  }

  /// Whether SYNC_STOP is owed now and nobody has sent it.
  private static func mustSend(_ state: State) -> Bool {
    state.requestWritten && state.cancelled && !state.sent && !state.settled
  }

  private func send() async {
    let value = cipher?.seal([frame]).first ?? frame
    try? await link.write(value, to: RecorderGATT.writeCharacteristic, type: .withoutResponse)
  }
}
