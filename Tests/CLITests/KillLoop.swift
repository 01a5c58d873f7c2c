import Foundation
import RecorderConcurrency
import Testing

/// SIGKILLs a `recorder sync` at seeded moments, run after run, checking after every kill
/// that nothing was deleted early (``ProcessTests/expectNothingDeletedEarly``). The moments
/// are timed by the sync's own progress lines, not by the clock, so they spread over joins,
/// transfers, stores, exports and deletes however fast or loaded the machine is: after
/// 0…`maxSteps` lines past the device's LIST, then up to `maxDelay` seconds more.
struct KillLoop {
  /// The sync's arguments (its exports must be mp3: the early-delete check looks for them).
  let sync: [String]
  let emulator: EmulatorProcess
  /// The emulator's manifest before the first run.
  let expected: Manifest
  let out: String
  let directory: TemporaryDirectory
  let seed: UInt64
  var maxSteps = 5
  var maxDelay = 0.15
  /// The share of kills that land in start-up instead (before or during the handshake),
  /// 0.02–0.4 s after the process started.
  var earlyChance = 0.0

  /// What a loop did.
  struct Outcome {
    var kills = 0
    var runs = 0
    /// Runs that ended on their own before their kill moment (the loop stops at the first).
    var finishedEarly = 0
  }

  /// Kills until `kills` kills were made or a run ended on its own (it must end with 0).
  func run(kills target: Int, label: String, random: inout SplitMix64) throws -> Outcome {
    var outcome = Outcome()
    while outcome.kills < target {
      outcome.runs += 1
      let run = outcome.runs
      let early = earlyChance > 0 && Double.random(in: 0...1, using: &random) < earlyChance
      let steps = Int.random(in: 0...maxSteps, using: &random)
      let delay =
        early
        ? Double.random(in: 0.02...0.4, using: &random)
        : Double.random(in: 0...maxDelay, using: &random)
      let child = try RecorderProcess(sync, in: directory, label: "\(label)-\(run)")
      if !early {
        waitUntil(timeout: .seconds(30)) {
          let text = child.stderr
          guard let list = text.range(of: "device lists") else { return !child.process.isRunning }
          let after = text[list.upperBound...].filter { $0 == "\n" }.count - 1
          return after >= steps || !child.process.isRunning
        }
      }
      if waitUntil(timeout: .milliseconds(Int64(delay * 1000)), { !child.process.isRunning }) {
        outcome.finishedEarly += 1
        #expect(
          child.wait(timeout: .seconds(10)) == 0,
          "seed \(seed) run \(run) failed: \(child.stderr)")
        break
      }
      child.kill()
      outcome.kills += 1
      let durable = (try? journalDurableBytes(out + "/journal.sqlite"))?.values.reduce(0, +) ?? 0
      let moment =
        early
        ? "\(Int(delay * 1000)) ms after start"
        : "\(steps) steps + \(Int(delay * 1000)) ms after LIST"
      print(
        "\(label) kill \(outcome.kills): run \(run), \(moment), journal \(durable) bytes durable, "
          + "\(try emulator.manifest().deletes.count) deleted")
      try ProcessTests().expectNothingDeletedEarly(
        manifest: emulator.manifest(), expected: expected, out: out, seed: seed, run: run)
    }
    return outcome
  }
}
