import Foundation
import RecorderConcurrency
import Testing

@testable import RecorderStore

/// Journals written before paths were relative to the root: their paths are as the caller
/// gave them (absolute, or relative to whatever directory that process ran in), and their one
/// export per recording lives in the `recordings` row.
@Suite("Journal migrations")
struct JournalMigrationTests {
  /// The schema of the first migration, as it shipped.
  static let firstSchema = """
    CREATE TABLE migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL);
    CREATE TABLE recordings (
      serial TEXT NOT NULL, session_id INTEGER NOT NULL, size INTEGER NOT NULL,
      channels INTEGER NOT NULL, scene INTEGER, stage TEXT NOT NULL,
      durable_bytes INTEGER NOT NULL, verification TEXT NOT NULL, device_crc INTEGER,
      sha256 TEXT, raw_path TEXT, export_path TEXT, export_format TEXT, transport TEXT,
      updated_at INTEGER NOT NULL DEFAULT (strftime('%s','now')),
      PRIMARY KEY (serial, session_id));
    INSERT INTO migrations (name, applied_at) VALUES ('2026-11-30-recordings', 0);
    """

  static func oldJournal(rows: [(UInt32, String?, String?, String?)]) throws -> String {
    let path = JournalTests.temporaryPath()
    let connection = try SQLiteConnection(path: path)
    try connection.execute(firstSchema)
    for (id, raw, export, format) in rows {
      try connection.query(
        """
        INSERT INTO recordings (serial, session_id, size, channels, stage, durable_bytes,
          verification, raw_path, export_path, export_format)
        VALUES ('888', ?, 80, 1, 'exported', 80, 'verified', ?, ?, ?)
        """,
        [
          .integer(Int64(id)), raw.map { .text($0) } ?? .null, export.map { .text($0) } ?? .null,
          format.map { .text($0) } ?? .null,
        ])
    }
    return path
  }

  @Test("old paths become relative to the root; exports outside the root stay absolute")
  func pathsBecomeRelativeToTheRoot() throws {
    let path = try Self.oldJournal(rows: [
      (1, "some/where/out/888/1.opus-raw", "some/where/out/exports/888-1.mp3", "mp3"),
      (2, "/abs/out/888/2.opus-raw", "/elsewhere/music/888-2.wav", "wav"),
      (3, nil, nil, nil),
    ])
    let journal = try Journal(path: path)
    let records = try journal.read { try $0.recordings(serial: "888") }
    #expect(records.map(\.rawPath) == ["888/1.opus-raw", "888/2.opus-raw", nil])
    #expect(records.map(\.exportPath) == ["exports/888-1.mp3", "/elsewhere/music/888-2.wav", nil])
    // Applied once: reopening changes nothing.
    let again = try Journal(path: path)
    #expect(try again.read { try $0.recordings(serial: "888") } == records)
    #expect(try again.appliedMigrations() == journal.appliedMigrations())
  }

  @Test("an old journal's one export per recording is carried into the per-format exports")
  func exportsCarriedOver() throws {
    let path = try Self.oldJournal(rows: [
      (1, "/r/888/1.opus-raw", "/r/exports/888-1.mp3", "mp3"), (2, nil, nil, nil),
    ])
    _ = try Journal(path: path)
    let rows = try SQLiteConnection(path: path).query(
      "SELECT session_id, format, path FROM exports ORDER BY session_id")
    #expect(rows.count == 1)
    #expect(rows.first?["session_id"].integer == 1)
    #expect(rows.first?["format"].text == "mp3")
    #expect(rows.first?["path"].text == "exports/888-1.mp3")
  }
}

@Suite("Journal migrations: two openers at once")
struct JournalConcurrentOpenTests {
  /// Two openers of one new journal (two processes, or two instances in one app) each read
  /// the list of applied migrations before either takes the write lock: the second must not
  /// apply a migration the first already did ("duplicate column name").
  @Test("two journals opened at once on a new file both open, each migration applied once")
  func twoOpenersAtOnce() throws {
    for round in 0..<20 {
      let path = JournalTests.temporaryPath()
      let failures = Locked<[String]>([])
      DispatchQueue.concurrentPerform(iterations: 2) { _ in
        do { _ = try Journal(path: path) } catch {
          failures.withLock { $0.append("\(error)") }
        }
      }
      #expect(failures.withLock { $0 } == [], "round \(round)")
      let applied = try Journal(path: path).appliedMigrations()
      #expect(applied == Journal.migrations.map(\.name), "round \(round)")
      try? FileManager.default.removeItem(atPath: path)
    }
  }
}
