import RecorderProtocol

extension SyncWorkspace {
  /// Bytes held locally per recording of `serial`: the durable part of a partial transfer
  /// (where the next one resumes), or the whole size once stored. Empty when the journal
  /// cannot be read.
  package func heldBytes(serial: String) -> [SessionID: Int64] {
    let checkpoints = (try? self.checkpoints(serial: serial)) ?? []
    return Dictionary(
      checkpoints.map { ($0.sessionId, $0.stage < .stored ? $0.durableBytes : $0.size) },
      uniquingKeysWith: { first, _ in first })
  }

  /// LIST over `transport`: the recordings after session id `after` (0: all), each with the
  /// bytes of it this workspace holds (durable bytes of a partial transfer, the whole size
  /// once stored): where a resumed transfer starts, the vendor's `BleFile.offset`.
  package func listRecordings(over transport: any RecordingTransport, after: SessionID = 0)
    async throws(DeviceError) -> [ListedRecording]
  {
    let listed = try await transport.listRecordings().filter { $0.sessionId > after }
    let held = heldBytes(serial: await transport.serial)
    return listed.map { ListedRecording(recording: $0, heldBytes: held[$0.sessionId] ?? 0) }
  }

  /// Deletes one recording over any transport (BLE or Wi-Fi: the vendor's `deleteFile`) and
  /// journals it, as the session form below does.
  package func deleteRecording(_ sessionId: SessionID, over transport: any RecordingTransport)
    async throws(DeviceError)
  {
    let serial = await transport.serial
    try await transport.delete(sessionId: sessionId)
    try? noteDeletedOnDevice(serial: serial, sessionId: sessionId)
  }

  /// LIST over the BLE session `session`: the recordings after session id `after` (0: all),
  /// each with the bytes of it this workspace holds (the durable bytes of a partial
  /// transfer, the whole size once stored): where a resumed transfer starts.
  public func listRecordings(over session: DeviceSession, after: SessionID = 0)
    async throws(DeviceError) -> [ListedRecording]
  {
    try await listRecordings(over: BLETransport(session: session), after: after)
  }

  /// Deletes one recording from the device over the BLE session `session` because the app
  /// asks to, and records it in the journal so a later sync does not wait for it. Unlike
  /// the sync engine's deletes this does not check that the recording is safe locally: the
  /// app decided.
  public func deleteRecording(_ sessionId: SessionID, over session: DeviceSession)
    async throws(DeviceError)
  {
    try await deleteRecording(sessionId, over: BLETransport(session: session))
  }
}

/// A recording the device lists, with what this workspace already holds of it.
public struct ListedRecording: Sendable, Equatable {
  public var recording: Recording
  /// Bytes held locally: a partial transfer's durable bytes, or the size once stored.
  public var heldBytes: Int64

  package init(recording: Recording, heldBytes: Int64) {
    self.recording = recording
    self.heldBytes = heldBytes
  }
}
