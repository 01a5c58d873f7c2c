import RecorderProtocol
import RecorderStore

/// Why ``SyncWorkspace/eraseRecordings(on:force:)`` erased nothing.
public enum EraseError: Error, Sendable, Equatable, CustomStringConvertible {
  /// These recordings on the device are not stored and verified locally (not synced, still
  /// being recorded, or kept unverified): erasing would lose them. Sync first, or pass
  /// `force: true` to erase anyway.
  case unsyncedRecordings([SessionID])
  /// The device could not be asked, or refused.
  case device(DeviceError)
  /// The journal could not be read or written.
  case journal(String)

  public var description: String {
    switch self {
    case .unsyncedRecordings(let ids):
      "\(ids.count) recording(s) on the device are not synced yet (\(ids.map(String.init).joined(separator: ", "))): nothing was erased"
    case .device(let error): "device: \(error)"
    case .journal(let text): "journal: \(text)"
    }
  }
}

extension SyncWorkspace {
  /// Erases every recording on the device (CLEAR_ALL), the one RecorderKit call that does.
  ///
  /// Refuses with ``EraseError/unsyncedRecordings(_:)`` (sending nothing destructive) while
  /// the device lists a recording this workspace's journal does not hold stored and
  /// verified, unless `force` is true. Afterwards the journal records every stored copy as
  /// deleted from the device. Unbinding (``DeviceSession/depair(_:)``) never erases.
  /// - Returns: the session ids the device listed before it was erased.
  @discardableResult
  public func eraseRecordings(on session: DeviceSession, force: Bool = false)
    async throws(EraseError) -> [SessionID]
  {
    let serial = await session.info.serial
    let listed: [Recording]
    do {
      listed = try await session.listRecordings()
    } catch {
      throw .device(error)
    }
    let records: [SessionID: RecordingRecord]
    do {
      records = try journal.read { tx in
        Dictionary(
          try tx.recordings(serial: serial).map { ($0.session, $0) },
          uniquingKeysWith: { first, _ in first })
      }
    } catch {
      throw .journal("\(error)")
    }
    let unsynced = listed.map(\.sessionId).filter { id in
      guard let record = records[id] else { return true }
      return record.stage < .stored || record.verification != .verified
    }
    if !unsynced.isEmpty, !force { throw .unsyncedRecordings(unsynced.sorted()) }
    do {
      try await session.clearAllRecordings()
    } catch {
      throw .device(error)
    }
    for recording in listed {
      do {
        try noteDeletedOnDevice(serial: serial, sessionId: recording.sessionId)
      } catch {
        throw .journal(error.description)
      }
    }
    return listed.map(\.sessionId).sorted()
  }
}

extension DeviceSession {
  /// CLEAR_ALL: the device erases every recording. Reached only through
  /// ``SyncWorkspace/eraseRecordings(on:force:)``, which checks the journal first.
  func clearAllRecordings() async throws(DeviceError) {
    let status = try await request(.clearAll, operation: "CLEAR_ALL") { message -> UInt8? in
      if case .clearAll(let status) = message { return status ?? 0 }
      return nil
    }
    guard status == 0 else { throw .rejected(operation: "CLEAR_ALL", status: status) }
  }
}
