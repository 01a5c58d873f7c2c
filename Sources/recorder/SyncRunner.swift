import Foundation
import RecorderKit
import RecorderProtocol
import RecorderStore

/// Runs a sync to completion across link drops: connect, sync, and on a disconnect or a
/// device timeout connect again (by serial) and resume from the journal. Failures that a
/// retry cannot mend stop at once with their own exit code (``finalFailure(_:)``): a rejected
/// token (77), a full disk or another storage error (74), a device whose serial is no safe
/// folder name or whose recording cannot be exported (65).
struct SyncRunner {
  /// Connects and returns a transport and how to close it.
  typealias Connector =
    @Sendable () async throws -> (transport: BLETransport, close: @Sendable () async -> Void)

  var engine: SyncEngine
  var maximumAttempts: Int
  /// Wi-Fi for a large backlog (BLE for the rest and when Wi-Fi fails), or BLE only.
  var wifi: WiFiSyncPlan? = nil
  var connect: Connector

  /// The merged report of every attempt, per file (the last word on each wins).
  func run() async throws -> SyncReport {
    var merged: [SessionID: SyncReport.File] = [:]
    var total = SyncReport()
    var lastError: (any Error)?
    for attempt in 1...maximumAttempts {
      let connection: (transport: BLETransport, close: @Sendable () async -> Void)
      do {
        connection = try await connect()
      } catch {
        if let final = Self.finalFailure(error) { throw final }
        lastError = error
        printError("attempt \(attempt): \(error)")
        continue
      }
      do {
        let report = try await engine.sync(session: connection.transport.session, wifi: wifi)
        await connection.close()
        if wifi != nil, let reason = report.wifiFallback { printError("over BLE: \(reason)") }
        total.wifiFallback = report.wifiFallback
        for file in report.files { merged[file.sessionId] = file }
        total.bytesReceived += report.bytesReceived
        total.reissues += report.reissues
        total.skippedInProgress = report.skippedInProgress
        total.skippedContradictory = report.skippedContradictory
        total.skippedEmpty = report.skippedEmpty
        total.files = merged.values.sorted { $0.sessionId < $1.sessionId }
        // The journal is the record of the run: a file whose DELETE reply was lost to a drop
        // is in it, though no attempt reported it.
        return try await engine.summary(of: total, serial: connection.transport.serial)
      } catch {
        await connection.close()
        // Files this attempt finished (and perhaps deleted) before it stopped.
        if let partial = await engine.interruptedReport {
          for file in partial.files { merged[file.sessionId] = file }
          total.bytesReceived += partial.bytesReceived
          total.reissues += partial.reissues
        }
        lastError = error
        if let final = Self.finalFailure(error) { throw final }
        printError("attempt \(attempt) interrupted: \(error); resuming")
      }
    }
    throw CommandFailure(
      .unavailable,
      "gave up after \(maximumAttempts) attempts: \(lastError.map { "\($0)" } ?? "unknown")")
  }

  /// The failure to exit with at once, or nil when another attempt may succeed (the link
  /// dropped, the device timed out or was not heard).
  static func finalFailure(_ error: any Error) -> CommandFailure? {
    switch error {
    case let failure as CommandFailure:
      return failure.code == .unavailable ? nil : failure
    case let error as DeviceError:
      return error == .tokenRejected ? CommandFailure(.noPermission, "\(error)") : nil
    case let error as SyncError:
      switch error {
      case .storage, .journal: return CommandFailure(.ioError, "\(error)")
      case .device(.tokenRejected): return CommandFailure(.noPermission, "\(error)")
      case .unsafeSerial, .export: return CommandFailure(.dataError, "\(error)")
      case .device, .cancelled: return nil
      }
    default:
      return nil
    }
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

/// A JSON array with one object per file, for `--json`.
func renderSummaryJSON(_ report: SyncReport) -> String {
  JSONValue.array(
    report.files.map { file in
      .object([
        ("sessionId", .int(Int64(file.sessionId.rawValue))), ("size", .int(file.size)),
        ("durationMs", .int(Int64(file.durationMs))), ("verified", .bool(file.verified)),
        ("deletedFromDevice", .bool(file.deletedFromDevice)),
        ("exportPath", file.exportPath.map { .string($0) } ?? .null),
        ("transport", file.transport.map { .string($0) } ?? .null),
      ])
    }
  ).serialized
}
