import Foundation
import TestSupport
import Testing

/// `recorder sync` whose power is cut (the process-level harness, `RECORDER_TEST_POWER_LOSS_AFTER`:
/// the disk rolled back to what the fsyncs made durable, then the process ends with exit
/// 98), against a plain and a Mode B emulator in another process. After each cut nothing
/// the device deleted is missing locally, and one clean run then leaves every recording
/// exactly once and the device empty.
@Suite("Power loss at process level", .blockingWaits)
struct PowerLossProcessTests {
  static let token = "0123456789abcdef0123456789abcdef"
  static let minutes = [0.5, 0.25, 0.25, 0.25]

  @Test(
    "sync with its power cut at seeded moments: never deleted early, then exactly once",
    arguments: [10, 20] as [UInt16])
  func powerCuts(portVersion: UInt16) throws {
    let seed =
      ProcessInfo.processInfo.environment["POWER_LOSS_SEED"].flatMap { UInt64($0) } ?? 0x5057_4C53
    print("power loss seed: \(seed), port \(portVersion) (rerun with POWER_LOSS_SEED=\(seed))")
    var random = SplitMix64(seed: seed)

    // How many file operations a whole sync makes, on a twin of the device.
    let twinDirectory = try TemporaryDirectory("power-twin")
    let twin = try EmulatorProcess(
      in: twinDirectory, token: Self.token, minutes: Self.minutes, portVersion: portVersion)
    defer { twin.stop() }
    let counted = try RecorderProcess.run(
      ["sync", "--out", twinDirectory.file("out"), "--format", "mp3"] + twin.device,
      in: twinDirectory, label: "count",
      environment: ["RECORDER_TEST_POWER_LOSS_AFTER": "100000000"])
    #expect(counted.status == 0, "\(counted.stderr)")
    let operations = try #require(
      Self.operationCount(counted.stderr),
      "no power-loss hook in this recorder (build with --traits PowerLossHook, as make test does): \(counted.stderr)"
    )
    twin.stop()

    // One cut per fresh device and folder, spread over the whole sync (a seeded point in
    // each eighth of its operations): transfers, stores, exports and deletes all get one.
    let points = 8
    for index in 0..<points {
      let low = operations * index / points
      let cut = Int.random(
        in: low...max(low, operations * (index + 1) / points - 1), using: &random)
      let context = "seed \(seed), port \(portVersion), cut after \(cut) of \(operations)"
      let directory = try TemporaryDirectory("power")
      let emulator = try EmulatorProcess(
        in: directory, token: Self.token, minutes: Self.minutes, portVersion: portVersion)
      defer { emulator.stop() }
      let manifest = try emulator.manifest()
      let out = directory.file("out")
      let sync = ["sync", "--out", out, "--format", "mp3", "--timeout", "30"] + emulator.device
      let cutRun = try RecorderProcess.run(
        sync, in: directory, label: "cut-\(index)",
        environment: ["RECORDER_TEST_POWER_LOSS_AFTER": "\(cut)"])
      #expect(cutRun.status == 98, "\(context): \(cutRun.stderr)")
      #expect(cutRun.stderr.contains("power cut after \(cut) file operations"), "\(context)")
      // (The manifest is rewritten within ~20 ms of a DELETE; a DELETE the process saw
      // answered was served before it ended, as in the kill test.)
      try ProcessTests().expectNothingDeletedEarly(
        manifest: emulator.manifest(), expected: manifest, out: out, seed: seed, run: index)
      let deletedBeforeRecovery = try emulator.manifest().deletes.count

      // Power back: one clean run finishes, exactly once.
      let final = try RecorderProcess.run(sync, in: directory, label: "final-\(index)")
      #expect(final.status == 0, "\(context): \(final.stderr)")
      try ProcessTests().expectSynced(manifest, out: out, format: "mp3")
      let deleted = waitUntil(timeout: .seconds(20)) {
        (try? emulator.manifest().deletes.count) == manifest.recordings.count
      }
      #expect(deleted, "\(context): one DELETE per recording")
      let deletes = try emulator.manifest().deletes.map(\.sessionId)
      #expect(Set(deletes).count == deletes.count, "\(context): a recording deleted twice")
      print("power loss: \(context), \(deletedBeforeRecovery) deleted before the cut")
      emulator.stop()
    }
  }

  /// The count a run that finished before its cut reports.
  static func operationCount(_ stderr: String) -> Int? {
    let prefix = "power-loss hook: "
    guard
      let line = stderr.split(separator: "\n").first(where: {
        $0.hasPrefix(prefix) && $0.hasSuffix("file operations, no cut")
      })
    else { return nil }
    return Int(line.dropFirst(prefix.count).prefix { $0.isNumber })
  }
}
