import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Process-level tests (DESIGN.md, testing strategy): the `recorder` tool against
/// `recorder emulate` running in another process, over TCP. Each test starts its own
/// emulator on a free port with a fast clock, in its own temporary directory, and kills it
/// on every path. Serialized: each test runs several processes and the machine is small.
@Suite("recorder against recorder emulate", .serialized, .blockingWaits)
struct ProcessTests {
  static let token = "feedfacecafebeef0123456789abcdef"

  // MARK: - 1. ls and info

  @Test("ls --json lists the manifest's recordings with sizes and durations")
  func listMatchesManifest() throws {
    let directory = try TemporaryDirectory("ls")
    let emulator = try EmulatorProcess(in: directory, token: Self.token, minutes: [2, 0.5, 0.25])
    defer { emulator.stop() }
    let manifest = try emulator.manifest()
    #expect(manifest.recordings.count == 3)

    let result = try RecorderProcess.run(
      ["ls", "--json"] + emulator.device, in: directory, label: "ls")
    #expect(result.status == 0, "\(result.stderr)")
    let listed = try jsonArray(result.stdout)
    #expect(listed.map { int64($0["sessionId"]) } == manifest.recordings.map(\.sessionId))
    #expect(listed.map { int64($0["size"]) } == manifest.recordings.map(\.size))
    // Mono 80-byte frames of 20 ms.
    #expect(listed.map { int64($0["durationMs"]) } == manifest.recordings.map { $0.size / 80 * 20 })
    #expect(manifest.recordings.map { $0.size / 80 * 20 } == [120_000, 30_000, 15_000])

    let text = try RecorderProcess.run(["ls"] + emulator.device, in: directory, label: "ls-text")
    #expect(text.status == 0, "\(text.stderr)")
    #expect(text.stdout.contains("3 recordings"))
    #expect(text.stdout.contains("2:00.000"))
  }

  @Test("info --json shows serial, model, firmware V0095, portVersion 10, battery, storage")
  func info() throws {
    let directory = try TemporaryDirectory("info")
    let emulator = try EmulatorProcess(in: directory, token: Self.token, recordings: 1)
    defer { emulator.stop() }
    let manifest = try emulator.manifest()

    let result = try RecorderProcess.run(
      ["info", "--json"] + emulator.device, in: directory, label: "info")
    #expect(result.status == 0, "\(result.stderr)")
    let info = try jsonObject(result.stdout)
    #expect(info["serial"] as? String == manifest.serial)
    #expect(info["model"] as? String == "Plaud Note")
    #expect(info["firmware"] as? String == "V0095")
    #expect(int64(info["portVersion"]) == 10)
    let battery = try #require(int64(info["batteryLevel"]))
    #expect((0...100).contains(battery))
    let free = try #require(int64(info["freeBytes"]))
    let total = try #require(int64(info["totalBytes"]))
    #expect(total > 0 && free > 0 && free <= total)
    #expect(!result.stdout.contains(Self.token), "the token must never be printed")
  }

  @Test("a wrong token exits non-zero at once with a one-line 'rejected the token' reason")
  func wrongToken() throws {
    let directory = try TemporaryDirectory("token")
    let emulator = try EmulatorProcess(in: directory, token: Self.token, recordings: 1)
    defer { emulator.stop() }
    let wrong = "00000000000000000000000000000000"
    for command in ["ls", "info"] {
      let started = ContinuousClock.now
      // From the environment: --token on the command line adds its own warning line.
      let result = try RecorderProcess.run(
        [command, "--device", emulator.url], in: directory, label: "wrong-\(command)",
        timeout: .seconds(60), environment: ["RECORDER_TOKEN": wrong])
      let elapsed = ContinuousClock.now - started
      let status = try #require(
        result.status, "\(command) with a wrong token hung (killed after 60 s)")
      #expect(status != 0)
      let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: true)
      #expect(lines.count == 1, "stderr: \(result.stderr)")
      #expect(result.stderr.contains("rejected the token"), "stderr: \(result.stderr)")
      #expect(!result.stderr.contains(wrong) && !result.stderr.contains(Self.token))
      #expect(result.stdout.isEmpty)
      #expect(elapsed < .seconds(15), "\(command) took \(elapsed) to report the rejection")
    }
  }

  @Test("an unreachable port exits 69")
  func unreachable() throws {
    let directory = try TemporaryDirectory("unreachable")
    let port = try unusedPort()
    for command in ["ls", "info"] {
      let result = try RecorderProcess.run(
        [command, "--device", "tcp://127.0.0.1:\(port)", "--token", Self.token], in: directory,
        label: "unreachable-\(command)", timeout: .seconds(60))
      #expect(result.status == 69, "stderr: \(result.stderr)")
      #expect(!result.stderr.isEmpty)
    }
  }

  // MARK: - 2. sync

  @Test(
    "sync to completion: each export once, raw bytes match, device empty, transport ble",
    arguments: [10, 20] as [UInt16])
  func syncToCompletion(portVersion: UInt16) throws {
    let directory = try TemporaryDirectory("sync")
    let emulator = try EmulatorProcess(
      in: directory, token: Self.token, minutes: [1, 0.5, 0.25], portVersion: portVersion)
    defer { emulator.stop() }
    let manifest = try emulator.manifest()
    let out = directory.file("out")

    let result = try RecorderProcess.run(
      ["sync", "--out", out, "--format", "wav", "--json"] + emulator.device, in: directory,
      label: "sync")
    #expect(result.status == 0, "\(result.stderr)")
    let files = try jsonArray(result.stdout)
    #expect(files.map { int64($0["sessionId"]) } == manifest.recordings.map(\.sessionId))
    for file in files {
      #expect(file["transport"] as? String == "ble")
      #expect(file["verified"] as? Bool == true)
      #expect(file["deletedFromDevice"] as? Bool == true)
    }
    try expectSynced(manifest, out: out, format: "wav")

    let after = try RecorderProcess.run(
      ["ls", "--json"] + emulator.device, in: directory, label: "ls-after")
    #expect(after.status == 0, "\(after.stderr)")
    #expect(try jsonArray(after.stdout).isEmpty)
    let deleted = try emulator.manifest().deletes.map(\.sessionId)
    #expect(deleted.sorted() == manifest.recordings.map(\.sessionId).sorted())

    // A second run finds nothing to do and duplicates nothing.
    let again = try RecorderProcess.run(
      ["sync", "--out", out, "--format", "wav", "--json"] + emulator.device, in: directory,
      label: "sync-again")
    #expect(again.status == 0, "\(again.stderr)")
    try expectSynced(manifest, out: out, format: "wav")
  }

  @Test("sync --keep-on-device leaves every recording listed")
  func syncKeepOnDevice() throws {
    let directory = try TemporaryDirectory("keep")
    let emulator = try EmulatorProcess(in: directory, token: Self.token, minutes: [0.5, 0.25])
    defer { emulator.stop() }
    let manifest = try emulator.manifest()
    let out = directory.file("out")

    let result = try RecorderProcess.run(
      ["sync", "--out", out, "--format", "mp3", "--keep-on-device", "--json"] + emulator.device,
      in: directory, label: "sync")
    #expect(result.status == 0, "\(result.stderr)")
    let files = try jsonArray(result.stdout)
    #expect(files.count == 2)
    #expect(
      files.allSatisfy {
        $0["deletedFromDevice"] as? Bool == false && $0["transport"] as? String == "ble"
      })
    try expectSynced(manifest, out: out, format: "mp3", deleted: false)

    let after = try RecorderProcess.run(
      ["ls", "--json"] + emulator.device, in: directory, label: "ls-after")
    #expect(after.status == 0, "\(after.stderr)")
    #expect(
      try jsonArray(after.stdout).map { int64($0["sessionId"]) }
        == manifest.recordings.map(\.sessionId))
    #expect(try emulator.manifest().deletes.isEmpty)
  }

  @Test(
    "a link drop mid-transfer: sync reconnects, resumes and completes exactly once",
    arguments: [10, 20] as [UInt16])
  func syncThroughALinkDrop(portVersion: UInt16) throws {
    let directory = try TemporaryDirectory("drop")
    let emulator = try EmulatorProcess(
      in: directory, token: Self.token, minutes: [1, 0.5], portVersion: portVersion,
      extra: ["--drop-at-byte", "60000"])
    defer { emulator.stop() }
    let manifest = try emulator.manifest()
    let out = directory.file("out")
    let result = try RecorderProcess.run(
      ["sync", "--out", out, "--format", "wav", "--json"] + emulator.device, in: directory,
      label: "sync")
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.contains("interrupted"), "the drop never happened: \(result.stderr)")
    try expectSynced(manifest, out: out, format: "wav")
  }

  // MARK: - 3. kill test (issue 5)

  /// `recorder sync` SIGKILLed at 20 seeded random moments across runs, then run to
  /// completion. After every kill: each recording the device deleted is safe locally (raw
  /// copy with the manifest's SHA-256, export present, journal past `stored`), and every raw
  /// file under its final name is complete. At the end: each recording exactly once.
  @Test(
    "kill test: 20 seeded SIGKILLs of recorder sync, then exactly once, verified, never deleted early",
    arguments: [10, 20] as [UInt16])
  func killTest(portVersion: UInt16) throws {
    let seed =
      ProcessInfo.processInfo.environment["KILL_TEST_SEED"].flatMap { UInt64($0) }
      ?? UInt64(Date().timeIntervalSince1970)
    print("kill test seed: \(seed), port \(portVersion) (rerun with KILL_TEST_SEED=\(seed))")
    var random = SplitMix64(seed: seed)
    let started = ContinuousClock.now

    let directory = try TemporaryDirectory("kill")
    let emulator = try EmulatorProcess(
      in: directory, token: Self.token,
      minutes: [2] + Array(repeating: 0.5, count: 12) + Array(repeating: 0.25, count: 6),
      seed: seed % 1000 + 1, timeScale: 50, portVersion: portVersion)
    defer { emulator.stop() }
    let manifest = try emulator.manifest()
    let out = directory.file("out")
    let sync =
      ["sync", "--out", out, "--format", "mp3", "--json", "--timeout", "30"] + emulator.device

    // One kill in five lands in start-up (before or during connection and handshake); the
    // others after 0-5 progress lines past the device's LIST, then 0-150 ms more.
    let loop = KillLoop(
      sync: sync, emulator: emulator, expected: manifest, out: out, directory: directory,
      seed: seed, earlyChance: 0.2)
    let outcome = try loop.run(kills: 20, label: "sync", random: &random)
    let (kills, run) = (outcome.kills, outcome.runs)
    print(
      "kill test: \(kills) kills in \(run) runs (\(outcome.finishedEarly) finished before the kill)"
    )

    let final = try RecorderProcess.run(sync, in: directory, label: "final", timeout: .seconds(120))
    #expect(final.status == 0, "seed \(seed): final run failed: \(final.stderr)")
    try expectSynced(manifest, out: out, format: "mp3")
    try expectNothingDeletedEarly(
      manifest: emulator.manifest(), expected: manifest, out: out, seed: seed, run: run + 1)
    let after = try RecorderProcess.run(
      ["ls", "--json"] + emulator.device, in: directory, label: "ls-after")
    #expect(
      try jsonArray(after.stdout).isEmpty, "seed \(seed): the device still lists \(after.stdout)")
    let deletes = try emulator.manifest().deletes.map(\.sessionId)
    #expect(
      deletes.sorted() == manifest.recordings.map(\.sessionId).sorted(),
      "seed \(seed): one DELETE per recording")
    print("kill test: \(kills) kills, seed \(seed), \(ContinuousClock.now - started)")
  }

  /// DESIGN.md invariant 3 (resume, don't restart): a sync SIGKILLed well into a long
  /// transfer has journalled a durable offset at its checkpoints (every 256 KiB), so the
  /// next run continues from there instead of from byte 0.
  @Test(
    "a SIGKILLed sync has journalled its durable offset (resume, don't restart)",
    arguments: [10, 20] as [UInt16])
  func killedSyncResumes(portVersion: UInt16) throws {
    let directory = try TemporaryDirectory("resume")
    let emulator = try EmulatorProcess(
      in: directory, token: Self.token, minutes: [5], timeScale: 50, portVersion: portVersion)
    defer { emulator.stop() }
    let manifest = try emulator.manifest()
    let recording = try #require(manifest.recordings.first)
    let out = directory.file("out")
    let part = out + "/\(manifest.serial)/\(recording.sessionId).part"
    let sync = ["sync", "--out", out, "--format", "wav"] + emulator.device

    let child = try RecorderProcess(sync, in: directory, label: "sync-killed")
    let grown = waitUntil(timeout: .seconds(60)) {
      let size =
        (try? FileManager.default.attributesOfItem(atPath: part)[.size] as? NSNumber)?.intValue ?? 0
      return size >= 700_000 || !child.process.isRunning
    }
    child.kill()
    try #require(grown, "the partial file never reached 700 kB")
    let partSize =
      (try? FileManager.default.attributesOfItem(atPath: part)[.size] as? NSNumber)?.int64Value ?? 0
    try #require(partSize >= 700_000, "the sync ended before the kill: \(child.stderr)")
    let durable = try journalDurableBytes(out + "/journal.sqlite")[recording.sessionId] ?? 0
    #expect(durable >= 262_144, "\(partSize) bytes on disk, journal says \(durable) durable")

    let final = try RecorderProcess.run(sync, in: directory, label: "sync-final")
    #expect(final.status == 0, "\(final.stderr)")
    try expectSynced(manifest, out: out, format: "wav")
  }

  // MARK: - 4. demo

  /// The demo as `make demo` runs it (Ogg Opus exports, ~6 s in a debug build).
  @Test("demo runs to completion, prints the summary and an empty device")
  func demo() throws {
    let directory = try TemporaryDirectory("demo")
    let out = directory.file("recordings")
    let result = try RecorderProcess.run(
      ["demo", "--out", out], in: directory, label: "demo", timeout: .seconds(300))
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("FILE"))
    #expect(result.stdout.contains("VERIFIED"))
    #expect(result.stdout.contains("The device now holds 0 recordings."))
    let exports = try FileManager.default.contentsOfDirectory(atPath: out).filter {
      $0.hasSuffix(".opus")
    }
    #expect(exports.count == 4)
    let rows = result.stdout.split(separator: "\n").filter { $0.contains(".opus") }
    #expect(rows.count == 4)
    #expect(rows.allSatisfy { $0.contains("yes") })
  }

  // MARK: - Checks

  /// Every manifest recording exactly once: one export, a raw copy with the manifest's
  /// SHA-256, journal at the last stage; no temporaries left.
  func expectSynced(_ manifest: Manifest, out: String, format: String, deleted: Bool = true) throws
  {
    let fileManager = FileManager.default
    let exports = try fileManager.contentsOfDirectory(atPath: out + "/exports")
    #expect(
      exports.sorted()
        == manifest.recordings.map { "\(manifest.serial)-\($0.sessionId).\(format)" }.sorted())
    let rawDirectory = out + "/" + manifest.serial
    let raw = try fileManager.contentsOfDirectory(atPath: rawDirectory)
    #expect(
      raw.sorted() == manifest.recordings.map { "\($0.sessionId).opus-raw" }.sorted(),
      "left: \(raw)")
    let stages = try journalStages(out + "/journal.sqlite")
    for recording in manifest.recordings {
      let path = rawDirectory + "/\(recording.sessionId).opus-raw"
      #expect(
        try sha256(ofFile: path) == recording.sha256, "\(recording.sessionId): raw bytes differ")
      let export = out + "/exports/\(manifest.serial)-\(recording.sessionId).\(format)"
      let size =
        (try? fileManager.attributesOfItem(atPath: export)[.size] as? NSNumber)?.intValue ?? 0
      #expect(size > 0, "\(export) is empty")
      #expect(stages[recording.sessionId] == (deleted ? "deletedFromDevice" : "exported"))
    }
  }

  /// The invariant after any kill: every DELETE the device served was for a recording whose
  /// raw copy (the manifest's bytes) and export exist and whose journal row is past
  /// `stored`; and every raw file under its final name is whole.
  func expectNothingDeletedEarly(
    manifest current: Manifest, expected: Manifest, out: String, seed: UInt64, run: Int
  )
    throws
  {
    let rawDirectory = out + "/" + expected.serial
    let hashes = Dictionary(
      uniqueKeysWithValues: expected.recordings.map { ($0.sessionId, $0.sha256) })
    let journal = out + "/journal.sqlite"
    // A kill before the journal's first migration committed leaves it without tables.
    let stages =
      try journalTables(journal).contains("recordings") ? try journalStages(journal) : [:]
    let safe: Set<String> = ["stored", "exported", "deletedFromDevice"]
    for delete in current.deletes {
      let raw = rawDirectory + "/\(delete.sessionId).opus-raw"
      #expect(
        FileManager.default.fileExists(atPath: raw),
        "seed \(seed) run \(run): \(delete.sessionId) deleted, no raw copy")
      let export = out + "/exports/\(expected.serial)-\(delete.sessionId).mp3"
      #expect(
        FileManager.default.fileExists(atPath: export),
        "seed \(seed) run \(run): \(delete.sessionId) deleted, no export")
      #expect(
        safe.contains(stages[delete.sessionId] ?? "none"),
        "seed \(seed) run \(run): \(delete.sessionId) deleted, journal says \(stages[delete.sessionId] ?? "nothing")"
      )
    }
    for name in (try? FileManager.default.contentsOfDirectory(atPath: rawDirectory)) ?? []
    where name.hasSuffix(".opus-raw") {
      let id = Int64(name.dropLast(".opus-raw".count)) ?? -1
      let digest: String = try sha256(ofFile: rawDirectory + "/" + name)
      #expect(
        digest == hashes[id],
        "seed \(seed) run \(run): \(name) under its final name is not the device's bytes")
    }
  }
}
