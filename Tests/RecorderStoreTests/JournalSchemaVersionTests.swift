import Foundation
import Testing

@testable import RecorderStore

/// Issue 39, item 6: a journal a newer RecorderKit wrote is refused, not used (its rows may
/// mean what this build cannot tell, and a sync deletes device copies on their word). Two
/// signals, both checked before any migration runs: `PRAGMA user_version` above the number
/// of migrations this build knows, and a migration name it does not know.
@Suite("Journal schema version")
struct JournalSchemaVersionTests {
  static func userVersion(_ path: String) throws -> Int64? {
    try SQLiteConnection(path: path).query("PRAGMA user_version").first?["user_version"].integer
  }

  static func migrationNames(_ path: String) throws -> [String] {
    try SQLiteConnection(path: path).query("SELECT name FROM migrations ORDER BY rowid")
      .compactMap { $0["name"].text }
  }

  @Test("an opened journal records its schema version: the number of migrations this build knows")
  func recordsItsVersion() throws {
    let path = JournalTests.temporaryPath()
    _ = try Journal(path: path)
    #expect(try Self.userVersion(path) == Int64(Journal.migrations.count))
    // An older journal (its first migration only) is brought up to this build's version.
    let old = try JournalMigrationTests.oldJournal(rows: [])
    #expect(try Self.userVersion(old) == 0)
    _ = try Journal(path: old)
    #expect(try Self.userVersion(old) == Int64(Journal.migrations.count))
  }

  @Test("user_version above this build's is refused before any migration runs; nothing changes")
  func newerVersionRefused() throws {
    // A journal that lacks this build's later migrations but says a newer build wrote it.
    let path = try JournalMigrationTests.oldJournal(rows: [(1, "888/1.opus-raw", nil, nil)])
    let newer = Int64(Journal.migrations.count + 1)
    try SQLiteConnection(path: path).execute("PRAGMA user_version = \(newer)")
    let before = try Self.migrationNames(path)
    #expect(
      throws: JournalError.newerSchema(path: path, schemaVersion: newer, unknownMigrations: 0)
    ) {
      try Journal(path: path)
    }
    #expect(try Self.migrationNames(path) == before, "never migrated, up or down")
    #expect(try Self.userVersion(path) == newer)
  }

  @Test("a migration name this build does not know is refused; the row stays")
  func unknownMigrationRefused() throws {
    let path = JournalTests.temporaryPath()
    _ = try Journal(path: path)
    // A hostile or future name: never echoed in the error.
    let name = "2999-01-01-future\u{1b}[2J"
    try SQLiteConnection(path: path).query(
      "INSERT INTO migrations (name, applied_at) VALUES (?, 0)", [.text(name)])
    try SQLiteConnection(path: path).execute("PRAGMA user_version = 0")
    let before = try Self.migrationNames(path)
    do {
      _ = try Journal(path: path)
      Issue.record("a journal with an unknown migration was opened")
    } catch {
      #expect(error == .newerSchema(path: path, schemaVersion: 0, unknownMigrations: 1))
      #expect(error.description.contains("written by a newer RecorderKit"), "\(error)")
      #expect(error.description.contains(path), "\(error)")
      #expect(!error.description.contains("future"), "\(error)")
    }
    #expect(try Self.migrationNames(path) == before)
    #expect(try Self.userVersion(path) == 0)
  }
}
