import RecorderAudio
import RecorderConcurrency
import RecorderProtocol
import RecorderStore

/// Moves every recording from a device to local disk exactly once, verified, and only then
/// deletes it from the device (DESIGN.md invariants 1–4).
///
/// Per recording, oldest first: transfer (one SYNC_START for the whole remaining range, into
/// `<root>/<serial>/<id>.part`, fsync and journal at checkpoints) → verify (tail CRC, Opus
/// framing) → fsync, hash, atomic rename to `<id>.opus-raw`, fsync the directory, journal
/// `stored` → export to `<root>/exports/` (temporary name, fsync, rename, fsync) → DELETE on
/// the device → journal. The journal (``Journal``) is the only judge of "safe": a device copy
/// is deleted only after a committed transaction says the local copy is stored, verified and
/// (when an export was asked for) exported. Re-running after any interruption resumes from
/// the journal: a partial file continues from its durable offset, finished files are skipped.
///
/// Exports and deletes run one file behind the transfers, so the radio moves the next file
/// while the previous one is exported (invariant 4).
public actor SyncEngine {
  /// What to do with each recording.
  public struct Options: Sendable {
    /// Export format, or nil to keep only the raw device bytes.
    public var format: ExportFormat? = .mp3
    /// Output channels (nil = as recorded).
    public var channels: Int?
    /// Delete the device copy once safe (the vendor's recipe does).
    public var deleteFromDevice = true
    /// Export files whose CRC never matched (kept and never deleted either way).
    public var exportUnverified = false
    /// Bytes between fsync checkpoints of a partial file.
    public var checkpointBytes: Int64 = 256 * 1024
    /// Re-issues allowed per file before giving up on it for this run.
    public var maximumReissues = 20
    /// Where exports go (default `<root>/exports`).
    public var exportDirectory: String?
    public init() {}
  }

  let journal: Journal
  private let fileSystem: any DurableFileSystem
  private let root: String
  private let options: Options
  private let clock: AnyClock
  private let eventContinuation: AsyncStream<SyncEvent>.Continuation
  /// Progress, in order. Single consumer; finishes when the engine is released.
  public nonisolated let events: AsyncStream<SyncEvent>
  /// What the last run that threw had done before it stopped (files finished, bytes moved),
  /// so a caller that resumes can report every file, including those the device no longer
  /// lists; nil after a run that completed.
  public internal(set) var interruptedReport: SyncReport?

  public init(
    journal: Journal, fileSystem: any DurableFileSystem = PosixFileSystem(), root: String,
    options: Options = Options(), clock: AnyClock = .continuous
  ) {
    self.journal = journal
    self.fileSystem = fileSystem
    self.root = root
    self.options = options
    self.clock = clock
    (events, eventContinuation) = AsyncStream.makeStream(of: SyncEvent.self)
  }

  deinit { eventContinuation.finish() }

  /// Syncs everything `transport` lists. Throws on the first failure that stops the run (a
  /// disconnect, a full disk); whatever was made durable stays, and the next run resumes.
  public func sync(using transport: any RecordingTransport) async throws(SyncError) -> SyncReport {
    let serial = await transport.serial
    var report = SyncReport()
    let listed: [Recording]
    let inProgress: UInt32?
    do {
      listed = try await transport.listRecordings()
      inProgress = try await transport.recordingInProgress()
    } catch {
      throw .device(error)
    }
    try ensureDirectory(deviceDirectory(serial))
    try ensureDirectory(exportDirectory)
    try cleanUpStaleTemporaries()
    let recordings = listed.sorted { $0.sessionId < $1.sessionId }
    eventContinuation.yield(
      .listed(files: recordings.count, bytes: recordings.reduce(0) { $0 + Int64($1.size) }))
    try reconcileDeletedOnDevice(serial: serial, listed: Set(recordings.map(\.sessionId)))

    var pendingFinish: Task<Result<SyncReport.File, SyncError>, Never>?
    var done = 0
    do throws(SyncError) {
      try await syncListed(
        recordings, inProgress: inProgress, serial: serial, via: transport, report: &report,
        pendingFinish: &pendingFinish, done: &done)
    } catch {
      // Never return while the previous file's export or DELETE still runs: a new run (after
      // a reconnect, a full disk, a power cut) would race with it on the same files.
      if let previous = pendingFinish {
        if case .success(let file) = await Self.finished(previous) { report.files.append(file) }
      }
      interruptedReport = report
      throw Task.isCancelled ? .cancelled : error
    }
    if Task.isCancelled {
      interruptedReport = report
      throw .cancelled
    }
    interruptedReport = nil
    return report
  }

  /// The outcome of a file's export and delete. If the sync is cancelled meanwhile (the
  /// background budget expired), the export is cancelled too: it stops within a second of
  /// audio, removes its partial output, and the journal resumes it on the next run.
  private static func finished(_ task: Task<Result<SyncReport.File, SyncError>, Never>) async
    -> Result<SyncReport.File, SyncError>
  {
    await withTaskCancellationHandler {
      await task.value
    } onCancel: {
      task.cancel()
    }
  }

  /// The per-file loop of ``sync(using:)``; `pendingFinish` is the previous file's export
  /// and delete, running one behind.
  private func syncListed(
    _ recordings: [Recording], inProgress: UInt32?, serial: String,
    via transport: any RecordingTransport, report: inout SyncReport,
    pendingFinish: inout Task<Result<SyncReport.File, SyncError>, Never>?, done: inout Int
  ) async throws(SyncError) {
    for recording in recordings {
      if Task.isCancelled { break }
      if recording.sessionId == inProgress {
        report.skippedInProgress.append(recording.sessionId)
        eventContinuation.yield(
          .fileSkipped(sessionId: recording.sessionId, reason: "still recording"))
        continue
      }
      var record = try load(recording, serial: serial)
      if record.stage < .stored {
        record = try await transfer(recording, record: record, via: transport, report: &report)
      }
      // Finish the previous file (export, delete) before starting this one's: one behind.
      if let previous = pendingFinish {
        pendingFinish = nil
        report.files.append(try await Self.finished(previous).get())
        done += 1
        eventContinuation.yield(.overall(done: done, total: recordings.count))
      }
      let stored = record
      let deleteNow = !transport.deletesOnlyAfterBatch
      pendingFinish = Task {
        await self.finish(stored, recording: recording, transport: transport, delete: deleteNow)
      }
    }
    if let previous = pendingFinish {
      report.files.append(try await Self.finished(previous).get())
      pendingFinish = nil
      done += 1
      eventContinuation.yield(.overall(done: done, total: recordings.count))
    }
    if transport.deletesOnlyAfterBatch, !Task.isCancelled {
      try await deleteAfterBatch(report: &report, serial: serial, via: transport)
    }
  }

  /// The deletes a Wi-Fi batch held back, oldest first, each still behind the same rule
  /// (stored, verified, exported if asked, journaled) and journaled as it happens.
  private func deleteAfterBatch(
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
  private func deleteIfSafe(_ record: RecordingRecord, via transport: any RecordingTransport)
    async throws(SyncError) -> RecordingRecord?
  {
    let exportSatisfied = options.format == nil || record.stage >= .exported
    guard options.deleteFromDevice, record.verification == .verified, exportSatisfied,
      record.stage >= .stored, record.stage < .deletedFromDevice
    else { return nil }
    do {
      try await transport.delete(sessionId: record.sessionId)
    } catch {
      throw .device(error)
    }
    let deleted = try journalWrite { tx in
      try tx.update(serial: record.serial, sessionId: record.sessionId) {
        $0.stage = .deletedFromDevice
      }
    }
    eventContinuation.yield(.fileDeleted(sessionId: record.sessionId))
    return deleted
  }

  // MARK: - Transfer

  /// Transfers the rest of `recording` and stores it; returns the journal record, `stored`.
  private func transfer(
    _ recording: Recording, record initial: RecordingRecord, via transport: any RecordingTransport,
    report: inout SyncReport
  ) async throws(SyncError) -> RecordingRecord {
    let size = Int64(recording.size)
    let frameBytes = Int64(recording.bytesPerFrame)
    let partPath = self.partPath(initial)
    // Resume from the durable offset, rounded down to a frame boundary.
    var offset = min(initial.durableBytes, fileSystem.size(of: partPath) ?? 0)
    offset -= offset % frameBytes
    var file = try storage { () throws(StorageError) in
      try fileSystem.openForAppend(partPath, truncatingTo: offset)
    }
    defer { file.close() }
    // A file resumed on another transport names both, in order ("ble+wifi").
    var carriedBy = transport.name
    if offset > 0, let earlier = initial.transport, !earlier.isEmpty {
      let names = earlier.split(separator: "+").map(String.init)
      carriedBy = names.last == transport.name ? earlier : earlier + "+" + transport.name
    }
    if initial.stage != .transferring || initial.durableBytes != offset
      || initial.transport != carriedBy
    {
      // A recording new to the journal is first written here (one commit, not two).
      try journalWrite { tx in
        var record =
          try tx.recording(serial: initial.serial, sessionId: initial.sessionId) ?? initial
        record.stage = .transferring
        record.durableBytes = offset
        record.transport = carriedBy
        try tx.save(record)
      }
    }
    try storage { () throws(StorageError) in try fileSystem.syncDirectory(parent(of: partPath)) }

    var receiver = makeReceiver(
      file: file, offset: offset, recording: recording, serial: initial.serial,
      computesCRC: transport.tailCarriesDeviceCRC)
    var firstMismatch: (start: Int64, ours: UInt16)?
    var reissues = 0
    var unverifiedRange = false

    while receiver.offset < size {
      let requestStart = receiver.offset
      receiver.beginRequest()
      let tail: SyncTail?
      do {
        let current = receiver
        tail = try await transport.stream(
          sessionId: recording.sessionId, start: UInt32(requestStart), end: UInt32(size)
        ) { frame in await current.receive(frame) }
      } catch {
        // The link went: keep every byte that arrived (the page cache has them; fsync).
        try? receiver.flush()
        try? checkpoint(initial, offset: receiver.durableOffset)
        report.bytesReceived += receiver.bytesReceived
        throw receiver.storageError.map(SyncError.storage) ?? .device(error)
      }
      if let error = receiver.storageError {
        try? checkpoint(initial, offset: receiver.durableOffset)
        report.bytesReceived += receiver.bytesReceived
        throw .storage(error)
      }
      try storage { () throws(StorageError) in try receiver.flush() }
      // A range that arrived whole and checked goes straight to `store`, whose commit says
      // more than a checkpoint would (were it to fail, the last checkpoint still holds).
      let complete =
        tail != nil && receiver.offset >= size
        && (!transport.tailCarriesDeviceCRC || tail?.crc == receiver.requestCRC)
      if !complete { try checkpoint(initial, offset: receiver.durableOffset) }
      guard let tail, receiver.offset >= size else {
        // Stopped on a gap or a bad frame, or the device ended early. No tail CRC covers
        // what this request delivered (a frame before the gap may be flipped too), so
        // those bytes are unconfirmed: read them again with the rest. Only a short range
        // whose tail CRC matches is kept. (Bytes that arrived before a link loss are kept
        // above without a CRC: re-reading them would double the cost of every drop; the
        // link layer's CRC-24 and the Opus framing check cover them.)
        reissues += 1
        report.reissues += 1
        guard reissues <= options.maximumReissues else {
          report.bytesReceived += receiver.bytesReceived
          throw .device(.timeout(operation: "transfer of \(recording.sessionId)"))
        }
        if transport.tailCarriesDeviceCRC, receiver.offset > requestStart,
          tail?.crc != receiver.requestCRC
        {
          report.bytesReceived += receiver.bytesReceived
          try checkpoint(initial, offset: requestStart)
          file.close()
          file = try storage { () throws(StorageError) in
            try fileSystem.openForAppend(partPath, truncatingTo: requestStart)
          }
          receiver = makeReceiver(
            file: file, offset: requestStart, recording: recording, serial: initial.serial,
            computesCRC: transport.tailCarriesDeviceCRC)
        }
        continue
      }
      // Without a device CRC (Wi-Fi) the whole range arrived in order over TCP, framed.
      guard transport.tailCarriesDeviceCRC, tail.crc != receiver.requestCRC else { continue }
      // CRC mismatch: read the range again; identical bytes that still disagree mean the
      // CRC's coverage differs from ours, not corruption: keep, mark unverified.
      if let first = firstMismatch, first.start == requestStart, first.ours == receiver.requestCRC {
        unverifiedRange = true
        continue
      }
      firstMismatch = (requestStart, receiver.requestCRC)
      reissues += 1
      report.reissues += 1
      guard reissues <= options.maximumReissues else {
        report.bytesReceived += receiver.bytesReceived
        throw .device(.timeout(operation: "transfer of \(recording.sessionId)"))
      }
      report.bytesReceived += receiver.bytesReceived
      try checkpoint(initial, offset: requestStart)
      file.close()
      file = try storage { () throws(StorageError) in
        try fileSystem.openForAppend(partPath, truncatingTo: requestStart)
      }
      receiver = makeReceiver(
        file: file, offset: requestStart, recording: recording, serial: initial.serial,
        computesCRC: transport.tailCarriesDeviceCRC)
    }
    report.bytesReceived += receiver.bytesReceived
    let verification: RecordingRecord.Verification = unverifiedRange ? .unverified : .verified
    return try store(
      initial, partPath: partPath, verification: verification, transport: carriedBy)
  }

  private func makeReceiver(
    file: any DurableFile, offset: Int64, recording: Recording, serial: String,
    computesCRC: Bool
  )
    -> RangeReceiver
  {
    let journal = self.journal
    return RangeReceiver(
      file: file, offset: offset, frameBytes: recording.bytesPerFrame, clock: clock,
      sessionId: recording.sessionId, size: Int64(recording.size),
      checkpointBytes: options.checkpointBytes, computesCRC: computesCRC,
      events: eventContinuation,
      onCheckpoint: { durable in
        // Journal each fsync'd checkpoint as it happens (a SIGKILL runs no catch block); a
        // failure here is retried by the next checkpoint and by the one when the stream ends.
        _ = try? journal.write { tx in
          try tx.update(serial: serial, sessionId: recording.sessionId) {
            $0.durableBytes = durable
          }
        }
      })
  }

  /// fsync'd bytes → journal, so a restart resumes there.
  private func checkpoint(_ record: RecordingRecord, offset: Int64) throws(SyncError) {
    try journalWrite { tx in
      try tx.update(serial: record.serial, sessionId: record.sessionId) { $0.durableBytes = offset }
    }
  }

  /// Hash, rename the partial file to its final raw name, fsync the directory, journal.
  private func store(
    _ record: RecordingRecord, partPath: String, verification: RecordingRecord.Verification,
    transport: String
  ) throws(SyncError) -> RecordingRecord {
    let release = clock.holdTime()
    defer { release() }
    let rawPath = self.rawPath(record)
    let digest = try storage { () throws(StorageError) in
      try fileSystem.syncFile(partPath)
      return try FileDigest.sha256Hex(ofFile: partPath)
    }
    try storage { () throws(StorageError) in
      try fileSystem.rename(partPath, to: rawPath)
      try fileSystem.syncDirectory(parent(of: rawPath))
    }
    let stored = try journalWrite { tx in
      try tx.update(serial: record.serial, sessionId: record.sessionId) {
        $0.stage = .stored
        $0.durableBytes = $0.size
        $0.verification = verification
        $0.sha256 = digest
        $0.rawPath = rawPath
        $0.transport = transport
      }
    }
    eventContinuation.yield(
      .fileStored(sessionId: record.sessionId, verified: verification == .verified))
    return stored
  }

  // MARK: - Export and delete

  /// Export (if asked and allowed), then delete the device copy (if asked and safe).
  private func finish(
    _ initial: RecordingRecord, recording: Recording, transport: any RecordingTransport,
    delete: Bool
  ) async -> Result<SyncReport.File, SyncError> {
    do throws(SyncError) {
      var record = initial
      let verified = record.verification == .verified
      if let format = options.format, record.stage < .exported, verified || options.exportUnverified
      {
        record = try export(record, format: format)
      }
      if delete, let deleted = try await deleteIfSafe(record, via: transport) {
        record = deleted
      }
      return .success(
        SyncReport.File(
          sessionId: record.sessionId, size: record.size, durationMs: recording.durationMs,
          verified: verified, exportPath: record.exportPath,
          deletedFromDevice: record.stage == .deletedFromDevice, transport: record.transport))
    } catch {
      return .failure(error)
    }
  }

  /// Runs beside the next file's transfer, so it does not hold the simulated clock: the
  /// radio keeps moving while the CPU encodes (invariant 4).
  private func export(_ record: RecordingRecord, format: ExportFormat) throws(SyncError)
    -> RecordingRecord
  {
    let name = "\(record.serial)-\(record.sessionId).\(format.fileExtension)"
    let finalPath = exportDirectory + "/" + name
    let temporary = exportDirectory + "/.partial-" + name
    guard let rawPath = record.rawPath else {
      throw .journal("recording \(record.sessionId) is stored without a raw path")
    }
    do {
      _ = try AudioExporter.export(
        from: rawPath, recordedChannels: record.channels, to: temporary,
        options: ExportOptions(format: format, channels: options.channels))
    } catch {
      throw .export(sessionId: record.sessionId, reason: "\(error)")
    }
    try storage { () throws(StorageError) in
      try fileSystem.syncFile(temporary)
      try fileSystem.rename(temporary, to: finalPath)
      try fileSystem.syncDirectory(exportDirectory)
    }
    let exported = try journalWrite { tx in
      try tx.update(serial: record.serial, sessionId: record.sessionId) {
        $0.stage = .exported
        $0.exportPath = finalPath
        $0.exportFormat = format.rawValue
      }
    }
    eventContinuation.yield(.fileExported(sessionId: record.sessionId, path: finalPath))
    return exported
  }

  // MARK: - Journal and paths

  /// The journal's record of `recording`, or a new one (not yet written: `transfer` writes
  /// it with its first step, so a new recording costs one commit less).
  private func load(_ recording: Recording, serial: String) throws(SyncError) -> RecordingRecord {
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
  private func reconcileDeletedOnDevice(serial: String, listed: Set<UInt32>) throws(SyncError) {
    try journalWrite { tx in
      // Only the few stored-but-not-deleted rows (indexed): not every row the device had.
      for record in try tx.recordings(serial: serial, at: [.stored, .exported])
      where !listed.contains(record.sessionId) && options.deleteFromDevice {
        var deleted = record
        deleted.stage = .deletedFromDevice
        try tx.save(deleted)
      }
    }
  }

  /// Exports interrupted mid-write leave `.partial-*` files: never under a final name.
  private func cleanUpStaleTemporaries() throws(SyncError) {
    for name in fileSystem.contents(of: exportDirectory) where name.hasPrefix(".partial-") {
      try storage { () throws(StorageError) in try fileSystem.remove(exportDirectory + "/" + name) }
    }
  }

  private func ensureDirectory(_ path: String) throws(SyncError) {
    try storage { () throws(StorageError) in try fileSystem.createDirectory(path) }
  }

  private var exportDirectory: String { options.exportDirectory ?? root + "/exports" }
  private func deviceDirectory(_ serial: String) -> String { root + "/" + serial }
  private func partPath(_ record: RecordingRecord) -> String {
    deviceDirectory(record.serial) + "/\(record.sessionId).part"
  }
  private func rawPath(_ record: RecordingRecord) -> String {
    deviceDirectory(record.serial) + "/\(record.sessionId).opus-raw"
  }

  private func storage<T>(_ body: () throws(StorageError) -> T) throws(SyncError) -> T {
    do { return try body() } catch { throw .storage(error) }
  }

  private func journalRead<T>(_ body: (JournalTransaction) throws -> T) throws(SyncError) -> T {
    do {
      return try journal.read(body)
    } catch {
      throw .journal("\(error)")
    }
  }

  private func journalWrite<T>(_ body: (JournalTransaction) throws -> T) throws(SyncError) -> T {
    do {
      return try journal.write(body)
    } catch let error as JournalError {
      throw .journal(error.description)
    } catch let error as StorageError {
      throw .storage(error)
    } catch {
      throw .journal("\(error)")
    }
  }
}
