import Foundation
import TestSupport
import Testing

/// Issue 7 at the process level: `recorder sync --wifi` against `recorder emulate` in another
/// process, the Wi-Fi data path over real loopback TCP (the emulator's device connects to the
/// sync's WebSocket server after the join).
extension ProcessTests {
  /// `recorder sync --wifi` for any backlog (Ogg Opus exports, JSON summary), to its end.
  func syncWiFiToTheEnd(
    _ emulator: EmulatorProcess, out: String, in directory: TemporaryDirectory, label: String
  ) throws -> (status: Int32?, stdout: String, stderr: String) {
    try RecorderProcess.run(
      [
        "sync", "--out", out, "--format", "opus", "--json", "--wifi", "--hotspot",
        try emulator.hotspot(), "--wifi-min-backlog", "0",
      ] + emulator.device,
      in: directory, label: label)
  }

  /// A `sync --wifi --json` that ended well and moved every listed recording over Wi-Fi,
  /// each stored as the device held it: its JSON file entries.
  @discardableResult
  func expectSyncedOverWiFi(
    _ result: (status: Int32?, stdout: String, stderr: String), _ manifest: Manifest,
    out: String
  ) throws -> [[String: Any]] {
    #expect(result.status == 0, "\(result.stderr)")
    let files = try jsonArray(result.stdout)
    #expect(files.count == manifest.recordings.count, "\(result.stdout)\n\(result.stderr)")
    #expect(
      files.allSatisfy { $0["transport"] as? String == "wifi" },
      "\(result.stdout)\n\(result.stderr)")
    try expectSynced(manifest, out: out, format: "opus")
    return files
  }

  @Test("sync --wifi moves the backlog over Wi-Fi and names the transport of each file")
  func syncOverWiFi() throws {
    let directory = try TemporaryDirectory("wifi")
    let emulator = try EmulatorProcess(
      in: directory, token: Self.token, minutes: [3, 1, 0.5], timeScale: 50)
    defer { emulator.stop() }
    let manifest = try emulator.manifest()
    let out = directory.file("out")
    let result = try syncWiFiToTheEnd(emulator, out: out, in: directory, label: "sync-wifi")
    try expectSyncedOverWiFi(result, manifest, out: out)
    #expect(try emulator.manifest().deletes.count == manifest.recordings.count)
  }

  @Test("sync --wifi against a device that refuses its hotspot: BLE carries everything")
  func syncOverWiFiFallsBack() throws {
    let directory = try TemporaryDirectory("wifi-refused")
    let emulator = try EmulatorProcess(
      in: directory, token: Self.token, minutes: [1, 0.5], timeScale: 50,
      extra: ["--wifi-refuse-open"])
    defer { emulator.stop() }
    let manifest = try emulator.manifest()
    let out = directory.file("out")
    let result = try syncWiFiToTheEnd(emulator, out: out, in: directory, label: "sync-wifi-refused")
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.contains("over BLE: Wi-Fi unavailable"), "\(result.stderr)")
    #expect(try jsonArray(result.stdout).allSatisfy { $0["transport"] as? String == "ble" })
    try expectSynced(manifest, out: out, format: "opus")
  }

  /// The kill test of the main job, over Wi-Fi: `recorder sync --wifi` SIGKILLed at 10
  /// seeded moments (timed by its own progress lines, so they spread over joins, Wi-Fi
  /// transfers, stores, exports and the deletes after the batch), then run to completion.
  /// After every kill nothing was deleted early; at the end each recording is there exactly
  /// once and the device deleted each exactly once.
  @Test("kill test over Wi-Fi: 10 seeded SIGKILLs of sync --wifi, then exactly once")
  func killTestOverWiFi() throws {
    let seed =
      ProcessInfo.processInfo.environment["KILL_TEST_SEED"].flatMap { UInt64($0) }
      ?? UInt64(Date().timeIntervalSince1970)
    print("Wi-Fi kill test seed: \(seed) (rerun with KILL_TEST_SEED=\(seed))")
    var random = SplitMix64(seed: seed)
    let directory = try TemporaryDirectory("wifi-kill")
    let emulator = try EmulatorProcess(
      in: directory, token: Self.token, minutes: [3, 1, 1, 0.5, 0.5, 0.25],
      seed: seed % 1000 + 1, timeScale: 50)
    defer { emulator.stop() }
    let manifest = try emulator.manifest()
    let out = directory.file("out")
    let sync =
      [
        "sync", "--out", out, "--format", "mp3", "--json", "--timeout", "30", "--wifi",
        "--hotspot", try emulator.hotspot(), "--wifi-min-backlog", "0",
      ] + emulator.device

    let loop = KillLoop(
      sync: sync, emulator: emulator, expected: manifest, out: out, directory: directory,
      seed: seed, maxSteps: 6, maxDelay: 0.1)
    let outcome = try loop.run(kills: 10, label: "wifi-kill", random: &random)
    print("Wi-Fi kill test: \(outcome.kills) kills in \(outcome.runs) runs, seed \(seed)")

    let final = try RecorderProcess.run(sync, in: directory, label: "wifi-final")
    #expect(final.status == 0, "seed \(seed): final run failed: \(final.stderr)")
    try expectSynced(manifest, out: out, format: "mp3")
    let deletes = try emulator.manifest().deletes.map(\.sessionId)
    #expect(
      deletes.sorted() == manifest.recordings.map(\.sessionId).sorted(),
      "seed \(seed): one DELETE per recording")
  }
}
