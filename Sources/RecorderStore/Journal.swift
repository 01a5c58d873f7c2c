import Foundation

/// The durable sync journal: SQLite in WAL mode with synchronous commits, named migrations,
/// and every write inside one closure-scoped transaction (`try journal.write { tx in … }`).
///
/// Thread-safe: calls from any task or thread are serialised on one lock. A transaction that
/// throws is rolled back whole.
///
/// `@unchecked Sendable` is sound: the only mutable state is the SQLite connection, which is
/// private and, after `init`, touched only inside `withConnection`, which holds `lock` for the
/// whole use; `path` is a constant.
public final class Journal: @unchecked Sendable {
  private let lock = NSLock()
  private let connection: SQLiteConnection
  /// Where the database lives.
  public let path: String

  /// One schema change: applied once, inside its own transaction, recorded by name in
  /// `migrations`. Never edit a shipped migration; append a new one.
  struct Migration: Sendable {
    var name: String
    var apply: @Sendable (SQLiteConnection) throws(JournalError) -> Void

    static func sql(_ name: String, _ sql: String) -> Migration {
      Migration(name: name) { connection throws(JournalError) in try connection.execute(sql) }
    }
  }

  /// Schema changes in order, by name.
  static let migrations: [Migration] = [
    .sql(
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
    Migration(name: "2026-12-01-paths-relative-to-root", apply: makePathsRelativeToRoot),
    .sql(
      "2026-12-01-exports-per-format",
      """
      CREATE TABLE exports (
        serial TEXT NOT NULL,
        session_id INTEGER NOT NULL,
        format TEXT NOT NULL,
        path TEXT NOT NULL,
        updated_at INTEGER NOT NULL DEFAULT (strftime('%s','now')),
        PRIMARY KEY (serial, session_id, format)
      );
      INSERT INTO exports (serial, session_id, format, path)
        SELECT serial, session_id, export_format, export_path FROM recordings
        WHERE export_path IS NOT NULL AND export_format IS NOT NULL;
      """
    ),
    .sql(
      "2026-12-01-checked-ranges",
      """
      ALTER TABLE recordings ADD COLUMN checked_ranges TEXT NOT NULL DEFAULT '';
      CREATE TABLE crc_coverage (
        firmware TEXT PRIMARY KEY,
        coverage TEXT NOT NULL,
        updated_at INTEGER NOT NULL DEFAULT (strftime('%s','now'))
      );
      """
    ),
    // Issue 17: the peripherals read passively (restored at launch) and the outbox of
    // records waiting for upload (each with the idempotency key it is sent under).
    .sql(
      "2026-12-02-passive-peripherals-and-outbox",
      """
      CREATE TABLE passive_peripherals (
        identifier TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        name TEXT,
        paired INTEGER NOT NULL DEFAULT 0,
        registered_at INTEGER NOT NULL DEFAULT (strftime('%s','now'))
      );
      CREATE TABLE outbox (
        idempotency_key TEXT PRIMARY KEY,
        body BLOB NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        delivered INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL DEFAULT (strftime('%s','now'))
      );
      """
    ),
    // A sync asks for the few recordings of a device at one stage (stored but not yet deleted
    // from the device); without this index that read visits every row the device ever had.
    .sql(
      "2026-12-01-recordings-by-stage",
      "CREATE INDEX recordings_by_stage ON recordings (serial, stage, session_id);"
    ),
    // Conversions a sync deferred (the export policy): the recording is stored and may be
    // deleted from the device; its export in this format, into this folder, is still owed.
    .sql(
      "2026-12-02-pending-conversions",
      """
      CREATE TABLE pending_conversions (
        serial TEXT NOT NULL,
        session_id INTEGER NOT NULL,
        format TEXT NOT NULL,
        channels INTEGER,
        directory TEXT NOT NULL,
        requested_at INTEGER NOT NULL DEFAULT (strftime('%s','now')),
        PRIMARY KEY (serial, session_id, format)
      );
      """
    ),
    // A recording the journal holds can be listed again with other bytes under the same id
    // (a device reset and re-recorded, two devices restored from one backup): the old one
    // becomes an earlier generation (kept, with its exports) and the listed one a new
    // generation, synced under its own names. A recording whose device bytes cannot be taken
    // is given up for a run: how often, and why, is kept.
    .sql(
      "2026-12-04-generations-and-give-ups",
      """
      ALTER TABLE recordings ADD COLUMN generation INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE recordings ADD COLUMN give_ups INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE recordings ADD COLUMN give_up_reason TEXT;
      CREATE TABLE earlier_generations (
        serial TEXT NOT NULL,
        session_id INTEGER NOT NULL,
        generation INTEGER NOT NULL,
        size INTEGER NOT NULL,
        channels INTEGER NOT NULL,
        stage TEXT NOT NULL,
        sha256 TEXT,
        raw_path TEXT,
        reason TEXT NOT NULL,
        retired_at INTEGER NOT NULL DEFAULT (strftime('%s','now')),
        PRIMARY KEY (serial, session_id, generation)
      );
      CREATE TABLE earlier_exports (
        serial TEXT NOT NULL,
        session_id INTEGER NOT NULL,
        generation INTEGER NOT NULL,
        format TEXT NOT NULL,
        path TEXT NOT NULL,
        PRIMARY KEY (serial, session_id, generation, format)
      );
      """
    ),
    // The finish steps a sync owes a stored recording beyond its export (a user's command,
    // a webhook, a sidecar file): each owed once per recording and generation, done once,
    // retried with backoff after a failure or a kill.
    .sql(
      "2026-12-05-finish-steps",
      """
      CREATE TABLE finish_steps (
        serial TEXT NOT NULL,
        session_id INTEGER NOT NULL,
        generation INTEGER NOT NULL,
        step TEXT NOT NULL,
        position INTEGER NOT NULL,
        done INTEGER NOT NULL DEFAULT 0,
        attempts INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        owed_at INTEGER NOT NULL DEFAULT (strftime('%s','now')),
        PRIMARY KEY (serial, session_id, generation, step)
      );
      CREATE INDEX finish_steps_owed ON finish_steps (done, serial, session_id);
      """
    ),
  ]

  /// Journals before this migration kept paths as the caller spelled them, relative to that
  /// process's working directory (`out/888/1.opus-raw`), so the same root from another
  /// directory found nothing. The raw path always was `<root>/<serial>/<id>.opus-raw`: its
  /// tail is the new relative path, and what precedes it is the root as it was spelled, which
  /// is then cut from the export path too. An export outside that root stays as it was.
  private static func makePathsRelativeToRoot(_ connection: SQLiteConnection)
    throws(JournalError)
  {
    let rows = try connection.query(
      "SELECT serial, session_id, raw_path, export_path FROM recordings WHERE raw_path IS NOT NULL")
    for row in rows {
      guard let serial = row["serial"].text, let sessionId = row["session_id"].integer,
        let raw = row["raw_path"].text
      else { continue }
      let relative = "\(serial)/\(sessionId).opus-raw"
      guard raw == relative || raw.hasSuffix("/" + relative) else { continue }
      let oldRoot = String(raw.dropLast(relative.count))  // "" or ends with "/"
      var export = row["export_path"].text
      if let path = export, !oldRoot.isEmpty, path.hasPrefix(oldRoot) {
        export = String(path.dropFirst(oldRoot.count))
      }
      try connection.query(
        "UPDATE recordings SET raw_path = ?, export_path = ? WHERE serial = ? AND session_id = ?",
        [.text(relative), export.map { .text($0) } ?? .null, .text(serial), .integer(sessionId)])
    }
  }

  /// Opens (creating if needed) the journal at `path` and brings its schema up to date.
  public init(path: String) throws(JournalError) {
    self.path = path
    let connection = try SQLiteConnection(path: path)
    try connection.useWriteAheadLog()
    try connection.execute("PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;")
    #if canImport(Darwin)
      // On Apple platforms fsync only reaches the drive's cache; F_FULLFSYNC flushes that
      // too. SQLite uses it for commits with `fullfsync` and for WAL checkpoints with
      // `checkpoint_fullfsync` (both off by default on Apple builds).
      try connection.execute("PRAGMA fullfsync=ON; PRAGMA checkpoint_fullfsync=ON;")
    #endif
    // A journal a newer build wrote is refused before anything is migrated or written.
    try Self.refuseNewerSchema(connection)
    try Self.migrate(connection)
    try Self.recordSchemaVersion(connection)
    self.connection = connection
  }

  private static func migrate(_ connection: SQLiteConnection) throws(JournalError) {
    try connection.execute(
      "CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)")
    let applied = Set(
      try connection.query("SELECT name FROM migrations").compactMap { $0["name"].text })
    for migration in migrations where !applied.contains(migration.name) {
      do {
        try connection.execute("BEGIN IMMEDIATE")
        // Another opener of the same journal (a second process, or another instance in this
        // one) may have applied it since the list above was read: under the write lock, look
        // again.
        let done = try connection.query(
          "SELECT 1 FROM migrations WHERE name = ?", [.text(migration.name)])
        if !done.isEmpty {
          try connection.execute("COMMIT")
          continue
        }
        try migration.apply(connection)
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
    try withConnection { connection in
      try connection.execute("BEGIN IMMEDIATE")
      do {
        let result = try body(JournalTransaction(connection: connection))
        try connection.execute("COMMIT")
        return result
      } catch {
        try? connection.execute("ROLLBACK")
        throw error
      }
    }
  }

  /// Runs `body` against a consistent snapshot.
  public func read<T>(_ body: (JournalTransaction) throws -> T) throws -> T {
    try withConnection { connection in
      try connection.execute("BEGIN DEFERRED")
      defer { try? connection.execute("COMMIT") }
      return try body(JournalTransaction(connection: connection))
    }
  }

  /// SQLite's plan for `statement` (EXPLAIN QUERY PLAN, its detail lines, outermost first):
  /// which table or index each step scans or searches. Values are left unbound.
  public func queryPlan(of statement: JournalStatement) throws(JournalError) -> [String] {
    let rows = withConnection { connection in
      Result { () throws(JournalError) in
        try connection.query("EXPLAIN QUERY PLAN " + statement.sql)
      }
    }
    return try rows.get().compactMap { $0["detail"].text }
  }

  /// Runs `body` with the connection, holding `lock` throughout.
  private func withConnection<Result>(_ body: (SQLiteConnection) throws -> Result) rethrows
    -> Result
  {
    lock.lock()
    defer { lock.unlock() }
    return try body(connection)
  }

  /// Names of the migrations applied, in order.
  public func appliedMigrations() throws -> [String] {
    try withConnection { connection in
      try connection.query("SELECT name FROM migrations ORDER BY rowid").compactMap {
        $0["name"].text
      }
    }
  }
}

/// The operations a transaction may perform; valid only inside the closure it was given to.
public struct JournalTransaction {
  let connection: SQLiteConnection

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
  public func recordings(serial: String, at stages: [RecordingStage]) throws
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
        record.transport.map { .text($0) } ?? .null, .text(record.checked.description),
        .integer(Int64(record.generation)), .integer(Int64(record.giveUps)),
        record.giveUpReason.map { .text($0) } ?? .null,
      ])
  }

  /// Where the export of one recording in `format` ("mp3", "wav", …) is, if it was made.
  /// Paths are as the engine recorded them (relative to the sync root, absolute outside it).
  public func exportPath(serial: String, sessionId: UInt32, format: String) throws -> String? {
    try connection.query(
      "SELECT path FROM exports WHERE serial = ? AND session_id = ? AND format = ?",
      [.text(serial), .integer(Int64(sessionId)), .text(format)]
    ).first?["path"].text
  }

  /// Every export of one recording: format → path.
  public func exports(serial: String, sessionId: UInt32) throws -> [String: String] {
    var exports: [String: String] = [:]
    for row in try connection.query(
      "SELECT format, path FROM exports WHERE serial = ? AND session_id = ?",
      [.text(serial), .integer(Int64(sessionId))])
    {
      if let format = row["format"].text, let path = row["path"].text { exports[format] = path }
    }
    return exports
  }

  /// Forgets every export of one recording (its bytes changed: each format is made again).
  public func deleteExports(serial: String, sessionId: UInt32) throws {
    try connection.query(
      "DELETE FROM exports WHERE serial = ? AND session_id = ?",
      [.text(serial), .integer(Int64(sessionId))])
  }

  /// Keeps `record` as an earlier generation of its session id (with every export it had,
  /// which stay where they are), and leaves the key free for the recording the device lists
  /// now under the same id: the caller saves that one, with a higher ``RecordingRecord/generation``.
  /// - Parameter reason: why the device's copy is another recording ("listed again after its
  ///   delete", "other bytes under the same id and size").
  public func retire(_ record: RecordingRecord, reason: String) throws {
    let key: [SQLValue] = [.text(record.serial), .integer(Int64(record.sessionId))]
    try connection.query(
      """
      INSERT OR REPLACE INTO earlier_generations
        (serial, session_id, generation, size, channels, stage, sha256, raw_path, reason)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
      """,
      key + [
        .integer(Int64(record.generation)), .integer(record.size),
        .integer(Int64(record.channels)), .text(record.stage.rawValue),
        record.sha256.map { .text($0) } ?? .null, record.rawPath.map { .text($0) } ?? .null,
        .text(reason),
      ])
    try connection.query(
      """
      INSERT OR REPLACE INTO earlier_exports (serial, session_id, generation, format, path)
      SELECT serial, session_id, ?, format, path FROM exports WHERE serial = ? AND session_id = ?
      """,
      [.integer(Int64(record.generation))] + key)
    try deleteExports(serial: record.serial, sessionId: record.sessionId)
  }

  /// The earlier generations of `serial`'s recordings (``retire(_:reason:)``), oldest first.
  public func earlierGenerations(serial: String) throws -> [EarlierGeneration] {
    let rows = try connection.query(
      """
      SELECT session_id, generation, size, channels, stage, sha256, raw_path, reason
      FROM earlier_generations WHERE serial = ? ORDER BY session_id, generation
      """,
      [.text(serial)])
    return try rows.map { row in
      let sessionId = UInt32(clamping: row["session_id"].integer ?? 0)
      let generation = Int(row["generation"].integer ?? 0)
      var exports: [String: String] = [:]
      for export in try connection.query(
        """
        SELECT format, path FROM earlier_exports
        WHERE serial = ? AND session_id = ? AND generation = ?
        """,
        [.text(serial), .integer(Int64(sessionId)), .integer(Int64(generation))])
      {
        if let format = export["format"].text, let path = export["path"].text {
          exports[format] = path
        }
      }
      return EarlierGeneration(
        serial: serial, sessionId: sessionId, generation: generation,
        size: row["size"].integer ?? 0, channels: Int(row["channels"].integer ?? 1),
        stage: row["stage"].text.flatMap(RecordingStage.init(rawValue:)) ?? .stored,
        sha256: row["sha256"].text, rawPath: row["raw_path"].text,
        reason: row["reason"].text ?? "", exports: exports)
    }
  }

  /// Records the export of one recording in `format` (replacing an earlier one).
  public func saveExport(serial: String, sessionId: UInt32, format: String, path: String) throws {
    try connection.query(
      """
      INSERT INTO exports (serial, session_id, format, path, updated_at)
      VALUES (?, ?, ?, ?, strftime('%s','now'))
      ON CONFLICT (serial, session_id, format) DO UPDATE SET path = excluded.path,
        updated_at = excluded.updated_at
      """,
      [.text(serial), .integer(Int64(sessionId)), .text(format), .text(path)])
  }

  /// The tail-CRC coverage that matched on devices with `firmware` (PROTOCOL.md §10 leaves it
  /// unknown; the sync learns it), if one did.
  public func crcCoverage(firmware: String) throws -> String? {
    try connection.query(
      "SELECT coverage FROM crc_coverage WHERE firmware = ?", [.text(firmware)]
    ).first?["coverage"].text
  }

  /// Remembers the tail-CRC coverage that matched for `firmware`.
  public func saveCRCCoverage(firmware: String, coverage: String) throws {
    try connection.query(
      """
      INSERT INTO crc_coverage (firmware, coverage, updated_at)
      VALUES (?, ?, strftime('%s','now'))
      ON CONFLICT (firmware) DO UPDATE SET coverage = excluded.coverage,
        updated_at = excluded.updated_at
      """,
      [.text(firmware), .text(coverage)])
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
    record.stage = row["stage"].text.flatMap(RecordingStage.init(rawValue:)) ?? .seen
    record.durableBytes = row["durable_bytes"].integer ?? 0
    record.verification =
      row["verification"].text.flatMap(RecordingRecord.Verification.init(rawValue:)) ?? .pending
    record.deviceCRC = row["device_crc"].integer.map { UInt16(clamping: $0) }
    record.sha256 = row["sha256"].text
    record.rawPath = row["raw_path"].text
    record.exportPath = row["export_path"].text
    record.exportFormat = row["export_format"].text
    record.transport = row["transport"].text
    record.checked = row["checked_ranges"].text.flatMap(CheckedRanges.init) ?? CheckedRanges()
    record.generation = Int(row["generation"].integer ?? 0)
    record.giveUps = Int(row["give_ups"].integer ?? 0)
    record.giveUpReason = row["give_up_reason"].text
    return record
  }
}
