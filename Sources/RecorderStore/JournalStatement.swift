/// Every statement the journal runs against the recordings table, by name. The transaction
/// methods run only these, so the list is complete by construction, and a test can explain
/// each one (``Journal/queryPlan(of:)``) and catch a full table scan before it ships: a sync
/// must cost the same whether the journal holds a hundred rows or a hundred thousand.
public enum JournalStatement: String, CaseIterable, Sendable {
  /// One recording by its key.
  case recordingByKey
  /// Every recording of one device, oldest first.
  case recordingsOfDevice
  /// The recordings of one device at one stage (any order).
  case recordingsOfDeviceAtStage
  /// Every recording of every device (a full listing, by design).
  case allRecordings
  /// Insert or update one recording.
  case saveRecording

  /// Whether the statement returns every row by design: it may scan the table, but only
  /// in key order (no sort of its own).
  public var readsEveryRow: Bool { self == .allRecordings }

  /// The statement's SQL; `?` marks each bound value.
  public var sql: String {
    switch self {
    case .recordingByKey: "SELECT * FROM recordings WHERE serial = ? AND session_id = ?"
    case .recordingsOfDevice: "SELECT * FROM recordings WHERE serial = ? ORDER BY session_id"
    case .recordingsOfDeviceAtStage: "SELECT * FROM recordings WHERE serial = ? AND stage = ?"
    case .allRecordings: "SELECT * FROM recordings ORDER BY serial, session_id"
    case .saveRecording:
      """
      INSERT INTO recordings (serial, session_id, size, channels, scene, stage, durable_bytes,
        verification, device_crc, sha256, raw_path, export_path, export_format, transport,
        checked_ranges, generation, give_ups, give_up_reason, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, strftime('%s','now'))
      ON CONFLICT (serial, session_id) DO UPDATE SET size = excluded.size,
        channels = excluded.channels, scene = excluded.scene, stage = excluded.stage,
        durable_bytes = excluded.durable_bytes, verification = excluded.verification,
        device_crc = excluded.device_crc, sha256 = excluded.sha256, raw_path = excluded.raw_path,
        export_path = excluded.export_path, export_format = excluded.export_format,
        transport = excluded.transport, checked_ranges = excluded.checked_ranges,
        generation = excluded.generation, give_ups = excluded.give_ups,
        give_up_reason = excluded.give_up_reason, updated_at = excluded.updated_at
      """
    }
  }
}
