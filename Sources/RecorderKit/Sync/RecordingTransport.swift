import RecorderConcurrency
import RecorderProtocol

/// What the sync engine does with one data frame it was handed.
package enum StreamDecision: Sendable {
  case `continue`
  /// Stop the device's stream (a gap, a corrupt frame): the engine re-issues from its last
  /// good byte.
  case stop
}

/// A way to move a device's recordings: BLE now, Wi-Fi next. The sync engine is written
/// against this, so a file started on one transport can finish on the other from the same
/// durable offset.
package protocol RecordingTransport: Sendable {
  /// "ble" or "wifi", recorded in the journal.
  var name: String { get }
  /// The device's serial number.
  var serial: String { get async }
  /// Audio channels of the device's recordings.
  var audioChannels: Int { get async }
  /// The device's firmware version ("V0095"), when known: the sync remembers per firmware
  /// which bytes the tail CRC covers.
  var firmware: String? { get async }
  /// The recordings on the device.
  func listRecordings() async throws(DeviceError) -> [Recording]
  /// The session id of the recording in progress, if any (it is left until complete).
  func recordingInProgress() async throws(DeviceError) -> SessionID?
  /// Streams bytes `[start, end)` of `sessionId`, frame by frame in arrival order, until the
  /// device's tail (returned) or `receive` answers ``StreamDecision/stop`` (returns nil).
  func stream(
    sessionId: SessionID, start: UInt32, end: UInt32,
    receive: @Sendable (BulkFrame) async -> StreamDecision
  ) async throws(DeviceError) -> SyncTail?
  /// Deletes one recording from the device.
  func delete(sessionId: SessionID) async throws(DeviceError)
  /// Whether the device copes with a DELETE only after every download of the batch (Wi-Fi:
  /// a delete between downloads stalls the device [sdk]). False by default.
  var deletesOnlyAfterBatch: Bool { get }
  /// Whether a stream's tail carries the device's CRC of the range (BLE). When false
  /// (Wi-Fi: §6 content has none) the tail's `crc` means nothing and a range counts as
  /// verified when it arrived whole, in order, with the device's Opus framing.
  var tailCarriesDeviceCRC: Bool { get }
  /// Why `sessionId` is damaged on the device (a USB pair whose WAV header or ASR frames
  /// fail their checks), or nil. A damaged recording is given up for the run before any
  /// byte of it moves (``SyncReport/givenUp``); the others sync. Nil by default.
  func damage(of sessionId: SessionID) async -> String?
  /// Files the transport delivers beside the device copy (a USB volume's WAV), each made
  /// durable and journaled before the device copy may be deleted. None by default.
  var companions: [any RecordingCompanion] { get }
}

/// A file a transport delivers beside a recording's device copy: written by
/// ``write(sessionId:to:)`` into a temporary file, which the sync engine then fsyncs,
/// renames to ``destination(of:)``, fsyncs the folder of and journals as an export under
/// ``journalKey``, once per recording (exactly once across kills). A recording is deleted
/// from the device only when every companion of its transport is journaled and on disk.
package protocol RecordingCompanion: Sendable {
  /// The journal's export key for it: a name of its own, or an ``ExportFormat``'s raw
  /// value when the companion *is* that export (the engine then makes no export of its own).
  var journalKey: String { get }
  /// Its final path, given the recording's place: `raw` its raw copy's path, `exports` the
  /// sync's export folder, `exportName` the export's file name without extension.
  func destination(of place: CompanionPlace) -> String
  /// Writes the whole file to `temporaryPath` (created here, 0600 or as the caller's umask).
  func write(sessionId: SessionID, to temporaryPath: String) throws(SyncError)
}

/// Where a recording's files go, for ``RecordingCompanion/destination(of:)``.
package struct CompanionPlace: Sendable {
  /// The raw copy's path (`<root>/<serial>/<id>.opus-raw`).
  package var raw: String
  /// The export folder.
  package var exports: String
  /// The export's name without its extension (`<serial>-<id>`).
  package var exportStem: String
}

extension RecordingTransport {
  package var firmware: String? { get async { nil } }
  package var deletesOnlyAfterBatch: Bool { false }
  package var tailCarriesDeviceCRC: Bool { true }
  package func damage(of sessionId: SessionID) async -> String? { nil }
  package var companions: [any RecordingCompanion] { [] }
}

/// The BLE transport: one ``DeviceSession``.
package struct BLETransport: RecordingTransport {
  public let session: DeviceSession
  public var name: String { "ble" }

  public init(session: DeviceSession) { self.session = session }

  public var serial: String { get async { await session.info.serial } }
  public var audioChannels: Int { get async { await session.info.audioChannels } }
  public var firmware: String? { get async { await session.info.firmware?.description } }

  public func listRecordings() async throws(DeviceError) -> [Recording] {
    try await session.listRecordings()
  }

  public func recordingInProgress() async throws(DeviceError) -> SessionID? {
    let state = try await session.state()
    guard let sessionId = state.sessionId, sessionId != 0 else { return nil }
    return sessionId
  }

  public func stream(
    sessionId: SessionID, start: UInt32, end: UInt32,
    receive: @Sendable (BulkFrame) async -> StreamDecision
  ) async throws(DeviceError) -> SyncTail? {
    try await session.streamRange(sessionId: sessionId, start: start, end: end, onData: receive)
  }

  public func delete(sessionId: SessionID) async throws(DeviceError) {
    try await session.deleteRecording(sessionId)
  }
}
