import Foundation
import RecorderConcurrency
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

  func run(
    _ runner: SyncRunner, device: DeviceOptions, serial: Locked<String?>, json: Bool
  ) async throws {
    var completed = 0
    while true {
      await waitForRecorder(device, serial: serial.withLock { $0 })
      do {
        let report = try await runner.run()
        print(json ? renderSummaryJSON(report) : renderSummary(report))
        fflush(nil)
        completed += 1
        printError("watch: sync \(completed) complete; waiting for the recorder again")
        if let runs, completed >= runs { return }
      } catch let failure as CommandFailure where failure.code != .unavailable {
        throw failure
      } catch {
        printError("watch: this run stopped (\(error)); waiting for the recorder again")
      }
      try? await Task.sleep(for: pause)
    }
  }

  /// Returns once the recorder (`serial`, or any) is heard with the adapter powered on.
  /// Waits through bluetoothd being absent (retried every second, reported once) and the
  /// adapter being off (its state stream says when it is back).
  private func waitForRecorder(_ device: DeviceOptions, serial: String?) async {
    var reported: String?
    while true {
      do {
        let central = try await device.address.open(adapter: device.adapter, requirePowered: false)
        defer { central.close() }
        if await central.state != .poweredOn {
          printError("watch: waiting for the Bluetooth adapter to be powered on")
          for await state in central.stateUpdates() where state == .poweredOn { break }
        }
        // Bounded, then round again: a central that lost bluetoothd is opened anew.
        let found = await firstElement(
          of: DeviceScanner(central: central).discover(), within: .seconds(30), on: .continuous
        ) { heard in serial == nil || heard.serial == serial }
        if found != nil { return }
      } catch {
        let text = "\(error)"
        if text != reported { printError("watch: \(text); retrying") }
        reported = text
        try? await Task.sleep(for: .seconds(1))
      }
    }
  }
}
