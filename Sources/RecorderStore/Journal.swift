import Foundation

/// The durable sync journal: SQLite in WAL mode with synchronous commits, named migrations,
/// and every write inside one closure-scoped transaction (`try journal.write { tx in … }`).
///
/// Thread-safe: the connection is used only while `lock` is held, so calls from any task or
/// thread are serialised. A transaction that throws is rolled back whole.
public final class Journal: Sendable {
  private let connection: Locked<SQLiteConnection>
  /// Where the database lives.
  public let path: String

  /// Schema changes in order, by name; applied once each, recorded in `migrations`.
  static let migrations: [(name: String, sql: String)] = [
    (
      "2026-11-30-recordings",
      """
      CREATE TABLE recordings (
        serial TEXT NOT NULL,
        session_id INTEGER NOT NULL,
        size INTEGER NOT NULL,
        channels INTEGER NOT NULL,
        scene INTEGER,
        stage TEXT NOT NULL,
        durable_bytes INTEGER NOT NULL,
        verification TEXT NOT NULL,
        device_crc INTEGER,
        sha256 TEXT,
        raw_path TEXT,
        export_path TEXT,
        export_format TEXT,
        transport TEXT,
        updated_at INTEGER NOT NULL DEFAULT (strftime('%s','now')),
        PRIMARY KEY (serial, session_id)
      );
      """
    ),
    // A sync asks for the few recordings of a device at one stage (stored but not yet deleted
    // from the device); without this index that read visits every row the device ever had.
    (
      "2026-12-01-recordings-by-stage",
      "CREATE INDEX recordings_by_stage ON recordings (serial, stage, session_id);"
    ),
  ]

  /// Opens (creating if needed) the journal at `path` and brings its schema up to date.
  public init(path: String) throws(JournalError) {
    self.path = path
    let connection = try SQLiteConnection(path: path)
    try connection.execute(
      "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;")
    try Self.migrate(connection)
    self.connection = Locked(connection)
  }

  private static func migrate(_ connection: SQLiteConnection) throws(JournalError) {
    try connection.execute(
      "CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)")
    let applied = Set(
      try connection.query("SELECT name FROM migrations").compactMap { $0["name"].text })
    for migration in migrations where !applied.contains(migration.name) {
      do {
        try connection.execute("BEGIN IMMEDIATE")
        try connection.execute(migration.sql)
        try connection.query(
          "INSERT INTO migrations (name, applied_at) VALUES (?, strftime('%s','now'))",
          [.text(migration.name)])
        try connection.execute("COMMIT")
      } catch {
        try? connection.execute("ROLLBACK")
        throw .migration(name: migration.name, message: error.description)
      }
    }
  }

  /// Runs `body` in one write transaction, committed (and fsync'd, `synchronous=FULL`)
  /// when it returns, rolled back if it throws.
  public func write<T>(_ body: (JournalTransaction) throws -> T) throws -> T {
    try connection.withLock { connection in
      try connection.query("BEGIN IMMEDIATE")
      do {
        let result = try body(JournalTransaction(connection: connection))
        try connection.query("COMMIT")
        return result
      } catch {
        _ = try? connection.query("ROLLBACK")
        throw error
      }
    }
  }

  /// Runs `body` against a consistent snapshot.
  public func read<T>(_ body: (JournalTransaction) throws -> T) throws -> T {
    try connection.withLock { connection in
      try connection.query("BEGIN DEFERRED")
      defer { _ = try? connection.query("COMMIT") }
      return try body(JournalTransaction(connection: connection))
    }
  }

  /// SQLite's plan for `statement` (EXPLAIN QUERY PLAN, its detail lines, outermost first):
  /// which table or index each step scans or searches. Values are left unbound.
  public func queryPlan(of statement: JournalStatement) throws(JournalError) -> [String] {
    let rows = connection.withLock { connection in
      Result { () throws(JournalError) in
        try connection.query("EXPLAIN QUERY PLAN " + statement.sql)
      }
    }
    return try rows.get().compactMap { $0["detail"].text }
  }

  /// Names of the migrations applied, in order.
  public func appliedMigrations() throws -> [String] {
    try connection.withLock { connection in
      try connection.query("SELECT name FROM migrations ORDER BY rowid").compactMap {
        $0["name"].text
      }
    }
  }
}

/// The operations a transaction may perform; valid only inside the closure it was given to.
public struct JournalTransaction {
  fileprivate let connection: SQLiteConnection

  /// The record of one recording, if the journal has seen it.
  public func recording(serial: String, sessionId: UInt32) throws -> RecordingRecord? {
    try run(.recordingByKey, [.text(serial), .integer(Int64(sessionId))]).first.map(Self.record)
  }

  /// Every recording of `serial`, oldest first.
  public func recordings(serial: String) throws -> [RecordingRecord] {
    try run(.recordingsOfDevice, [.text(serial)]).map(Self.record)
  }

  /// The recordings of `serial` at any of `stages`, oldest first. Costs what it returns, not
  /// what the device ever had (an index on serial and stage).
  public func recordings(serial: String, at stages: [RecordingRecord.Stage]) throws
    -> [RecordingRecord]
  {
    var records: [RecordingRecord] = []
    for stage in Set(stages) {
      records += try run(.recordingsOfDeviceAtStage, [.text(serial), .text(stage.rawValue)])
        .map(Self.record)
    }
    return records.sorted { $0.sessionId < $1.sessionId }
  }

  /// Every recording of every device.
  public func allRecordings() throws -> [RecordingRecord] {
    try run(.allRecordings).map(Self.record)
  }

  /// Inserts or replaces `record`.
  public func save(_ record: RecordingRecord) throws {
    try run(
      .saveRecording,
      [
        .text(record.serial), .integer(Int64(record.sessionId)), .integer(record.size),
        .integer(Int64(record.channels)), record.scene.map { .integer(Int64($0)) } ?? .null,
        .text(record.stage.rawValue), .integer(record.durableBytes),
        .text(record.verification.rawValue),
        record.deviceCRC.map { .integer(Int64($0)) } ?? .null,
        record.sha256.map { .text($0) } ?? .null, record.rawPath.map { .text($0) } ?? .null,
        record.exportPath.map { .text($0) } ?? .null,
        record.exportFormat.map { .text($0) } ?? .null,
        record.transport.map { .text($0) } ?? .null,
      ])
  }

  /// The only way a transaction touches the recordings table: one of the listed statements.
  @discardableResult
  private func run(_ statement: JournalStatement, _ arguments: [SQLValue] = [])
    throws(JournalError) -> [SQLRow]
  {
    try connection.query(statement.sql, arguments)
  }

  /// Reads, changes and saves one record; creates nothing.
  @discardableResult
  public func update(
    serial: String, sessionId: UInt32, _ change: (inout RecordingRecord) throws -> Void
  ) throws -> RecordingRecord {
    guard var record = try recording(serial: serial, sessionId: sessionId) else {
      throw JournalError.invalidState("no recording \(sessionId) for this device")
    }
    try change(&record)
    try save(record)
    return record
  }

  private static func record(_ row: SQLRow) -> RecordingRecord {
    var record = RecordingRecord(
      serial: row["serial"].text ?? "", sessionId: UInt32(clamping: row["session_id"].integer ?? 0),
      size: row["size"].integer ?? 0, channels: Int(row["channels"].integer ?? 1),
      scene: row["scene"].integer.map { Int($0) })
    record.stage = row["stage"].text.flatMap(RecordingRecord.Stage.init(rawValue:)) ?? .seen
    record.durableBytes = row["durable_bytes"].integer ?? 0
    record.verification =
      row["verification"].text.flatMap(RecordingRecord.Verification.init(rawValue:)) ?? .pending
    record.deviceCRC = row["device_crc"].integer.map { UInt16(clamping: $0) }
    record.sha256 = row["sha256"].text
    record.rawPath = row["raw_path"].text
    record.exportPath = row["export_path"].text
    record.exportFormat = row["export_format"].text
    record.transport = row["transport"].text
    return record
  }
}
