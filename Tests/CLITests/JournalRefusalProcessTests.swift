import Foundation
import Testing

/// Issue 39, items 6 and 9a: `recorder sync` and a journal it must not use as it is. A journal
/// a newer RecorderKit wrote is refused before anything is migrated or deleted; a journal
/// another process holds locked is named, once, in the error.
extension ProcessTests {
  @Test(
    "a journal a newer RecorderKit wrote (user_version, or an unknown migration) is refused: exit 74, nothing deleted"
  )
  func newerJournalIsRefused() throws {
    let directory = try TemporaryDirectory("journal-newer")
    let emulator = try EmulatorProcess(in: directory, token: Self.token, minutes: [0.25, 0.25])
    defer { emulator.stop() }
    let out = directory.file("out")
    let journal = out + "/journal.sqlite"
    let first = try RecorderProcess.run(
      ["sync", "--out", out, "--format", "wav", "--keep-on-device"] + emulator.device,
      in: directory, label: "sync-keep")
    #expect(first.status == 0, "\(first.stderr)")
    let migrations = try sqlite(journal, "SELECT name FROM migrations ORDER BY rowid")

    let signals = [
      ("user-version", "PRAGMA user_version = 1000;"),
      (
        "migration",
        "PRAGMA user_version = 0; INSERT INTO migrations (name, applied_at) "
          + "VALUES ('2999-01-01-from-a-newer-build', 0);"
      ),
    ]
    for (label, change) in signals {
      _ = try sqlite(journal, change)
      let result = try RecorderProcess.run(
        ["sync", "--out", out, "--format", "wav"] + emulator.device, in: directory,
        label: "sync-\(label)", timeout: .seconds(60))
      #expect(result.status == 74, "\(label): \(result.stderr)")
      #expect(
        result.stderr.contains("written by a newer RecorderKit"), "\(label): \(result.stderr)")
      #expect(result.stderr.contains(journal), "\(label): \(result.stderr)")
      #expect(try emulator.manifest().deletes.isEmpty, "\(label): nothing may be deleted")
    }
    // Never migrated down: the newer build's entry is still there, nothing else changed.
    #expect(
      try sqlite(journal, "SELECT name FROM migrations ORDER BY rowid")
        == migrations + "2999-01-01-from-a-newer-build\n")
    #expect(try sqlite(journal, "PRAGMA user_version") == "0\n")
  }

  @Test("a journal another process holds locked: exit 74, its path named once, no doubled prefix")
  func lockedJournalNamesItsFile() throws {
    let directory = try TemporaryDirectory("journal-locked")
    let emulator = try EmulatorProcess(in: directory, token: Self.token, minutes: [0.25])
    defer { emulator.stop() }
    let out = directory.file("out")
    let journal = out + "/journal.sqlite"
    let first = try RecorderProcess.run(
      ["sync", "--out", out, "--format", "wav", "--keep-on-device"] + emulator.device,
      in: directory, label: "sync-keep")
    #expect(first.status == 0, "\(first.stderr)")
    // Forget the first sync's rows so the next one has a recording to write.
    _ = try sqlite(journal, "DELETE FROM recordings; DELETE FROM exports;")

    let holder = try SQLiteWriteLock(journal, in: directory)
    defer { holder.release() }
    let result = try RecorderProcess.run(
      ["sync", "--out", out, "--format", "wav"] + emulator.device, in: directory,
      label: "sync-locked", timeout: .seconds(90))
    #expect(result.status == 74, "\(result.stderr)")
    let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("error: ") }
    #expect(errors.count == 1, "\(result.stderr)")
    let error = String(errors.first ?? "")
    #expect(error.contains("database is locked"), "\(error)")
    #expect(error.components(separatedBy: journal).count == 2, "the path once: \(error)")
    #expect(!error.contains("journal: journal"), "\(error)")
    #expect(try emulator.manifest().deletes.isEmpty)
  }
}

/// A `sqlite3` process holding the write lock of a database (`BEGIN IMMEDIATE`) until
/// ``release()``: another process that wants to write finds it locked.
///
/// `@unchecked Sendable`: only `let`s, set in `init`; `Process` is asked only for
/// `isRunning` and killed through its process id.
final class SQLiteWriteLock: @unchecked Sendable {
  private let process = Process()
  private let input = Pipe()

  init(_ path: String, in directory: TemporaryDirectory) throws {
    let output = directory.file("sqlite-lock.stdout")
    _ = FileManager.default.createFile(atPath: output, contents: nil)
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["sqlite3", path]
    process.standardInput = input
    process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
    process.standardError = FileHandle.nullDevice
    try process.run()
    input.fileHandleForWriting.write(Data("BEGIN IMMEDIATE;\nSELECT 'held';\n".utf8))
    let held = waitUntil(timeout: .seconds(30)) {
      ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").contains("held")
    }
    guard held else {
      release()
      throw HarnessError("sqlite3 did not take the write lock of \(path)")
    }
  }

  /// Ends the transaction and the process (its input closed; killed if it lingers).
  func release() {
    try? input.fileHandleForWriting.close()
    if !waitUntil(timeout: .seconds(10), { !process.isRunning }) {
      sendSignal(process.processIdentifier, SIGKILL)
      waitUntil(timeout: .seconds(10)) { !process.isRunning }
    }
  }
}
