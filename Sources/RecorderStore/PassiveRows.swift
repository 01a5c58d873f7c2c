/// A peripheral registered for passive reading, as the journal keeps it. RecorderKit maps it
/// to its typed `PassivePeripheral`; the store only keeps text.
public struct PassivePeripheralRow: Sendable, Equatable {
  /// The peripheral's key: its address for a health peripheral, its serial for a recorder.
  public var identifier: String
  /// The kind as RecorderKit spells it ("thermometer", "recorder", …).
  public var kind: String
  public var name: String?
  /// True once pairing (bonding) with it succeeded.
  public var paired: Bool

  public init(identifier: String, kind: String, name: String? = nil, paired: Bool = false) {
    self.identifier = identifier
    self.kind = kind
    self.name = name
    self.paired = paired
  }
}

/// One record waiting in the outbox (or delivered): the bytes to send and the key every
/// attempt carries, so the receiver can keep it exactly once.
public struct OutboxEntry: Sendable, Equatable {
  /// Sent as the `Idempotency-Key` header on every attempt; chosen when the record was made.
  public var idempotencyKey: String
  /// The request body (JSON), exactly as first enqueued.
  public var body: [UInt8]
  /// Attempts made so far (failed or unanswered).
  public var attempts: Int
  /// Why the last attempt failed, for display.
  public var lastError: String?
  /// True once an attempt was acknowledged (2xx) and that was committed.
  public var delivered: Bool

  public init(
    idempotencyKey: String, body: [UInt8], attempts: Int = 0, lastError: String? = nil,
    delivered: Bool = false
  ) {
    self.idempotencyKey = idempotencyKey
    self.body = body
    self.attempts = attempts
    self.lastError = lastError
    self.delivered = delivered
  }
}

extension JournalTransaction {
  // MARK: Passive peripherals

  /// Every registered peripheral, oldest registration first.
  public func passivePeripherals() throws -> [PassivePeripheralRow] {
    try connection.query("SELECT * FROM passive_peripherals ORDER BY rowid").map { row in
      PassivePeripheralRow(
        identifier: row["identifier"].text ?? "", kind: row["kind"].text ?? "",
        name: row["name"].text, paired: (row["paired"].integer ?? 0) != 0)
    }
  }

  /// Registers `row`, replacing an earlier registration of the same identifier.
  public func savePassivePeripheral(_ row: PassivePeripheralRow) throws {
    try connection.query(
      """
      INSERT INTO passive_peripherals (identifier, kind, name, paired) VALUES (?, ?, ?, ?)
      ON CONFLICT (identifier) DO UPDATE SET kind = excluded.kind, name = excluded.name,
        paired = excluded.paired
      """,
      [
        .text(row.identifier), .text(row.kind), row.name.map { .text($0) } ?? .null,
        .integer(row.paired ? 1 : 0),
      ])
  }

  /// Forgets a registration; true when there was one.
  @discardableResult
  public func removePassivePeripheral(identifier: String) throws -> Bool {
    try connection.query(
      "DELETE FROM passive_peripherals WHERE identifier = ?", [.text(identifier)])
    return connection.changes > 0
  }

  // MARK: Outbox

  /// Adds a record to send. A key already in the outbox is left as it is (false), so
  /// enqueueing the same record twice never sends it twice.
  @discardableResult
  public func enqueueOutbox(idempotencyKey: String, body: [UInt8]) throws -> Bool {
    try connection.query(
      "INSERT OR IGNORE INTO outbox (idempotency_key, body) VALUES (?, ?)",
      [.text(idempotencyKey), .blob(body)])
    return connection.changes > 0
  }

  /// Records not yet delivered, oldest first.
  public func pendingOutbox() throws -> [OutboxEntry] {
    try connection.query("SELECT * FROM outbox WHERE delivered = 0 ORDER BY rowid").map(
      Self.outboxEntry)
  }

  /// Every outbox entry, delivered or not, oldest first.
  public func allOutbox() throws -> [OutboxEntry] {
    try connection.query("SELECT * FROM outbox ORDER BY rowid").map(Self.outboxEntry)
  }

  /// One outbox entry by key.
  public func outboxEntry(idempotencyKey: String) throws -> OutboxEntry? {
    try connection.query(
      "SELECT * FROM outbox WHERE idempotency_key = ?", [.text(idempotencyKey)]
    ).first.map(Self.outboxEntry)
  }

  /// Counts an attempt that failed, with its reason.
  public func recordOutboxFailure(idempotencyKey: String, reason: String) throws {
    try connection.query(
      "UPDATE outbox SET attempts = attempts + 1, last_error = ? WHERE idempotency_key = ?",
      [.text(reason), .text(idempotencyKey)])
  }

  /// Marks a record delivered: the receiver acknowledged it. Never sent again.
  public func markOutboxDelivered(idempotencyKey: String) throws {
    try connection.query(
      "UPDATE outbox SET attempts = attempts + 1, delivered = 1, last_error = NULL"
        + " WHERE idempotency_key = ?",
      [.text(idempotencyKey)])
  }

  private static func outboxEntry(_ row: SQLRow) -> OutboxEntry {
    var body: [UInt8] = []
    if case .blob(let bytes) = row["body"] { body = bytes }
    return OutboxEntry(
      idempotencyKey: row["idempotency_key"].text ?? "", body: body,
      attempts: Int(row["attempts"].integer ?? 0), lastError: row["last_error"].text,
      delivered: (row["delivered"].integer ?? 0) != 0)
  }
}
