import Foundation
import RecorderAudio
import RecorderProtocol
import RecorderStore

/// A run's report made true to the journal.
extension SyncEngine {
  // MARK: - The summary of a run

  /// `report` made true to the journal: every recording this engine's runs listed for
  /// `serial` and stored is in it, with what the journal says of it now. A DELETE that the
  /// device carried out but whose reply a link drop lost is journalled (the next run finds
  /// the recording gone) though no attempt reported it; in-memory reports alone would leave
  /// that file out of the summary.
  package func summary(of report: SyncReport, serial: String) throws(SyncError) -> SyncReport {
    var summary = report
    var files = Dictionary(report.files.map { ($0.key, $0) }, uniquingKeysWith: { $1 })
    let ids = listedByDevice[serial, default: []].union(files.keys.map(\.sessionId))
    // A recording given up (stored, but its export could not be made: an E2EE file whose
    // key does not unwrap) is reported once, as given up, never also as synced.
    let givenUp = Set(report.givenUp.map(\.sessionId))
    for id in ids.sorted() where !givenUp.contains(id) {
      guard
        let record = try journalRead({ tx in try tx.recording(serial: serial, sessionId: id) }),
        record.stage >= .stored
      else { continue }
      let key = SyncReport.FileKey(sessionId: id, generation: record.generation)
      var path = files[key]?.exportPath
      if let format = options.format, let made = try exportPath(of: record, format: format) {
        path = made
      }
      var owed = false
      if path == nil { owed = try conversionOwed(record) }
      files[key] = SyncReport.File(
        sessionId: id, size: record.size,
        durationMs: durationMs(of: record),
        verified: record.verification.permitsExport, exportPath: path,
        deletedFromDevice: record.stage == .deletedFromDevice, transport: record.transport,
        conversionPending: owed, generation: record.generation)
    }
    // The recordings this engine found replaced under their id: both are reported.
    for file in try earlierGenerationFiles(
      serial: serial, ids: retiredByDevice[serial, default: []])
    {
      files[file.key] = file
    }
    summary.files = files.values.sorted { $0.key < $1.key }
    return summary
  }

  /// The earlier generations of `ids` (recordings the device replaced under their id), as
  /// the journal keeps them.
  func earlierGenerationFiles(serial: String, ids: Set<SessionID>) throws(SyncError)
    -> [SyncReport.File]
  {
    guard !ids.isEmpty else { return [] }
    return try journalRead { tx in try tx.earlierGenerations(serial: serial) }
      .filter { ids.contains(SessionID($0.sessionId)) }
      .map { earlier in
        var held = RecordingRecord(
          serial: serial, sessionId: earlier.sessionId, size: earlier.size,
          channels: earlier.channels)
        held.rawPath = earlier.rawPath
        held.generation = earlier.generation
        let path =
          options.format.flatMap { earlier.exports[$0.rawValue] } ?? earlier.exports.values.first
        return SyncReport.File(
          sessionId: SessionID(earlier.sessionId), size: earlier.size,
          durationMs: durationMs(of: held), verified: true, exportPath: path.map(paths.resolved),
          deletedFromDevice: earlier.stage == .deletedFromDevice, transport: nil,
          conversionPending: false, generation: earlier.generation)
      }
  }
}
