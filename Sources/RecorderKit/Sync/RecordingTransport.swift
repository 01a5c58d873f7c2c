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
}

extension RecordingTransport {
  package var firmware: String? { get async { nil } }
  package var deletesOnlyAfterBatch: Bool { false }
  package var tailCarriesDeviceCRC: Bool { true }
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
