import Foundation
import RecorderKit
import RecorderProtocol

/// A sync through the front door (``Recorders/sync(serial:into:options:)``, which owns
/// reconnect-and-resume and the retry rule), read as its one stream: the pipeline's events to
/// `pipeline`, the attempts' on stderr, its end as the CLI's exit (a failure ends with the
/// exit code of ``syncFailure(_:)``).
func runSync(
  _ recorders: Recorders, serial: String?, into engine: SyncEngine, options: SyncRunOptions,
  pipeline: (SyncEvent) async -> Void
) async throws -> SyncReport {
  do {
    for try await event in recorders.sync(serial: serial, into: engine, options: options) {
      switch event {
      case .pipeline(let event): await pipeline(event)
      case .finished(let report): return report
      default: printRunEvent(event)
      }
    }
  } catch {
    throw syncFailure(error)
  }
  throw syncFailure(SyncError.cancelled)
}

/// A front-door sync's attempt events on stderr (warnings in the journal, but for a WIFI_CLOSE
/// sent).
@Sendable func printRunEvent(_ event: SyncRunEvent) {
  guard let (priority, text) = runEventLine(event) else { return }
  printError(text, priority: priority)
}

/// The line of a front-door sync's attempt event and its priority; nil for the events that
/// print none (`connected`, `finished`).
func runEventLine(_ event: SyncRunEvent) -> (LogPriority, String)? {
  switch event {
  case .connectFailed(let attempt, let error): (.warning, "attempt \(attempt): \(error)")
  case .interrupted(let attempt, let error):
    (.warning, "attempt \(attempt) interrupted: \(error); resuming")
  case .overBLE(let reason): (.warning, "over BLE: \(reason)")
  case .owedWiFiClose(let sent):
    sent
      ? (.info, "Wi-Fi closed over a new BLE connection")
      : (
        .warning,
        "the device's Wi-Fi could not be closed (BLE is down): owed to the next connection"
      )
  case .connected, .finished, .pipeline: nil
  }
}

/// The exit a sync ends with for `error`: a rejected token or user key 77, a full disk or
/// another storage error 74, a device whose serial is no safe folder name or whose recording
/// cannot be exported 65, a folder whose lock no longer holds 75, a device that could not be
/// reached (every attempt used up) 69.
func syncFailure(_ error: any Error) -> CommandFailure {
  switch error {
  case let failure as CommandFailure: return failure
  case let error as DeviceError:
    return CommandFailure(DeviceOptions.exitCode(connecting: error), "\(error)")
  case let error as SyncError:
    switch error {
    case .storage, .journal: return CommandFailure(.ioError, "\(error)")
    case .device(let device):
      return CommandFailure(DeviceOptions.exitCode(connecting: device), "\(error)")
    case .unsafeSerial, .export: return CommandFailure(.dataError, "\(error)")
    case .cancelled: return CommandFailure(.unavailable, "\(error)")
    case .folderLockLost: return CommandFailure(.busy, "\(error)")
    case .recordingUnreadable: return CommandFailure(.unavailable, "\(error)")
    }
  default: return CommandFailure(.unavailable, "\(error)")
  }
}

/// The sync summary table (stdout).
func renderSummary(_ report: SyncReport) -> String {
  var lines = [
    "FILE                                      DURATION     SIZE       FORMAT  VERIFIED  DELETED  VIA"
  ]
  for file in report.files {
    let name =
      file.exportPath.map { ($0 as NSString).lastPathComponent } ?? "\(file.sessionId) (raw only)"
    let format = file.exportPath.map { ($0 as NSString).pathExtension } ?? "-"
    lines.append(
      name.padding(42) + formatDuration(milliseconds: file.durationMs).padding(13)
        + formatBytes(file.size).padding(11) + format.padding(8)
        + (file.verified ? "yes" : "NO").padding(10)
        + (file.deletedFromDevice ? "yes" : "no").padding(9) + (file.transport ?? "-"))
  }
  return lines.joined(separator: "\n")
}

/// A JSON array with one object per file, for `--json`: each recording synced (an earlier
/// recording under the same id has its own object, with its `generation`), then each one
/// given up for the run, with `givenUp` set to the reason.
func renderSummaryJSON(_ report: SyncReport) -> String {
  let files = report.files.map { file -> JSONValue in
    .object([
      ("sessionId", .int(Int64(file.sessionId.rawValue))), ("size", .int(file.size)),
      ("durationMs", .int(Int64(file.durationMs))), ("verified", .bool(file.verified)),
      ("deletedFromDevice", .bool(file.deletedFromDevice)),
      ("exportPath", file.exportPath.map { .string($0) } ?? .null),
      ("transport", file.transport.map { .string($0) } ?? .null),
      ("generation", .int(Int64(file.generation))), ("givenUp", .null),
    ])
  }
  let givenUp = report.givenUp.map { file -> JSONValue in
    .object([
      ("sessionId", .int(Int64(file.sessionId.rawValue))), ("size", .int(file.size)),
      ("verified", .bool(false)), ("deletedFromDevice", .bool(false)), ("exportPath", .null),
      ("givenUp", .string(file.reason)), ("givenUpRuns", .int(Int64(file.runs))),
      ("tried", .bool(!file.notTried)),
    ])
  }
  return JSONValue.array(files + givenUp).serialized
}

/// One line per recording given up for the run (stderr).
func renderGivenUp(_ report: SyncReport) -> [String] {
  report.givenUp.map { file in
    let tried = file.notTried ? "not tried (given up by \(file.runs) runs)" : "given up"
    return
      "recording \(file.sessionId): \(tried): \(escapingControls(file.reason)); kept on the device"
  }
}
