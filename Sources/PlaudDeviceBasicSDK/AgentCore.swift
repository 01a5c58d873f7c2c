import Foundation
import RecorderKit

/// A callback to deliver: the facade calls it with the delegate on its callback queue.
typealias DelegateEvent = @Sendable (any PlaudDeviceAgentProtocol) -> Void
/// A callback to an export's ``AudioExportCallback``.
typealias ExportReporter = @Sendable (@escaping @Sendable (any AudioExportCallback) -> Void) -> Void

/// Delivers export events to `callback` on `queue`, holding it weakly (the caller retains
/// its export callback objects, as the reference says).
func exportReporter(for callback: AudioExportCallback, on queue: DispatchQueue) -> ExportReporter {
  let reference = WeakReference<AnyObject>(callback)
  return { event in
    queue.async {
      guard let target = reference.value as? any AudioExportCallback else { return }
      event(target)
    }
  }
}

/// The facade's state and device work: one connected ``DeviceSession``, the scan, the
/// beacon stream, the sync workspace. Commands reach it one at a time, in call order, from
/// ``PlaudDeviceAgent``; callbacks leave through `emit`, which queues them on the callback
/// queue in the order they are emitted.
actor AgentCore {
  enum RecordCommand: Sendable {
    case start(scene: Int)
    case pause, resume, stop
  }

  private let configuration: PlaudSDKConfiguration
  private let emit: @Sendable (@escaping DelegateEvent) -> Void
  private var session: DeviceSession?
  private var device: DiscoveredDevice?
  private var eventTask: Task<Void, Never>?
  private var scanTask: Task<Void, Never>?
  private var workspace: SyncWorkspace?
  /// The handshake token of the last successful connection: the Wi-Fi handshake sends it.
  private var handshakeToken: RecorderDeviceToken?
  /// Whether the device's hotspot is up (WIFI_OPEN answered 0, no WIFI_CLOSE since).
  private let hotspotOpen = Guarded(false)
  /// Audio channels of the device connected last (Wi-Fi does not report them).
  private var channels = 1
  private let token = Guarded<(jwt: String?, domain: String?)>((nil, nil))
  private let lastError = Guarded<PlaudSDKError?>(nil)
  private let beaconsActive = Guarded(false)

  /// - Parameter emit: queues a delegate callback on the callback queue, in call order.
  init(
    configuration: PlaudSDKConfiguration,
    emit: @escaping @Sendable (@escaping DelegateEvent) -> Void
  ) {
    self.configuration = configuration
    self.emit = emit
  }

  nonisolated var lastErrorValue: PlaudSDKError? { lastError.current }

  nonisolated func setUserToken(_ jwt: String, domain: String?) {
    token.withLock { current in
      current.jwt = jwt
      if let domain { current.domain = domain }
    }
  }

  /// Records the detail of a failure reported through a callback (``PlaudDeviceAgent/lastError``).
  nonisolated func fail(_ error: PlaudSDKError) { lastError.withLock { $0 = error } }

  var firmwareVersion: String { get async { await session?.info.firmware?.description ?? "" } }

  private var clock: RecorderClock { configuration.clock }

  // MARK: - Scanning

  func startScan() {
    scanTask?.cancel()
    guard let central = configuration.central else {
      fail(.noCentral)
      emit { $0.bleScanOverTime() }
      return
    }
    let scanner = DeviceScanner(central: central)
    let timeout = configuration.scanTimeout
    let clock = self.clock
    scanTask = Task { [weak self] in
      let heard: Int = await withTaskGroup(of: Int?.self) { group in
        group.addTask {
          var devices: [String: DiscoveredDevice] = [:]
          var order: [String] = []
          for await device in scanner.discover() {
            if devices[device.serial] == nil { order.append(device.serial) }
            guard devices[device.serial] != device else { continue }
            devices[device.serial] = device
            let found = order.compactMap { devices[$0] }
            await self?.emitNow { delegate in
              delegate.bleScanResult(bleDevices: found.map(BleDevice.init))
            }
          }
          return devices.count
        }
        group.addTask {
          try? await clock.sleep(for: timeout)
          return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first ?? 0
      }
      _ = heard
      await self?.scanEnded()
    }
  }

  private var scanHeardAny = false

  private func emitNow(_ event: @escaping DelegateEvent) {
    scanHeardAny = true
    emit(event)
  }

  private func scanEnded() {
    if !scanHeardAny { emit { $0.bleScanOverTime() } }
    scanHeardAny = false
  }

  func stopScan() {
    scanTask?.cancel()
    scanTask = nil
  }

  // MARK: - Connecting

  func connect(_ target: BleDevice.Snapshot, deviceToken: String?) async {
    if session != nil { await disconnect() }
    guard let central = configuration.central else {
      fail(.noCentral)
      emit { $0.bleConnectState(state: -1) }
      return
    }
    let handshakeToken: RecorderDeviceToken
    do {
      handshakeToken = try resolveToken(deviceToken)
    } catch {
      fail(error)
      emit { $0.bleConnectState(state: -1) }
      return
    }
    let serial = target.serialNumber
    var found = target.discovered
    if found == nil {
      do {
        found = try await DeviceScanner(central: central).find(
          serial: serial, timeout: configuration.findTimeout, clock: clock)
      } catch {
        fail(.operationFailed("\(error)"))
        emit { $0.bleConnectState(state: 2) }
        return
      }
    }
    guard let found else { return }
    var sessionConfiguration = DeviceSession.Configuration(token: handshakeToken)
    sessionConfiguration.clock = clock
    sessionConfiguration.unixTime = configuration.unixTime
    sessionConfiguration.timeZoneSeconds = configuration.timeZoneSeconds
    let timezone = configuration.timeZoneSeconds() / 3600
    let connected: DeviceSession
    do {
      connected = try await DeviceSession.connect(
        to: found, using: central, configuration: sessionConfiguration)
    } catch {
      fail(.operationFailed(error.description))
      let port = Int(found.portVersion)
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
    }
    session = connected
    device = found
    self.handshakeToken = handshakeToken
    BleAgent.shared.setConnected(found)
    let info = await connected.info
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

  private func resolveToken(_ deviceToken: String?) throws(PlaudSDKError) -> RecorderDeviceToken {
    if let deviceToken, !deviceToken.isEmpty {
      return try UserAccessToken.handshakeToken(fromSubject: deviceToken)
    }
    guard let jwt = token.current.jwt else { throw .noUserToken }
    return try UserAccessToken.handshakeToken(fromJWT: jwt)
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
    BleAgent.shared.setConnected(nil)
    emit { $0.bleConnectState(state: 0) }
  }

  func disconnect() async {
    guard let current = session else { return }
    await current.close()
    await eventTask?.value
  }

  func depair(clear: Bool) async {
    guard let current = session else {
      fail(.notConnected)
      emit { $0.bleDepair(-1) }
      return
    }
    do {
      let status = try await current.depair()
      emit { $0.bleDepair(status) }
      await disconnect()
    } catch {
      fail(.operationFailed(error.description))
      emit { $0.bleDepair(-1) }
    }
  }

  // MARK: - Files

  private func openWorkspace() throws(PlaudSDKError) -> SyncWorkspace {
    if let workspace { return workspace }
    do {
      let opened = try SyncWorkspace(root: configuration.storageRoot)
      workspace = opened
      return opened
    } catch {
      throw .operationFailed("cannot open the storage root: \(error)")
    }
  }

  func fileList(after start: Int) async {
    guard let current = session, let serial = device?.serial else {
      fail(.notConnected)
      emit { $0.bleFileList(bleFiles: []) }
      return
    }
    do {
      let listed = try await current.listRecordings().filter { Int($0.sessionId) > start }
      let durable = durableOffsets(serial: serial)
      emit { delegate in
        delegate.bleFileList(
          bleFiles: listed.map { BleFile($0, offset: durable[$0.sessionId] ?? 0) })
      }
    } catch {
      fail(.operationFailed(error.description))
      emit { $0.bleFileList(bleFiles: []) }
    }
  }

  func export(
    sessionId: Int, outputDir: String, format: AudioExportFormat, channels: Int,
    report: @escaping ExportReporter
  ) async {
    guard let current = session else {
      fail(.notConnected)
      report { $0.onError(PlaudSDKError.notConnected.description) }
      return
    }
    let emit = self.emit
    var hooks = ReportingTransport.Hooks()
    hooks.frame = { id, offset, data in
      emit { $0.bleData(sessionId: Int(id), start: offset, data: data) }
    }
    hooks.finished = { _ in emit { $0.bleDataComplete() } }
    _ = await export(
      sessionId: sessionId, outputDir: outputDir, format: format, channels: channels,
      over: BLETransport(session: current), hooks: hooks, report: report)
  }

  /// How an export over either transport ended.
  enum ExportOutcome: Sendable {
    case exported(path: String)
    /// The failure reported to `onError`, and the transport's error when it was one.
    case failed(PlaudSDKError, DeviceError?)
  }

  /// One export through the sync engine (resume, verify, store, export, journal) over
  /// `base` narrowed to `sessionId`: `onProgress(0)` → `hooks` as frames arrive, with
  /// `onProgress(1…99)` → `onProgress(100)` → `onComplete`, or `onError`. Shared by
  /// `exportAudio` (BLE) and `exportAudioViaWiFi`.
  func export(
    sessionId: Int, outputDir: String, format: AudioExportFormat, channels: Int,
    over base: any RecordingTransport, hooks: ReportingTransport.Hooks,
    report: @escaping ExportReporter
  ) async -> ExportOutcome {
    guard let id = UInt32(exactly: sessionId) else {
      let error = PlaudSDKError.operationFailed("no recording \(sessionId)")
      fail(error)
      report { $0.onError(error.description) }
      return .failed(error, nil)
    }
    let fileFormat: AudioFileFormat =
      switch format {
      case .pcm: .pcm
      case .mp3: .mp3
      case .wav: .wav
      case .opus: .opus
      }
    let progress = ExportProgress()
    var reporting = hooks
    reporting.listed = { recordings in
      if let size = recordings.first?.size { progress.setTotal(Int(size)) }
      hooks.listed(recordings)
    }
    reporting.frame = { id, offset, data in
      hooks.frame(id, offset, data)
      if let percent = progress.advance(to: offset + data.count) {
        report { $0.onProgress(percent, message: "receiving") }
      }
    }
    do {
      let workspace = try openWorkspace()
      let engine = workspace.makeEngine(
        format: fileFormat, channels: channels, exportDirectory: outputDir,
        deleteFromDevice: false, clock: clock)
      let transport = ReportingTransport(base: base, only: id, hooks: reporting)
      report { $0.onProgress(0, message: "starting") }
      let result: SyncReport
      do {
        result = try await engine.sync(using: transport)
      } catch {
        if case .device(let deviceError) = error {
          let wrapped = PlaudSDKError.operationFailed(error.description)
          fail(wrapped)
          report { $0.onError(wrapped.description) }
          return .failed(wrapped, deviceError)
        }
        throw PlaudSDKError.operationFailed(error.description)
      }
      if let file = result.files.first(where: { $0.sessionId == id }), let path = file.exportPath {
        report { $0.onProgress(100, message: "exported") }
        report { $0.onComplete(outputPath: path) }
        return .exported(path: path)
      } else if result.skippedInProgress.contains(id) {
        throw PlaudSDKError.operationFailed("recording \(sessionId) is still being recorded")
      } else {
        throw PlaudSDKError.operationFailed("no recording \(sessionId) on the device")
      }
    } catch let error as PlaudSDKError {
      fail(error)
      report { $0.onError(error.description) }
      return .failed(error, nil)
    } catch {
      let wrapped = PlaudSDKError.operationFailed("\(error)")
      fail(wrapped)
      report { $0.onError(wrapped.description) }
      return .failed(wrapped, nil)
    }
  }

  /// Bytes held locally per recording of `serial` (where a transfer would resume), for
  /// `BleFile.offset`.
  func durableOffsets(serial: String) -> [UInt32: Int] {
    let offsets = (try? openWorkspace().checkpoints(serial: serial)) ?? []
    return Dictionary(
      offsets.map { ($0.sessionId, $0.stage < .stored ? Int($0.durableBytes) : Int($0.size)) },
      uniquingKeysWith: { first, _ in first })
  }

  /// Journals that the device no longer holds `sessionId` (a Wi-Fi delete).
  func noteDeleted(serial: String, sessionId: UInt32) {
    try? openWorkspace().noteDeletedOnDevice(serial: serial, sessionId: sessionId)
  }

  func delete(sessionId: Int) async {
    guard let current = session, let serial = device?.serial, let id = UInt32(exactly: sessionId)
    else {
      fail(.notConnected)
      emit { $0.bleDeleteFile(sessionId: sessionId, status: -1) }
      return
    }
    do {
      try await current.deleteRecording(id)
      try? openWorkspace().noteDeletedOnDevice(serial: serial, sessionId: id)
      emit { $0.bleDeleteFile(sessionId: sessionId, status: 0) }
    } catch {
      fail(.operationFailed(error.description))
      let status: Int
      if case .rejected(_, let code) = error { status = Int(code) } else { status = -1 }
      emit { $0.bleDeleteFile(sessionId: sessionId, status: status) }
    }
  }

  // MARK: - Recording and settings

  func record(_ command: RecordCommand) async {
    guard let current = session else {
      fail(.notConnected)
      return
    }
    do {
      switch command {
      case .start(let scene):
        emit(Self.started(try await current.startRecording(scene: UInt8(clamping: scene))))
      case .pause: emit(Self.paused(try await current.pauseRecording()))
      case .resume: emit(Self.resumed(try await current.resumeRecording()))
      case .stop: emit(Self.stopped(try await current.stopRecording()))
      }
    } catch {
      fail(.operationFailed(error.description))
      if case .start = command, case .rejected(_, let status) = error {
        emit {
          $0.bleRecordStart(
            sessionId: 0, start: 0, status: Int(status), scene: 0, startTime: 0, reason: 0)
        }
      }
    }
  }

  /// Runs `body` on the connected session (the device-control additions' plumbing); a
  /// failure is also recorded as ``PlaudDeviceAgent/lastError``.
  func control<Value: Sendable>(
    _ body: @Sendable (DeviceSession) async throws(DeviceError) -> Value
  ) async -> Result<Value, PlaudSDKError> {
    guard let current = session else {
      fail(.notConnected)
      return .failure(.notConnected)
    }
    do {
      return .success(try await body(current))
    } catch {
      let failure = PlaudSDKError.operationFailed(error.description)
      fail(failure)
      return .failure(failure)
    }
  }

  func writeSetting(_ setting: DeviceSetting, value: Int) async {
    guard let current = session else {
      fail(.notConnected)
      return
    }
    do {
      try await current.writeSetting(setting, value: UInt32(clamping: value))
    } catch {
      fail(.operationFailed(error.description))
    }
  }

  // MARK: - Wi-Fi over BLE

  /// Whether the hotspot is up (``PlaudDeviceAgent/isWiFiTransferActive``).
  nonisolated var isHotspotOpen: Bool { hotspotOpen.current }

  /// WIFI_OPEN with a fresh eight-character password: `bleWiFiOpen(0, ssid, ssid, password)`,
  /// or `bleWiFiOpen(-1, "", "", "")` (not connected, no Wi-Fi, refused; `lastError` says
  /// which). The password goes to the delegate only, never to a log or an error.
  func openHotspot() async {
    guard let current = session else {
      fail(.notConnected)
      emit { $0.bleWiFiOpen(-1, "", "", "") }
      return
    }
    do {
      let hotspot = try await current.openWiFi(password: Self.makeHotspotPassword())
      hotspotOpen.withLock { $0 = true }
      let ssid = hotspot.ssid
      let password = hotspot.password
      emit { $0.bleWiFiOpen(0, ssid, ssid, password) }
    } catch {
      fail(.operationFailed(error.description))
      emit { $0.bleWiFiOpen(-1, "", "", "") }
    }
  }

  /// WIFI_CLOSE when the hotspot is up and BLE is connected (best effort: a failure is
  /// recorded in `lastError`; the device's own ~2 min idle timeout is the fallback).
  func closeHotspot() async {
    let wasOpen = hotspotOpen.withLock { open in
      defer { open = false }
      return open
    }
    guard wasOpen, let current = session else { return }
    do {
      try await current.closeWiFi()
    } catch {
      fail(.operationFailed(error.description))
    }
  }

  /// What the Wi-Fi handshake needs from the BLE side: the serial (`serial` when the app set
  /// `PlaudWiFiAgent.bleDevice`, else the device connected last), its BLE token and channels.
  /// BLE need not be up any more (the device may drop it while its hotspot runs).
  func wifiSession(serial: String?) throws(PlaudSDKError) -> WiFiTransport.Configuration {
    guard let serial = serial ?? device?.serial else { throw .notConnected }
    let token: RecorderDeviceToken
    if let handshakeToken {
      token = handshakeToken
    } else {
      token = try resolveToken(nil)
    }
    var wifi = WiFiTransport.Configuration(serial: serial, bleToken: token)
    if device?.serial == serial { wifi.audioChannels = max(1, channels) }
    wifi.responseTimeout = configuration.wifiResponseTimeout
    wifi.unixTime = { [configuration] in Int64(configuration.unixTime()) }
    // A file still being recorded is left alone over Wi-Fi too, while BLE can tell.
    if let current = session, device?.serial == serial {
      wifi.recordingInProgress = { [weak current] in
        guard let current else { return nil }
        return try? await BLETransport(session: current).recordingInProgress()
      }
    }
    return wifi
  }

  /// Eight random letters and digits: the hotspot's WPA password for this session.
  static func makeHotspotPassword() -> String {
    let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789")
    var generator = SystemRandomNumberGenerator()
    return String(
      (0..<8).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
  }

  // MARK: - Not available yet

  func reportFirmwareUnavailable(_ message: String) {
    fail(.notAvailableYet(feature: "Firmware update"))
    emit { $0.bleFotaResult(uid: 0, status: -1, errmsg: message) }
  }

  // MARK: - Beacons

  nonisolated func activateBeacons() {
    let first = beaconsActive.withLock { active in
      defer { active = true }
      return !active
    }
    guard first else { return }
    let wakeUps = configuration.beaconMonitor.wakeUps()
    Task { [weak self] in
      for await serial in wakeUps {
        await self?.beaconWoke(serial)
      }
    }
  }

  private func beaconWoke(_ serial: String) {
    emit { $0.bleIBeaconWakeupTriggered(sn: serial) }
  }

  // MARK: - Event translation

  static func started(_ value: RecordStartedAlias) -> DelegateEvent {
    { delegate in
      delegate.bleRecordStart(
        sessionId: Int(value.sessionId), start: value.start <= 8000 ? 0 : Int(value.start),
        status: Int(value.status), scene: Int(value.scene ?? 1),
        startTime: Int(value.startTime ?? value.sessionId), reason: 0)
    }
  }

  static func resumed(_ value: RecordStartedAlias) -> DelegateEvent {
    { delegate in
      delegate.bleRecordResume(
        sessionId: Int(value.sessionId), start: Int(value.start), status: Int(value.status),
        scene: Int(value.scene ?? 1), startTime: Int(value.startTime ?? value.sessionId))
    }
  }

  static func stopped(_ value: RecordStoppedAlias) -> DelegateEvent {
    { delegate in
      delegate.bleRecordStop(
        sessionId: Int(value.sessionId), reason: Int(value.reason),
        fileExist: (value.fileExists ?? 1) != 0, fileSize: Int(value.fileSize ?? 0))
    }
  }

  static func paused(_ value: RecordStoppedAlias) -> DelegateEvent {
    { delegate in
      delegate.bleRecordPause(
        sessionId: Int(value.sessionId), reason: Int(value.reason),
        fileExist: (value.fileExists ?? 1) != 0, fileSize: Int(value.fileSize ?? 0))
    }
  }
}
