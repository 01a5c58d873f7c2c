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
    /// The bound of each handshake reply (each Mode B pre-handshake reply, each HANDSHAKE
    /// stage); nil (default): by model and security generation, from
    /// `ModelCapabilities/handshakeTimeouts(for:security:)` (PROTOCOL.md §4: Mode A 10 s;
    /// Mode B 20 s per `FE11`/`FE12` reply and 15 s per HANDSHAKE stage [client]).
    public var handshakeTimeout: Duration?
    /// Connection timeout (SDK default 10 s) [sdk].
    public var connectTimeout: Duration = .seconds(10)
    /// ATT MTU to ask for; nil (default): the model's (`ModelCapabilities/requestedMTU(for:)`,
    /// 255 for every model [sdk]).
    public var mtu: Int?
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
    /// The user's key pair and the serial signature, for devices with portVersion ≥ 20
    /// (Mode B, PROTOCOL.md §9); nil: such a device is refused with
    /// ``DeviceError/modeB(_:)`` ``ModeBError/noUserKey`` before anything is written.
    public var modeB: ModeBCredentials?
    /// The second stage of a two-stage HANDSHAKE, which newer firmware asks for by answering
    /// the first with GET_SERIAL (PROTOCOL.md §3.1 [sdk]): its 8-byte `devToken` (what the
    /// vendor puts there is not known: zeros unless set; longer is cut, shorter padded) and
    /// the phone's name (UTF-8, at most 32 bytes sent; nil sends none).
    public var secondStageDeviceToken: [UInt8] = Array(repeating: 0, count: 8)
    public var phoneName: String?
    /// Told each step of the set-up as it begins (``ConnectStep``), on the connecting task;
    /// nil (default): nobody is told.
    public var onConnectStep: (@Sendable (ConnectStep) -> Void)?

    public init(token: DeviceToken) { self.token = token }
  }

  /// A step of the connection set-up, in the order a connect meets them (PROTOCOL.md §4);
  /// the ones a recorder does not need (Mode B's channel, the second HANDSHAKE, the serial
  /// read) are skipped.
  public enum ConnectStep: String, Sendable, CaseIterable {
    /// The radio link is being opened.
    case link
    /// Notifications on the notify characteristic are being turned on.
    case notifications
    /// Mode B's encrypted channel is being opened (PROTOCOL.md §9).
    case secureChannel
    /// The (first) HANDSHAKE is being sent.
    case handshake
    /// The device asked for the second HANDSHAKE stage; it is being sent.
    case secondHandshake
    /// The serial of a recorder heard by name only is being read (GET_SERIAL).
    case serial
    /// TIME_SYNC is being sent.
    case timeSync
  }

  /// What the device said about itself at set-up; battery and state refresh as events arrive.
  public var info: DeviceInfo {
    var info = setUpInfo
    if let battery = channel.battery.withLock({ $0 }) { info.battery = battery }
    return info
  }
  /// Device events (REC_*, battery, disconnection), in order. Single consumer.
  public nonisolated let events: AsyncStream<DeviceEvent>
  /// Frames from the device that failed to decode (dropped, counted).
  package var malformedFrames: Int { get async { await channel.malformedFrames } }
  /// Mode B: sealed notifications dropped because their sequence number did not move
  /// forward (replayed or reordered, PROTOCOL.md §9).
  package var replayedFrames: Int { get async { await channel.replayedFrames } }
  /// Mode B: sealed notifications dropped because they did not authenticate (tampered).
  package var unauthenticFrames: Int { get async { await channel.unauthenticFrames } }
  /// True when the session runs inside Mode B's encrypted channel.
  public var isEncrypted: Bool { get async { await channel.cipher != nil } }

  private var setUpInfo: DeviceInfo
  let configuration: Configuration
  /// One request at a time, their timeouts, and the receive loop.
  let channel: RequestChannel
  private let link: any PeripheralLink
  /// The advertisement the session was reached by.
  private let reachedBy: DiscoveredDevice
  /// The device was found by name only: GET_SERIAL after HANDSHAKE.
  private let serialUnknown: Bool

  // MARK: - Connecting

  /// Connects to `device`, authenticates and reads its state.
  ///
  /// - Parameters:
  ///   - device: how the recorder was heard (or remembered).
  ///   - central: the radio to connect with.
  ///   - configuration: the token, the Mode B credentials, the clock and the limits.
  ///   - whenInRange: false (default): the link must come up within
  ///     ``Configuration/connectTimeout``. true: a recorder met before (its peripheral
  ///     identity remembered) is connected to whenever it is next in range, with no scan and no
  ///     time limit (`Central.connectWhenInRange(_:services:)`: CoreBluetooth's pending
  ///     connect, which survives the app's suspension and relaunches a system-terminated app).
  ///     Cancel the calling task to withdraw it.
  /// - Throws: ``DeviceError/tokenRejected`` for a wrong token (the link is closed before
  ///   returning), ``DeviceError/unsupportedPortVersion(_:)``, timeouts, link errors.
  package static func connect(
    to device: DiscoveredDevice, using central: any Central, configuration: Configuration,
    whenInRange: Bool = false
  ) async throws(DeviceError) -> DeviceSession {
    var configuration = configuration
    if let credentials = configuration.modeB,
      ModelCapabilities.mayUseModeB(
        model: device.model, portVersion: device.portVersion, name: device.name)
    {
      // What Mode B needs and the link does not is ready before the link is up: a device
      // drops a central that has not authenticated within about a second [device]. The
      // user's key may have to be made (RSA generation: seconds on a busy machine), the
      // serial signature may take a cloud round trip.
      let loaded = credentials.withUserKeyLoaded()
      configuration.modeB = loaded
      if let serial = device.serial {
        let signature = await loaded.serialSignature(serial)
        configuration.modeB?.serialSignature = { asked in
          asked == serial ? signature : await loaded.serialSignature(asked)
        }
      }
    }
    let state = await central.settledState(on: configuration.clock)
    guard state == .poweredOn else { throw .bluetoothUnavailable(state) }
    let link: any PeripheralLink
    configuration.onConnectStep?(.link)
    do {
      link =
        whenInRange
        ? try await central.connectWhenInRange(device.peripheral, services: RecorderGATT.services)
        : try await central.connect(device.peripheral, timeout: configuration.connectTimeout)
    } catch {
      throw .connectFailed(error)
    }
    let session = DeviceSession(link: link, device: device, configuration: configuration)
    do {
      try await session.setUp()
    } catch {
      await session.abandon()
      throw error
    }
    return session
  }

  private init(link: any PeripheralLink, device: DiscoveredDevice, configuration: Configuration) {
    self.configuration = configuration
    let (events, eventContinuation) = AsyncStream.makeStream(of: DeviceEvent.self)
    self.events = events
    let portVersion = device.portVersion ?? ProtocolDefaults.portVersion
    channel = RequestChannel(
      link: link, clock: configuration.clock, replyTimeout: configuration.replyTimeout,
      portVersion: portVersion, events: eventContinuation)
    // A recorder heard only by name: its portVersion is assumed until HANDSHAKE tells it,
    // its serial is read after HANDSHAKE (GET_SERIAL) [project].
    serialUnknown = device.serial == nil
    setUpInfo = DeviceInfo(
      serial: device.serial ?? "", model: device.model, name: device.name ?? "",
      firmware: device.firmware, portVersion: portVersion, audioChannels: 1,
      supportsWiFi: false, oggAudio: false, battery: BatteryStatus(level: 0),
      storage: StorageInfo(freeBytes: 0, totalBytes: 0), state: DeviceState(state: 0, privacy: 0))
    self.link = link
    reachedBy = device
  }

  /// The recorder as discovered, completed with what the session learnt after connecting
  /// (the serial and model of a recorder heard by name only, the firmware, the portVersion).
  public var discoveredDevice: DiscoveredDevice {
    var device = reachedBy
    device.serial = setUpInfo.serial
    device.model = setUpInfo.model ?? device.model
    device.firmware = setUpInfo.firmware ?? device.firmware
    device.portVersion = setUpInfo.portVersion
    return device
  }

  /// Whether this session opens Mode B's channel before HANDSHAKE: for every recorder that
  /// may speak it (`ModelCapabilities/mayUseModeB(model:portVersion:name:)`), so the token
  /// never goes in clear to a device that might be Mode B (issue 43).
  private var opensModeB: Bool {
    ModelCapabilities.mayUseModeB(
      model: reachedBy.model, portVersion: reachedBy.portVersion, name: reachedBy.name)
  }

  /// The bounds of this session's handshake replies.
  private var handshakeTimeouts: HandshakeTimeouts {
    var timeouts = ModelCapabilities.handshakeTimeouts(
      for: reachedBy.model, security: opensModeB ? .modeB : .modeA)
    if let bound = configuration.handshakeTimeout {
      timeouts = HandshakeTimeouts(preHandshakeReply: bound, handshakeReply: bound)
    }
    return timeouts
  }

  private func setUp() async throws(DeviceError) {
    let portVersion = info.portVersion
    guard ProtocolDefaults.supportedPortVersions.contains(portVersion) else {
      throw .unsupportedPortVersion(portVersion)
    }
    let modeB = opensModeB
    if modeB, configuration.modeB == nil { throw .modeB(.noUserKey) }
    await channel.startReceiving()
    _ = try? await link.requestMTU(
      configuration.mtu ?? ModelCapabilities.requestedMTU(for: reachedBy.model))
    configuration.onConnectStep?(.notifications)
    do {
      try await link.setNotifications(true, for: RecorderGATT.notifyCharacteristic)
    } catch {
      throw .connectFailed(error)
    }
    if modeB, let credentials = configuration.modeB {
      configuration.onConnectStep?(.secureChannel)
      try await channel.establishModeB(
        credentials: credentials, serial: setUpInfo.serial,
        timeout: handshakeTimeouts.preHandshakeReply)
    }
    do throws(DeviceError) {
      try await handshake()
    } catch .disconnected(let reason) where modeB && reason != .localRequest {
      // The channel opened, then the HANDSHAKE got no answer but a dropped link: what a Mode B
      // recorder bound to another account does. (A drop before the channel opened, an
      // unanswered FE10, stays a disconnect: the serial signature is the likelier cause.)
      throw .boundToAnotherAccount(reason)
    }
    if serialUnknown {
      configuration.onConnectStep?(.serial)
      setUpInfo.serial = try await readSerial()
      if setUpInfo.model == nil {
        setUpInfo.model = RecorderModel.of(serial: setUpInfo.serial)
      }
    }
    configuration.onConnectStep?(.timeSync)
    let sync = TimeSyncRequest(
      unixSeconds: configuration.unixTime(), utcOffsetSeconds: configuration.timeZoneSeconds(),
      encoding: configuration.timeZoneEncoding)
    _ = try await request(.timeSync(sync), operation: "TIME_SYNC") { message -> TimeSyncResponse? in
      if case .timeSync(let reply) = message { return reply }
      return nil
    }
    _ = try await battery()
    setUpInfo.state = try await state()
    setUpInfo.name = try await name()
    setUpInfo.storage = try await storage()
  }

  /// What a HANDSHAKE is answered with: its reply, or (newer firmware, first stage) the
  /// device's serial, asking for the second stage.
  private enum HandshakeAnswer: Sendable {
    case reply(HandshakeResponse)
    case serial(SerialResponse)
  }

  private func handshakeStage(_ request: HandshakeRequest) async throws(DeviceError)
    -> HandshakeAnswer
  {
    try await self.request(
      .handshake(request), operation: "HANDSHAKE", timeout: handshakeTimeouts.handshakeReply
    ) { message -> HandshakeAnswer? in
      switch message {
      case .handshake(let reply): .reply(reply)
      case .serial(let serial): .serial(serial)
      default: nil
      }
    }
  }

  /// HANDSHAKE, in one stage (V0095) or two (newer firmware answers the first with GET_SERIAL
  /// and expects a second with `appVerify` 1, `devToken` and the phone's name): whichever the
  /// device asks for.
  private func handshake() async throws(DeviceError) {
    let token = configuration.token.normalized(portVersion: info.portVersion)
    configuration.onConnectStep?(.handshake)
    var answer = try await handshakeStage(HandshakeRequest(token: token))
    if case .serial(let serial) = answer {
      try acceptSerial(serial.serial)
      configuration.onConnectStep?(.secondHandshake)
      var deviceToken = Array(configuration.secondStageDeviceToken.prefix(8))
      deviceToken += Array(repeating: 0, count: 8 - deviceToken.count)
      let name = Array((configuration.phoneName ?? "").utf8.prefix(32))
      answer = try await handshakeStage(
        HandshakeRequest(
          appVerify: 1, token: token,
          secondStage: .init(deviceToken: deviceToken, name: name)))
    }
    guard case .reply(let reply) = answer else {
      throw .malformedReply(
        operation: "HANDSHAKE", reason: "the second stage was answered with GET_SERIAL again")
    }
    switch reply.status {
    case HandshakeStatus.ok.rawValue: break
    case HandshakeStatus.tokenMismatch.rawValue: throw .tokenRejected
    default: throw .handshakeRefused(status: reply.status)
    }
    setUpInfo.handshake = reply
    setUpInfo.portVersion = reply.portVersion
    await channel.setPortVersion(reply.portVersion)
    setUpInfo.audioChannels = Int(max(1, reply.audioChannels ?? 1))
    setUpInfo.supportsWiFi = (reply.supportWifi ?? 0) != 0
    setUpInfo.oggAudio = (reply.oggAudio ?? 0) != 0
    if let firmware = reply.firmware { setUpInfo.firmware = firmware }
    guard ProtocolDefaults.supportedPortVersions.contains(reply.portVersion) else {
      throw .unsupportedPortVersion(reply.portVersion)
    }
  }

  /// The serial a two-stage HANDSHAKE reported: the one the recorder was reached by, when
  /// it advertised one (anything else is another device answering), else taken as its serial.
  private func acceptSerial(_ serial: String) throws(DeviceError) {
    if serialUnknown {
      setUpInfo.serial = serial
    } else if serial != setUpInfo.serial {
      throw .malformedReply(
        operation: "HANDSHAKE",
        reason: "the device reports another serial than the \(setUpInfo.serial) it advertised")
    }
  }

  // MARK: - Commands

  /// The battery level and charging state (BATTERY).
  public func battery() async throws(DeviceError) -> BatteryStatus {
    let status = try await request(.battery, operation: "BATTERY") { message -> BatteryStatus? in
      if case .battery(let status) = message { return status }
      return nil
    }
    channel.battery.withLock { $0 = status }
    return status
  }

  /// The device state (GET_STATE): recording or idle, privacy, current session.
  public func state() async throws(DeviceError) -> DeviceState {
    let state = try await request(.getState, operation: "GET_STATE") { message -> DeviceState? in
      if case .state(let state) = message { return state }
      return nil
    }
    setUpInfo.state = state
    return state
  }

  /// Free and total flash (STORAGE).
  public func storage() async throws(DeviceError) -> StorageInfo {
    let storage = try await request(.storage, operation: "STORAGE") { message -> StorageInfo? in
      if case .storage(let storage) = message { return storage }
      return nil
    }
    setUpInfo.storage = storage
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
  /// LIST pages a listing may take beyond one per entry before the device counts as one
  /// that repeats itself.
  static let listPageSlack = 16

  public func listRecordings() async throws(DeviceError) -> [Recording] {
    let tag = configuration.unixTime()
    let channels = info.audioChannels
    let container: RecordingContainer = info.oggAudio ? .ogg : .raw
    // Every page names at least one new entry on an honest device: pages beyond the total
    // (and a few repeats a lossy link may cause) mean one that repeats itself (invariant 9).
    struct Gathered: Sendable {
      var entries: [Int: ListEntry] = [:]
      var pages = 0
      var runaway = false
    }
    let gathered = try await channel.exchange(
      .list(ListRequest(requestTag: tag)), operation: "LIST", timeout: configuration.replyTimeout,
      initial: Gathered(),
      accepts: { incoming in
        if case .message(.listPage(let page)) = incoming { return page.requestTag == tag }
        return false
      }
    ) { gathered, incoming -> Bool in
      guard case .message(.listPage(let page)) = incoming else { return false }
      gathered.pages += 1
      for (offset, entry) in page.entries.enumerated() {
        gathered.entries[Int(page.index) + offset] = entry
      }
      if gathered.pages > Int(page.total) + Self.listPageSlack {
        gathered.runaway = true
        return true
      }
      return gathered.entries.count >= Int(page.total)
    }
    guard !gathered.runaway else {
      throw .malformedReply(
        operation: "LIST",
        reason:
          "\(gathered.pages) pages for \(gathered.entries.count) entries: the device repeats itself"
      )
    }
    return gathered.entries.values
      .map {
        Recording(
          sessionId: $0.sessionId, size: $0.size, scene: $0.scene, attribute: $0.attribute,
          channels: channels, container: container,
          startsWithE2EEHeader: info.portVersion >= ProtocolDefaults.modeBPortVersion)
      }
      .sorted { $0.sessionId < $1.sessionId }
  }

  /// Deletes one recording from the device (DELETE). Only the sync engine should call this,
  /// after the local copy is safe (DESIGN.md invariant 1). The reply is `001F`, or `001E` with
  /// the same session and status (PROTOCOL.md §3.3 [project]).
  public func deleteRecording(_ sessionId: SessionID) async throws(DeviceError) {
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
  /// ``StreamDecision/stop``, or nothing arrives for `silenceTimeout`, the stream is stopped
  /// with SYNC_STOP on the same link and nil is returned, so the caller can re-issue from its
  /// last good byte (§3.3). Nothing else is written until the stream has ended. Frames of an
  /// earlier request that arrive before this request's head are ignored.
  ///
  /// - Parameters:
  ///   - sessionId: the recording.
  ///   - start: its first byte to send.
  ///   - end: the byte after the last (0: to the end).
  ///   - silenceTimeout: longest wait between two frames (5 s [sdk]).
  ///   - onData: each data frame, in arrival order.
  package func streamRange(
    sessionId: SessionID, start: UInt32, end: UInt32 = 0, silenceTimeout: Duration = .seconds(5),
    onData: @Sendable (BulkFrame) async -> StreamDecision
  ) async throws(DeviceError) -> SyncTail? {
    let end = try await channel.stream(
      sessionId: sessionId, start: start, end: end, silenceTimeout: silenceTimeout, onData: onData)
    if case .tail(let tail) = end { return tail }
    return nil
  }

  /// SYNC_STOP: the device stops streaming and answers `001E` [sdk].
  package func stopStream() async throws(DeviceError) {
    _ = try await request(.syncStop, operation: "SYNC_STOP") { message -> Bool? in
      if case .syncStopped = message { return true }
      return nil
    }
  }

  /// Ends the session: SET_ACTIVE 00 (the app's last command [device]), then disconnect.
  public func close() async {
    if await channel.endReason == nil {
      _ = try? await request(.setActive(0), operation: "SET_ACTIVE") { message -> UInt8? in
        if case .active(let value) = message { return value }
        return nil
      }
    }
    await abandon()
  }

  /// Drops the link without the closing command (set-up failures, tests).
  func abandon() async { await channel.close() }

  /// Sends `message` and returns the first reply `extract` accepts (one request at a time,
  /// through the `RequestChannel`).
  func request<Reply: Sendable>(
    _ message: PhoneMessage, operation: String, timeout: Duration? = nil,
    extract: @escaping @Sendable (DeviceMessage) -> Reply?
  ) async throws(DeviceError) -> Reply {
    try await channel.request(message, operation: operation, timeout: timeout, extract: extract)
  }
}
