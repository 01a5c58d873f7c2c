import Foundation
import RecorderKit

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

  /// Runs the front door's watch (``Recorders/watch(serial:into:options:pause:runs:)``),
  /// the summary of each completed sync on stdout and the rest on stderr.
  func run(
    _ recorders: Recorders, serial: String?, into engine: SyncEngine, options: SyncRunOptions,
    json: Bool
  ) async throws {
    let events = recorders.watch(
      serial: serial, into: engine, options: options, pause: pause, runs: runs)
    do {
      for try await event in events {
        switch event {
        case .waitingForRadio:
          printError("watch: waiting for the Bluetooth adapter to be powered on")
        case .radioUnavailable(let reason): printError("watch: \(reason); retrying")
        case .heard: break
        case .run(.finished(let report)):
          print(json ? renderSummaryJSON(report) : renderSummary(report))
          fflush(nil)
          for line in renderGivenUp(report) { printError("watch: " + line) }
        case .run(let event): printRunEvent(event)
        case .synced(let count):
          printError("watch: sync \(count) complete; waiting for the recorder again")
        case .runStopped(let error):
          printError("watch: this run stopped (\(error)); waiting for the recorder again")
        }
      }
    } catch {
      throw syncFailure(error)
    }
  }
}
