import Foundation
import RecorderAudio
import RecorderProtocol
import RecorderStore

/// What the device lists, brought in line with the journal and the bytes held (invariant 8).
extension SyncEngine {
  // MARK: - Trust only what was checked (invariant 8)

  /// One entry per session id, oldest first. An id listed twice with the same size is one
  /// recording (kept once); with different sizes the device contradicts itself, and that id
  /// is left alone this run.
  static func deduplicated(_ listed: [Recording]) -> (
    kept: [Recording], contradictory: Set<SessionID>
  ) {
    var byId: [SessionID: Recording] = [:]
    var contradictory: Set<SessionID> = []
    for recording in listed {
      if let earlier = byId[recording.sessionId], earlier.size != recording.size {
        contradictory.insert(recording.sessionId)
      }
      byId[recording.sessionId] = byId[recording.sessionId] ?? recording
    }
    let kept = byId.values.filter { !contradictory.contains($0.sessionId) }
    return (kept.sorted { $0.sessionId < $1.sessionId }, contradictory)
  }

  /// The journal's record brought in line with what the device lists now and with the bytes
  /// we hold (invariant 8):
  /// - a copy we hold whole is compared with the device's (``DeviceCopyProof``): the same
  ///   bytes prove it for this connection; other bytes mean the device lists another
  ///   recording under this id, so ours becomes an earlier generation (kept, with its
  ///   exports) and the listed one a new generation, synced under names of its own;
  /// - a recording the journal saw deleted that the device lists again is that recording
  ///   only if the bytes match our copy (the DELETE never took effect); otherwise it is new;
  /// - a recording that **grew** (paused and resumed under the same id) fetches the rest once
  ///   the bytes we hold matched, and is verified and exported again;
  /// - one that **shrank** is another recording: a partial copy starts over, a whole one is
  ///   kept as an earlier generation;
  /// - a stored copy whose file is gone or differs from the journal's size and SHA-256 is
  ///   fetched again.
  func reconciled(
    _ record: RecordingRecord, listed recording: Recording, via transport: any RecordingTransport
  ) async throws(SyncError) -> RecordingRecord {
    let listedSize = Int64(recording.size)
    if record.stage == .deletedFromDevice {
      if listedSize == record.size, try localCopyHolds(record),
        try await proof(of: record, via: transport) == .same
      {
        proven.insert(record.session)
        let exported = try exportPath(of: record, format: options.format ?? .mp3) != nil
        return try journalWrite { tx in
          try tx.update(serial: record.serial, sessionId: record.sessionId) {
            $0.stage = exported ? .exported : .stored
          }
        }
      }
      return try retire(record, listed: recording, reason: "listed again after its delete")
    }
    guard record.stage >= .stored else {
      if listedSize < record.size { return try startOver(record, size: listedSize) }
      guard listedSize > record.size else { return record }
      return try grown(record, to: listedSize)
    }
    if !(try localCopyHolds(record)) { return try startOver(record, size: listedSize) }
    if listedSize < record.size {
      return try retire(record, listed: recording, reason: "listed shorter than our copy")
    }
    switch try await proof(of: record, via: transport) {
    case .different:
      return try retire(record, listed: recording, reason: "other bytes under the same id")
    case .inconclusive:
      return record
    case .same:
      proven.insert(record.session)
      return listedSize > record.size ? try grown(record, to: listedSize) : record
    }
  }

  /// Windows of our whole copy of `record` compared with the device's.
  func proof(of record: RecordingRecord, via transport: any RecordingTransport)
    async throws(SyncError) -> DeviceCopyProof.Verdict
  {
    try await DeviceCopyProof(
      transport: transport, sessionId: record.session, fileSystem: fileSystem
    ).check(
      localPath: rawPath(record),
      windows: DeviceCopyProof.windows(held: record.size, random: &proofRandom))
  }

  /// Keeps `record` as an earlier generation (its raw copy and exports stay where they are)
  /// and starts the recording the device lists now under the same id as the next one.
  func retire(_ record: RecordingRecord, listed recording: Recording, reason: String)
    throws(SyncError) -> RecordingRecord
  {
    // Conversions owed to the recording we keep are made now, while it is the one the
    // journal's key names (the new recording may owe its own).
    let owed = try journalRead { tx in
      try tx.pendingConversions().filter {
        $0.serial == record.serial && $0.sessionId == record.sessionId
      }
    }
    var kept = record
    for conversion in owed {
      guard let format = ExportFormat(rawValue: conversion.format) else { continue }
      kept = try export(
        kept, format: format, into: paths.resolved(conversion.directory),
        channels: .some(conversion.channels))
    }
    var fresh = RecordingRecord(
      serial: record.serial, sessionId: record.sessionId, size: Int64(recording.size),
      channels: recording.channels, scene: recording.scene.map(Int.init))
    fresh.generation = record.generation + 1
    for path in [partPath(fresh), rawPath(fresh)] where fileSystem.size(of: path) != nil {
      try storage { () throws(StorageError) in try fileSystem.remove(path) }
    }
    retiredByDevice[record.serial, default: []].insert(record.session)
    retiredThisSync.insert(record.session)
    eventSink.yield(
      .fileSkipped(
        sessionId: record.session,
        reason:
          "another recording under this id (\(reason)): ours is kept, the new one is synced too"))
    return try journalWrite { tx in
      try tx.retire(kept, reason: reason)
      try tx.removePendingConversions(serial: record.serial, sessionId: record.sessionId)
      try tx.save(fresh)
      return fresh
    }
  }

  /// `record` continued to `listedSize`: what we hold is a prefix of it; fetch the rest.
  func grown(_ record: RecordingRecord, to listedSize: Int64) throws(SyncError)
    -> RecordingRecord
  {
    if record.stage >= .stored {
      try storage { () throws(StorageError) in
        try fileSystem.rename(rawPath(record), to: partPath(record))
        try fileSystem.syncDirectory(deviceDirectory(record.serial))
      }
    }
    eventSink.yield(
      .fileSkipped(sessionId: record.session, reason: "grew on the device; fetching the rest"))
    return try journalWrite { tx in
      try Self.forgetFinishing(of: record, in: tx)
      return try tx.update(serial: record.serial, sessionId: record.sessionId) {
        $0.size = listedSize
        if $0.stage >= .stored { $0.durableBytes = record.size }
        $0.stage = .transferring
        $0.verification = .pending
        $0.sha256 = nil
        $0.rawPath = nil
        $0.exportPath = nil
        $0.exportFormat = nil
        $0.giveUps = 0
      }
    }
  }

  /// Forgets the local copy of `record` and starts it over at `size`.
  func startOver(_ record: RecordingRecord, size: Int64) throws(SyncError)
    -> RecordingRecord
  {
    for path in [partPath(record), rawPath(record)] where fileSystem.size(of: path) != nil {
      try storage { () throws(StorageError) in try fileSystem.remove(path) }
    }
    eventSink.yield(
      .fileSkipped(sessionId: record.session, reason: "changed on the device; starting over"))
    return try journalWrite { tx in
      try Self.forgetFinishing(of: record, in: tx)
      var fresh = RecordingRecord(
        serial: record.serial, sessionId: record.sessionId, size: size,
        channels: record.channels, scene: record.scene)
      fresh.generation = record.generation
      try tx.save(fresh)
      return fresh
    }
  }

  // MARK: - Journal and paths

  /// The journal's record of `recording`, or a new one (not yet written: `transfer` writes
  /// it with its first step, so a new recording costs one commit less).
  func load(_ recording: Recording, serial: String) throws(SyncError) -> RecordingRecord {
    let existing = try journalRead { tx in
      try tx.recording(serial: serial, sessionId: recording.sessionId)
    }
    return existing
      ?? RecordingRecord(
        serial: serial, sessionId: recording.sessionId, size: Int64(recording.size),
        channels: recording.channels, scene: recording.scene.map(Int.init))
  }

  /// A recording the journal saw safe that the device no longer lists was deleted (a crash
  /// between the DELETE reply and the journal commit): record that.
  func reconcileDeletedOnDevice(serial: String, listed: Set<SessionID>) throws(SyncError) {
    try journalWrite { tx in
      // Only the few stored-but-not-deleted rows (indexed): not every row the device had.
      for record in try tx.recordings(serial: serial, at: [.stored, .exported])
      where !listed.contains(record.session) && options.deleteFromDevice {
        var deleted = record
        deleted.stage = .deletedFromDevice
        try tx.save(deleted)
      }
    }
  }

  /// A recording whose bytes changed owes its finish anew: its exports, the conversions
  /// owed to it and its finish steps are forgotten (in the caller's transaction).
  static func forgetFinishing(of record: RecordingRecord, in tx: JournalTransaction) throws {
    try tx.deleteExports(serial: record.serial, sessionId: record.sessionId)
    try tx.removePendingConversions(serial: record.serial, sessionId: record.sessionId)
    try tx.forgetFinishSteps(
      serial: record.serial, sessionId: record.sessionId, generation: record.generation)
  }
}
