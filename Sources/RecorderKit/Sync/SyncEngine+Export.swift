import Foundation
import RecorderAudio
import RecorderProtocol
import RecorderStore

/// The pipeline's export step (``ExportWriter``), a transport's companion files and the
/// conversions it defers.
extension SyncEngine {
  /// The export of `record` (``ExportWriter``), then `fileExported`. Runs beside the next
  /// file's transfer, so it does not hold the simulated clock: the radio keeps moving while
  /// the CPU encodes (invariant 4).
  /// - Parameters:
  ///   - directory: where the export goes (default: the sync's export folder).
  ///   - channels: output channels (default: the sync's).
  ///   - steps: finish steps owed to the recording, journaled in the export's transaction.
  func export(
    _ record: RecordingRecord, format: ExportFormat, into directory: String? = nil,
    channels: Int?? = nil, owing steps: [String] = []
  ) throws(SyncError) -> RecordingRecord {
    let made = try exportWriter.ensure(
      record, format: format, channels: channels ?? options.channels,
      directory: directory ?? exportDirectory, owing: steps)
    eventSink.yield(.fileExported(sessionId: record.session, path: made.path))
    guard
      let exported = try journalRead({ tx in
        try tx.recording(serial: record.serial, sessionId: record.sessionId)
      })
    else { throw .journal("recording \(record.sessionId) left the journal while exported") }
    return exported
  }

  /// The one export implementation, over this engine's journal, files and user key.
  var exportWriter: ExportWriter {
    ExportWriter(journal: journal, fileSystem: fileSystem, layout: paths, userKey: options.userKey)
  }

  /// Writes every companion of `transport` that `record` lacks (journal entry or file gone):
  /// temporary file, fsync, rename, fsync the folder, journal.
  func deliverCompanions(of record: RecordingRecord, from transport: any RecordingTransport)
    throws(SyncError)
  {
    for companion in transport.companions {
      if try companionThere(companion, of: record) { continue }
      let final = companion.destination(of: companionPlace(record))
      let directory = parent(of: final)
      try ensureDirectory(directory)
      let temporary = StorageLayout.temporary(of: final)
      try companion.write(sessionId: record.session, to: temporary)
      try storage { () throws(StorageError) in
        try fileSystem.syncFile(temporary)
        try fileSystem.rename(temporary, to: final)
        try fileSystem.syncDirectory(directory)
      }
      try journalWrite { tx in
        try tx.saveExport(
          serial: record.serial, sessionId: record.sessionId, format: companion.journalKey,
          path: paths.stored(final))
      }
      eventSink.yield(.fileExported(sessionId: record.session, path: final))
    }
  }

  /// Whether every companion of `transport` is journaled for `record` and on disk.
  func companionsDelivered(
    of record: RecordingRecord, from transport: any RecordingTransport
  )
    throws(SyncError) -> Bool
  {
    for companion in transport.companions where !(try companionThere(companion, of: record)) {
      return false
    }
    return true
  }

  func companionThere(_ companion: any RecordingCompanion, of record: RecordingRecord)
    throws(SyncError) -> Bool
  {
    guard
      let stored = try journalRead({ tx in
        try tx.exportPath(
          serial: record.serial, sessionId: record.sessionId, format: companion.journalKey)
      })
    else { return false }
    return fileSystem.size(of: paths.resolved(stored)) != nil
  }

  func companionPlace(_ record: RecordingRecord) -> CompanionPlace {
    let name = StorageLayout.exportName(
      serial: record.serial, sessionId: record.sessionId, generation: record.generation,
      fileExtension: "x")
    return CompanionPlace(
      raw: rawPath(record), exports: exportDirectory, exportStem: String(name.dropLast(2)))
  }

  /// Journals the export of `record` in `format` as owed (``ExportPolicy/deferConversion``):
  /// committed before the device copy may be deleted on its word.
  /// The finish steps `steps` are owed in the same transaction.
  func deferConversion(
    of record: RecordingRecord, format: ExportFormat, owing steps: [String]
  ) throws(SyncError) {
    let directory = paths.stored(exportDirectory)
    try journalWrite { tx in
      try tx.savePendingConversion(
        PendingConversionRow(
          serial: record.serial, sessionId: record.sessionId, format: format.rawValue,
          channels: options.channels, directory: directory))
      try tx.oweFinishSteps(
        serial: record.serial, sessionId: record.sessionId, generation: record.generation,
        steps: steps)
    }
  }

  /// Whether the journal owes the export of `record` in this sync's format.
  func conversionOwed(_ record: RecordingRecord) throws(SyncError) -> Bool {
    guard let format = options.format else { return false }
    return try journalRead { tx in
      try tx.pendingConversion(
        serial: record.serial, sessionId: record.sessionId, format: format.rawValue) != nil
    }
  }
}
