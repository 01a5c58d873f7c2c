import Foundation
import RecorderConcurrency
import RecorderKit
import RecorderProtocol

/// What ``PlaudWiFiAgent``'s properties read while commands run.
struct WiFiAgentState: Sendable {
  var connected = false
  var downloading = false
  var downloadingAll = false
  var currentSessionId = 0
}

/// The Wi-Fi half of the facade: one `WiFiSession` and the callbacks its calls become.
/// Commands reach it one at a time, in call order, from ``PlaudWiFiAgent``'s command stream;
/// each is a translation onto one `WiFiSession` call, and callbacks leave through `emit`,
/// which queues them on the facade's callback queue in the order they are emitted. Stopping
/// does not wait its turn: ``requestStop()`` calls `WiFiSession/stopTransfer()` from the
/// caller's thread.
actor WiFiCore {
  private let configuration: PlaudSDKConfiguration
  let core: AgentCore
  let emit: @Sendable (@escaping WiFiDelegateEvent) -> Void
  /// Read by the agent's properties from any thread.
  nonisolated let state = Locked(WiFiAgentState())
  /// The session up now, also for stopping from any thread.
  private nonisolated let current = Locked<WiFiSession?>(nil)
  /// True once the system ended the background time of the command running now
  /// (``BackgroundCommands``); its transfer is then stopped with ``requestStop()``.
  nonisolated let backgroundTimeUp = Locked(false)
  /// Bytes and time of the transfer running or run last (``PlaudWiFiAgent/currentDownloadSpeedKBps``).
  nonisolated let meter: TransferMeter

  init(
    configuration: PlaudSDKConfiguration, core: AgentCore,
    emit: @escaping @Sendable (@escaping WiFiDelegateEvent) -> Void
  ) {
    self.configuration = configuration
    self.core = core
    self.emit = emit
    meter = TransferMeter(clock: configuration.clock)
  }

  /// `WiFiSession/stopTransfer()` on the session up, if any.
  nonisolated func requestStop() { current.current?.stopTransfer() }

  var session: WiFiSession? { current.current }

  /// The hotspot of the session up now.
  nonisolated var hotspotName: String? { current.current?.hotspot.ssid }

  // MARK: - Connecting

  /// The front door's `Recorders/joinWiFi(_:joiner:session:timeout:link:retryInterval:)`
  /// (retrying within `timeout` seconds): `wifiConnectionStatus(ssid, true)` →
  /// `wifiHandshake(0)`, or `wifiHandshake(status)` → `wifiCommonErr(1, status)` (the
  /// device's refusal, else -1).
  func connect(ssid: String, password: String, timeout: Int, serial: String?) async {
    if session != nil { await endSession(status: 0) }
    guard let joiner = configuration.hotspotJoiner else {
      return connectFailed(.noHotspotJoiner, status: -1)
    }
    guard let recorders = core.recorders else { return connectFailed(.noCentral, status: -1) }
    let handshake: WiFiTransport.Configuration
    do {
      handshake = try await core.wifiSession(serial: serial)
    } catch {
      return connectFailed(error, status: -1)
    }
    do {
      let joined = try await recorders.joinWiFi(
        DeviceHotspot(ssid: ssid, password: password), joiner: joiner, session: handshake,
        timeout: .seconds(max(1, timeout)), link: configuration.wifiServer,
        retryInterval: configuration.wifiRetryInterval)
      current.withLock { $0 = joined }
      state.withLock { $0.connected = true }
      emit { $0.wifiConnectResult(true, 0, "") }
      emit { $0.wifiConnectionStatus(ssid, true) }
      emit { $0.wifiHandshake(0) }
    } catch {
      let status: Int = if case .handshakeRefused(let code) = error { Int(code) } else { -1 }
      connectFailed(.operationFailed(error.description), status: status)
    }
  }

  /// `wifiConnectResult(false, -1, why)` when the join itself failed (not a handshake the
  /// device refused) → `wifiHandshake(status)` → `wifiCommonErr(1, status)`.
  private func connectFailed(_ error: PlaudSDKError, status: Int) {
    core.fail(error)
    if status == -1 {
      let message = error.description
      emit { $0.wifiConnectResult(false, -1, message) }
    }
    emit { $0.wifiHandshake(status) }
    emit { $0.wifiCommonErr(PlaudWiFiAgent.Command.handshake.rawValue, status) }
  }

  // MARK: - Files

  /// `WiFiSession/listRecordings()`: `wifiFileList(files)` (all when `sessionId` is 0;
  /// with `single` just that one; else those after it), or `wifiFileListFail(status)` →
  /// `wifiCommonErr(11, status)`.
  func list(sessionId: Int, single: Bool) async {
    guard let session else {
      return refused(.wifiNotConnected, .fileList) { status in { $0.wifiFileListFail(status) } }
    }
    do {
      let chosen = try await session.listRecordings().filter { recording in
        single ? Int(recording.sessionId) == sessionId : Int(recording.sessionId) > sessionId
      }
      let held = await core.heldBytes(serial: session.serial)
      let serial = session.serial
      emit { delegate in
        delegate.wifiFileList(
          chosen.map { BleFile($0, offset: Int(held[$0.sessionId] ?? 0), serial: serial) })
      }
    } catch {
      await failed(error, .fileList) { status in { $0.wifiFileListFail(status) } }
    }
  }

  /// `WiFiSession/delete(sessionId:journal:)`: `wifiFileDelete(id, 0)`, or
  /// `wifiFileDelete(id, status)` → `wifiCommonErr(14, status)`. Commands run in call
  /// order, so a delete called while a batch runs waits for the batch.
  func delete(sessionId: Int) async {
    let refuse: (Int) -> WiFiDelegateEvent = { status in { $0.wifiFileDelete(sessionId, status) } }
    guard let session else { return refused(.wifiNotConnected, .deleteFile, first: refuse) }
    guard let id = SessionID(exactly: sessionId) else {
      return refused(.operationFailed("no recording \(sessionId)"), .deleteFile, first: refuse)
    }
    let workspace: SyncWorkspace
    do {
      workspace = try await core.openWorkspace()
    } catch {
      return refused(error, .deleteFile, first: refuse)
    }
    do {
      try await session.delete(sessionId: id, journal: workspace)
      emit { $0.wifiFileDelete(sessionId, 0) }
    } catch {
      await failed(error, .deleteFile, first: refuse)
    }
  }

  // MARK: - Closing

  /// `WiFiSession/close()`: `wifiConnectionStatus(ssid, false)` → `wifiClose(0)`. With no
  /// session, `wifiClose(-1)` when `reportIdle`. Then, when the hotspot was open, WIFI_CLOSE
  /// over BLE.
  func close(reportIdle: Bool, hotspotWasOpen: Bool) async {
    if session != nil {
      await endSession(status: 0)
    } else if reportIdle {
      core.fail(.wifiNotConnected)
      emit { $0.wifiClose(-1) }
    }
    await core.closeHotspot(wasOpen: hotspotWasOpen)
  }

  private func endSession(status: Int) async {
    guard let ending = current.withLock({ $0.take() }) else { return }
    await ending.close()
    state.withLock { $0.connected = false }
    let ssid = ending.hotspot.ssid
    emit { $0.wifiConnectionStatus(ssid, false) }
    emit { $0.wifiClose(status) }
  }

  // MARK: - Reporting

  func begin(sessionId: Int, all: Bool) {
    meter.begin()
    state.withLock { state in
      state.currentSessionId = sessionId
      if all { state.downloadingAll = true } else { state.downloading = true }
    }
  }

  func finish(all: Bool) {
    state.withLock { state in
      if all { state.downloadingAll = false } else { state.downloading = false }
    }
  }

  /// A call that could not start: `first(-1)` → `wifiCommonErr(cmd, -1)`.
  func refused(
    _ error: PlaudSDKError, _ command: PlaudWiFiAgent.Command,
    first: ((Int) -> WiFiDelegateEvent)? = nil
  ) {
    core.fail(error)
    if let first { emit(first(-1)) }
    emit { $0.wifiCommonErr(command.rawValue, -1) }
  }

  /// A Wi-Fi request failed: `first(status)` → `wifiCommonErr(cmd, status)` (the device's
  /// status when it answered one, else -1). A session the failure closed is ended:
  /// `wifiConnectionStatus(ssid, false)` → `wifiClose(0 when the device ended it, else -1)`.
  func failed(
    _ error: DeviceError, _ command: PlaudWiFiAgent.Command,
    first: ((Int) -> WiFiDelegateEvent)? = nil
  ) async {
    let status: Int = if case .rejected(_, let code) = error { Int(code) } else { -1 }
    core.fail(.operationFailed(error.description))
    if let first { emit(first(status)) }
    emit { $0.wifiCommonErr(command.rawValue, status) }
    guard let session, session.isClosed else { return }
    await endSession(status: error == .disconnected(.remoteTerminated) ? 0 : -1)
  }
}
