import Foundation
import RecorderKit

/// Recording, settings, Wi-Fi over BLE, firmware, beacons and the device's events: each a
/// translation onto one RecorderKit call.
extension AgentCore {
  enum RecordCommand: Sendable {
    case start(scene: Int)
    case pause, resume, stop
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
        let started = try await current.startRecording(scene: UInt8(clamping: scene))
        if started.status == 0 {
          recordingChanged(
            true, sessionId: Int(started.sessionId), scene: started.scene.map(Int.init) ?? scene)
        }
        emit(Self.started(started))
      case .pause:
        let paused = try await current.pauseRecording()
        recordingChanged(false, sessionId: Int(paused.sessionId), scene: nil)
        emit(Self.paused(paused))
      case .resume:
        let resumed = try await current.resumeRecording()
        if resumed.status == 0 {
          recordingChanged(
            true, sessionId: Int(resumed.sessionId), scene: resumed.scene.map(Int.init))
        }
        emit(Self.resumed(resumed))
      case .stop:
        let stopped = try await current.stopRecording()
        recordingChanged(false, sessionId: 0, scene: 0)
        emit(Self.stopped(stopped))
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
    _ = await control { session throws(DeviceError) in
      try await session.writeSetting(setting, value: UInt32(clamping: value))
    }
  }

  // MARK: - Connect stages

  /// Reports each set-up step `configuration`'s sessions meet (``BleAgent/ConnectStage``)
  /// as `bleConnectStage` for `serial`, each connect beginning with `start`: now, for a
  /// connect the app asked for (`startsNow`), or as each link is opened, for the reconnects
  /// RecorderKit's keeping makes on its own (one `start` per attempt).
  nonisolated func reportConnectStages(
    of configuration: inout DeviceSession.Configuration, serial: String, startsNow: Bool = true
  ) {
    let emit = self.emit
    let sn: String? = serial.isEmpty ? nil : serial
    let start = BleAgent.ConnectStage.start.rawValue
    if startsNow { emit { $0.bleConnectStage(sn: sn, stage: start, detail: nil) } }
    configuration.onConnectStep = { step in
      if !startsNow, step == .link {
        emit { $0.bleConnectStage(sn: sn, stage: start, detail: nil) }
      }
      let stage = BleAgent.ConnectStage(step).rawValue
      emit { $0.bleConnectStage(sn: sn, stage: stage, detail: nil) }
    }
  }

  // MARK: - Wi-Fi over BLE

  /// The WIFI_CLOSEs owed to devices (RecorderKit's marker files under the storage root):
  /// marked when WIFI_OPEN is granted, settled when WIFI_CLOSE is answered, and sent at the
  /// next connection to that device when BLE was down at the end of Wi-Fi.
  nonisolated var owedWiFiCloses: OwedWiFiCloses {
    OwedWiFiCloses(root: configuration.storageRoot)
  }

  /// Whether the hotspot is up (``PlaudDeviceAgent/isWiFiTransferActive``).
  nonisolated var isHotspotOpen: Bool { hotspotOpen.current }

  /// `DeviceSession/openWiFi(password:)` with a fresh `DeviceHotspot/makePassword()`:
  /// `bleWiFiOpen(0, ssid, ssid, password)`, or `bleWiFiOpen(-1, "", "", "")` (not
  /// connected, no Wi-Fi, refused; `lastError` says which). The password goes to the
  /// delegate only, never to a log or an error.
  func openHotspot() async {
    guard let current = session else {
      fail(.notConnected)
      emit { $0.bleWiFiOpen(-1, "", "", "") }
      return
    }
    openingHotspot = true
    defer {
      openingHotspot = false
      let held = reportWhenHotspotOpened
      reportWhenHotspotOpened = []
      for report in held { report() }
    }
    do {
      let hotspot = try await current.openWiFi(password: DeviceHotspot.makePassword())
      hotspotOpen.withLock { $0 = true }
      // Owed until answered: a device that drops BLE for Wi-Fi hears it at a later connect.
      try? owedWiFiCloses.markOwed(serial: await current.info.serial)
      let ssid = hotspot.ssid
      let password = hotspot.password
      emit { $0.bleWiFiOpen(0, ssid, ssid, password) }
    } catch {
      fail(.operationFailed(error.description))
      emit { $0.bleWiFiOpen(-1, "", "", "") }
    }
  }

  /// Marks the hotspot closed at once (``PlaudDeviceAgent/isWiFiTransferActive`` is false
  /// from here on) and says whether it was open.
  nonisolated func takeHotspotOpen() -> Bool {
    hotspotOpen.withLock { open in
      defer { open = false }
      return open
    }
  }

  /// `DeviceSession/closeWiFi()` when the hotspot was up (`wasOpen`, from
  /// ``takeHotspotOpen()``) and BLE is connected: `bleWiFiClose(0)`, or `bleWiFiClose(-1)`
  /// with `lastError` (best effort: the device's own ~2 min idle timeout is the fallback).
  /// Nothing is sent, and nothing reported, while BLE is down.
  func closeHotspot(wasOpen: Bool) async {
    guard let current = session else { return }
    let serial = await current.info.serial
    // Also a close still owed from a transfer that ended while BLE was down (the template's
    // `setDeviceWiFi(open: false)` after reconnecting).
    guard wasOpen || owedWiFiCloses.isOwed(serial: serial) else { return }
    do {
      try await current.closeWiFi()
      try? owedWiFiCloses.settle(serial: serial)
      emit { $0.bleWiFiClose(0) }
    } catch {
      fail(.operationFailed(error.description))
      emit { $0.bleWiFiClose(-1) }
    }
  }

  /// What the Wi-Fi handshake needs from the BLE side: the serial (`serial` when the app set
  /// `PlaudWiFiAgent.bleDevice`, else the device connected last), its BLE token and channels.
  /// BLE need not be up any more (the device may drop it while its hotspot runs).
  func wifiSession(serial: String?) async throws(PlaudSDKError) -> WiFiTransport.Configuration {
    guard let serial = serial ?? device?.serial else { throw .notConnected }
    var wifi: WiFiTransport.Configuration
    if let current = session, device?.serial == serial {
      // Knows the token, the channels and, while BLE is up, the recording in progress.
      wifi = await current.wifiSessionConfiguration()
    } else {
      var token = handshakeToken
      if token == nil { token = try resolveToken(nil) }
      guard let token else { throw .noUserToken }
      wifi = WiFiTransport.Configuration(serial: serial, bleToken: token)
      if device?.serial == serial { wifi.audioChannels = max(1, channels) }
    }
    wifi.responseTimeout = configuration.wifiResponseTimeout
    wifi.unixTime = { [configuration] in Int64(configuration.unixTime()) }
    return wifi
  }

  // MARK: - Beacons

  nonisolated func activateBeacons() {
    let first = beaconsActive.withLock { active in
      defer { active = true }
      return !active
    }
    guard first else { return }
    let wakeUps = configuration.beaconMonitor.wakeUps()
    let emit = self.emit
    Task {
      for await serial in wakeUps { emit { $0.bleIBeaconWakeupTriggered(sn: serial) } }
    }
  }

  // MARK: - Event translation

  static func started(_ value: RecordStarted) -> DelegateEvent {
    { delegate in
      delegate.bleRecordStart(
        sessionId: Int(value.sessionId), start: value.start <= 8000 ? 0 : Int(value.start),
        status: Int(value.status), scene: Int(value.scene ?? 1),
        startTime: value.startTime.map(Int.init) ?? Int(value.sessionId), reason: 0)
    }
  }

  static func resumed(_ value: RecordStarted) -> DelegateEvent {
    { delegate in
      delegate.bleRecordResume(
        sessionId: Int(value.sessionId), start: Int(value.start), status: Int(value.status),
        scene: Int(value.scene ?? 1),
        startTime: value.startTime.map(Int.init) ?? Int(value.sessionId))
    }
  }

  static func stopped(_ value: RecordStopped) -> DelegateEvent {
    { delegate in
      delegate.bleRecordStop(
        sessionId: Int(value.sessionId), reason: Int(value.reason),
        fileExist: (value.fileExists ?? 1) != 0, fileSize: Int(value.fileSize ?? 0))
    }
  }

  static func paused(_ value: RecordStopped) -> DelegateEvent {
    { delegate in
      delegate.bleRecordPause(
        sessionId: Int(value.sessionId), reason: Int(value.reason),
        fileExist: (value.fileExists ?? 1) != 0, fileSize: Int(value.fileSize ?? 0))
    }
  }
}
