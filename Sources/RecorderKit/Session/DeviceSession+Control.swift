import RecorderConcurrency
import RecorderProtocol

// Device control (PROTOCOL.md §3.1–§3.3): recording, name, privacy, LED, tags and named
// settings, on top of DeviceSession's one-request-at-a-time machinery. A reply to a command
// the phone sent is consumed here and never appears on ``DeviceSession/events``; the same
// opcodes sent by the device on its own (button, VAD) do.
extension DeviceSession {
  /// REC_START: the device starts recording. `mode` 1 normal, 2 immediate; `scene` 1 normal,
  /// 4 music, 7 call [sdk].
  ///
  /// - Throws: ``DeviceError/rejected(operation:status:)`` when the device answers with a
  ///   non-zero status (already recording, flash full), timeouts and link errors.
  @discardableResult
  public func startRecording(mode: UInt8 = 1, scene: UInt8 = 1) async throws(DeviceError)
    -> RecordStarted
  {
    let reply = try await request(
      .recordStart(RecordCommand(mode: mode, scene: scene)), operation: "REC_START"
    ) { message -> RecordStarted? in
      if case .recordStarted(let started) = message { return started }
      return nil
    }
    guard reply.status == 0 else { throw .rejected(operation: "REC_START", status: reply.status) }
    return reply
  }

  /// REC_PAUSE for the recording `sessionId` (the device's current one by default).
  @discardableResult
  public func pauseRecording(sessionId: SessionID? = nil, scene: UInt8 = 1)
    async throws(DeviceError)
    -> RecordStopped
  {
    let id = try await currentSession(sessionId)
    return try await request(
      .recordPause(RecordSessionCommand(sessionId: id, scene: scene)), operation: "REC_PAUSE"
    ) { message -> RecordStopped? in
      if case .recordPaused(let paused) = message { return paused }
      return nil
    }
  }

  /// REC_RESUME for the recording `sessionId` (the device's current one by default).
  @discardableResult
  public func resumeRecording(sessionId: SessionID? = nil, scene: UInt8 = 1)
    async throws(DeviceError)
    -> RecordStarted
  {
    let id = try await currentSession(sessionId)
    let reply = try await request(
      .recordResume(RecordSessionCommand(sessionId: id, scene: scene)), operation: "REC_RESUME"
    ) { message -> RecordStarted? in
      if case .recordResumed(let resumed) = message { return resumed }
      return nil
    }
    guard reply.status == 0 else { throw .rejected(operation: "REC_RESUME", status: reply.status) }
    return reply
  }

  /// REC_STOP: the device stops and closes the recording; the reply carries its size.
  @discardableResult
  public func stopRecording(mode: UInt8 = 1, scene: UInt8 = 1) async throws(DeviceError)
    -> RecordStopped
  {
    try await request(
      .recordStop(RecordCommand(mode: mode, scene: scene)), operation: "REC_STOP"
    ) { message -> RecordStopped? in
      if case .recordStopped(let stopped) = message { return stopped }
      return nil
    }
  }

  /// SET_NAME (a 32-byte zero-padded UTF-8 field [sdk]); returns the name the device reports.
  /// - Throws: ``DeviceError/rejected(operation:status:)`` with status 255, before anything
  ///   is sent, for a name longer than 32 bytes of UTF-8 (it would be cut on the device).
  @discardableResult
  public func rename(to name: String) async throws(DeviceError) -> String {
    guard name.utf8.count <= DeviceName.setNameWidth else {
      throw .rejected(
        operation: "SET_NAME (name over \(DeviceName.setNameWidth) bytes)", status: 255)
    }
    return try await request(
      .setName(DeviceName(name, fieldWidth: DeviceName.setNameWidth)), operation: "SET_NAME"
    ) { message -> String? in
      if case .name(let reply) = message { return reply.name }
      return nil
    }
  }

  /// The device's WebSocket setting `type` (`0010` get, answered by `0011`, PROTOCOL.md
  /// §3.4) [sdk-code]: the URL or a token, as text up to its first NUL.
  public func webSocketSetting(_ type: WebSocketSettingType) async throws(DeviceError) -> String {
    try await webSocketExchange(.get(type))
  }

  /// Writes the WebSocket setting `type` (`0010` set: the value NUL-padded to 64 bytes for
  /// the URL, 16 for a token) and returns what the device reports back.
  /// - Throws: ``DeviceError/rejected(operation:status:)`` for a value longer than its field
  ///   or holding a NUL (nothing is sent), device errors.
  @discardableResult
  public func setWebSocketSetting(_ type: WebSocketSettingType, to value: String)
    async throws(DeviceError) -> String
  {
    let bytes = Array(value.utf8)
    guard bytes.count <= type.width, !bytes.contains(0) else {
      throw .rejected(
        operation: "WEBSOCKET_SETTINGS (\(type) over \(type.width) bytes or with a NUL)",
        status: 255)
    }
    return try await webSocketExchange(.set(type, value: bytes))
  }

  private func webSocketExchange(_ asked: WebSocketSettingsRequest) async throws(DeviceError)
    -> String
  {
    try await request(.webSocketSettings(asked), operation: "WEBSOCKET_SETTINGS") {
      message -> String? in
      if case .webSocketSetting(let reply) = message, reply.type == asked.type {
        return reply.text
      }
      return nil
    }
  }

  /// SET_PRIVACY; returns the state the device reports.
  @discardableResult
  public func setPrivacy(_ on: Bool) async throws(DeviceError) -> Bool {
    try await request(.setPrivacy(on: on ? 1 : 0), operation: "SET_PRIVACY") { message -> Bool? in
      if case .privacy(let value) = message { return value != 0 }
      return nil
    }
  }

  /// LED get (`0018`, reply `0021`).
  public func led() async throws(DeviceError) -> Bool {
    try await request(.ledGet, operation: "LED_GET") { message -> Bool? in
      if case .ledGet(let value) = message { return value != 0 }
      return nil
    }
  }

  /// LED set (`0019`, reply `0022`); returns the state the device reports.
  @discardableResult
  public func setLED(_ on: Bool) async throws(DeviceError) -> Bool {
    try await request(.ledSet(on: on ? 1 : 0), operation: "LED_SET") { message -> Bool? in
      if case .ledSet(let value) = message { return value != 0 }
      return nil
    }
  }

  /// TAGS: the marks made with the device's button between `from` and `to` (unix seconds),
  /// every page (≤ 20 tags each [sdk]) collected.
  public func tags(from: UInt32 = 0, to: UInt32 = UInt32.max) async throws(DeviceError) -> [Tag] {
    // Any value works as the request tag: the device echoes it; mix in `from` so a late page
    // of an earlier TAGS request is not mistaken for this one's.
    let tag = from ^ 0x5441_4753
    let pages = TagPages()
    return try await request(
      .tags(TagsRequest(requestTag: tag, from: from, to: to)), operation: "TAGS"
    ) { message -> [Tag]? in
      guard case .tagsPage(let page) = message, page.requestTag == tag else { return nil }
      return pages.add(page)
    }
  }

  /// Reads a setting by name.
  public func readSetting(_ setting: DeviceSetting) async throws(DeviceError) -> UInt32 {
    try await readSetting(setting.rawValue)
  }

  /// Writes a setting by name; returns the value the device reports back.
  @discardableResult
  public func writeSetting(_ setting: DeviceSetting, value: UInt32) async throws(DeviceError)
    -> UInt32
  {
    try await writeSetting(setting.rawValue, value: value)
  }

  private func currentSession(_ sessionId: SessionID?) async throws(DeviceError) -> SessionID {
    if let sessionId { return sessionId }
    return try await state().sessionId ?? 0
  }
}

/// TAGS pages as they arrive, keyed by their index so a page seen twice (the request
/// machinery asks `extract` once to accept a frame and once to handle it) counts once.
private final class TagPages: Sendable {
  private let pages = Locked<[UInt16: [Tag]]>([:])

  /// Adds `page`; returns every tag in order once `total` have arrived.
  func add(_ page: TagsPage) -> [Tag]? {
    pages.withLock { pages in
      pages[page.index] = page.tags
      let count = pages.values.reduce(0) { $0 + $1.count }
      guard count >= Int(page.total) else { return nil }
      return pages.sorted { $0.key < $1.key }.flatMap(\.value)
    }
  }
}

extension DeviceSession {
  /// GET_SERIAL: the serial the device reports (PROTOCOL.md §3.1) [sdk]. Connecting reads
  /// it for a recorder found by name only.
  public func readSerial() async throws(DeviceError) -> String {
    try await request(.getSerial, operation: "GET_SERIAL") { message -> String? in
      if case .serial(let reply) = message { return reply.serial }
      return nil
    }
  }

  /// DEPAIR: the device forgets the pairing. Never erases recordings.
  ///
  /// - ``DepairScope/thisConnection`` (the default): DEPAIR with its clear byte 0.
  /// - ``DepairScope/allConnections``: the vendor's `depair(clear: true)`, "clear all
  ///   connections" [sdk]: DEPAIR with the clear byte 1. PROTOCOL.md names that byte
  ///   `clearFiles`, and no source says what firmware does with it, so it is sent only to a
  ///   device that lists no recording just before (LIST re-checked: nothing to lose under
  ///   either reading); otherwise ``DeviceError/depairClearRefused(recordings:)`` and nothing
  ///   is sent.
  /// - ``DepairScope/allConnectionsWhenNoRecordings``: the same, except that a device still
  ///   holding recordings gets the byte 0 instead (this connection only) rather than a
  ///   refusal: the vendor's unbind flow, which must complete.
  ///
  /// To erase, call ``SyncWorkspace/eraseRecordings(on:force:)``, which checks the journal.
  /// Returns the device's status (0 when it sends none). The caller closes the session.
  public func depair(_ scope: DepairScope = .thisConnection) async throws(DeviceError) -> Int {
    var clearing = scope != .thisConnection
    if clearing {
      let held = try await listRecordings().count
      if held > 0 {
        guard scope == .allConnectionsWhenNoRecordings else {
          throw .depairClearRefused(recordings: held)
        }
        clearing = false
      }
    }
    let status = try await request(.depair(clearFiles: clearing ? 1 : 0), operation: "DEPAIR") {
      message -> Int? in
      if case .depair(let status) = message { return Int(status ?? 0) }
      return nil
    }
    return status
  }
}

/// What ``DeviceSession/depair(_:)`` asks the device to forget.
public enum DepairScope: Sendable, Equatable {
  /// This phone's pairing (DEPAIR's clear byte 0).
  case thisConnection
  /// Every connection (the clear byte 1), only on a device that holds no recording; else
  /// refused.
  case allConnections
  /// Every connection on a device that holds no recording, else this one only.
  case allConnectionsWhenNoRecordings
}
