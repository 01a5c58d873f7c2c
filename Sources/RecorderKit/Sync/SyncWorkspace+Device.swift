import RecorderProtocol

extension SyncWorkspace {
  /// Bytes held locally per recording of `serial`: the durable part of a partial transfer
  /// (where the next one resumes), or the whole size once stored. Empty when the journal
  /// cannot be read.
  public func heldBytes(serial: String) -> [UInt32: Int64] {
    let checkpoints = (try? self.checkpoints(serial: serial)) ?? []
    return Dictionary(
      checkpoints.map { ($0.sessionId, $0.stage < .stored ? $0.durableBytes : $0.size) },
      uniquingKeysWith: { first, _ in first })
  }

  /// Deletes one recording from the device because the app asks to (the vendor's
  /// `deleteFile`), and records it in the journal so a later sync does not wait for it.
  /// Unlike the sync engine's deletes this does not check that the recording is safe
  /// locally: the app decided.
  public func deleteRecording(_ sessionId: UInt32, over transport: any RecordingTransport)
    async throws(DeviceError)
  {
    let serial = await transport.serial
    try await transport.delete(sessionId: sessionId)
    try? noteDeletedOnDevice(serial: serial, sessionId: sessionId)
  }
}
