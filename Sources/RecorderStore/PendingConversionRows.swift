/// A conversion the journal owes: a stored recording whose export in ``format`` into
/// ``directory`` was deferred. The row is written before the device copy may be deleted on
/// its word, and removed in the same transaction that records the export as made.
public struct PendingConversionRow: Sendable, Equatable {
  public var serial: String
  public var sessionId: UInt32
  /// The export format as RecorderKit spells it ("mp3", "wav", …).
  public var format: String
  /// Output channels; nil: as recorded.
  public var channels: Int?
  /// The export folder, as the engine records paths (relative to the sync root, absolute
  /// outside it).
  public var directory: String

  public init(serial: String, sessionId: UInt32, format: String, channels: Int?, directory: String)
  {
    self.serial = serial
    self.sessionId = sessionId
    self.format = format
    self.channels = channels
    self.directory = directory
  }
}

extension JournalTransaction {
  // MARK: Pending conversions

  /// Every conversion owed, oldest request first.
  public func pendingConversions() throws -> [PendingConversionRow] {
    try connection.query("SELECT * FROM pending_conversions ORDER BY requested_at, rowid").map(
      Self.pendingConversion)
  }

  /// The conversion owed for one recording in `format`, if any.
  public func pendingConversion(serial: String, sessionId: UInt32, format: String) throws
    -> PendingConversionRow?
  {
    try connection.query(
      "SELECT * FROM pending_conversions WHERE serial = ? AND session_id = ? AND format = ?",
      [.text(serial), .integer(Int64(sessionId)), .text(format)]
    ).first.map(Self.pendingConversion)
  }

  /// Records a conversion owed (replacing an earlier request for the same recording and
  /// format: the latest folder and channels win).
  public func savePendingConversion(_ row: PendingConversionRow) throws {
    try connection.query(
      """
      INSERT INTO pending_conversions (serial, session_id, format, channels, directory)
      VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (serial, session_id, format) DO UPDATE SET channels = excluded.channels,
        directory = excluded.directory
      """,
      [
        .text(row.serial), .integer(Int64(row.sessionId)), .text(row.format),
        row.channels.map { .integer(Int64($0)) } ?? .null, .text(row.directory),
      ])
  }

  /// Forgets the conversion owed for one recording in `format`; true when there was one.
  @discardableResult
  public func removePendingConversion(serial: String, sessionId: UInt32, format: String) throws
    -> Bool
  {
    try connection.query(
      "DELETE FROM pending_conversions WHERE serial = ? AND session_id = ? AND format = ?",
      [.text(serial), .integer(Int64(sessionId)), .text(format)])
    return connection.changes > 0
  }

  /// Forgets every conversion owed for one recording (its bytes changed: they are owed again
  /// once it is stored anew).
  public func removePendingConversions(serial: String, sessionId: UInt32) throws {
    try connection.query(
      "DELETE FROM pending_conversions WHERE serial = ? AND session_id = ?",
      [.text(serial), .integer(Int64(sessionId))])
  }

  private static func pendingConversion(_ row: SQLRow) -> PendingConversionRow {
    PendingConversionRow(
      serial: row["serial"].text ?? "", sessionId: UInt32(clamping: row["session_id"].integer ?? 0),
      format: row["format"].text ?? "", channels: row["channels"].integer.map { Int($0) },
      directory: row["directory"].text ?? "")
  }
}
