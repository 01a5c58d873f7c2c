import Foundation
import RecorderAudio
import RecorderStore

/// The one place an export is made: the sync's export step, a single recording's export, the
/// deferred conversions and the conversion owed by a recording being retired all come here.
///
/// The export of a stored recording in a format, into a folder: the file already in place
/// when the journal says this very export was made and it is still there; otherwise a new
/// one (what a crashed export left in the folder goes first; temporary name, E2EE audio
/// decrypted into a 0600 scratch file beside it, encode, fsync, rename, fsync the folder),
/// journaled in one transaction that records the export, moves the recording to `exported`
/// (never back) and clears a conversion owed for it into this folder.
struct ExportWriter: Sendable {
  let journal: Journal
  let fileSystem: any DurableFileSystem
  let layout: StorageLayout
  /// Decrypts end-to-end encrypted raw copies; nil: such a copy cannot be exported.
  let userKey: ModeBCredentials?

  /// The export's path, and whether the encoder ran (false: the journal's export was in
  /// place). `steps` are finish steps owed to the recording, journaled in the export's
  /// transaction (in one of their own when the export was in place).
  /// - Throws: ``SyncError/storage(_:)`` for a file that could not be read or written (a
  ///   full disk), ``SyncError/cancelled`` when the calling task was cancelled mid-encode
  ///   (the temporary is removed), ``SyncError/export(sessionId:reason:)`` when the recording
  ///   cannot be exported, ``SyncError/journal(_:)``.
  func ensure(
    _ record: RecordingRecord, format: ExportFormat, channels: Int?, directory: String,
    owing steps: [String] = []
  ) throws(SyncError) -> (path: String, encoded: Bool) {
    guard let rawPath = record.rawPath else {
      throw .journal("recording \(record.sessionId) is stored without a raw path")
    }
    let name = StorageLayout.exportName(
      serial: record.serial, sessionId: record.sessionId, generation: record.generation,
      fileExtension: format.fileExtension)
    let finalPath = directory + "/" + name
    let made = try? journal.read { tx in
      try tx.exportPath(serial: record.serial, sessionId: record.sessionId, format: format.rawValue)
    }
    // Compared as the journal spells paths: a folder given relative to the working
    // directory is kept absolute, and must still be found.
    if made.flatMap({ $0 }) == layout.stored(finalPath),
      (fileSystem.size(of: finalPath) ?? 0) > 0
    {
      if !steps.isEmpty {
        try writeJournal(journal) { tx in try owe(steps, to: record, in: tx) }
      }
      return (finalPath, false)
    }
    let raw = layout.resolved(rawPath)
    let claim: ExportTemporary
    do {
      try fileSystem.createDirectory(directory)
      // What a crashed export left in this folder (its decrypted audio too) goes first.
      ExportTemporary.removeStale(in: directory, fileSystem: fileSystem)
      claim = try ExportTemporary(name, in: directory)
    } catch {
      throw .storage(error)
    }
    defer { claim.release() }
    let temporary = claim.path
    var scratch: String?
    defer { if let scratch { unlink(scratch) } }
    do {
      // An end-to-end encrypted raw copy is decrypted into a 0600 scratch file first.
      let plain = try E2EEFile.plainSource(
        raw, recordedChannels: record.channels, scratch: StorageLayout.scratch(of: temporary),
        credentials: userKey)
      if plain.path != raw { scratch = plain.path }
      _ = try AudioExporter.export(
        from: plain.path, recordedChannels: plain.channels, to: temporary,
        options: ExportOptions(format: format, channels: channels))
    } catch let error as StorageError {
      throw .storage(error)
    } catch let error as AudioError {
      // A file that could not be read or written (a full disk) is a storage failure, not a
      // property of the recording; a cancelled sync stops the export, and the recording is
      // not given up (nothing is wrong with it).
      if case .io(let path, _, let code, _) = error {
        throw .storage(.from(errno: code, path: path))
      }
      if case .cancelled = error { throw .cancelled }
      throw .export(sessionId: record.session, reason: "\(error)")
    } catch {
      throw .export(sessionId: record.session, reason: "\(error)")
    }
    do {
      try fileSystem.syncFile(temporary)
      try fileSystem.rename(temporary, to: finalPath)
      try fileSystem.syncDirectory(directory)
    } catch {
      throw .storage(error)
    }
    try writeJournal(journal) { tx in
      let stored = layout.stored(finalPath)
      try tx.saveExport(
        serial: record.serial, sessionId: record.sessionId, format: format.rawValue, path: stored)
      try tx.update(serial: record.serial, sessionId: record.sessionId) {
        // Never back: a recording already deleted from the device stays so.
        if $0.stage < .exported { $0.stage = .exported }
        $0.exportPath = stored
        $0.exportFormat = format.rawValue
      }
      if let owed = try tx.pendingConversion(
        serial: record.serial, sessionId: record.sessionId, format: format.rawValue),
        layout.resolved(owed.directory) == directory
      {
        try tx.removePendingConversion(
          serial: record.serial, sessionId: record.sessionId, format: format.rawValue)
      }
      try owe(steps, to: record, in: tx)
    }
    return (finalPath, true)
  }

  /// Whether `record`'s raw copy is the one the journal vouches for: its size and SHA-256
  /// (checked before a conversion, and before a DELETE on its word).
  func holdsRawCopy(_ record: RecordingRecord) -> Bool {
    let path =
      record.rawPath.map(layout.resolved)
      ?? layout.raw(serial: record.serial, sessionId: record.session, generation: record.generation)
    guard let expected = record.sha256, fileSystem.size(of: path) == record.size else {
      return false
    }
    return (try? fileSystem.sha256Hex(of: path)) == expected
  }

  private func owe(_ steps: [String], to record: RecordingRecord, in tx: JournalTransaction)
    throws
  {
    guard !steps.isEmpty else { return }
    try tx.oweFinishSteps(
      serial: record.serial, sessionId: record.sessionId, generation: record.generation,
      steps: steps)
  }
}
