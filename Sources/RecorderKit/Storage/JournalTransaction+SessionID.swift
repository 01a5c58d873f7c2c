import RecorderProtocol
import RecorderStore

// The one place RecorderKit crosses between its `SessionID` and the journal's bare integer.
// RecorderStore may not depend on RecorderProtocol (shared/DESIGN.md), so its API and its
// `session_id` column keep the `u32` the device sends; these overloads take and give the typed
// value, and nothing else in RecorderKit converts.

extension RecordingRecord {
  /// A new record of `session`, as ``RecordingRecord/init(serial:sessionId:size:channels:scene:)``.
  init(serial: String, sessionId session: SessionID, size: Int64, channels: Int, scene: Int? = nil)
  {
    self.init(
      serial: serial, sessionId: session.rawValue, size: size, channels: channels, scene: scene)
  }

  /// The recording this record is about (the journal's `sessionId`, typed).
  var session: SessionID { SessionID(sessionId) }
}

extension JournalTransaction {
  func recording(serial: String, sessionId session: SessionID) throws -> RecordingRecord? {
    try recording(serial: serial, sessionId: session.rawValue)
  }

  @discardableResult
  func update(
    serial: String, sessionId session: SessionID, _ change: (inout RecordingRecord) throws -> Void
  ) throws -> RecordingRecord {
    try update(serial: serial, sessionId: session.rawValue, change)
  }
}
