import RecorderConcurrency
import RecorderCrypto
import RecorderProtocol
import RecorderWebSocket

/// The device side of one Wi-Fi Fast Transfer session (PROTOCOL.md §6), started by
/// ``EmulatedDevice/joinHotspot(_:)``: the device's WebSocket client to the phone's server.
///
/// Flow: connect, send HELLO `{token: upper-case hex MD5(serial), pVer: 1}`, wait for the
/// phone's handshake `{token, stamp}` (the BLE token padded to 32 with '0'): a wrong token is
/// answered `{status: 1}` and the socket closed; the right one `{status: 0}`. Then, one
/// request at a time: LIST pages, SYNC (content streamed from flash in
/// ``WiFiParameters/contentChunkBytes`` PDUs, each send awaited: TCP back pressure bounds
/// memory), DELETE, STOP (`{session,scene}`; a bare `{}` is refused with ERR
/// `{cmd:15,status:1}` under ``WiFiParameters/requireStopSession``), keep-alive (answered ERR `{cmd:16,status:0}`); PONGs are taken
/// silently. Anything else, including bytes that are no PDU at all, is counted and ignored:
/// nothing the phone sends can crash the device.
///
/// Concurrency: one reader loop (``run()``) handles phone messages in order; a SYNC's content
/// goes out from a streamer task. The streamer is never cancelled (a cancelled socket write
/// would close the connection): it is retired by bumping ``streamGeneration`` and awaited, so
/// no stale content follows a STOP result or precedes the next SYNC status.
actor WiFiDeviceSession {
  let id: Int
  private let device: EmulatedDevice
  private let host: String
  private let port: UInt16
  private let parameters: WiFiParameters
  private let helloToken: DeviceToken?
  /// The handshake token the phone must send: the BLE token right-padded with '0' to 32.
  private let expectedToken: String
  private var connection: WebSocketConnection?
  private var authenticated = false
  private var ended = false
  private var streamer: Task<Void, Never>?
  private var streamGeneration = 0
  /// Counts handled phone messages: the close after STOP checks nothing came since.
  private var messagesHandled = 0
  private var stopGraceTimer: Task<Void, Never>?
  private var pinger: Task<Void, Never>?
  /// Set when the current streamer sent its range's last PDU.
  private var streamerFinished = false
  /// Count phone messages read (before they are handled) and those handled, whatever they
  /// are: a paused stream (``FaultPlan/pauseWiFiContentAfterBytes``) waits until the next
  /// one read has been handled.
  private var messagesRead = 0
  private var messagesDone = 0
  /// The streamer while it waits in a pause; resumed once the phone's next message was
  /// handled, on a step (``stepPause()``), or when the stream is retired or the session ends.
  private var pausedStreamer: CheckedContinuation<Void, Never>?
  /// Steps asked for (``stepPause()``) and not yet taken by the stream.
  private var pauseSteps = 0
  /// The connection once open, readable from outside the actor (see ``isOver``).
  private let openConnection = Locked<WebSocketConnection?>(nil)
  private let over = Locked(false)
  /// Mode B: every PDU sealed and opened with this channel, under a lock so a PDU is sealed
  /// inside ``sender``'s ordering (a reordered sequence number is dropped by the phone).
  private let sealing: Locked<DeviceChannel>?
  private let sequencePolicy: SequencePolicy
  private var sender: OrderedSender?
  /// On a manual clock: holds it while the phone is being sent to or heard from (real TCP
  /// takes real time and no simulated time); released when the session ends.
  private var hold: ProgressHold?

  init(
    id: Int, device: EmulatedDevice, host: String, port: UInt16, serial: String,
    token: DeviceToken, parameters: WiFiParameters, sealing: DeviceChannel? = nil,
    sequencePolicy: SequencePolicy = ModeB.sequencePolicy, hold: ProgressHold? = nil
  ) {
    self.id = id
    self.hold = hold
    self.sealing = sealing.map { Locked($0) }
    self.sequencePolicy = sequencePolicy
    self.device = device
    self.host = host
    self.port = port
    self.parameters = parameters
    helloToken = DeviceToken(Self.md5Hex(serial))
    let padding = WiFiPhoneMessage.handshakeTokenLength - token.revealed.utf8.count
    expectedToken = token.revealed + String(repeating: "0", count: max(0, padding))
  }

  /// True once the session has ended or its connection is closed (from the moment the
  /// phone's close frame is read), even if the reader loop has not noticed yet: a phone that
  /// closed and joins again at once gets a new session at once, not one deferred until this
  /// one ends. Readable from any thread.
  nonisolated var isOver: Bool {
    over.withLock { $0 } || openConnection.withLock { $0?.isClosed ?? false }
  }

  /// The upper-case hex MD5 of `serial`: a genuine device's HELLO token [sdk].
  static func md5Hex(_ serial: String) -> String {
    Digest.md5(Array(serial.utf8)).hexDigits(uppercase: true)
  }

  /// Connects to the phone and serves it until the connection ends; then frees the device's
  /// session slot.
  func run() async {
    defer {
      stopGraceTimer?.cancel()
      pinger?.cancel()
      hold = nil
    }
    let connection: WebSocketConnection
    do {
      connection = try await WebSocketConnection.connect(
        host: host, port: port, configuration: parameters.webSocket)
    } catch {
      ended = true
      over.withLock { $0 = true }
      await device.wifiSessionEnded(id)
      return
    }
    self.connection = connection
    sender = OrderedSender(connection)
    openConnection.withLock { $0 = connection }
    guard !ended, let helloToken else {
      // Ended while connecting (WIFI_CLOSE, reboot): go away at once.
      await connection.close(code: .goingAway)
      over.withLock { $0 = true }
      await device.wifiSessionEnded(id)
      return
    }
    await send(.hello(token: helloToken, protocolVersion: Int64(WiFiPDU.defaultVersion)))
    while !ended {
      let message: WebSocketMessage
      do {
        message = try await connection.receive()
      } catch {
        break
      }
      hold?.note()
      messagesRead += 1
      await handle(message)
      messagesDone += 1
      resumePausedStream()
    }
    ended = true
    streamGeneration += 1
    resumePausedStream()
    await connection.close()
    over.withLock { $0 = true }
    await device.wifiSessionEnded(id)
  }

  /// Ends the session: a close frame with `closeCode`, or TCP dropped without one (nil).
  func end(closeCode: WebSocketCloseCode?) async {
    guard !ended else { return }
    ended = true
    over.withLock { $0 = true }
    streamGeneration += 1
    resumePausedStream()
    guard let connection else { return }  // still connecting: run() goes away after it
    if let closeCode {
      await connection.close(code: closeCode)
    } else {
      await connection.abort()
    }
  }

  // MARK: Requests

  private func handle(_ message: WebSocketMessage) async {
    guard case .binary(let bytes) = message, let bytes = open(bytes),
      let request = try? WiFiPhoneMessage(decoding: bytes)
    else {
      await device.noteWiFiMessage(valid: false)
      return
    }
    await device.noteWiFiMessage(valid: true)
    messagesHandled += 1
    guard authenticated else {
      if case .handshake(let token, _) = request { await handshake(token) }
      return
    }
    switch request {
    case .handshake: await send(.handshakeResult(status: 0))
    case .pong: await device.noteWiFiPong()
    case .list(let uid, let start, let single): await list(uid: uid, start: start, single: single)
    case .sync(let session, let scene, let start, let end):
      await sync(session: session, scene: scene, start: start, end: end)
    case .delete(let session, let scene):
      await retireStream()
      let status = await device.wifiDelete(session, scene: scene)
      await send(.deleteResult(session: session, status: Int64(status)))
    case .stop(let session, let scene):
      guard !parameters.requireStopSession || (session != nil && scene != nil) else {
        await device.noteWiFiStopRejected()
        await send(.error(cmd: Int64(WiFiPDUType.stop), status: 1))
        return
      }
      await stop()
    case .keepAlive:
      await send(.error(cmd: Int64(WiFiPDUType.keepAlive), status: 0))
    case .otaStart, .otaData:
      break  // firmware update over Wi-Fi is not emulated: ignored, like unknown types
    }
  }

  private func handshake(_ token: DeviceToken) async {
    guard token.revealed == expectedToken else {
      await send(.handshakeResult(status: 1))
      await end(closeCode: .policyViolation)
      return
    }
    authenticated = true
    await send(.handshakeResult(status: 0))
    guard let interval = parameters.pingInterval else { return }
    let clock = parameters.clock
    pinger = Task {
      while true {
        do { try await clock.sleep(for: interval) } catch { return }
        guard await self.ping() else { return }
      }
    }
  }

  /// One PING with the battery's state; false once the session is over.
  private func ping() async -> Bool {
    guard !ended else { return false }
    let (level, charging) = await device.wifiBattery()
    // `volume` is taken as the battery percentage and `voltage` as millivolts [project].
    let voltage = 3_300 + Int64(level) * 9
    await send(.ping(volume: Int64(level), voltage: voltage, charging: charging ? 1 : 0))
    return !ended
  }

  /// One page from `start` (entries the phone already has): `count` = all recordings,
  /// `offset` = `start`; `single` ≠ 0 asks for one entry only.
  private func list(uid: Int64, start: Int64, single: Int64) async {
    let entries = await device.wifiListEntries()
    let from = Int(clamping: max(0, min(start, Int64(entries.count))))
    let size = single != 0 ? 1 : parameters.listPageEntries
    let page = Array(entries[from..<min(entries.count, from + size)])
    await send(
      .list(
        WiFiListPage(
          uid: uid, status: 0, count: Int64(entries.count), offset: Int64(from), entries: page)))
  }

  /// SYNC `[start, end)` (end 0 or past the file: to its end now). Status 1: no such
  /// recording or an empty range; 2: the scene is not the file's [project: codes undocumented].
  private func sync(session: SessionID, scene: UInt16, start: UInt32, end: UInt32) async {
    await retireStream()
    pauseSteps = 0
    guard let file = await device.wifiFile(session) else {
      await send(.syncStatus(session: session, status: 1))
      return
    }
    guard file.scene == scene else {
      await send(.syncStatus(session: session, status: 2))
      return
    }
    let last = end == 0 ? file.size : min(Int(end), file.size)
    guard Int(start) < last else {
      await send(.syncStatus(session: session, status: 1))
      return
    }
    await send(.syncStatus(session: session, status: 0))
    let generation = streamGeneration
    streamer = Task {
      await self.stream(session: session, from: Int(start), to: last, generation: generation)
    }
  }

  /// STOP: ends a transfer in progress (the session goes on), or, with none, is the phone's
  /// goodbye: answered, then closed with 1000 unless another request follows within
  /// ``WiFiParameters/stopGrace`` (a STOP meant for a transfer that had just finished).
  private func stop() async {
    let wasStreaming = await retireStream()
    await send(.stopResult(status: 0))
    guard !wasStreaming else { return }
    let seen = messagesHandled
    let clock = parameters.clock
    let grace = parameters.stopGrace
    stopGraceTimer?.cancel()
    stopGraceTimer = Task {
      do { try await clock.sleep(for: grace) } catch { return }
      await self.closeAfterStop(ifNothingSince: seen)
    }
  }

  private func closeAfterStop(ifNothingSince seen: Int) async {
    guard messagesHandled == seen else { return }
    await end(closeCode: .normalClosure)
  }

  /// Retires the streamer, if any, and waits until its last send is over. Returns whether a
  /// transfer was still going.
  @discardableResult
  private func retireStream() async -> Bool {
    guard let streamer else { return false }
    self.streamer = nil
    let wasRunning = !streamerFinished
    streamGeneration += 1
    resumePausedStream()
    await streamer.value
    streamerFinished = false
    return wasRunning
  }

  private func stream(session: SessionID, from start: Int, to end: Int, generation: Int) async {
    var offset = start
    // Set from the cut of FaultPlan.pauseWiFiContentAfterBytes until the phone speaks: the
    // hold (taken before the cut went out) keeps a manual clock still meanwhile, and `since`
    // counts the phone messages read before the cut.
    var pause: (hold: ManualClock.WorkToken?, since: Int)?
    defer { pause?.hold?.end() }
    while offset < end {
      if let paused = pause {
        guard await waitForPhone(since: paused.since, generation: generation) else { return }
        if messagesDone > paused.since {
          paused.hold?.end()
          pause = nil
        }
      }
      guard generation == streamGeneration, let connection else { return }
      let wanted = min(parameters.contentChunkBytes, end - offset)
      let permit = await device.wifiContentPermit(wanted)
      let allowed = permit.allowed
      guard let data = await device.wifiRead(session, offset: offset, count: allowed),
        data.count == allowed
      else {
        // The file vanished or shrank under us: say so instead of going silent.
        await send(.error(cmd: Int64(WiFiPDUType.content), status: 1))
        break
      }
      guard generation == streamGeneration else { return }
      await device.wifiPace(data.count)
      guard generation == streamGeneration else { return }
      let readBefore = messagesRead
      if !data.isEmpty {
        var last = offset + data.count == end
        if case .drop = permit.then { last = false }
        let content = WiFiContent(
          session: session, offset: UInt32(clamping: offset), last: last, data: data)
        guard await send(.content(content)) else { return }
      }
      offset += data.count
      switch permit.then {
      case .goOn:
        break
      case .drop:
        await connection.abort()
        return
      case .pause(let hold):
        pause = (hold, readBefore)
      }
    }
    if generation == streamGeneration { streamerFinished = true }
  }

  /// The pause of ``FaultPlan/pauseWiFiContentAfterBytes``: returns true once the phone
  /// message read after the first `read` has been handled (at once if it already was; after
  /// its handling if it is being handled, so a STOP retires the stream before more content
  /// can go), or on a step (``stepPause()``, taken here); false once this stream is retired
  /// or the session ends.
  private func waitForPhone(since read: Int, generation: Int) async -> Bool {
    while messagesDone <= read, pauseSteps == 0, generation == streamGeneration, !ended {
      await withCheckedContinuation { pausedStreamer = $0 }
    }
    guard generation == streamGeneration, !ended else { return false }
    if messagesDone <= read { pauseSteps -= 1 }
    return true
  }

  /// Lets one more content PDU out of a paused stream (``EmulatedDevice/stepWiFiContent()``);
  /// the stream pauses again behind it. A step asked for before the stream reaches its pause
  /// is taken there; a new SYNC forgets steps not taken.
  func stepPause() {
    pauseSteps += 1
    resumePausedStream()
  }

  /// Lets a paused streamer go on (it checks ``streamGeneration`` next).
  private func resumePausedStream() {
    pausedStreamer?.resume()
    pausedStreamer = nil
  }

  /// Sends one PDU (sealed in a Mode B session); false when the connection is gone (the
  /// reader loop then ends the session).
  @discardableResult
  private func send(_ message: WiFiDeviceMessage) async -> Bool {
    guard let sender, let bytes = try? message.encoded() else { return false }
    let sealing = self.sealing
    let sent = await sender.send { sealing.map { $0.withLock { $0.seal(bytes) } } ?? bytes }
    guard case .success = sent else { return false }
    hold?.note()
    return true
  }

  /// The PDU inside one phone message: as it is on a plain device; on a Mode B device nil
  /// unless it authenticates and its sequence number follows (then counted as malformed).
  private func open(_ message: [UInt8]) -> [UInt8]? {
    guard let sealing else { return message }
    let policy = sequencePolicy
    return sealing.withLock { try? $0.open(message, policy: policy) }
  }
}
