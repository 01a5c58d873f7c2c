import CSQLite

/// The durable sync journal (SQLite, WAL mode). Arrives with the sync-engine issue; this
/// namespace exists so the package layout of shared/DESIGN.md builds from the start.
public enum RecorderStore {
  /// The SQLite library version the journal is linked against.
  public static var sqliteVersion: String { String(cString: sqlite3_libversion()) }
}
