import Foundation
import RecorderKit
import RecorderProtocol
import RecorderStore

/// Runs a sync to completion across link drops: connect, sync, and on a disconnect or a
/// device timeout connect again (by serial) and resume from the journal. Storage failures
/// (a full disk) stop at once: retrying cannot help.
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
    var merged: [UInt32: SyncReport.File] = [:]
    var total = SyncReport()
    var lastError: (any Error)?
    for attempt in 1...maximumAttempts {
      let connection: (transport: BLETransport, close: @Sendable () async -> Void)
      do {
        connection = try await connect()
      } catch {
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
        total.files = merged.values.sorted { $0.sessionId < $1.sessionId }
        return total
      } catch {
        await connection.close()
        // Files this attempt finished (and perhaps deleted) before it stopped.
        if let partial = await engine.interruptedReport {
          for file in partial.files { merged[file.sessionId] = file }
          total.bytesReceived += partial.bytesReceived
          total.reissues += partial.reissues
        }
        lastError = error
        if case .storage = error { throw CommandFailure(.ioError, "\(error)") }
        if case .journal = error { throw CommandFailure(.ioError, "\(error)") }
        printError("attempt \(attempt) interrupted: \(error); resuming")
      }
    }
    throw CommandFailure(
      .unavailable,
      "gave up after \(maximumAttempts) attempts: \(lastError.map { "\($0)" } ?? "unknown")")
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
        ("sessionId", .int(Int64(file.sessionId))), ("size", .int(file.size)),
        ("durationMs", .int(Int64(file.durationMs))), ("verified", .bool(file.verified)),
        ("deletedFromDevice", .bool(file.deletedFromDevice)),
        ("exportPath", file.exportPath.map { .string($0) } ?? .null),
        ("transport", file.transport.map { .string($0) } ?? .null),
      ])
    }
  ).serialized
}
