import Foundation
import RecorderKit
import RecorderProtocol

/// The vendor's device-state and file members beyond the reference: each a translation onto
/// one RecorderKit call, its answer on the member's own callback.
extension AgentCore {
  // MARK: - Not supported

  /// A member RecorderKit does not support: ``PlaudSDKError/notSupported(member:reason:)``
  /// in `lastError`, then `own` (the member's own failure callback) when it has one, else
  /// `onCommonMsgChannel(type: -1, value: -1, tips:)`.
  nonisolated func notSupported(
    _ member: String, _ reason: String, own: DelegateEvent? = nil
  ) {
    let error = PlaudSDKError.notSupported(member: member, reason: reason)
    fail(error)
    if let own {
      emit(own)
    } else {
      let tips = error.description
      emit { $0.onCommonMsgChannel(type: -1, value: -1, tips: tips) }
    }
  }

  // MARK: - Device state

  /// `DeviceSession/state()`: `blePenState`; the recording state follows.
  func readState() async {
    let result = await control { session throws(DeviceError) in try await session.state() }
    guard case .success(let state) = result else { return }
    let id = state.sessionId.map(Int.init) ?? 0
    recordingChanged(id != 0, sessionId: id, scene: id != 0 ? Int(state.scene ?? 0) : 0)
    emit(Self.penState(state))
  }

  /// `DeviceSession/storage()`: `bleStorage`.
  func readStorage() async {
    let result = await control { session throws(DeviceError) in try await session.storage() }
    guard case .success(let storage) = result else { return }
    emit(Self.storage(storage))
  }

  /// `DeviceSession/battery()`: `blePowerChange` when the level moved, `bleChargingState`.
  func readBattery() async {
    let result = await control { session throws(DeviceError) in try await session.battery() }
    guard case .success(let battery) = result else { return }
    batteryReported(battery)
  }

  /// Setting 20 (mic gain) read, or written when `value` is given: `bleMicGain(value the
  /// device reports)`, `bleMicGain(-1)` on failure.
  func micGain(write value: Int?) async {
    if let value, UInt32(exactly: value) == nil {
      fail(.operationFailed("mic gain \(value) is out of range"))
      emit { $0.bleMicGain(-1) }
      return
    }
    let result = await control { session throws(DeviceError) in
      if let value { return try await session.writeSetting(.micGain, value: UInt32(value)) }
      return try await session.readSetting(.micGain)
    }
    switch result {
    case .success(let gain): emit { $0.bleMicGain(Int(gain)) }
    case .failure: emit { $0.bleMicGain(-1) }
    }
  }

  /// `DeviceSession/rename(to:)`: `bleDeviceName(name it reports)`, nil on failure; the
  /// recent device follows.
  func rename(_ name: String) async {
    let result = await control { session throws(DeviceError) in
      try await session.rename(to: name)
    }
    switch result {
    case .success(let reported):
      live.withLock { $0.recent?.name = reported }
      lastConnected?.name = reported
      emit { $0.bleDeviceName(name: reported) }
    case .failure: emit { $0.bleDeviceName(name: nil) }
    }
  }

  /// `SyncWorkspace/eraseRecordings(on:force:)` (CLEAR_ALL, refused while a recording is not
  /// synced): `bleClearAllFile(0)`, else `bleClearAllFile(-1)` with `lastError`.
  func clearAll() async {
    guard let current = session else {
      fail(.notConnected)
      emit { $0.bleClearAllFile(status: -1) }
      return
    }
    do {
      let workspace = try openWorkspace()
      do {
        try await workspace.eraseRecordings(on: current)
        emit { $0.bleClearAllFile(status: 0) }
      } catch {
        fail(.operationFailed(error.description))
        emit { $0.bleClearAllFile(status: -1) }
      }
    } catch {
      fail(error)
      emit { $0.bleClearAllFile(status: -1) }
    }
  }

  /// Connects again to the device connected last, with the device token that connect was
  /// given: as `connect`, or `bleConnectState(-1)` with `lastError`
  /// ``PlaudSDKError/notConnected`` when none was.
  func reconnectLast() async {
    guard let last = lastConnected else {
      fail(.notConnected)
      emit { $0.bleConnectState(state: -1) }
      return
    }
    await connect(last, deviceToken: lastDeviceToken)
  }

  // MARK: - Download

  /// `Recorders/export(_:from:into:stopWhen:)` of one recording to the file
  /// `desiredOutputPath` as `format`: `bleDownloadFile(id, path, 0, 0…99, tips)` as it
  /// moves (with `bleSyncFileHead`, `bleData`, `bleSyncFileTail` as for `exportAudio`), then
  /// the file is moved to `desiredOutputPath` and `bleDownloadFile(id, path, 0, 100, …)`; on
  /// failure `bleDownloadFile(id, path, -1, 0, why)`; stopped by `stopDownloadFile()`:
  /// `bleDownloadFileStop()`.
  func download(sessionId: Int, desiredOutputPath: String, format: ExportFormat) async {
    let path = desiredOutputPath
    let failed: @Sendable (String) -> DelegateEvent = { tips in
      {
        $0.bleDownloadFile(
          sessionId: sessionId, desiredOutputPath: path, status: -1, progress: 0, tips: tips)
      }
    }
    guard let recorders, let current = connection, current.session === session else {
      fail(.notConnected)
      return emit(failed(PlaudSDKError.notConnected.description))
    }
    guard let id = SessionID(exactly: sessionId) else {
      let error = PlaudSDKError.operationFailed("no recording \(sessionId)")
      fail(error)
      return emit(failed(error.description))
    }
    let workspace: SyncWorkspace
    do {
      workspace = try openWorkspace()
    } catch {
      fail(error)
      return emit(failed(error.description))
    }
    let target = URL(fileURLWithPath: desiredOutputPath)
    let request = RecordingExport.Request(
      sessionId: id, format: format, channels: 1,
      directory: target.deletingLastPathComponent().path, reportsData: true)
    downloadStop.withLock { $0 = false }
    let (timeUp, stop) = (backgroundTimeUp, downloadStop)
    let events = recorders.export(
      request, from: current, into: workspace, stopWhen: { timeUp.current || stop.current })
    let emit = self.emit
    await transfer(events) { event in
      switch event {
      case .progress(let progress):
        let percent = min(progress.percent, 99)
        let tips = progress.bytes == 0 ? "starting" : "receiving"
        emit {
          $0.bleDownloadFile(
            sessionId: sessionId, desiredOutputPath: path, status: 0, progress: percent, tips: tips)
        }
      case .finished(.success(let exported)):
        do {
          try Self.move(exported.path, to: target)
          emit {
            $0.bleDownloadFile(
              sessionId: sessionId, desiredOutputPath: path, status: 0, progress: 100,
              tips: "downloaded")
          }
        } catch {
          let why = PlaudSDKError.operationFailed(
            "cannot move the download to \(path): \(error.localizedDescription)")
          self.fail(why)
          emit(failed(why.description))
        }
      case .finished(.failure(.stopped)) where stop.current:
        emit { $0.bleDownloadFileStop() }
      case .finished(.failure(let error)):
        let why: PlaudSDKError =
          if case .stopped(let stoppedId) = error, timeUp.current {
            .backgroundTimeEnded(sessionId: Int(stoppedId))
          } else {
            .operationFailed(error.description)
          }
        self.fail(why)
        if case .sync(.device(.rejected(_, let status))) = error {
          emit { $0.bleSyncFileHead(sessionId: sessionId, status: Int(status)) }
        }
        emit(failed(why.description))
      case .data, .transferred: break
      }
    }
  }

  /// Moves the exported file onto `target` (replacing a file there).
  nonisolated static func move(_ exported: String, to target: URL) throws {
    let source = URL(fileURLWithPath: exported)
    guard source.standardizedFileURL != target.standardizedFileURL else { return }
    let files = FileManager.default
    if files.fileExists(atPath: target.path) { try files.removeItem(at: target) }
    try files.moveItem(at: source, to: target)
  }
}
