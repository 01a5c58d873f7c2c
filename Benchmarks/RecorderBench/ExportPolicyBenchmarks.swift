import Foundation
import RecorderConcurrency
import RecorderKit
import TestSupport

/// Issue 27, "where the conversion runs": CPU seconds per hour of audio of a background BLE
/// sync (mp3 export asked for) under each ``ExportPolicy``, and of the conversions a deferred
/// sync leaves for later (a processing task on external power, or the app asking).
///
/// One 60-minute mono recording on the in-process emulator per policy, CPU of this process
/// (getrusage), the emulated device's own work included as in the battery section: the
/// phone's share of the sync is smaller. Figures only; nothing is asserted.
enum ExportPolicyBenchmarks {
  static let minutes = 60.0

  static func run() throws {
    say(
      "== export policy: one \(Int(minutes))-minute mono recording, mp3, CPU seconds per hour"
        + " of audio")
    let perHour = 60.0 / minutes
    var figures: [(ExportPolicy, sync: Double, later: Double)] = []
    for policy in ExportPolicy.allCases {
      let (sync, later) = try blocking { try await measure(policy) }
      figures.append((policy, sync * perHour, later * perHour))
    }
    for (policy, sync, later) in figures {
      let name = policy.rawValue.padding(toLength: 19, withPad: " ", startingAt: 0)
      say(
        "  \(name) background sync \(seconds(sync)) s   later, on external power"
          + " \(seconds(later)) s   total \(seconds(sync + later)) s")
    }
    if let now = figures.first(where: { $0.0 == .convertImmediately }),
      let deferred = figures.first(where: { $0.0 == .deferConversion })
    {
      let saved = now.sync - deferred.sync
      say(
        "  deferring moves \(seconds(saved)) s per hour of audio off the background sync"
          + " (\(String(format: "%.0f", 100 * saved / max(now.sync, 1e-9))) % of its CPU)")
    }
  }

  /// CPU of one background sync of the hour under `policy` (device copy deleted), and of the
  /// conversions it left owed.
  static func measure(_ policy: ExportPolicy) async throws -> (sync: Double, later: Double) {
    let rig = try await EmulatorRig(recordings: [.seconds(minutes * 60)])
    defer { rig.cleanUp() }
    rig.manual.startAutoAdvance()
    defer { rig.manual.stopAutoAdvance() }
    var options = SyncEngine.Options()
    options.format = .mp3
    options.exportPolicy = policy
    let engine = SyncEngine(
      journal: rig.journal, fileSystem: rig.fileSystem, root: rig.root, options: options,
      clock: rig.clock)
    let draining = Task { for await _ in engine.events {} }
    defer { draining.cancel() }
    let session = try await rig.connect()
    let before = CPUTime.process()
    let report = try await engine.sync(using: BLETransport(session: session))
    let sync = CPUTime.process() - before
    await session.close()
    guard let file = report.files.first, file.deletedFromDevice else {
      throw BenchError("the hour did not sync under \(policy)")
    }
    let workspace = try SyncWorkspace(root: rig.root)
    let start = CPUTime.process()
    let converted = await workspace.convertPending()
    let later = CPUTime.process() - start
    let expected = policy == .deferConversion ? 1 : 0
    guard converted.converted.count == expected, converted.remaining.isEmpty else {
      throw BenchError("\(policy): \(converted.converted.count) conversions made later")
    }
    return (sync, later)
  }

  static func seconds(_ value: Double) -> String { String(format: "%6.2f", value) }
}
