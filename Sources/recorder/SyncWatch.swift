import Foundation
import RecorderConcurrency
import RecorderKit
import RecorderProtocol

/// `recorder sync --watch`: a gateway. Waits for the recorder to be heard, syncs, then
/// waits for its next appearance, forever (the Linux form of the vendor app's wake-up
/// flow). An adapter switched off, bluetoothd stopped or the device gone end one run, never
/// the watch: it reports the failure on stderr and waits again. Only failures a retry cannot
/// mend (a rejected token, a full disk, a hostile device) end it, with their exit code.
struct SyncWatch {
  static let help = """
      --watch               Keep running: sync whenever the recorder is heard, then wait for
                            it to be heard again (a gateway; survives adapter power cycles
                            and bluetoothd restarts). Stop it with SIGINT or SIGTERM.
                            stderr is then a log: one line per event, with the serial and
                            the session id; journald priorities when it is the journal.
      --watch-pause S       After each run, wait S seconds before listening (default 30).
      --watch-runs N        Exit 0 after N completed syncs (default: never).
    """

  /// How long to pause after a run before listening for the recorder again.
  var pause: Duration
  /// Completed syncs after which to exit; nil: never.
  var runs: Int?

  /// Nil without `--watch`; the watch options are refused without it.
  init?(arguments: inout Arguments) throws {
    let watch = arguments.flag("watch")
    let pause = try arguments.option("watch-pause", as: Double.self)
    let runs = try arguments.option("watch-runs", as: Int.self)
    guard watch else {
      if pause != nil || runs != nil {
        throw UsageError("--watch-pause and --watch-runs need --watch")
      }
      return nil
    }
    if let pause, !(0...86_400).contains(pause) {
      throw UsageError("--watch-pause must be 0-86400 seconds")
    }
    if let runs, runs < 1 { throw UsageError("--watch-runs must be at least 1") }
    self.pause = .seconds(pause ?? 30)
    self.runs = runs
  }

  /// Runs the front door's watch (``Recorders/watch(serial:into:options:pause:runs:)``): the
  /// summary of each completed sync on stdout; on stderr, for the gateway's log, one line per
  /// event (``GatewayLog``), with the recorder's serial and the recording's session id, and
  /// its priority in the journal when stderr is the journal.
  func run(
    _ recorders: Recorders, serial: String?, into engine: SyncEngine, options: SyncRunOptions,
    json: Bool
  ) async throws {
    let log = GatewayLog(serial: serial)
    let events = recorders.watch(
      serial: serial, into: engine, options: options, pause: pause, runs: runs)
    do {
      for try await event in events {
        switch event {
        case .waitingForRadio:
          log.line(.warning, "watch: waiting for the Bluetooth adapter to be powered on")
        case .radioUnavailable(let reason): log.line(.warning, "watch: \(reason); retrying")
        case .heard(let device):
          if let heard = device.serial { log.serial = heard }
          log.line(.info, "watch: heard the recorder (RSSI \(device.rssi) dBm)")
        case .run(.pipeline(let event)): log.log(event)
        case .run(.connected(let attempt, let connected)):
          log.serial = connected
          log.line(.info, "connected (attempt \(attempt))")
        case .run(.finished(let report)):
          print(json ? renderSummaryJSON(report) : renderSummary(report))
          fflush(nil)
          for file in report.givenUp {
            let tried = file.notTried ? "not tried (given up by \(file.runs) runs)" : "given up"
            log.line(
              .warning, session: file.sessionId, "\(tried): \(file.reason); kept on the device")
          }
        case .run(let event):
          if let (priority, text) = runEventLine(event) { log.line(priority, text) }
        case .synced(let count):
          log.line(.info, "watch: sync \(count) complete; waiting for the recorder again")
        case .runStopped(let error):
          log.line(
            .warning, "watch: this run stopped (\(error)); waiting for the recorder again")
        }
      }
    } catch {
      throw syncFailure(error)
    }
  }
}

/// The log of a gateway (`sync --watch`) on stderr: one line per event, never a progress bar,
/// each line `serial=SERIAL session=ID what happened` (the session for a recording's events,
/// the serial once known), device-supplied text escaped so an event stays one line. When
/// stderr is the journal each line carries its priority (``printError(_:priority:)``):
/// failures that a later run may mend and recordings kept on the device are warnings, the
/// rest information; the error that ends the watch is an error.
///
/// Sendable: the serial is behind a lock; the rest is immutable.
final class GatewayLog: Sendable {
  private let current: Locked<String?>

  /// - Parameter serial: the recorder's serial when `--device` names it.
  init(serial: String?) { current = Locked(serial) }

  /// The recorder's serial, from the command line or from the recorder first heard.
  var serial: String? {
    get { current.withLock { $0 } }
    set { current.withLock { $0 = newValue } }
  }

  /// Writes one line for an event, about the recording `session` when given.
  func line(_ priority: LogPriority, session: SessionID? = nil, _ text: String) {
    printError(Self.format(serial: serial, session: session, text), priority: priority)
  }

  /// `serial=S session=ID text`, each part present when known, control characters escaped.
  static func format(serial: String?, session: SessionID?, _ text: String) -> String {
    var parts: [String] = []
    if let serial { parts.append("serial=" + serial) }
    if let session { parts.append("session=\(session)") }
    parts.append(text)
    return escapingControls(parts.joined(separator: " "))
  }

  /// The quarter each recording's progress last logged.
  private let quarters = Locked<[SessionID: Int]>([:])

  /// Logs one event of the pipeline: a line per step of each recording, progress at each
  /// quarter.
  func log(_ event: SyncEvent) {
    switch event {
    case .listed(let files, let bytes):
      line(
        .info, "device lists \(files) recording\(files == 1 ? "" : "s"), \(formatBytes(bytes))")
    case .fileProgress(let session, let fraction, let bytes, let rate, _):
      let quarter = Int(fraction * 100) / 25
      let new = quarters.withLock { quarters in
        defer { quarters[session] = quarter }
        return quarter != quarters[session]
      }
      guard new else { return }
      line(
        .info, session: session,
        "\(quarter * 25)% (\(formatBytes(bytes)), \(formatBytes(Int64(rate)))/s)")
    case .fileStored(let session, let verified):
      if verified {
        line(.info, session: session, "stored, verified")
      } else {
        line(.warning, session: session, "stored, NOT verified (kept on device)")
      }
    case .fileExported(let session, let path):
      line(.info, session: session, "exported to \(path)")
    case .fileDeleted(let session): line(.info, session: session, "deleted from the device")
    case .fileSkipped(let session, let reason):
      line(.warning, session: session, "skipped (\(reason))")
    case .overall: break
    case .stepDone(let session, let step): line(.info, session: session, "\(step) done")
    case .stepFailed(let session, let step, let reason, let willRetry):
      line(
        .warning, session: session,
        "\(step) failed (\(reason))\(willRetry ? "; trying again" : "; owed to the next run")")
    }
  }
}
