import Foundation
import RecorderKit
import RecorderProtocol

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

/// Files: list, export, delete. Each a translation onto one RecorderKit call.
extension AgentCore {
  /// The Mode B user keys (``PlaudSDKConfiguration/userKeyStore``).
  nonisolated var userKeyRing: UserKeyRing {
    UserKeyRing(
      store: configuration.userKeyStore
        ?? FileKeyStore(directory: StorageLayout(root: configuration.storageRoot).keys))
  }

  /// The storage root's workspace (journal, raw files, default exports), opened once. Its
  /// key decrypts end-to-end encrypted recordings: the key of the last connection's user.
  func openWorkspace() throws(PlaudSDKError) -> SyncWorkspace {
    if let workspace { return workspace }
    let keyUser = self.keyUser
    let credentials = userKeyRing.credentials(forCurrentUser: { keyUser.current })
    do {
      let opened = try SyncWorkspace(root: configuration.storageRoot, userKey: credentials)
      workspace = opened
      return opened
    } catch {
      throw .operationFailed("cannot open the storage root: \(error)")
    }
  }

  /// Bytes held locally per recording of `serial` (`SyncWorkspace/heldBytes(serial:)`),
  /// for `BleFile.offset`.
  func heldBytes(serial: String) -> [SessionID: Int64] {
    (try? openWorkspace().heldBytes(serial: serial)) ?? [:]
  }

  /// `DeviceSession/listRecordings()`: `bleFileList` with the recordings after `start`
  /// (with `only`, just that one: an empty list when the device has no such recording).
  func fileList(after start: Int, only: Int? = nil) async {
    guard let current = session else {
      fail(.notConnected)
      emit { $0.bleFileList(bleFiles: []) }
      return
    }
    do {
      let listed = try await openWorkspace().listRecordings(
        over: BLETransport(session: current), after: SessionID(clamping: max(start, 0)))
      let serial = await current.info.serial
      let chosen = only.map { id in listed.filter { Int($0.recording.sessionId) == id } } ?? listed
      emit { delegate in
        delegate.bleFileList(
          bleFiles: chosen.map {
            BleFile($0.recording, offset: Int($0.heldBytes), serial: serial)
          })
      }
    } catch let error as PlaudSDKError {
      fail(error)
      emit { $0.bleFileList(bleFiles: []) }
    } catch {
      fail(.operationFailed("\(error)"))
      emit { $0.bleFileList(bleFiles: []) }
    }
  }

  /// The RecorderKit request of an `exportAudio` call; nil (and `onError`) for a session id
  /// no recording can have.
  nonisolated func exportRequest(
    sessionId: Int, outputDir: String, format: AudioExportFormat, channels: Int,
    report: ExportReporter
  ) -> RecordingExport.Request? {
    guard let id = SessionID(exactly: sessionId) else {
      let error = PlaudSDKError.operationFailed("no recording \(sessionId)")
      fail(error)
      report { $0.onError(error.description) }
      return nil
    }
    return RecordingExport.Request(
      sessionId: id, format: format.fileFormat, channels: channels, directory: outputDir,
      reportsData: true, policy: configuration.exportPolicy)
  }

  /// `Recorders/export(_:from:into:stopWhen:)` (the front door, over BLE): `onProgress(0)` → `bleData`… →
  /// `bleDataComplete` with `onProgress(1…99)` → `onProgress(100)` → `onComplete`, or
  /// `onError`.
  func export(
    sessionId: Int, outputDir: String, format: AudioExportFormat, channels: Int,
    report: @escaping ExportReporter
  ) async {
    guard let recorders, let current = connection, current.session === session else {
      fail(.notConnected)
      report { $0.onError(PlaudSDKError.notConnected.description) }
      return
    }
    guard
      let request = exportRequest(
        sessionId: sessionId, outputDir: outputDir, format: format, channels: channels,
        report: report)
    else { return }
    let workspace: SyncWorkspace
    do {
      workspace = try openWorkspace()
    } catch {
      fail(error)
      report { $0.onError(error.description) }
      return
    }
    let timeUp = backgroundTimeUp
    let events = recorders.export(
      request, from: current, into: workspace, stopWhen: { timeUp.current })
    await transfer(events) { event in
      self.reportExport(event, to: report, backgroundTimeUp: timeUp.current)
    }
  }

  /// Runs one BLE export's events: `bleSyncFileHead(id, 0)` before its first data →
  /// `bleData`… → `bleSyncFileTail(id, 0)` → `bleDataComplete` at the device's last byte;
  /// progress and the outcome go to `outcome`. Meters the bytes and marks the agent
  /// downloading meanwhile.
  func transfer(
    _ events: AsyncStream<RecordingExport.Event>,
    outcome: (RecordingExport.Event) -> Void
  ) async {
    let emit = self.emit
    meter.begin()
    live.withLock { $0.downloading = true }
    defer { live.withLock { $0.downloading = false } }
    var announced = false
    for await event in events {
      switch event {
      case .data(let id, let offset, let bytes):
        if !announced {
          announced = true
          emit { $0.bleSyncFileHead(sessionId: Int(id), status: 0) }
        }
        meter.add(bytes.count)
        emit { $0.bleData(sessionId: Int(id), start: offset, data: Data(bytes)) }
      case .transferred(let id):
        emit { $0.bleSyncFileTail(sessionId: Int(id), crc: 0) }
        emit { $0.bleDataComplete() }
      case .progress, .finished: outcome(event)
      }
    }
  }

  /// An export's progress and outcome on its callback: `onProgress(percent)`, then
  /// `onProgress(100)` → `onComplete(path)` or `onError(why)`. Returns the failure. A
  /// transfer stopped because `backgroundTimeUp` is reported as
  /// ``PlaudSDKError/backgroundTimeEnded(sessionId:)``.
  @discardableResult
  nonisolated func reportExport(
    _ event: RecordingExport.Event, to report: @escaping ExportReporter,
    backgroundTimeUp: Bool = false
  ) -> RecordingExportError? {
    switch event {
    case .finished(.failure(.stopped(let id))) where backgroundTimeUp:
      let error = PlaudSDKError.backgroundTimeEnded(sessionId: Int(id))
      fail(error)
      report { $0.onError(error.description) }
      return .stopped(sessionId: id)
    case .progress(let progress):
      let percent = progress.percent
      let message = progress.bytes == 0 ? "starting" : "receiving"
      report { $0.onProgress(percent, message: message) }
    case .finished(.success(let exported)) where exported.conversionPending:
      // Stored and verified, not converted: the callback completes when the file exists.
      deferredExports.withLock { $0[exported.path, default: []].append(report) }
      report { $0.onProgress(99, message: "stored; conversion deferred") }
    case .finished(.success(let exported)):
      let path = exported.path
      report { $0.onProgress(100, message: "exported") }
      report { $0.onComplete(outputPath: path) }
    case .finished(.failure(let error)):
      fail(.operationFailed(error.description))
      report { $0.onError(error.description) }
      return error
    case .data, .transferred: break
    }
    return nil
  }

  /// `SyncWorkspace/deleteRecording(_:over:)` over BLE: `bleDeleteFile(id, 0)`, else the
  /// device's status or -1.
  func delete(sessionId: Int) async {
    guard let current = session, let id = SessionID(exactly: sessionId) else {
      fail(.notConnected)
      emit { $0.bleDeleteFile(sessionId: sessionId, status: -1) }
      return
    }
    let workspace: SyncWorkspace
    do {
      workspace = try openWorkspace()
    } catch {
      fail(error)
      emit { $0.bleDeleteFile(sessionId: sessionId, status: -1) }
      return
    }
    do {
      try await workspace.deleteRecording(id, over: BLETransport(session: current))
      emit { $0.bleDeleteFile(sessionId: sessionId, status: 0) }
    } catch {
      fail(.operationFailed(error.description))
      let status: Int
      if case .rejected(_, let code) = error { status = Int(code) } else { status = -1 }
      emit { $0.bleDeleteFile(sessionId: sessionId, status: status) }
    }
  }
}
