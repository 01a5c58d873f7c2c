import Foundation
import RecorderKit
import RecorderProtocol

/// Transfers over the Wi-Fi session: a raw read, an export, the batch. Each a translation
/// onto one `WiFiSession` call; the delegate hears the bytes through a
/// `WiFiTransferReporter`.
extension WiFiCore {
  /// `WiFiSession/read(sessionId:from:to:stopWhen:)` of `[start, end)` (`end` 0: to the end):
  /// `wifiSyncFile(id, 0)` → `wifiSyncFileData`… → `wifiDataComplete()`; stopped: the data
  /// so far (the stop answers `wifiSyncFileStop` itself; the system ending background time:
  /// `wifiSyncFileStop(0)` here, `backgroundTimeEnded` in `lastError`); refused:
  /// `wifiSyncFile(id, status)` → `wifiCommonErr(12, status)`.
  func sync(sessionId: Int, start: Int, end: Int) async {
    let refuse: (Int) -> WiFiDelegateEvent = { status in { $0.wifiSyncFile(sessionId, status) } }
    guard let session else { return refused(.wifiNotConnected, .syncFile, first: refuse) }
    guard let id = SessionID(exactly: sessionId), let from = UInt32(exactly: start),
      let to = UInt32(exactly: end)
    else {
      return refused(.operationFailed("no recording \(sessionId)"), .syncFile, first: refuse)
    }
    begin(sessionId: sessionId, all: false)
    defer { finish(all: false) }
    let reporter = WiFiTransferReporter(emit: emit)
    let timeUp = backgroundTimeUp
    let events = await session.read(
      sessionId: id, from: from, to: to == 0 ? nil : to, stopWhen: { timeUp.current })
    for await event in events {
      switch event {
      case .data(let id, let offset, let bytes):
        meter.add(bytes.count)
        reporter.data(id, offset: offset, bytes: bytes)
      case .finished(.complete): reporter.transferred(id)
      case .finished(.stopped) where timeUp.current:
        // Nobody asked for this stop: say why, as a stop the app asked for would.
        reporter.flush()
        core.fail(.backgroundTimeEnded(sessionId: sessionId))
        emit { $0.wifiSyncFileStop(0) }
      case .finished(.stopped): reporter.flush()
      case .finished(.notOnDevice):
        refused(
          .operationFailed("no recording \(sessionId) on the device"), .syncFile, first: refuse)
      case .finished(.failed(let error)):
        reporter.flush()
        await failed(error, .syncFile, first: reporter.announced(id) ? nil : refuse)
      }
    }
  }

  /// `WiFiSession/export(_:into:stopWhen:)`: the callback hears `onProgress(0)` …
  /// `onProgress(100)` → `onComplete`, or `onError`; the delegate hears the transfer as for
  /// `syncFile`.
  func export(
    sessionId: Int, outputDir: String, format: AudioExportFormat, channels: Int,
    report: @escaping ExportReporter
  ) async {
    guard let session else {
      core.fail(.wifiNotConnected)
      report { $0.onError(PlaudSDKError.wifiNotConnected.description) }
      return
    }
    guard
      let request = core.exportRequest(
        sessionId: sessionId, outputDir: outputDir, format: format, channels: channels,
        report: report),
      let workspace = await openWorkspace(report: report)
    else { return }
    begin(sessionId: sessionId, all: false)
    defer { finish(all: false) }
    let reporter = WiFiTransferReporter(emit: emit)
    let timeUp = backgroundTimeUp
    for await event in await session.export(
      request, into: workspace, stopWhen: { timeUp.current })
    {
      switch event {
      case .data(let id, let offset, let bytes):
        meter.add(bytes.count)
        reporter.data(id, offset: offset, bytes: bytes)
      case .transferred(let id): reporter.transferred(id)
      case .progress: core.reportExport(event, to: report)
      case .finished:
        reporter.flush()
        let failure = core.reportExport(
          event, to: report, backgroundTimeUp: timeUp.current)
        if case .sync(.device(let error)) = failure {
          await failed(error, .syncFile)
        }
      }
    }
  }

  private func openWorkspace(report: ExportReporter) async -> SyncWorkspace? {
    do {
      return try await core.openWorkspace()
    } catch {
      core.fail(error)
      report { $0.onError(error.description) }
      return nil
    }
  }

  /// `WiFiSession/downloadAll(_:into:)`: `wifiDownloadAllProgress(total, index from 1,
  /// file, 0…1)` at each file's start and per percent → `wifiDownloadAllProgress(total,
  /// total, nil, 1)` when every file was exported → `wifiDownloadAllCompleted(completed,
  /// notExported)`.
  func downloadAll(outputDir: String, format: AudioExportFormat, channels: Int) async {
    let workspace: SyncWorkspace
    do throws(PlaudSDKError) {
      guard session != nil else { throw .wifiNotConnected }
      workspace = try await core.openWorkspace()
    } catch {
      core.fail(error)
      emit { $0.wifiCommonErr(PlaudWiFiAgent.Command.fileList.rawValue, -1) }
      emit { $0.wifiDownloadAllCompleted(0, 0) }
      return
    }
    guard let session else { return }
    begin(sessionId: 0, all: true)
    defer { finish(all: true) }
    let serial = session.serial
    let request = WiFiBatch.Request(
      format: format.fileFormat, channels: channels, directory: outputDir, reportsData: true)
    let reporter = WiFiTransferReporter(emit: emit)
    var total = 0
    let timeUp = backgroundTimeUp
    for await event in await session.downloadAll(
      request, into: workspace, stopWhen: { timeUp.current })
    {
      switch event {
      case .listed(let recordings): total = recordings.count
      case .progress(let progress):
        state.withLock { $0.currentSessionId = Int(progress.recording.sessionId) }
        let files = total
        emit { delegate in
          delegate.wifiDownloadAllProgress(
            files, progress.index + 1,
            BleFile(progress.recording, offset: Int(progress.fileBytes), serial: serial),
            progress.fraction)
        }
      case .data(let id, let offset, let bytes):
        meter.add(bytes.count)
        reporter.data(id, offset: offset, bytes: bytes)
      case .transferred(let id): reporter.transferred(id)
      case .finished(let result):
        reporter.flush()
        let listed = result.recordings != nil
        if case .sync(.device(let error)) = result.failure {
          await failed(error, listed ? .syncFile : .fileList)
        } else if case .stopped(let id)? = result.failure, timeUp.current {
          core.fail(.backgroundTimeEnded(sessionId: Int(id)))
        } else if let failure = result.failure {
          core.fail(.operationFailed(failure.description))
        }
        if listed, result.exported.count == total {
          let files = total
          emit { $0.wifiDownloadAllProgress(files, files, nil, 1) }
        }
        let (done, left) = (result.exported.count, result.notExported)
        emit { $0.wifiDownloadAllCompleted(done, left) }
      }
    }
  }
}
