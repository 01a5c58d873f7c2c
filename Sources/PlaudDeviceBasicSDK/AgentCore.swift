import Foundation
import RecorderBluetooth
import RecorderConcurrency
import RecorderKit
import RecorderProtocol

/// A callback to deliver: the facade calls it with the delegate on its callback queue.
typealias DelegateEvent = @Sendable (any PlaudDeviceAgentProtocol) -> Void

/// The facade's state: one connected `DeviceSession`, the scanner, the sync workspace.
/// Commands reach it one at a time, in call order, from ``PlaudDeviceAgent``; each is a
/// translation onto one RecorderKit call, and callbacks leave through `emit`, which queues
/// them on the callback queue in the order they are emitted. Files and export are in
/// AgentCore+Files.swift; recording, Wi-Fi over BLE, beacons in AgentCore+Device.swift.
actor AgentCore {
  let configuration: PlaudSDKConfiguration
  let emit: @Sendable (@escaping DelegateEvent) -> Void
  /// The front door over the configured central (nil: none configured): every scan and
  /// connect goes through it.
  let recorders: Recorders?
  /// The recorders met before (`recorders`' own), and which a pending connect is owed to.
  let known: KnownRecorders
  var session: DeviceSession?
  /// The front door's connection behind ``session`` (exports go through the door).
  var connection: RecorderConnection?
  var device: DiscoveredDevice?
  private var eventTask: Task<Void, Never>?
  private var scanTask: Task<Void, Never>?
  var workspace: SyncWorkspace?
  /// The handshake token of the last successful connection: the Wi-Fi handshake sends it.
  var handshakeToken: DeviceToken? {
    didSet { keyUser.withLock { $0 = handshakeToken?.revealed } }
  }
  /// Whose Mode B key decrypts end-to-end encrypted recordings on export: the user of the
  /// last connection (read by the workspace's credentials, outside the actor).
  let keyUser = Locked<String?>(nil)
  /// Whether the device's hotspot is up (WIFI_OPEN answered 0, no WIFI_CLOSE since).
  let hotspotOpen = Locked(false)
  /// Audio channels of the device connected last (Wi-Fi does not report them).
  var channels = 1
  /// The user access token (a JWT) in force: every cloud request and the next handshake
  /// read it (AgentCore+Cloud.swift).
  let userJWT = Locked<String?>(nil)
  /// Where the cloud requests go (``PlaudSDKConfiguration/domainManager``).
  let domains: PlaudDomainManager
  private let lastError = Locked<PlaudSDKError?>(nil)
  let beaconsActive = Locked(false)
  /// What the agent's synchronous members read: the connection, the device as last
  /// reported, the recording, the transfers.
  nonisolated let live = Locked(AgentLiveState())
  /// Bytes and time of the BLE transfer running or run last (``PlaudDeviceAgent/currentDownloadSpeedKBps``).
  nonisolated let meter: TransferMeter
  /// Set by ``PlaudDeviceAgent/stopDownloadFile()``: the download running stops at its next
  /// frame.
  nonisolated let downloadStop = Locked(false)
  /// The device last connected and the device token its connect was given, for
  /// ``PlaudDeviceAgent/tryReconnectLastDevice()``.
  var lastConnected: BleDevice.Snapshot?
  var lastDeviceToken: String?
  /// True while ``disconnect()`` or `depair` ends the session (the drop is not unexpected).
  var closing = false
  private var radioTask: Task<Void, Never>?
  /// True once the system ended the background time of the command running now
  /// (``BackgroundCommands``): a transfer in flight stops at its next frame.
  nonisolated let backgroundTimeUp = Locked(false)
  /// The callbacks of deferred exports still waiting for their conversion, by output path.
  nonisolated let deferredExports = Locked<[String: [ExportReporter]]>([:])

  /// - Parameter emit: queues a delegate callback on the callback queue, in call order.
  init(
    configuration: PlaudSDKConfiguration,
    emit: @escaping @Sendable (@escaping DelegateEvent) -> Void
  ) {
    self.configuration = configuration
    self.emit = emit
    meter = TransferMeter(clock: configuration.clock)
    domains = configuration.domainManager
    let known = KnownRecorders(path: StorageLayout(root: configuration.storageRoot).knownRecorders)
    self.known = known
    recorders = configuration.central.map { central in
      // Every connect passes its own session (the token of its call); this one only times.
      // The empty token is printable ASCII, so the initialiser cannot fail.
      var session = DeviceSession.Configuration(token: DeviceToken(bytes: [])!)
      session.clock = configuration.clock
      // Recorders met before are reached through their peripheral, with no scan: the only
      // way into a recorder from the iOS background.
      return Recorders(
        radio: .shared(central),
        configuration: .init(
          session: session, findTimeout: configuration.findTimeout,
          known: known))
    }
  }

  nonisolated var lastErrorValue: PlaudSDKError? { lastError.current }

  /// Replaces the user token at once (nil forgets it) and, when given, the custom domain;
  /// the handshake token and the Mode B key follow on the actor (`adoptUserToken()`).
  nonisolated func setUserToken(_ jwt: String?, domain: String?) {
    userJWT.withLock { $0 = jwt }
    if let domain { domains.setCustomDomain(domain) }
    Task { await self.adoptUserToken() }
  }

  /// Records the detail of a failure reported through a callback (``PlaudDeviceAgent/lastError``).
  nonisolated func fail(_ error: PlaudSDKError) { lastError.withLock { $0 = error } }

  var firmwareVersion: String { get async { await session?.info.firmware?.description ?? "" } }

  var clock: AnyClock { configuration.clock }

  // MARK: - Scanning

  /// `RecorderScanner/scan(timeout:)`: `bleScanResult` with every change of the list,
  /// `bleScanOverTime` when it ends with nothing heard (not when stopped).
  func startScan() {
    watchRadio()
    scanTask?.cancel()
    guard let scanner = recorders?.scanner else {
      fail(.noCentral)
      emit { $0.bleScanOverTime() }
      return
    }
    let updates = scanner.scan(timeout: configuration.scanTimeout)
    let emit = self.emit
    scanTask = Task {
      for await update in updates {
        switch update {
        case .devices(let found):
          emit { $0.bleScanResult(bleDevices: found.map(BleDevice.init)) }
        case .ended(let found, _):
          if found.isEmpty { emit { $0.bleScanOverTime() } }
        }
      }
    }
  }

  func stopScan() {
    scanTask?.cancel()
    scanTask = nil
  }

  // MARK: - Connecting

  /// `RecorderScanner/connect(serial:heard:findTimeout:configuration:)`, then the
  /// documented order: `bleConnectState(1)` → `bleBind` → `blePenState` →
  /// `bleChargingState` → `bleStorage`; or `bleBind(status)` → `bleConnectState(-2)`,
  /// `bleConnectState(-1)` (no central, token, Bluetooth off), `bleConnectState(2)`.
  ///
  /// With `historicalUserId` (the vendor's recovery of a recorder locked to an earlier
  /// account, PROTOCOL.md §4): that id, normalised like `sub`, is the handshake token, and the
  /// Mode B pre-handshake forces a clear (`FE20`) with the current user's signature and key.
  func connect(
    _ target: BleDevice.Snapshot, deviceToken: String?, historicalUserId: String? = nil
  ) async {
    watchRadio()
    stopKeeping()
    if session != nil { await disconnect() }
    guard let recorders else {
      fail(.noCentral)
      emit { $0.bleConnectState(state: -1) }
      return
    }
    let handshakeToken: DeviceToken
    let userToken: DeviceToken
    do {
      userToken = try resolveToken(deviceToken)
      handshakeToken =
        try historicalUserId.map { id throws(PlaudSDKError) in
          try resolveToken(id)
        } ?? userToken
    } catch {
      fail(error)
      emit { $0.bleConnectState(state: -1) }
      return
    }
    let serial = target.serialNumber
    var sessionConfiguration = self.sessionConfiguration(handshakeToken)
    reportConnectStages(of: &sessionConfiguration, serial: serial)
    if historicalUserId != nil {
      sessionConfiguration.modeB = modeBCredentials(forUser: userToken.revealed)
      sessionConfiguration.modeB?.forceClear = true
    }
    let timezone = configuration.timeZoneSeconds() / 3600
    let connection: RecorderConnection
    do {
      connection = try await recorders.connect(
        serial: serial, heard: target.discovered, session: sessionConfiguration)
    } catch let error as DeviceError {
      fail(.operationFailed(error.description))
      let port = Int(target.discovered?.portVersion ?? 0)
      switch error {
      case .tokenRejected, .boundToAnotherAccount:
        // The vendor reports a recorder bound elsewhere as a rejected handshake.
        emit { $0.bleBind(sn: serial, status: 1, protVersion: port, timezone: timezone) }
        emit { $0.bleConnectState(state: -2) }
      case .handshakeRefused(let status):
        emit { $0.bleBind(sn: serial, status: Int(status), protVersion: port, timezone: timezone) }
        emit { $0.bleConnectState(state: -2) }
      case .bluetoothUnavailable: emit { $0.bleConnectState(state: -1) }
      default: emit { $0.bleConnectState(state: 2) }
      }
      return
    } catch {
      // A shared radio is never opened, so only session errors reach here; kept total.
      fail(.operationFailed("\(error)"))
      emit { $0.bleConnectState(state: 2) }
      return
    }
    await established(connection, handshakeToken: handshakeToken, deviceToken: deviceToken)
  }

  /// Each session's configuration: the handshake token, the user's Mode B key, the clocks.
  func sessionConfiguration(_ handshakeToken: DeviceToken) -> DeviceSession.Configuration {
    var sessionConfiguration = DeviceSession.Configuration(token: handshakeToken)
    sessionConfiguration.modeB = modeBCredentials(forUser: handshakeToken.revealed)
    sessionConfiguration.clock = clock
    sessionConfiguration.unixTime = configuration.unixTime
    sessionConfiguration.timeZoneSeconds = configuration.timeZoneSeconds
    return sessionConfiguration
  }

  /// A connection is up (a connect, or one RecorderKit's keeping made when the recorder came
  /// back: `kept`): the session is the agent's, and the connect's callbacks run in the
  /// documented order.
  private func established(
    _ connection: RecorderConnection, handshakeToken: DeviceToken, deviceToken: String?,
    kept: KeptConnection? = nil
  ) async {
    let (connected, found) = (connection.session, connection.device)
    self.connection = connection
    let timezone = configuration.timeZoneSeconds() / 3600
    let info = await connected.info
    session = connected
    device = found
    closing = false
    self.handshakeToken = handshakeToken
    let state = info.state
    let recordingId = Int(state.sessionId.map(Int.init) ?? 0)
    BleAgent.shared.setConnected(found, recording: recordingId != 0, sessionId: recordingId)
    channels = info.audioChannels
    let battery = info.battery
    var recent = BleDevice.Snapshot(
      serialNumber: info.serial, name: info.name, rssi: found.rssi, discovered: found,
      power: Int(battery.level), isCharging: (battery.charging ?? 0) != 0,
      supportWiFi: info.supportsWiFi, versionCode: Int(info.firmware?.code ?? 0),
      versionTypeStr: info.firmware.map { String(UnicodeScalar($0.type)) } ?? "",
      protVersion: Int(info.portVersion))
    if recent.name.isEmpty { recent.name = found.name ?? "" }
    lastConnected = recent
    lastDeviceToken = deviceToken
    live.withLock { live in
      live.connected = true
      live.recent = recent
      live.recording = recordingId != 0
      live.sessionId = recordingId
      live.scene = recordingId != 0 ? Int(state.scene ?? 0) : 0
    }
    // A close still owed to this device (its BLE was down when Wi-Fi ended) goes first, so
    // the device leaves Wi-Fi mode before the app's callbacks run.
    if !hotspotOpen.current, await owedWiFiCloses.sendIfOwed(over: connected) {
      emit { $0.bleWiFiClose(0) }
    }
    emit { $0.bleConnectState(state: 1) }
    emit {
      $0.bleBind(sn: info.serial, status: 0, protVersion: Int(info.portVersion), timezone: timezone)
    }
    emit(Self.penState(state))
    emit {
      $0.bleChargingState(isCharging: (battery.charging ?? 0) != 0, level: Int(battery.level))
    }
    let storage = info.storage
    emit(Self.storage(storage))
    if kept == nil, let recorders {
      var reconnects = sessionConfiguration(handshakeToken)
      reportConnectStages(of: &reconnects, serial: info.serial, startsNow: false)
      watch(
        recorders.keepConnected(
          connection, session: reconnects,
          reconnectsWhenInRange: configuration.reconnectsWhenInRange),
        handshakeToken: handshakeToken, deviceToken: deviceToken)
    }
  }

  /// `blePenState` with GET_STATE's fields.
  static func penState(_ state: DeviceState) -> DelegateEvent {
    { delegate in
      delegate.blePenState(
        state: Int(state.state), privacy: Int(state.privacy), keyState: Int(state.keyState ?? 0),
        uDisk: Int(state.usb ?? 0), findMyToken: Int(state.findMy ?? 0),
        hasSndpKey: Int(state.soundPlusKey ?? 0), deviceAccessToken: Int(state.httpToken ?? 0))
    }
  }

  /// `bleStorage` with STORAGE's fields.
  static func storage(_ storage: StorageInfo) -> DelegateEvent {
    { delegate in
      delegate.bleStorage(
        total: Int(clamping: storage.totalBytes), free: Int(clamping: storage.freeBytes),
        duration: Int(clamping: storage.remaining ?? 0))
    }
  }

  /// Reports `bleState(powered:)` each time the radio settles on powered on or off.
  private func watchRadio() {
    guard radioTask == nil, let central = configuration.central else { return }
    let emit = self.emit
    radioTask = Task {
      var last: Bool?
      for await state in central.stateUpdates() {
        let powered: Bool
        switch state {
        case .poweredOn: powered = true
        case .poweredOff: powered = false
        default: continue
        }
        guard powered != last else { continue }
        last = powered
        emit { $0.bleState(powered: powered) }
      }
    }
  }

  /// A battery report: `blePowerChange` when the level moved, then `bleChargingState`; the
  /// recent device follows.
  func batteryReported(_ battery: BatteryStatus) {
    let level = Int(battery.level)
    let charging = (battery.charging ?? 0) != 0
    let old = live.withLock { live -> Int? in
      let old = live.recent?.power
      live.recent?.power = level
      live.recent?.isCharging = charging
      return old
    }
    if let old, old != level { emit { $0.blePowerChange(power: level, oldPower: old) } }
    emit { $0.bleChargingState(isCharging: charging, level: level) }
  }

  /// A recording event: `BleAgent.shared` and the agent's recording state follow.
  func recordingChanged(_ recording: Bool, sessionId: Int, scene: Int?) {
    BleAgent.shared.setRecording(recording, sessionId: sessionId)
    live.withLock { live in
      live.recording = recording
      live.sessionId = sessionId
      if let scene { live.scene = scene }
    }
  }

  /// The handshake token of this connect: the app's device token when it gave one, else the
  /// one RecorderKit's ``UserToken`` derives from the user access token.
  func resolveToken(_ deviceToken: String?) throws(PlaudSDKError) -> DeviceToken {
    let jwt = userJWT.current
    guard deviceToken?.isEmpty == false || jwt != nil else { throw .noUserToken }
    do throws(CloudError) {
      if let deviceToken, !deviceToken.isEmpty {
        return try UserToken.deviceToken(fromSubject: deviceToken)
      }
      return try UserToken(jwt: jwt ?? "").deviceToken
    } catch .malformedUserToken(let reason) {
      throw .malformedUserToken(reason: reason)
    } catch {
      throw .malformedUserToken(reason: error.description)
    }
  }

  /// Translates the events of RecorderKit's keeping of the connection (or of the recorder
  /// awaited): the device's into the vendor's callbacks, a loss into `sessionEnded`, a
  /// connection the keeping made into the connect's callbacks.
  private func watch(_ kept: KeptConnection, handshakeToken: DeviceToken, deviceToken: String?) {
    eventTask?.cancel()
    self.kept = kept
    let emit = self.emit
    eventTask = Task { [weak self] in
      var current: DeviceSession?
      for await event in kept.events {
        switch event {
        case .connected(let connection):
          current = connection.session
          await self?.keptConnected(
            connection, by: kept, handshakeToken: handshakeToken, deviceToken: deviceToken)
        case .device(.recordingStarted(let started)):
          await self?.recordingChanged(
            true, sessionId: Int(started.sessionId), scene: started.scene.map(Int.init))
          emit(Self.started(started))
        case .device(.recordingResumed(let resumed)):
          await self?.recordingChanged(
            true, sessionId: Int(resumed.sessionId), scene: resumed.scene.map(Int.init))
          emit(Self.resumed(resumed))
        case .device(.recordingStopped(let stopped)):
          await self?.recordingChanged(false, sessionId: 0, scene: 0)
          emit(Self.stopped(stopped))
        case .device(.recordingPaused(let paused)):
          await self?.recordingChanged(false, sessionId: Int(paused.sessionId), scene: nil)
          emit(Self.paused(paused))
        case .device(.battery(let battery)): await self?.batteryReported(battery)
        case .device(.disconnected), .device(.unsolicited): break
        case .disconnected(let reason, _):
          if let current { await self?.sessionEnded(current, reason: reason) }
        case .failed(let error): await self?.keepingFailed(error, by: kept)
        }
      }
      await self?.keepingEnded(kept)
    }
  }

  private func sessionEnded(_ ended: DeviceSession, reason: DisconnectReason?) {
    guard session === ended else { return }
    session = nil
    connection = nil
    BleAgent.shared.setDisconnected(device)
    live.withLock { live in
      live.connected = false
      live.recording = false
      live.sessionId = 0
      live.scene = 0
    }
    let unexpected = !closing && reason != nil && reason != .localRequest
    closing = false
    let report = { [self] in
      if unexpected { emit { $0.bleDeviceDisconnectErr() } }
      emit { $0.bleConnectState(state: 0) }
    }
    // A device that drops BLE as it grants WIFI_OPEN: the grant is reported first, so
    // `isWiFiTransferActive` is true when the app hears of the drop.
    if openingHotspot {
      reportWhenHotspotOpened.append(report)
    } else {
      report()
    }
  }

  /// True while WIFI_OPEN is in flight (``openHotspot()``).
  var openingHotspot = false
  /// Reports of a session end held until the WIFI_OPEN in flight has been reported.
  var reportWhenHotspotOpened: [() -> Void] = []

  /// RecorderKit's keeping of the connection, or of the recorder awaited after a loss
  /// (``PlaudSDKConfiguration/reconnectsWhenInRange``): its pending connect, its mark in
  /// `known`, its reconnection are RecorderKit's (`Recorders.keepConnected`).
  private var kept: KeptConnection?

  /// A connection of the keeping: the first is the connect's own; one made when the recorder
  /// came back runs the connect's callbacks, unless the keeping was let go meanwhile or
  /// another connection came first (then it is not wanted).
  private func keptConnected(
    _ connection: RecorderConnection, by keeping: KeptConnection, handshakeToken: DeviceToken,
    deviceToken: String?
  ) async {
    guard connection.session !== session else { return }
    guard keeping === kept, session == nil else {
      keeping.withdraw()
      await connection.close()
      return
    }
    await established(
      connection, handshakeToken: handshakeToken, deviceToken: deviceToken, kept: keeping)
  }

  private func keepingFailed(_ error: any Error, by keeping: KeptConnection) {
    guard keeping === kept else { return }
    fail(.operationFailed("reconnect: \(error)"))
  }

  private func keepingEnded(_ keeping: KeptConnection) {
    if kept === keeping { kept = nil }
  }

  /// Lets RecorderKit's keeping go (a connect, `disconnect()` or depair comes): a pending
  /// connect is withdrawn and no longer owed.
  func stopKeeping() {
    kept?.withdraw()
    kept = nil
  }

  /// At launch, once the user token is known: RecorderKit's keeping of the recorder an
  /// earlier launch was waiting for (`Recorders.restoreKeptConnection`), unless a session or
  /// a keeping is already under way.
  /// Its reconnects report their stages with no serial (`sn` nil): which recorder was
  /// awaited is RecorderKit's to know until the session reads it.
  func restoreKeeping() {
    guard configuration.reconnectsWhenInRange, session == nil, kept == nil, let recorders,
      let handshakeToken
    else { return }
    var reconnects = sessionConfiguration(handshakeToken)
    reportConnectStages(of: &reconnects, serial: "", startsNow: false)
    guard let restored = recorders.restoreKeptConnection(session: reconnects) else { return }
    watch(restored, handshakeToken: handshakeToken, deviceToken: nil)
  }

  func disconnect() async {
    stopKeeping()
    guard let current = session else { return }
    closing = true
    await current.close()
    await eventTask?.value
  }

  /// `DeviceSession/depair(_:)` (DEPAIR, never erasing: `clear` true clears all connections
  /// on a device that holds no recording, this one only on a device that still does), then
  /// disconnect: `bleDepair(0)` → `bleConnectState(0)`.
  func depair(clear: Bool) async {
    stopKeeping()
    guard let current = session else {
      fail(.notConnected)
      emit { $0.bleDepair(-1) }
      return
    }
    do {
      closing = true
      let status = try await current.depair(
        clear ? .allConnectionsWhenNoRecordings : .thisConnection)
      if status != 0 { closing = false }
      emit { $0.bleDepair(status) }
      await disconnect()
    } catch {
      closing = false
      fail(.operationFailed(error.description))
      emit { $0.bleDepair(-1) }
    }
  }
}
