import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Issue 12 ("nothing lost to a hostile device, a hostile network or a confused disk") at the
/// process level: `recorder sync` against `recorder emulate` in another process.
extension ProcessTests {
  // MARK: - A hostile serial

  @Test(
    "a device serial that is no safe folder name (../..) is refused: exit 65, nothing outside --out"
  )
  func hostileSerialIsRefused() throws {
    let directory = try TemporaryDirectory("serial")
    let emulator = try EmulatorProcess(
      in: directory, token: Self.token, minutes: [0.25], extra: ["--serial", "../../escaped-x"])
    defer { emulator.stop() }
    let out = directory.file("a/b/out")
    let started = ContinuousClock.now
    let result = try RecorderProcess.run(
      ["sync", "--out", out, "--format", "wav"] + emulator.device, in: directory,
      label: "sync-hostile", timeout: .seconds(60))
    #expect(result.status == 65, "stdout: \(result.stdout) stderr: \(result.stderr)")
    #expect(result.stderr.contains("serial"), "\(result.stderr)")
    #expect(ContinuousClock.now - started < .seconds(30), "a hostile serial is final, not retried")
    let fileManager = FileManager.default
    #expect(try fileManager.contentsOfDirectory(atPath: directory.file("a")) == ["b"])
    #expect(try fileManager.contentsOfDirectory(atPath: directory.file("a/b")) == ["out"])
    #expect(!fileManager.fileExists(atPath: directory.file("a/escaped-x")))
    #expect(try emulator.manifest().deletes.isEmpty, "nothing may be deleted from such a device")
  }

  // MARK: - Two syncs into one folder

  @Test("a sync into a folder whose lock another sync holds fails at once, naming the lock (75)")
  func heldLockFailsAtOnce() throws {
    let directory = try TemporaryDirectory("lock")
    let emulator = try EmulatorProcess(in: directory, token: Self.token, minutes: [0.25])
    defer { emulator.stop() }
    let out = directory.file("out")
    let lock = try FolderLockHolder(out + "/sync.lock")
    defer { lock.release() }

    let started = ContinuousClock.now
    let result = try RecorderProcess.run(
      ["sync", "--out", out, "--format", "wav"] + emulator.device, in: directory,
      label: "sync-locked", timeout: .seconds(60))
    #expect(result.status == 75, "stdout: \(result.stdout) stderr: \(result.stderr)")
    #expect(result.stderr.contains(out + "/sync.lock"), "\(result.stderr)")
    #expect(result.stderr.contains("--wait"), "\(result.stderr)")
    #expect(ContinuousClock.now - started < .seconds(15))
    #expect(!FileManager.default.fileExists(atPath: out + "/journal.sqlite"))
    #expect(try emulator.manifest().deletes.isEmpty)
  }

  @Test("sync.lock deleted under a running watch: a second sync into the folder is refused (75)")
  func deletedLockUnderAWatch() throws {
    let directory = try TemporaryDirectory("lock-deleted")
    let emulator = try EmulatorProcess(in: directory, token: Self.token, minutes: [0.25])
    defer { emulator.stop() }
    let out = directory.file("out")
    let watch = try RecorderProcess(
      ["sync", "--out", out, "--format", "wav", "--watch", "--watch-pause", "0.2"]
        + emulator.device, in: directory, label: "watch")
    defer { watch.kill() }
    // The watch opens its journal once it holds the folder's lock.
    waitUntil(timeout: .seconds(30)) {
      FileManager.default.fileExists(atPath: out + "/journal.sqlite") || !watch.process.isRunning
    }
    #expect(watch.process.isRunning, "stderr: \(watch.stderr)")
    try FileManager.default.removeItem(atPath: out + "/sync.lock")

    let second = try RecorderProcess.run(
      ["sync", "--out", out, "--format", "wav"] + emulator.device, in: directory,
      label: "second", timeout: .seconds(60))
    #expect(second.status == 75, "stdout: \(second.stdout) stderr: \(second.stderr)")
    #expect(second.stderr.contains(out + "/sync.lock"), "\(second.stderr)")
    #expect(watch.process.isRunning, "the watch carries on: \(watch.stderr)")
  }

  @Test("sync --wait waits for the folder's lock, then syncs")
  func waitForTheLock() throws {
    let directory = try TemporaryDirectory("lock-wait")
    let emulator = try EmulatorProcess(in: directory, token: Self.token, minutes: [0.25])
    defer { emulator.stop() }
    let manifest = try emulator.manifest()
    let out = directory.file("out")
    let lock = try FolderLockHolder(out + "/sync.lock")
    defer { lock.release() }

    let child = try RecorderProcess(
      ["sync", "--out", out, "--format", "wav", "--wait"] + emulator.device, in: directory,
      label: "sync-wait")
    defer { child.kill() }
    waitUntil(timeout: .seconds(30)) {
      child.stderr.contains("waiting for") || !child.process.isRunning
    }
    #expect(child.process.isRunning, "stderr: \(child.stderr)")
    #expect(child.stderr.contains(out + "/sync.lock"), "\(child.stderr)")
    #expect(!FileManager.default.fileExists(atPath: out + "/journal.sqlite"))
    lock.release()
    let status = child.wait(timeout: .seconds(120))
    #expect(status == 0, "\(child.stderr)")
    try expectSynced(manifest, out: out, format: "wav")
  }

  // MARK: - Exports per format

  @Test("a wav sync after an mp3 sync of kept recordings writes the wav exports too")
  func anotherFormatIsExported() throws {
    let directory = try TemporaryDirectory("formats")
    let emulator = try EmulatorProcess(in: directory, token: Self.token, minutes: [0.25, 0.25])
    defer { emulator.stop() }
    let manifest = try emulator.manifest()
    let out = directory.file("out")
    let sync = ["sync", "--out", out, "--keep-on-device", "--json"] + emulator.device

    let mp3 = try RecorderProcess.run(
      sync + ["--format", "mp3"], in: directory, label: "sync-mp3")
    #expect(mp3.status == 0, "\(mp3.stderr)")
    let wav = try RecorderProcess.run(
      sync + ["--format", "wav"], in: directory, label: "sync-wav")
    #expect(wav.status == 0, "\(wav.stderr)")
    let files = try jsonArray(wav.stdout)
    #expect(files.count == 2)
    #expect(files.allSatisfy { ($0["exportPath"] as? String)?.hasSuffix(".wav") == true })

    let names = manifest.recordings.flatMap { recording in
      ["mp3", "wav"].map { "\(manifest.serial)-\(recording.sessionId).\($0)" }
    }
    let exports = try FileManager.default.contentsOfDirectory(atPath: out + "/exports")
    #expect(exports.sorted() == names.sorted())
    for name in names {
      let size =
        (try? FileManager.default.attributesOfItem(atPath: out + "/exports/" + name)[.size]
        as? NSNumber)?.intValue ?? 0
      #expect(size > 0, "\(name) is empty")
    }
  }

  // MARK: - Journal paths

  @Test("the same --out, relative from one directory and absolute from another, syncs on")
  func outFromTwoWorkingDirectories() throws {
    let directory = try TemporaryDirectory("cwd")
    let emulator = try EmulatorProcess(in: directory, token: Self.token, minutes: [0.25, 0.25])
    defer { emulator.stop() }
    let manifest = try emulator.manifest()
    let elsewhere = directory.file("elsewhere")
    try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)

    // Raw copies only, kept on the device: the journal now holds their paths.
    let first = try RecorderProcess.run(
      ["sync", "--out", "out", "--format", "raw", "--keep-on-device"] + emulator.device,
      in: directory, label: "sync-relative", workingDirectory: directory.path)
    #expect(first.status == 0, "\(first.stderr)")
    // From another directory, the same folder by its absolute path: export from the journal's
    // raw copies, then delete.
    let second = try RecorderProcess.run(
      ["sync", "--out", directory.file("out"), "--format", "wav", "--attempts", "1"]
        + emulator.device, in: directory, label: "sync-absolute", workingDirectory: elsewhere)
    #expect(second.status == 0, "\(second.stderr)")
    try expectSynced(manifest, out: directory.file("out"), format: "wav")
    let rawPaths = try journalColumn(directory.file("out/journal.sqlite"), "raw_path")
    for recording in manifest.recordings {
      #expect(rawPaths[recording.sessionId] == "\(manifest.serial)/\(recording.sessionId).opus-raw")
    }
  }

  // MARK: - Errors: final or retried, and their exit codes

  @Test("sync with a rejected token: one attempt, exit 77")
  func syncWithRejectedToken() throws {
    let directory = try TemporaryDirectory("sync-token")
    let emulator = try EmulatorProcess(in: directory, token: Self.token, minutes: [0.25])
    defer { emulator.stop() }
    let wrong = "00000000000000000000000000000000"
    let started = ContinuousClock.now
    let result = try RecorderProcess.run(
      ["sync", "--out", directory.file("out"), "--device", emulator.url, "--token", wrong],
      in: directory, label: "sync-wrong-token", timeout: .seconds(90))
    #expect(result.status == 77, "stderr: \(result.stderr)")
    #expect(result.stderr.contains("rejected the token"), "\(result.stderr)")
    #expect(!result.stderr.contains("attempt 2"), "a rejected token was retried: \(result.stderr)")
    #expect(!result.stderr.contains(wrong) && !result.stderr.contains(Self.token))
    #expect(ContinuousClock.now - started < .seconds(15))
  }

  /// A real full disk at the process level: the export folder is a 64 KiB tmpfs (the raw
  /// copies and the journal are on the normal disk), so the transfer succeeds and the WAV
  /// export (480 kB) hits ENOSPC. Mounting needs root and CAP_SYS_ADMIN; without them the
  /// test says so and passes (SyncDiskFullTests covers the engine with an injected ENOSPC).
  @Test("a full disk during export exits 74 at once, the recording kept on the device")
  func fullDiskDuringExport() throws {
    let directory = try TemporaryDirectory("export-full")
    let out = directory.file("out")
    let exports = out + "/exports"
    try FileManager.default.createDirectory(atPath: exports, withIntermediateDirectories: true)
    let mounted = runTool("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", exports])
    guard mounted.status == 0 else {
      print("SKIPPED fullDiskDuringExport: cannot mount a tmpfs (\(mounted.output))")
      return
    }
    defer { _ = runTool("/bin/umount", ["-l", exports]) }
    let emulator = try EmulatorProcess(in: directory, token: Self.token, minutes: [0.25])
    defer { emulator.stop() }

    let result = try RecorderProcess.run(
      ["sync", "--out", out, "--format", "wav", "--attempts", "3"] + emulator.device,
      in: directory, label: "sync-full", timeout: .seconds(90))
    #expect(result.status == 74, "stderr: \(result.stderr)")
    #expect(result.stderr.contains("no space"), "\(result.stderr)")
    #expect(!result.stderr.contains("attempt 1"), "a full disk was retried: \(result.stderr)")
    #expect(try emulator.manifest().deletes.isEmpty)
    #expect(try journalStages(out + "/journal.sqlite").values.allSatisfy { $0 == "stored" })
  }
}

/// Holds an exclusive `flock(2)` on a file, as another `recorder sync` would, until released.
final class FolderLockHolder: @unchecked Sendable {
  // `@unchecked Sendable`: `descriptor` is only touched by the test's own thread.
  private var descriptor: Int32

  init(_ path: String) throws {
    try FileManager.default.createDirectory(
      atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    descriptor = open(path, O_RDWR | O_CREAT, 0o644)
    guard descriptor >= 0 else { throw HarnessError("cannot open \(path)") }
    guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
      throw HarnessError("cannot lock \(path)")
    }
  }

  deinit { release() }

  func release() {
    guard descriptor >= 0 else { return }
    close(descriptor)
    descriptor = -1
  }
}

/// Runs a system tool to its end; its combined output.
func runTool(_ path: String, _ arguments: [String]) -> (status: Int32, output: String) {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: path)
  process.arguments = arguments
  let pipe = Pipe()
  process.standardOutput = pipe
  process.standardError = pipe
  do { try process.run() } catch { return (-1, "\(error)") }
  let data = pipe.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}
