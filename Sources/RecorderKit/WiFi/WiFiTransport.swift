import Foundation
import RecorderConcurrency
import RecorderCrypto
import RecorderProtocol
import RecorderWebSocket

/// The Wi-Fi Fast Transfer transport (PROTOCOL.md §6): the phone side of one device session
/// over a `WebSocketConnection` that the device opened to our `WebSocketServer`.
///
/// Contract:
/// - ``open(connection:configuration:clock:)`` waits for the device's HELLO, checks its token
///   (upper-case hex MD5 of the serial), answers with the handshake (the BLE token padded to
///   32 with '0', unix seconds) and waits for the result. Then PINGs are answered with PONG
///   as they come, a keep-alive goes out every ``Configuration/keepAliveInterval`` (the
///   device's hotspot quits after ~2 min idle), and its ERR `{cmd:16,status:0}`
///   acknowledgement is swallowed: it is not an error.
/// - One operation at a time (the device serves one request at a time, like over BLE).
/// - Every exit closes the WebSocket: ``finish()`` sends STOP and closes with 1000; a
///   malformed PDU, a timeout, a refused handshake, a lost connection or a cancelled task
///   closes it too, and the transport then throws the same ``DeviceError`` from every call.
///   A request the device answers with a failure status (``DeviceError/rejected(operation:status:)``,
///   a scene mismatch say) leaves the session usable.
/// - Deleting between downloads stalls the device [sdk]: callers delete only after the batch.
///
/// Wi-Fi content carries no CRC: the `SyncTail` that ``stream(sessionId:start:end:receive:)``
/// returns has `crc` 0 and ``tailCarriesDeviceCRC`` is false, so integrity rests on TCP and on
/// the sync engine's own checks (whole range, in order, the device's Opus framing).
package actor WiFiTransport: RecordingTransport {
  /// What the session needs to know and how patient it is.
  public struct Configuration: Sendable {
    /// The device's serial: its HELLO token must be the MD5 of it.
    public var serial: String
    /// The BLE token, sent (padded to 32) in the handshake.
    public var bleToken: DeviceToken
    /// Audio channels of the device's recordings.
    public var audioChannels: Int
    /// The device sends Ogg-wrapped audio (`oggAudio = 1` in its HANDSHAKE reply).
    public var oggAudio = false
    /// How long to wait for each answer (and for the HELLO).
    public var responseTimeout: Duration
    /// Keep-alive period; nil sends none.
    public var keepAliveInterval: Duration?
    /// How long STOP may take to be acknowledged before the socket is closed anyway.
    public var stopTimeout: Duration
    /// The handshake's `stamp`: unix seconds now.
    public var unixTime: @Sendable () -> Int64
    /// Which recording is still being recorded. Wi-Fi has no state query, so this asks the
    /// BLE session when there is one (``DeviceSession`` sets it); nil means none known.
    public var recordingInProgress: @Sendable () async -> SessionID? = { nil }
    /// What the BLE LIST said, when there was one: the Wi-Fi LIST must name the same
    /// recordings with the same sizes (the one being recorded aside), or
    /// ``listRecordings()`` refuses the peer with ``DeviceError/wifiUnavailable(_:)`` and
    /// the sync goes on over BLE. A peer that passed HELLO (the serial is public) cannot then
    /// make its own recordings look like the device's. nil: no comparison.
    public var expectedListing: [Recording]?
    /// A Mode B device's key: every PDU is then sealed both ways (`WiFiSealing`), and a
    /// device whose HELLO does not authenticate under it is refused. nil: plain PDUs.
    public var sealing: WiFiSealing?

    /// Ten seconds per answer, a keep-alive every 30 s, five seconds for STOP.
    public init(
      serial: String, bleToken: DeviceToken, audioChannels: Int = 1,
      responseTimeout: Duration = .seconds(10), keepAliveInterval: Duration? = .seconds(30),
      stopTimeout: Duration = .seconds(5),
      unixTime: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
    ) {
      self.serial = serial
      self.bleToken = bleToken
      self.audioChannels = audioChannels
      self.responseTimeout = responseTimeout
      self.keepAliveInterval = keepAliveInterval
      self.stopTimeout = stopTimeout
      self.unixTime = unixTime
    }
  }

  /// "wifi", as the journal records it.
  public nonisolated let name = "wifi"
  /// A delete between downloads stalls the device [sdk].
  public nonisolated var deletesOnlyAfterBatch: Bool { true }
  /// §6 content carries no checksum: the tail's `crc` is 0 and means nothing.
  public nonisolated var tailCarriesDeviceCRC: Bool { false }
  /// The connection the device opened.
  public nonisolated let connection: WebSocketConnection
  /// Sealed PDUs dropped: they did not authenticate, or repeated or went back on a sequence
  /// number (a Mode B session only; PROTOCOL.md §9).
  public private(set) var refusedSealedPDUs = 0
  private let sender: OrderedSender
  /// Mode B sealing, when ``Configuration/sealing`` is set.
  private var channel: WiFiPDUChannel?
  private let configuration: Configuration
  private let clock: AnyClock
  /// The device's pduVersion from its HELLO; every PDU we send carries it.
  private var pduVersion = WiFiPDU.defaultVersion
  private var inbox: [WiFiDeviceMessage] = []
  /// The reader, parked while the inbox is full (see ``inboxLimit``).
  private var readerParked: CheckedContinuation<Void, Never>?
  private var waiter:
    (id: UInt64, resume: CheckedContinuation<Result<WiFiDeviceMessage, DeviceError>, Never>)?
  private var nextWaiter: UInt64 = 0
  private var failure: DeviceError?
  private var reader: Task<Void, Never>?
  private var keepAlive: Task<Void, Never>?
  private var busy = false
  /// The one ``finish()`` in progress or done.
  private var finishing: Task<Void, Never>?
  private var nextListUID: Int64 = 1
  /// Each recording's scene from the last LIST: SYNC and DELETE must repeat it [sdk].
  private var scenes: [SessionID: UInt16] = [:]
  /// The recording of the last SYNC, with its scene: what STOP names (PROTOCOL.md §6).
  private var lastTransfer: (session: SessionID, scene: UInt16)?

  /// Messages the reader may hold for the operation before it stops reading from the socket.
  /// TCP's flow control then holds the device back, so memory stays bounded whatever the
  /// recording's length when the consumer (a disk, fsyncs) is slower than the link:
  /// 16 content PDUs of ~32 KB. Without it a 5-hour file piled up here (issue 7's benchmark).
  static let inboxLimit = 16

  private init(connection: WebSocketConnection, configuration: Configuration, clock: AnyClock) {
    self.connection = connection
    self.configuration = configuration
    self.clock = clock
    sender = OrderedSender(connection)
    channel = configuration.sealing.map(WiFiPDUChannel.init)
  }

  /// The upper-case hex MD5 of `serial`: the token a genuine device says HELLO with [sdk].
  public static func helloToken(serial: String) -> String {
    Digest.md5(Array(serial.utf8)).hexDigits(uppercase: true)
  }

  /// Runs HELLO and the handshake on `connection` and returns the ready transport.
  /// - Throws: ``DeviceError/timeout(operation:)`` (no HELLO or result in time),
  ///   ``DeviceError/malformedReply(operation:reason:)`` (not a HELLO, or its token is not
  ///   this device's), ``DeviceError/handshakeRefused(status:)``,
  ///   ``DeviceError/disconnected(_:)``. The connection is closed on every failure.
  public static func open(
    connection: WebSocketConnection, configuration: Configuration, clock: AnyClock = .continuous
  ) async throws(DeviceError) -> WiFiTransport {
    let transport = WiFiTransport(
      connection: connection, configuration: configuration, clock: clock)
    try await transport.start()
    return transport
  }

  private func start() async throws(DeviceError) {
    reader = Task { [connection] in
      while true {
        do throws(WebSocketError) {
          let message = try await connection.receive()
          await self.deliver(message)
          await self.waitForRoom()
        } catch {
          await self.readerEnded(error)
          return
        }
      }
    }
    do throws(DeviceError) {
      guard case .hello(let token, let version) = try await nextMessage(operation: "HELLO") else {
        throw DeviceError.malformedReply(operation: "HELLO", reason: "the first PDU is not HELLO")
      }
      guard token.revealed == Self.helloToken(serial: configuration.serial) else {
        throw DeviceError.malformedReply(
          operation: "HELLO",
          reason: "the device's token does not match serial \(configuration.serial)")
      }
      pduVersion = UInt8(exactly: version) ?? WiFiPDU.defaultVersion
      try await send(.handshake(token: configuration.bleToken, stamp: configuration.unixTime()))
      let status = try await expect(operation: "handshake") { message -> Int64? in
        if case .handshakeResult(let status) = message { return status }
        return nil
      }
      guard status == 0 else { throw DeviceError.handshakeRefused(status: UInt8(clamping: status)) }
    } catch {
      await abort(error, code: .policyViolation)
      throw error
    }
    if let interval = configuration.keepAliveInterval {
      let clock = self.clock
      keepAlive = Task {
        while true {
          do { try await clock.sleep(for: interval) } catch { return }
          guard await self.sendKeepAlive() else { return }
        }
      }
    }
  }

  // MARK: RecordingTransport

  /// The serial the HELLO token was checked against.
  public var serial: String { configuration.serial }
  /// From the configuration: Wi-Fi does not report it.
  public var audioChannels: Int { configuration.audioChannels }

  /// Every recording, page by page (`start` = entries received so far) until the device's
  /// `count` is reached or a page comes back empty [project: paging is not documented].
  public func listRecordings() async throws(DeviceError) -> [Recording] {
    try begin()
    defer { busy = false }
    var entries: [WiFiListEntry] = []
    while true {
      let uid = nextListUID
      nextListUID += 1
      try await send(.list(uid: uid, start: Int64(entries.count), single: 0))
      let page = try await expect(operation: "LIST") { message -> WiFiListPage? in
        if case .list(let page) = message, page.uid == uid { return page }
        return nil
      }
      guard page.status == 0 else {
        throw .rejected(operation: "LIST", status: UInt8(clamping: page.status))
      }
      entries += page.entries
      if page.entries.isEmpty || Int64(entries.count) >= page.count || entries.count > 100_000 {
        break
      }
    }
    for entry in entries { scenes[entry.sessionId] = entry.scene }
    let listed = entries.map {
      Recording(
        sessionId: $0.sessionId, size: $0.size, scene: UInt8(exactly: $0.scene), attribute: nil,
        channels: configuration.audioChannels, container: configuration.oggAudio ? .ogg : .raw,
        // A sealed (Mode B) device stores E2EE files (PROTOCOL.md §5): a guess for `ls`.
        startsWithE2EEHeader: configuration.sealing != nil)
    }
    if let expected = configuration.expectedListing {
      let recording = await configuration.recordingInProgress()
      if let difference = Self.disagreement(wifi: listed, ble: expected, skipping: recording) {
        throw .wifiUnavailable("the Wi-Fi LIST disagrees with the BLE LIST (\(difference))")
      }
    }
    return listed
  }

  /// The first way `wifi` and `ble` disagree (a recording one lists and the other does not,
  /// or listed with another size), leaving out `skipping`; nil when they agree.
  static func disagreement(wifi: [Recording], ble: [Recording], skipping: SessionID?) -> String? {
    let sizes = { (list: [Recording]) in
      Dictionary(
        list.filter { $0.sessionId != skipping }.map { ($0.sessionId, $0.size) },
        uniquingKeysWith: { first, _ in first })
    }
    let overWiFi = sizes(wifi)
    let overBLE = sizes(ble)
    for (id, size) in overWiFi.sorted(by: { $0.key < $1.key }) {
      guard let bleSize = overBLE[id] else { return "\(id) is not on the BLE LIST" }
      guard bleSize == size else { return "\(id) is \(size) B over Wi-Fi, \(bleSize) B over BLE" }
    }
    if let missing = overBLE.keys.sorted().first(where: { overWiFi[$0] == nil }) {
      return "\(missing) is missing over Wi-Fi"
    }
    return nil
  }

  /// Wi-Fi has no state query: asks ``Configuration/recordingInProgress`` (the BLE session).
  public func recordingInProgress() async throws(DeviceError) -> SessionID? {
    await configuration.recordingInProgress()
  }

  /// SYNC `[start, end)` with the recording's scene, then hands each content PDU on as one
  /// frame (longer than a BLE frame: it never goes on that wire) until the PDU marked `last`.
  /// Returns nil after `receive` answered ``StreamDecision/stop`` (STOP was sent).
  public func stream(
    sessionId: SessionID, start: UInt32, end: UInt32,
    receive: @Sendable (BulkFrame) async -> StreamDecision
  ) async throws(DeviceError) -> SyncTail? {
    try begin()
    defer { busy = false }
    let scene = scenes[sessionId] ?? 1
    lastTransfer = (sessionId, scene)
    try await send(.sync(session: sessionId, scene: scene, start: start, end: end))
    while true {
      if Task.isCancelled {
        // The caller gave up (an expired background budget): end the session (STOP, close
        // 1000) from a task the cancellation does not reach, as when cancelled mid-wait.
        Task { await self.finish() }
        throw .cancelled
      }
      let message = try await nextMessage(operation: "SYNC")
      switch message {
      case .syncStatus(sessionId, let status) where status != 0:
        throw .rejected(operation: "SYNC", status: UInt8(clamping: status))
      case .error(let cmd, let status) where status != 0 && (cmd == 12 || cmd == 13):
        throw .rejected(operation: "SYNC", status: UInt8(clamping: status))
      case .content(let content) where content.session == sessionId:
        // The whole PDU as one frame: it never goes on the BLE wire, and cutting it into
        // 255-byte frames cost an allocation and a consumer call per 255 bytes.
        let frame = BulkFrame(sessionId: sessionId, offset: content.offset, data: content.data)
        if await Self.handOn(frame, to: receive) == .stop {
          try await stopStreaming()
          return nil
        }
        if content.last { return SyncTail(sessionId: sessionId, crc: 0) }
      default: continue
      }
    }
  }

  /// Hands one frame to the consumer. Nonisolated on purpose: calling the consumer from the
  /// actor would hop executors on the way there and back.
  private nonisolated static func handOn(
    _ frame: BulkFrame, to receive: @Sendable (BulkFrame) async -> StreamDecision
  ) async -> StreamDecision {
    await receive(frame)
  }

  /// DELETE with the recording's scene. Only after the whole batch is downloaded [sdk].
  public func delete(sessionId: SessionID) async throws(DeviceError) {
    try begin()
    defer { busy = false }
    try await send(.delete(session: sessionId, scene: scenes[sessionId] ?? 1))
    let status = try await expect(operation: "DELETE") { message -> Int64? in
      if case .deleteResult(sessionId, let status) = message { return status }
      return nil
    }
    guard status == 0 else {
      throw .rejected(operation: "DELETE", status: UInt8(clamping: status))
    }
    scenes[sessionId] = nil
  }

  /// Ends the session: STOP (acknowledged or not within ``Configuration/stopTimeout``), then
  /// the WebSocket close with 1000. Idempotent; after it every call throws ``DeviceError/closed``.
  public func finish() async {
    // Callers may race (a cancelled stream ends the session while its owner closes it too):
    // one STOP exchange, which every caller waits for.
    if let finishing { return await finishing.value }
    let task = Task { await self.stopAndClose() }
    finishing = task
    await task.value
  }

  private func stopAndClose() async {
    guard failure == nil else { return await shutDown(code: nil) }
    if (try? await send(stopMessage)) != nil {
      _ = try? await expect(operation: "STOP", timeout: configuration.stopTimeout) {
        message -> Int64? in
        if case .stopResult(let status) = message { return status }
        return nil
      }
    }
    await abort(.closed, code: .normalClosure)
  }

  // MARK: Internals

  private func begin() throws(DeviceError) {
    if let failure { throw failure }
    guard !busy else {
      throw .malformedReply(operation: "Wi-Fi", reason: "one operation at a time")
    }
    busy = true
  }

  private func send(_ message: WiFiPhoneMessage) async throws(DeviceError) {
    if let failure { throw failure }
    let bytes: [UInt8]
    do throws(WiFiPDUError) {
      bytes = try message.encoded(version: pduVersion)
    } catch {
      throw await failed(.malformedReply(operation: "Wi-Fi", reason: error.description))
    }
    // Sealed (Mode B) and written in call order, in a task of its own: a cancelled caller
    // must not cancel the socket write, which would close the connection before STOP could
    // be sent (SocketConnection's rule). The phone speaks only after HELLO, so a sealed
    // session knows its AEAD by now.
    let channel = self.channel
    if let channel, channel.cipher == nil {
      throw await failed(.malformedReply(operation: "Wi-Fi", reason: "a PDU before a sealed HELLO"))
    }
    let sent = await sender.send { channel.map { $0.seal(bytes) ?? [] } ?? bytes }
    if case .failure(let error) = sent { throw await failed(Self.deviceError(error), code: nil) }
  }

  /// STOP `{session, scene}` [sdk]: the last transfer's, or session 0 in scene 1 when there
  /// was none [project].
  private var stopMessage: WiFiPhoneMessage {
    .stop(session: lastTransfer?.session ?? 0, scene: lastTransfer?.scene ?? 1)
  }

  private func sendKeepAlive() async -> Bool {
    guard failure == nil else { return false }
    return (try? await send(.keepAlive)) != nil
  }

  /// STOP after the consumer asked to stop, discarding content until it is acknowledged.
  private func stopStreaming() async throws(DeviceError) {
    try await send(stopMessage)
    _ = try await expect(operation: "STOP", timeout: configuration.stopTimeout) {
      message -> Int64? in
      if case .stopResult(let status) = message { return status }
      return nil
    }
  }

  /// Waits for the first message `match` accepts, skipping others (late content, tips).
  private func expect<T>(
    operation: String, timeout: Duration? = nil, _ match: (WiFiDeviceMessage) -> T?
  ) async throws(DeviceError) -> T {
    while true {
      let message = try await nextMessage(operation: operation, timeout: timeout)
      if let value = match(message) { return value }
    }
  }

  /// The next message the reader delivered, within the response timeout on the clock.
  private func nextMessage(operation: String, timeout: Duration? = nil) async throws(DeviceError)
    -> WiFiDeviceMessage
  {
    if !inbox.isEmpty {
      let message = inbox.removeFirst()
      if inbox.count < Self.inboxLimit { unparkReader() }
      return message
    }
    if let failure { throw failure }
    nextWaiter += 1
    let id = nextWaiter
    let clock = self.clock
    let limit = timeout ?? configuration.responseTimeout
    let timer = Task {
      do { try await clock.sleep(for: limit) } catch { return }
      self.expire(id, operation: operation)
    }
    let result = await withTaskCancellationHandler {
      await withCheckedContinuation {
        (continuation: CheckedContinuation<Result<WiFiDeviceMessage, DeviceError>, Never>) in
        if Task.isCancelled {
          continuation.resume(returning: .failure(.cancelled))
        } else {
          waiter = (id, continuation)
        }
      }
    } onCancel: {
      Task { await self.resumeWaiter(id, with: .failure(.cancelled)) }
    }
    timer.cancel()
    switch result {
    case .success(let message): return message
    case .failure(.cancelled):
      // Close from a task of our own: this one is cancelled, and a cancelled write closes
      // the socket before STOP could go out.
      Task { await self.finish() }
      throw .cancelled
    case .failure(let error):
      if case .timeout = error { throw await failed(error, code: .policyViolation) }
      throw error
    }
  }

  private func expire(_ id: UInt64, operation: String) {
    resumeWaiter(id, with: .failure(.timeout(operation: operation)))
  }

  private func resumeWaiter(_ id: UInt64, with result: Result<WiFiDeviceMessage, DeviceError>) {
    guard let waiter, waiter.id == id else { return }
    self.waiter = nil
    waiter.resume.resume(returning: result)
  }

  /// The reader's hand-off: PING is answered here, keep-alive acknowledgements and notices
  /// are dropped, unknown types are ignored, the rest goes to the waiting operation.
  private func deliver(_ message: WebSocketMessage) async {
    guard case .binary(var bytes) = message else {
      _ = await failed(.malformedReply(operation: "Wi-Fi", reason: "a text message, not a PDU"))
      return
    }
    if var channel {
      let knewAEAD = channel.cipher != nil
      do throws(SecureChannelError) {
        bytes = try channel.open(bytes)
        self.channel = channel
      } catch {
        self.channel = channel
        guard knewAEAD || channel.cipher != nil else {
          // Not even the HELLO authenticates: not this device's session key (a rogue client,
          // or a plain PDU where Mode B was agreed). Nothing of it is trusted.
          _ = await failed(
            .malformedReply(
              operation: "HELLO",
              reason: "the first PDU does not authenticate under the Mode B session key"))
          return
        }
        refusedSealedPDUs += 1
        return
      }
    }
    let decoded: WiFiDeviceMessage
    do throws(WiFiPDUError) {
      decoded = try WiFiDeviceMessage(decoding: bytes)
    } catch {
      if case .unknownType = error { return }
      _ = await failed(.malformedReply(operation: "Wi-Fi", reason: error.description))
      return
    }
    switch decoded {
    case .ping: try? await send(.pong)
    case _ where decoded.isKeepAliveAcknowledgement: return
    case .extendExitTime, .tips: return
    case .close:
      _ = await failed(.disconnected(.remoteTerminated), code: .normalClosure)
    default:
      if let waiter {
        self.waiter = nil
        waiter.resume.resume(returning: .success(decoded))
      } else {
        inbox.append(decoded)
      }
    }
  }

  /// Parks the reader while the inbox is full; ``nextMessage(operation:timeout:)`` taking a
  /// message, or the shutdown, lets it go on.
  private func waitForRoom() async {
    guard inbox.count >= Self.inboxLimit, failure == nil else { return }
    await withCheckedContinuation { readerParked = $0 }
  }

  private func unparkReader() {
    readerParked?.resume()
    readerParked = nil
  }

  private func readerEnded(_ error: WebSocketError) async {
    _ = await failed(Self.deviceError(error), code: nil)
  }

  /// Records the first failure, closes the connection (with `code`, default 1002) and wakes
  /// the waiting operation. Returns the error to throw.
  private func failed(_ error: DeviceError, code: WebSocketCloseCode? = .protocolError) async
    -> DeviceError
  {
    await abort(error, code: code)
    return failure ?? error
  }

  private func abort(_ error: DeviceError, code: WebSocketCloseCode?) async {
    if failure == nil { failure = error }
    if let waiter {
      self.waiter = nil
      waiter.resume.resume(returning: .failure(failure ?? error))
    }
    await shutDown(code: code)
  }

  private func shutDown(code: WebSocketCloseCode?) async {
    keepAlive?.cancel()
    keepAlive = nil
    unparkReader()
    if let code { await connection.close(code: code) } else { await connection.close() }
    reader?.cancel()
    reader = nil
  }

  static func deviceError(_ error: WebSocketError) -> DeviceError {
    switch error {
    case .closedByPeer: .disconnected(.remoteTerminated)
    case .closedLocally: .closed
    case .connectionLost, .stalledMidFrame, .idleTimeout: .disconnected(.linkLoss)
    case .socket(let socket): .disconnected(.other(socket.description))
    default: .malformedReply(operation: "Wi-Fi", reason: error.description)
    }
  }
}
