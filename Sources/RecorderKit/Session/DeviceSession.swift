import Foundation
import RecorderBluetooth
import RecorderConcurrency
import RecorderProtocol

/// One connected, authenticated recorder (PROTOCOL.md §4).
///
/// `connect` runs the vendor app's sequence: subscribe to notifications, HANDSHAKE with the
/// device token, TIME_SYNC, BATTERY, GET_STATE, GET_NAME, STORAGE. Commands then go one at a
/// time, as the device allows; each waits at most its timeout for the device's reply, on the
/// injected clock. Frames the device sends on its own (REC_* when the button is pressed,
/// battery) arrive on ``events``. ``close()`` sends SET_ACTIVE 00 and disconnects.
///
/// Every failure is a ``DeviceError``; a wrong token is ``DeviceError/tokenRejected``, never a
/// hang. Malformed frames from the device are counted and dropped, never trusted.
public actor DeviceSession {
  /// How the session talks: the token, the timeouts, the clocks.
  public struct Configuration: Sendable {
    /// The device token (PROTOCOL.md §8: derived from the user's JWT).
    public var token: DeviceToken
    /// Per-request reply timeout (5 s [project]).
    public var replyTimeout: Duration = .seconds(5)
    /// HANDSHAKE reply timeout: replies took 2–5.5 s on V0095 [device]; 10 s [project].
    public var handshakeTimeout: Duration = .seconds(10)
    /// Connection timeout (SDK default 10 s) [sdk].
    public var connectTimeout: Duration = .seconds(10)
    /// ATT MTU to ask for [sdk].
    public var mtu: Int = RecorderGATT.requestedMTU
    /// The clock every wait goes through.
    public var clock: AnyClock = .continuous
    /// Wall-clock unix seconds, sent with TIME_SYNC and used as LIST request tags.
    public var unixTime: @Sendable () -> UInt32 = {
      UInt32(clamping: Int(Date().timeIntervalSince1970))
    }
    /// Local time-zone offset for TIME_SYNC.
    public var timeZoneSeconds: @Sendable () -> Int = { TimeZone.current.secondsFromGMT() }
    /// How TIME_SYNC writes an offset that is not whole hours (docs/time-sync.md) [project].
    public var timeZoneEncoding: TimeZoneEncoding = .projectDefault

    public init(token: DeviceToken) { self.token = token }
  }

  /// What the device said about itself at set-up; battery and state refresh as events arrive.
  public private(set) var info: DeviceInfo
  /// Device events (REC_*, battery, disconnection), in order. Single consumer.
  public nonisolated let events: AsyncStream<DeviceEvent>
  /// Frames from the device that failed to decode (dropped, counted).
  public private(set) var malformedFrames = 0

  private let link: any PeripheralLink
  let configuration: Configuration
  private let eventContinuation: AsyncStream<DeviceEvent>.Continuation
  private var receiver: Task<Void, Never>?
  private var active: ActiveRequest?
  private var nextRequestID: UInt64 = 0
  /// One request at a time, first come first served: actor reentrancy lets a second call
  /// start while the first awaits its reply, and the device allows only one [sdk].
  private var gateBusy = false
  private var gateWaiters: [CheckedContinuation<Void, Never>] = []
  private var endReason: DeviceError?
  /// Holds a simulated clock still from the link coming up until the HANDSHAKE is on its
  /// way: the device drops a central that has not authenticated within ~1 s [device], and
  /// a simulation must not skip that second just because this task was slow to be
  /// scheduled. A no-op on real clocks.
  private var setUpHold: (@Sendable () -> Void)?
  /// Frames handed to the request in flight and not yet handled. With the link's own
  /// backlog it keeps a simulated clock still while this side has input to work through,
  /// so a slow-to-schedule task never lets a timeout fire "early" in virtual time.
  private let unhandled = Locked(0)
  /// The receive loop parks here while the request in flight is more than
  /// ``backlogLimit`` frames behind, so back pressure reaches the link (and a simulated
  /// radio waits) instead of frames piling up in memory.
  private var backlogWaiter: CheckedContinuation<Void, Never>?
  static let backlogLimit = 64
  private var removeBusyProbe: (@Sendable () -> Void)?
  /// The device was found by name only: GET_SERIAL after HANDSHAKE.
  private let serialUnknown: Bool

  /// What the receive loop hands to the request in flight.
  enum Incoming: Sendable {
    case message(DeviceMessage)
    case bulk(BulkFrame)
  }

  private struct ActiveRequest {
    let id: UInt64
    let accepts: @Sendable (Incoming) -> Bool
    let continuation: AsyncThrowingStream<Incoming, any Error>.Continuation
    var deliveries = 0
  }

  // MARK: - Connecting

  /// Connects to `device`, authenticates and reads its state.
  ///
  /// - Throws: ``DeviceError/tokenRejected`` for a wrong token (the link is closed before
  ///   returning), ``DeviceError/unsupportedPortVersion(_:)``, timeouts, link errors.
  public static func connect(
    to device: DiscoveredDevice, using central: any Central, configuration: Configuration
  ) async throws(DeviceError) -> DeviceSession {
    let state = await central.state
    guard state == .poweredOn else { throw .bluetoothUnavailable(state) }
    let link: any PeripheralLink
    do {
      link = try await central.connect(device.peripheral, timeout: configuration.connectTimeout)
    } catch {
      throw .connectFailed(error)
    }
    let session = DeviceSession(link: link, device: device, configuration: configuration)
    await session.holdTimeUntilFirstWait()
    do {
      try await session.setUp()
    } catch {
      await session.abandon()
      throw error
    }
    return session
  }

  private init(link: any PeripheralLink, device: DiscoveredDevice, configuration: Configuration) {
    self.link = link
    self.configuration = configuration
    (events, eventContinuation) = AsyncStream.makeStream(of: DeviceEvent.self)
    // A recorder heard only by name: its portVersion is assumed until HANDSHAKE tells it,
    // its serial is read after HANDSHAKE (GET_SERIAL) [project].
    serialUnknown = device.serial == nil
    info = DeviceInfo(
      serial: device.serial ?? "", model: device.model, name: device.name ?? "",
      firmware: device.firmware, portVersion: device.portVersion ?? ProtocolDefaults.portVersion,
      audioChannels: 1,
      supportsWiFi: false, oggAudio: false, battery: BatteryStatus(level: 0),
      storage: StorageInfo(freeBytes: 0, totalBytes: 0), state: DeviceState(state: 0, privacy: 0))
  }

  private func holdTimeUntilFirstWait() {
    setUpHold = configuration.clock.holdTime()
  }

  private func releaseSetUpHold() {
    setUpHold?()
    setUpHold = nil
  }

  private func setUp() async throws(DeviceError) {
    let portVersion = info.portVersion
    guard (ProtocolDefaults.minimumSessionIdPortVersion..<20).contains(portVersion) else {
      throw .unsupportedPortVersion(portVersion)
    }
    startReceiving()
    _ = try? await link.requestMTU(configuration.mtu)
    do {
      try await link.setNotifications(true, for: RecorderGATT.notifyCharacteristic)
    } catch {
      throw .connectFailed(error)
    }
    try await handshake()
    if serialUnknown {
      info.serial = try await readSerial()
      if info.model == nil {
        info.model = UInt16(info.serial.prefix(3)).flatMap(RecorderModel.init)
      }
    }
    let sync = TimeSyncRequest(
      unixSeconds: configuration.unixTime(), utcOffsetSeconds: configuration.timeZoneSeconds(),
      encoding: configuration.timeZoneEncoding)
    _ = try await request(.timeSync(sync), operation: "TIME_SYNC") { message -> TimeSyncResponse? in
      if case .timeSync(let reply) = message { return reply }
      return nil
    }
    info.battery = try await battery()
    info.state = try await state()
    info.name = try await name()
    info.storage = try await storage()
  }

  private func handshake() async throws(DeviceError) {
    let request = HandshakeRequest(
      token: configuration.token.normalized(portVersion: info.portVersion))
    let reply = try await self.request(
      .handshake(request), operation: "HANDSHAKE", timeout: configuration.handshakeTimeout
    ) { message -> HandshakeResponse? in
      if case .handshake(let reply) = message { return reply }
      return nil
    }
    switch reply.status {
    case HandshakeStatus.ok.rawValue: break
    case HandshakeStatus.tokenMismatch.rawValue: throw .tokenRejected
    default: throw .handshakeRefused(status: reply.status)
    }
    info.handshake = reply
    info.portVersion = reply.portVersion
    info.audioChannels = Int(max(1, reply.audioChannels ?? 1))
    info.supportsWiFi = (reply.supportWifi ?? 0) != 0
    info.oggAudio = (reply.oggAudio ?? 0) != 0
    if let firmware = reply.firmware { info.firmware = firmware }
    guard (ProtocolDefaults.minimumSessionIdPortVersion..<20).contains(reply.portVersion) else {
      throw .unsupportedPortVersion(reply.portVersion)
    }
  }

  // MARK: - Commands

  /// The battery level and charging state (BATTERY).
  public func battery() async throws(DeviceError) -> BatteryStatus {
    let status = try await request(.battery, operation: "BATTERY") { message -> BatteryStatus? in
      if case .battery(let status) = message { return status }
      return nil
    }
    info.battery = status
    return status
  }

  /// The device state (GET_STATE): recording or idle, privacy, current session.
  public func state() async throws(DeviceError) -> DeviceState {
    let state = try await request(.getState, operation: "GET_STATE") { message -> DeviceState? in
      if case .state(let state) = message { return state }
      return nil
    }
    info.state = state
    return state
  }

  /// Free and total flash (STORAGE).
  public func storage() async throws(DeviceError) -> StorageInfo {
    let storage = try await request(.storage, operation: "STORAGE") { message -> StorageInfo? in
      if case .storage(let storage) = message { return storage }
      return nil
    }
    info.storage = storage
    return storage
  }

  /// The device's name (GET_NAME).
  public func name() async throws(DeviceError) -> String {
    try await request(.getName, operation: "GET_NAME") { message -> String? in
      if case .name(let name) = message { return name.name }
      return nil
    }
  }

  /// Reads one setting (PROTOCOL.md §3.1 ids).
  public func readSetting(_ setting: UInt16) async throws(DeviceError) -> UInt32 {
    try await request(.settings(.read(setting: setting)), operation: "SETTINGS") {
      message -> UInt32? in
      if case .setting(let value) = message, value.setting == setting { return value.value }
      return nil
    }
  }

  /// Writes one setting and returns the value the device reports back.
  @discardableResult
  public func writeSetting(_ setting: UInt16, value: UInt32) async throws(DeviceError) -> UInt32 {
    try await request(.settings(.write(setting: setting, value: value)), operation: "SETTINGS") {
      message -> UInt32? in
      if case .setting(let reply) = message, reply.setting == setting { return reply.value }
      return nil
    }
  }

  /// Every recording on the device, oldest first (LIST, all pages).
  public func listRecordings() async throws(DeviceError) -> [Recording] {
    let tag = configuration.unixTime()
    let channels = info.audioChannels
    var entries: [Int: ListEntry] = [:]
    try await exchange(
      .list(ListRequest(requestTag: tag)), operation: "LIST", timeout: configuration.replyTimeout,
      accepts: { incoming in
        if case .message(.listPage(let page)) = incoming { return page.requestTag == tag }
        return false
      }
    ) { incoming -> Bool in
      guard case .message(.listPage(let page)) = incoming else { return false }
      for (offset, entry) in page.entries.enumerated() { entries[Int(page.index) + offset] = entry }
      return entries.count >= Int(page.total)
    }
    return entries.values
      .map {
        Recording(
          sessionId: $0.sessionId, size: $0.size, scene: $0.scene, attribute: $0.attribute,
          channels: channels)
      }
      .sorted { $0.sessionId < $1.sessionId }
  }

  /// Deletes one recording from the device (DELETE). Only the sync engine should call this,
  /// after the local copy is safe (DESIGN.md invariant 1). The reply is `001F`, or `001E` with
  /// the same session and status (PROTOCOL.md §3.3 [project]).
  public func deleteRecording(_ sessionId: UInt32) async throws(DeviceError) {
    let status = try await request(.delete(sessionId: sessionId), operation: "DELETE") {
      message -> UInt8? in
      switch message {
      case .deleted(let reply), .deletedAs001E(let reply):
        reply.sessionId == sessionId ? reply.status : nil
      default: nil
      }
    }
    guard status == 0 else { throw .rejected(operation: "DELETE", status: status) }
  }

  /// Streams `[start, end)` of a recording (SYNC_START; `end` 0 = to the end): hands every
  /// data frame to `onData` in arrival order and returns the device's tail (with its CRC).
  /// Ordering, gaps and duplicates are the caller's to judge: when `onData` answers
  /// ``StreamDecision/stop`` the stream is stopped with SYNC_STOP and nil is returned, so the
  /// caller can re-issue from its last good byte. Frames of an earlier request that arrive
  /// before this request's head are ignored.
  ///
  /// - Parameter silenceTimeout: longest wait between two frames (5 s [sdk]).
  public func streamRange(
    sessionId: UInt32, start: UInt32, end: UInt32 = 0, silenceTimeout: Duration = .seconds(5),
    onData: @Sendable (BulkFrame) async -> StreamDecision
  ) async throws(DeviceError) -> SyncTail? {
    var tail: SyncTail?
    var headStatus: UInt8?
    var stopped = false
    // If the caller gives up (a background budget expired), the device must stop streaming
    // at once: SYNC_STOP goes straight to the link, not through the request queue (its
    // `001E` reply then arrives as an unsolicited frame), but never ahead of SYNC_START, or
    // the device would take it as a no-op and then stream the whole range.
    let stop = PendingStreamStop(
      link: link, frame: PhoneMessage.syncStop.encoded(portVersion: info.portVersion))
    // Given up before asking: nothing to start, nothing to stop.
    if Task.isCancelled { throw .cancelled }
    do {
      try await withTaskCancellationHandler {
        try await streamExchange(
          sessionId: sessionId, start: start, end: end, silenceTimeout: silenceTimeout,
          onData: onData, tail: &tail, headStatus: &headStatus, stopped: &stopped,
          onRequestWritten: { await stop.requestWritten() })
      } onCancel: {
        stop.cancelled()
      }
    } catch let error as DeviceError {
      throw error
    } catch {
      throw .cancelled
    }
    if let headStatus, headStatus != 0 {
      throw .rejected(operation: "SYNC_START", status: headStatus)
    }
    if stopped {
      try await stopStream()
      return nil
    }
    return tail
  }

  private func streamExchange(
    sessionId: UInt32, start: UInt32, end: UInt32, silenceTimeout: Duration,
    onData: @Sendable (BulkFrame) async -> StreamDecision, tail: inout SyncTail?,
    headStatus: inout UInt8?, stopped: inout Bool,
    onRequestWritten: @escaping @Sendable () async -> Void
  ) async throws(DeviceError) {
    try await exchange(
      .syncStart(SyncStartRequest(sessionId: sessionId, start: start, end: end)),
      operation: "SYNC_START", timeout: silenceTimeout, onWritten: onRequestWritten,
      accepts: { incoming in
        switch incoming {
        case .bulk(let frame): frame.sessionId == sessionId
        case .message(.syncHead(let head)): head.sessionId == sessionId
        case .message(.syncTail(let tail)): tail.sessionId == sessionId
        default: false
        }
      }
    ) { incoming -> Bool in
      switch incoming {
      case .message(.syncHead(let head)):
        headStatus = head.status
        return head.status != 0
      case .bulk(let frame) where !frame.isTerminal && headStatus != nil:
        if await onData(frame) == .stop {
          stopped = true
          return true
        }
        return false
      case .bulk: return false
      case .message(.syncTail(let reply)):
        guard headStatus != nil else { return false }
        tail = reply
        return true
      default: return false
      }
    }
  }

  /// SYNC_STOP: the device stops streaming and answers `001E` [sdk].
  public func stopStream() async throws(DeviceError) {
    _ = try await request(.syncStop, operation: "SYNC_STOP") { message -> Bool? in
      if case .syncStopped = message { return true }
      return nil
    }
  }

  /// Ends the session: SET_ACTIVE 00 (the app's last command [device]), then disconnect.
  public func close() async {
    if endReason == nil {
      _ = try? await request(.setActive(0), operation: "SET_ACTIVE") { message -> UInt8? in
        if case .active(let value) = message { return value }
        return nil
      }
    }
    await abandon()
  }

  /// Drops the link without the closing command (set-up failures, tests).
  func abandon() async {
    resumeReceiving()
    releaseSetUpHold()
    removeBusyProbe?()
    removeBusyProbe = nil
    if endReason == nil { endReason = .closed }
    active?.continuation.finish(throwing: endReason ?? .closed)
    active = nil
    await link.disconnect()
    receiver?.cancel()
    eventContinuation.finish()
  }

  // MARK: - Request machinery

  /// Sends `message` and returns the first reply `extract` accepts.
  func request<Reply: Sendable>(
    _ message: PhoneMessage, operation: String, timeout: Duration? = nil,
    extract: @escaping @Sendable (DeviceMessage) -> Reply?
  ) async throws(DeviceError) -> Reply {
    var reply: Reply?
    try await exchange(
      message, operation: operation, timeout: timeout ?? configuration.replyTimeout,
      accepts: { incoming in
        if case .message(let message) = incoming { return extract(message) != nil }
        return false
      }
    ) { incoming -> Bool in
      if case .message(let message) = incoming { reply = extract(message) }
      return reply != nil
    }
    guard let reply else { throw .timeout(operation: operation) }
    return reply
  }

  /// One request in flight at a time: waits its turn, writes the frame, feeds every accepted
  /// incoming frame to `handle` until it returns true. Fails after `timeout` without a frame.
  /// `onWritten` runs as soon as the frame is with the link, before any reply is awaited.
  private func exchange(
    _ message: PhoneMessage, operation: String, timeout: Duration,
    onWritten: (@Sendable () async -> Void)? = nil,
    accepts: @escaping @Sendable (Incoming) -> Bool,
    handle: (Incoming) async throws(DeviceError) -> Bool
  ) async throws(DeviceError) {
    if let endReason { throw endReason }
    await enterGate()
    defer { leaveGate() }
    if let endReason { throw endReason }

    nextRequestID += 1
    let id = nextRequestID
    let (stream, continuation) = AsyncThrowingStream.makeStream(of: Incoming.self)
    active = ActiveRequest(id: id, accepts: accepts, continuation: continuation)
    defer {
      if active?.id == id { active = nil }
    }
    let watchdog = Task { [clock = configuration.clock] in
      var seen = 0
      while !Task.isCancelled {
        do { try await clock.sleep(for: timeout) } catch { return }
        guard let deliveries = await self.deliveries(of: id), deliveries != seen else {
          await self.fail(id, with: .timeout(operation: operation))
          return
        }
        seen = deliveries
      }
    }
    defer { watchdog.cancel() }

    // Until the write is with the link, nothing is in flight that a simulation could see:
    // hold its clock so the watchdog's deadline is not the next thing it jumps to.
    let releaseWrite = configuration.clock.holdTime()
    do {
      try await link.write(
        message.encoded(portVersion: info.portVersion), to: RecorderGATT.writeCharacteristic,
        type: .withoutResponse)
      await onWritten?()
      releaseWrite()
    } catch {
      releaseWrite()
      releaseSetUpHold()
      throw .disconnected(Self.reason(error))
    }
    // From here we wait for the device: simulated time may pass.
    releaseSetUpHold()
    defer {
      unhandled.withLock { $0 = 0 }
      resumeReceiving()
    }
    do {
      for try await incoming in stream {
        let done: Bool
        do {
          done = try await handle(incoming)
        } catch {
          watchdog.cancel()
          throw error
        }
        // Cancel the watchdog before releasing the clock: its sleeper must not be the
        // next deadline a simulation jumps to.
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

  private func enterGate() async {
    guard gateBusy else {
      gateBusy = true
      return
    }
    await withCheckedContinuation { gateWaiters.append($0) }
  }

  private func leaveGate() {
    if gateWaiters.isEmpty {
      gateBusy = false
    } else {
      gateWaiters.removeFirst().resume()
    }
  }

  private func deliveries(of id: UInt64) -> Int? {
    guard let active, active.id == id else { return nil }
    return active.deliveries
  }

  private func fail(_ id: UInt64, with error: DeviceError) {
    guard let active, active.id == id else { return }
    active.continuation.finish(throwing: error)
    self.active = nil
  }

  private func startReceiving() {
    let events = link.events
    let unhandled = self.unhandled
    removeBusyProbe = configuration.clock.holdTime(while: {
      events.buffered > 0 || unhandled.withLock { $0 > 0 }
    })
    receiver = Task { [weak self] in
      for await event in events {
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
        info.battery.level = level
        eventContinuation.yield(.battery(info.battery))
      }
    case .disconnected(let reason): linkEnded(reason)
    case .readyToSendWriteWithoutResponse, .bondStateChanged: break
    }
  }

  private func receiveFrame(_ bytes: [UInt8]) {
    let incoming: Incoming
    do {
      switch try Frame(decoding: bytes, portVersion: info.portVersion) {
      case .control(let control):
        incoming = .message(try DeviceMessage(control, portVersion: info.portVersion))
      case .bulk(let bulk): incoming = .bulk(bulk)
      default: return
      }
    } catch {
      malformedFrames += 1
      return
    }
    if var request = active, request.accepts(incoming) {
      unhandled.withLock { $0 += 1 }
      request.deliveries += 1
      active = request
      request.continuation.yield(incoming)
      return
    }
    guard case .message(let message) = incoming else { return }
    switch message {
    case .recordStarted(let value): eventContinuation.yield(.recordingStarted(value))
    case .recordPaused(let value): eventContinuation.yield(.recordingPaused(value))
    case .recordResumed(let value): eventContinuation.yield(.recordingResumed(value))
    case .recordStopped(let value): eventContinuation.yield(.recordingStopped(value))
    case .battery(let value):
      info.battery = value
      eventContinuation.yield(.battery(value))
    default: eventContinuation.yield(.unsolicited(opcode: message.frame().opcode.rawValue))
    }
  }

  private func linkEnded(_ reason: DisconnectReason) {
    guard endReason == nil || endReason == .closed else { return }
    let wasClosed = endReason == .closed
    if !wasClosed { endReason = .disconnected(reason) }
    active?.continuation.finish(throwing: endReason ?? .disconnected(reason))
    active = nil
    eventContinuation.yield(.disconnected(reason))
    eventContinuation.finish()
    resumeReceiving()
    removeBusyProbe?()
    removeBusyProbe = nil
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
/// Thread-safe: `state` sits in one ``Locked``; the write happens outside the lock.
private final class PendingStreamStop: Sendable {
  private struct State {
    var requestWritten = false
    var cancelled = false
    var sent = false
  }

  private let state = Locked(State())
  private let link: any PeripheralLink
  private let frame: [UInt8]

  init(link: any PeripheralLink, frame: [UInt8]) {
    self.link = link
    self.frame = frame
  }

  /// From the cancellation handler: stops the device now if SYNC_START is out.
  func cancelled() {
    guard claim({ $0.cancelled = true }) else { return }
    Task { await send() }
  }

  /// From the request's task, once SYNC_START is with the link: stops the device at once if
  /// the caller already gave up.
  func requestWritten() async {
    guard claim({ $0.requestWritten = true }) else { return }
    await send()
  }

  /// Records one side's news; true for the one caller that must now send SYNC_STOP.
  private func claim(_ update: (inout State) -> Void) -> Bool {
    state.withLock { state in
      update(&state)
      guard state.requestWritten, state.cancelled, !state.sent else { return false }
      state.sent = true
      return true
    }
  }

  private func send() async {
    try? await link.write(frame, to: RecorderGATT.writeCharacteristic, type: .withoutResponse)
  }
}
