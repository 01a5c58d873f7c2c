import CSQLite
import Foundation

/// Why the journal could not do what was asked. Carries SQLite's words and the journal's
/// path, never values.
///
/// Descriptions name the journal by its path and never start with "journal:": the errors
/// that wrap one (`SyncError.journal`, …) say that once.
public enum JournalError: Error, Sendable, Equatable, CustomStringConvertible {
  case open(path: String, message: String)
  /// SQLite refused a statement on the journal at `path` (`code` 5: another process holds
  /// it locked for longer than the busy timeout).
  case sqlite(path: String, code: Int32, message: String)
  case migration(name: String, message: String)
  /// A transaction body asked for something inconsistent (programmer-visible, testable).
  case invalidState(String)
  /// The journal at `path` was written by a newer RecorderKit: its `PRAGMA user_version`
  /// (`schemaVersion`) is above the number of migrations this build knows, or it records
  /// `unknownMigrations` migrations this build does not know. Nothing was read or changed:
  /// its rows may mean what this build cannot tell, so it is neither migrated nor used.
  case newerSchema(path: String, schemaVersion: Int64, unknownMigrations: Int)

  public var description: String {
    switch self {
    case .open(let path, let message): "cannot open journal at \(path): \(message)"
    case .sqlite(let path, let code, let message): "\(path): SQLite error \(code): \(message)"
    case .migration(let name, let message): "journal migration \(name) failed: \(message)"
    case .invalidState(let message): message
    case .newerSchema(let path, let version, let unknown):
      "the journal at \(path) was written by a newer RecorderKit ("
        + (unknown > 0
          ? "\(unknown) migration\(unknown == 1 ? "" : "s") this build does not know"
          : "schema version \(version), this build knows up to \(Journal.schemaVersion)")
        + "): refusing to use it, nothing was changed; use that RecorderKit or a newer one"
    }
  }
}

/// A value bound to or read from a statement.
public enum SQLValue: Sendable, Equatable {
  case null
  case integer(Int64)
  case text(String)
  case blob([UInt8])

  var integer: Int64? {
    if case .integer(let value) = self { return value }
    return nil
  }
  var text: String? {
    if case .text(let value) = self { return value }
    return nil
  }
}

/// One row: column name → value.
public struct SQLRow: Sendable {
  var values: [String: SQLValue]
  public subscript(_ column: String) -> SQLValue { values[column] ?? .null }
}

/// One SQLite connection, used only under the ``Journal``'s lock. Not Sendable on its own.
///
/// Statements are prepared once per SQL text and kept (the journal's SQL is a fixed set,
/// ``JournalStatement`` and a few of its own): a sync runs the same handful thousands of
/// times, and preparing each anew cost more than running it.
final class SQLiteConnection {
  private let handle: OpaquePointer
  /// Prepared statements by SQL text, each reset after use.
  private var prepared: [String: OpaquePointer] = [:]
  /// More distinct texts than this means SQL is being built at run time: stop keeping them.
  private static let preparedLimit = 64

  /// The database file, named in errors.
  let path: String

  init(path: String) throws(JournalError) {
    self.path = path
    var db: OpaquePointer?
    let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX
    let status = sqlite3_open_v2(path, &db, flags, nil)
    guard status == SQLITE_OK, let db else {
      let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
      sqlite3_close(db)
      throw .open(path: path, message: message)
    }
    handle = db
    sqlite3_busy_timeout(db, 5_000)
  }

  deinit {
    for statement in prepared.values { sqlite3_finalize(statement) }
    sqlite3_close_v2(handle)
  }

  private func statement(for sql: String) throws(JournalError) -> OpaquePointer {
    if let statement = prepared[sql] { return statement }
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
      sqlite3_finalize(statement)
      throw lastError()
    }
    if prepared.count >= Self.preparedLimit {
      for old in prepared.values { sqlite3_finalize(old) }
      prepared.removeAll()
    }
    prepared[sql] = statement
    return statement
  }

  /// Switches the file to write-ahead logging. While another connection switches the same
  /// new file, SQLite answers busy at once, without the busy handler; this waits for that as
  /// the busy timeout would (5 ms at a time, 5 s at most). A file already in WAL mode is
  /// left as it is.
  func useWriteAheadLog() throws(JournalError) {
    var waited: Int32 = 0
    while true {
      do {
        try execute("PRAGMA journal_mode=WAL")
        return
      } catch .sqlite(_, let code, _) where code == SQLITE_BUSY && waited < 5_000 {
        sqlite3_sleep(5)
        waited += 5
      }
    }
  }

  /// Runs statements with no results (schema, pragmas).
  func execute(_ sql: String) throws(JournalError) {
    var error: UnsafeMutablePointer<CChar>?
    let status = sqlite3_exec(handle, sql, nil, nil, &error)
    guard status == SQLITE_OK else {
      let message = error.map { String(cString: $0) } ?? "unknown"
      sqlite3_free(error)
      throw .sqlite(path: path, code: status, message: message)
    }
  }

  /// Runs one statement with bound values and returns its rows.
  @discardableResult
  func query(_ sql: String, _ arguments: [SQLValue] = []) throws(JournalError) -> [SQLRow] {
    let statement = try statement(for: sql)
    defer {
      sqlite3_reset(statement)
      sqlite3_clear_bindings(statement)
    }
    for (index, value) in arguments.enumerated() {
      let position = Int32(index + 1)
      let status: Int32
      switch value {
      case .null: status = sqlite3_bind_null(statement, position)
      case .integer(let number): status = sqlite3_bind_int64(statement, position, number)
      case .text(let text):
        status = sqlite3_bind_text(statement, position, text, -1, Self.transient)
      case .blob(let bytes):
        status = bytes.withUnsafeBytes {
          sqlite3_bind_blob(statement, position, $0.baseAddress, Int32($0.count), Self.transient)
        }
      }
      guard status == SQLITE_OK else { throw lastError() }
    }
    var rows: [SQLRow] = []
    var names: [String] = []
    while true {
      let step = sqlite3_step(statement)
      if step == SQLITE_DONE { break }
      guard step == SQLITE_ROW else { throw lastError() }
      if names.isEmpty {
        names = (0..<sqlite3_column_count(statement)).map {
          String(cString: sqlite3_column_name(statement, $0))
        }
      }
      var values: [String: SQLValue] = [:]
      values.reserveCapacity(names.count)
      for (column, name) in zip(Int32(0)..., names) {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: values[name] = .integer(sqlite3_column_int64(statement, column))
        case SQLITE_TEXT:
          values[name] = .text(String(cString: sqlite3_column_text(statement, column)))
        case SQLITE_BLOB:
          let count = Int(sqlite3_column_bytes(statement, column))
          let pointer = sqlite3_column_blob(statement, column)
          values[name] = .blob(
            pointer.map { Array(UnsafeRawBufferPointer(start: $0, count: count)) } ?? [])
        default: values[name] = .null
        }
      }
      rows.append(SQLRow(values: values))
    }
    return rows
  }

  var changes: Int { Int(sqlite3_changes(handle)) }

  private func lastError() -> JournalError {
    .sqlite(
      path: path, code: sqlite3_errcode(handle), message: String(cString: sqlite3_errmsg(handle)))
  }

  /// SQLITE_TRANSIENT: SQLite copies bound text and blobs before the call returns.
  private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
