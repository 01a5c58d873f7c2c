import Foundation
import RecorderAudio
import RecorderProtocol
import RecorderStore

/// The delete policy of the pipeline: a DELETE only for a recording stored, verified,
/// exported as asked, proven to be the device's copy in this run and still held as the
/// journal says (invariants 1 and 8).
extension SyncEngine {
  /// The deletes a Wi-Fi batch held back, oldest first, each still behind the same rule
  /// (stored, verified, exported if asked, journaled) and journaled as it happens.
  func deleteAfterBatch(
    report: inout SyncReport, serial: String, via transport: any RecordingTransport
  ) async throws(SyncError) {
    for index in report.files.indices where !report.files[index].deletedFromDevice {
      if Task.isCancelled { return }
      let file = report.files[index]
      guard
        let record = try journalRead({ tx in
          try tx.recording(serial: serial, sessionId: file.sessionId)
        }),
        try await deleteIfSafe(record, via: transport) != nil
      else { continue }
      report.files[index].deletedFromDevice = true
    }
  }

  /// DELETE on the device and journal it, if `record` is safe to delete (invariant 1).
  /// Returns the updated record, or nil when it is not to be deleted.
  func deleteIfSafe(_ record: RecordingRecord, via transport: any RecordingTransport)
    async throws(SyncError) -> RecordingRecord?
  {
    var exportSatisfied = true
    if let format = options.format {
      // A conversion the journal owes counts as the export: the raw copy it is made from
      // stays, and is checked below like any copy we delete on the word of.
      exportSatisfied = try exportPath(of: record, format: format) != nil
      if !exportSatisfied { exportSatisfied = try conversionOwed(record) }
    }
    guard options.deleteFromDevice, isDeletable(record.verification), exportSatisfied,
      record.stage >= .stored, record.stage < .deletedFromDevice,
      try companionsDelivered(of: record, from: transport)
    else { return nil }
    // Only bytes this connection proved to be the device's copy (invariant 8): never a DELETE
    // on an id and a size alone.
    guard proven.contains(record.session) else {
      eventSink.yield(
        .fileSkipped(
          sessionId: record.session,
          reason: "not proven to be the device's copy on this connection; kept on the device"))
      return nil
    }
    // The last check before an irreversible step (invariant 8): the bytes we hold now are
    // the ones the journal vouches for, and the export is still there.
    var exportThere = try exportStillThere(record)
    if !exportThere { exportThere = try conversionOwed(record) }
    guard try localCopyHolds(record), exportThere else {
      eventSink.yield(
        .fileSkipped(sessionId: record.session, reason: "local copy changed; not deleted"))
      return nil
    }
    // Another sync may be in the folder if the lock no longer holds: delete nothing then.
    if let lock = options.folderLock {
      do { try lock.check() } catch { throw .folderLockLost("\(error)") }
    }
    do {
      try await transport.delete(sessionId: record.session)
    } catch {
      throw .device(error)
    }
    let deleted = try journalWrite { tx in
      try tx.update(serial: record.serial, sessionId: record.sessionId) {
        $0.stage = .deletedFromDevice
      }
    }
    eventSink.yield(.fileDeleted(sessionId: record.session))
    return deleted
  }

  /// Whether the stored raw file is the one the journal vouches for: its size and SHA-256.
  func localCopyHolds(_ record: RecordingRecord) throws(SyncError) -> Bool {
    exportWriter.holdsRawCopy(record)
  }

  /// Whether the export the sync asks for (its format, in its folder) is on disk; it is made
  /// (again) when not.
  func exportStillThere(_ record: RecordingRecord) throws(SyncError) -> Bool {
    guard let format = options.format else { return true }
    let expected =
      exportDirectory + "/"
      + StorageLayout.exportName(
        serial: record.serial, sessionId: record.sessionId, generation: record.generation,
        fileExtension: format.fileExtension)
    // Compared as the journal spells paths (a relative folder outside the root is kept
    // absolute).
    guard let path = try exportPath(of: record, format: format),
      paths.stored(path) == paths.stored(expected)
    else { return false }
    return (fileSystem.size(of: path) ?? 0) > 0
  }

  // MARK: - Check policy

  /// Whether a stored file counts as good: exported, and eligible for deletion by
  /// ``isDeletable(_:)``'s rules.
  func isAccepted(_ verification: RecordingRecord.Verification) -> Bool {
    verification.permitsExport
  }

  /// Whether the device copy of a file checked this well may go (invariant 8).
  func isDeletable(_ verification: RecordingRecord.Verification) -> Bool {
    switch verification {
    case .verified: true
    case .framing: !options.strictVerify
    case .agreement: options.trustAgreement
    case .pending, .unverified: false
    }
  }
}
