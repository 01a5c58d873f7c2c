import Foundation
import RecorderConcurrency
import RecorderKit

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
  /// True once the system ended the background time of the command running now
  /// (``BackgroundCommands``): a transfer in flight stops at its next frame.
  nonisolated let backgroundTimeUp = Locked(false)

  /// - Parameter emit: queues a delegate callback on the callback queue, in call order.
  init(
    configuration: PlaudSDKConfiguration,
    emit: @escaping @Sendable (@escaping DelegateEvent) -> Void
  ) {
    self.configuration = configuration
    self.emit = emit
    domains = configuration.domainManager
    recorders = configuration.central.map { central in
      // Every connect passes its own session (the token of its call); this one only times.
      // The empty token is printable ASCII, so the initialiser cannot fail.
      var session = DeviceSession.Configuration(token: DeviceToken(bytes: [])!)
      session.clock = configuration.clock
      return Recorders(
        radio: .shared(central),
        configuration: .init(session: session, findTimeout: configuration.findTimeout))
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
  func connect(_ target: BleDevice.Snapshot, deviceToken: String?) async {
    if session != nil { await disconnect() }
    guard let recorders else {
      fail(.noCentral)
      emit { $0.bleConnectState(state: -1) }
      return
    }
    let handshakeToken: DeviceToken
    do {
      handshakeToken = try resolveToken(deviceToken)
    } catch {
      fail(error)
      emit { $0.bleConnectState(state: -1) }
      return
    }
    let serial = target.serialNumber
    var sessionConfiguration = DeviceSession.Configuration(token: handshakeToken)
    sessionConfiguration.modeB = modeBCredentials(forUser: handshakeToken.revealed)
    sessionConfiguration.clock = clock
    sessionConfiguration.unixTime = configuration.unixTime
    sessionConfiguration.timeZoneSeconds = configuration.timeZoneSeconds
    let timezone = configuration.timeZoneSeconds() / 3600
    let connected: DeviceSession
    let found: DiscoveredDevice
    do {
      let connection = try await recorders.connect(
        serial: serial, heard: target.discovered, session: sessionConfiguration)
      (connected, found) = (connection.session, connection.device)
      self.connection = connection
    } catch let error as DeviceError {
      fail(.operationFailed(error.description))
      let port = Int(target.discovered?.portVersion ?? 0)
      switch error {
      case .tokenRejected:
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
    let info = await connected.info
    session = connected
    device = found
    self.handshakeToken = handshakeToken
    BleAgent.shared.setConnected(found)
    channels = info.audioChannels
    emit { $0.bleConnectState(state: 1) }
    emit {
      $0.bleBind(sn: info.serial, status: 0, protVersion: Int(info.portVersion), timezone: timezone)
    }
    let state = info.state
    emit {
      $0.blePenState(
        state: Int(state.state), privacy: Int(state.privacy), keyState: Int(state.keyState ?? 0),
        uDisk: Int(state.usb ?? 0), findMyToken: Int(state.findMy ?? 0),
        hasSndpKey: Int(state.soundPlusKey ?? 0), deviceAccessToken: Int(state.httpToken ?? 0))
    }
    let battery = info.battery
    emit {
      $0.bleChargingState(isCharging: (battery.charging ?? 0) != 0, level: Int(battery.level))
    }
    let storage = info.storage
    emit {
      $0.bleStorage(
        total: Int(clamping: storage.totalBytes), free: Int(clamping: storage.freeBytes),
        duration: Int(clamping: storage.remaining ?? 0))
    }
    watchEvents(of: connected)
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

  private func watchEvents(of connected: DeviceSession) {
    eventTask?.cancel()
    let emit = self.emit
    eventTask = Task { [weak self] in
      for await event in connected.events {
        switch event {
        case .recordingStarted(let started): emit(Self.started(started))
        case .recordingResumed(let resumed): emit(Self.resumed(resumed))
        case .recordingStopped(let stopped): emit(Self.stopped(stopped))
        case .recordingPaused(let paused): emit(Self.paused(paused))
        case .battery(let battery):
          emit {
            $0.bleChargingState(isCharging: (battery.charging ?? 0) != 0, level: Int(battery.level))
          }
        case .disconnected, .unsolicited: break
        }
      }
      await self?.sessionEnded(connected)
    }
  }

  private func sessionEnded(_ ended: DeviceSession) {
    guard session === ended else { return }
    session = nil
    connection = nil
    BleAgent.shared.setDisconnected(device)
    emit { $0.bleConnectState(state: 0) }
  }

  func disconnect() async {
    guard let current = session else { return }
    await current.close()
    await eventTask?.value
  }

  /// `DeviceSession/depair(_:)` (DEPAIR, never erasing: `clear` true clears all connections
  /// on a device that holds no recording, this one only on a device that still does), then
  /// disconnect: `bleDepair(0)` → `bleConnectState(0)`.
  func depair(clear: Bool) async {
    guard let current = session else {
      fail(.notConnected)
      emit { $0.bleDepair(-1) }
      return
    }
    do {
      let status = try await current.depair(
        clear ? .allConnectionsWhenNoRecordings : .thisConnection)
      emit { $0.bleDepair(status) }
      await disconnect()
    } catch {
      fail(.operationFailed(error.description))
      emit { $0.bleDepair(-1) }
    }
  }
}
