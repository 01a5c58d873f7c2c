/// The journal's schema version: how a build tells a journal a newer build wrote (issue 39).
///
/// A journal is stamped with `PRAGMA user_version` = the number of migrations the build that
/// last opened it knows (`Journal.schemaVersion`, derived from the migration list, so a
/// migration appended later moves it with no other edit). Before any migration runs, a
/// journal is refused (`JournalError.newerSchema`) when either signal says a newer build
/// wrote it: a `user_version` above this build's, or a migration name this build does not
/// know (journals stamped before `user_version` was). A refused journal is neither migrated,
/// up or down, nor written.
extension Journal {
  /// The schema version this build writes: how many migrations it knows.
  static var schemaVersion: Int64 { Int64(migrations.count) }

  /// Throws `JournalError.newerSchema` when a newer
  /// build wrote the journal on `connection`. Reads only.
  static func refuseNewerSchema(_ connection: SQLiteConnection) throws(JournalError) {
    let version = try userVersion(connection)
    var unknown = 0
    let tables = try connection.query(
      "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'migrations'")
    if !tables.isEmpty {
      let known = Set(migrations.map(\.name))
      unknown = try connection.query("SELECT name FROM migrations")
        .filter { row in row["name"].text.map { !known.contains($0) } ?? true }.count
    }
    guard version > schemaVersion || unknown > 0 else { return }
    throw .newerSchema(path: connection.path, schemaVersion: version, unknownMigrations: unknown)
  }

  /// Stamps the journal with this build's schema version, after its migrations ran (a write
  /// only when the stamp is older).
  static func recordSchemaVersion(_ connection: SQLiteConnection) throws(JournalError) {
    guard try userVersion(connection) < schemaVersion else { return }
    try connection.execute("PRAGMA user_version = \(schemaVersion)")
  }

  private static func userVersion(_ connection: SQLiteConnection) throws(JournalError) -> Int64 {
    try connection.query("PRAGMA user_version").first?["user_version"].integer ?? 0
  }
}
