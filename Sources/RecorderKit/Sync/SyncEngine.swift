import Foundation
import RecorderAudio
import RecorderConcurrency
import RecorderCrypto
import RecorderProtocol
import RecorderStore

/// The one pipeline every recording goes through (DESIGN.md "One pipeline per recording"),
/// whichever door asked (the CLI's sync and watch, a single export, a Wi-Fi download-all, a
/// background wake-up) and whichever transport carries it (BLE, Wi-Fi, a USB volume): each
/// door configures it with one value (``Options``) and reads one event stream (``events``).
///
/// Per recording, oldest first: **list** (one LIST, the recording in progress left alone) →
/// **plan** (the journal's record brought in line with what the device lists,
/// `SyncEngine+Reconcile`) → **transfer** (one SYNC_START for the whole remaining range, into
/// `<root>/<serial>/<id>.part`, fsync and journal at checkpoints, resumed from the durable
/// offset) → **store** (verify, fsync, hash, atomic rename to `<id>.opus-raw`, fsync the
/// directory, journal `stored`) → **finish**, in order: the export step (``ExportWriter``: at
/// once, or deferred to ``SyncWorkspace/convertPending(shouldStop:converted:)``), the finish
/// steps owed in the same transaction (``FinishStep``: run apart, ``finishOwedSteps()``), and
/// the DELETE on the device (`SyncEngine+Delete`: only bytes this run proved to be the
/// device's copy, stored, verified and exported as asked). The journal (`Journal`) is the only
/// judge of "safe"; re-running after any interruption resumes from it.
///
/// The finish runs one file behind the transfers, so the radio moves the next file while the
/// previous one is exported (invariant 4).
public actor SyncEngine {
  /// What to do with each recording.
  public struct Options: Sendable {
    /// Export format, or nil to keep only the raw device bytes.
    public var format: ExportFormat? = .mp3
    /// When the export in ``format`` is made (``ExportPolicy``): at once, one file behind the
    /// transfers (the default), or later, from the kept raw copy, by
    /// ``SyncWorkspace/convertPending(shouldStop:converted:)``.
    public var exportPolicy: ExportPolicy = .convertImmediately
    /// Output channels (nil = as recorded).
    public var channels: Int?
    /// Delete the device copy once safe (the vendor's recipe does).
    public var deleteFromDevice = true
    /// Export files whose CRC never matched (kept and never deleted either way).
    public var exportUnverified = false
    /// Bytes between fsync checkpoints of a partial file.
    public var checkpointBytes: Int64 = 256 * 1024
    /// Re-issues in a row that bring no new byte before a file is given up for this run.
    public var maximumReissues = 20
    /// Longest time a transfer may go without a new durable byte (invariant 9).
    public var noProgressTimeout: Duration = .seconds(60)
    /// Re-read every byte range that only the framing checks covered, as its own ranged
    /// request with its own tail CRC, before the file is stored; and delete from the device
    /// only files the device's CRC covered throughout.
    public var strictVerify = false
    /// Delete from the device files whose bytes were "verified by agreement": read twice
    /// identically while the device's CRC matched no coverage we know (PROTOCOL.md §10).
    public var trustAgreement = false
    /// Where exports go (default `<root>/exports`).
    public var exportDirectory: String?
    /// The user's key for recordings the device stores end-to-end encrypted (PROTOCOL.md
    /// §9): they are decrypted as they are exported (the raw copy stays as the device sent
    /// it). nil: such a recording is kept raw and its export fails with a typed reason.
    public var userKey: ModeBCredentials?
    /// The lock its caller holds on the root (``FolderLock``), checked (``FolderLock/check()``)
    /// before every device DELETE: a lock that no longer guards the root stops the run with
    /// ``SyncError/folderLockLost(_:)`` and nothing is deleted. nil: no check.
    package var folderLock: FolderLock?
    /// Runs that may give one recording up (``SyncReport/GivenUp``) before later runs stop
    /// trying it; a recording the device lists with another size counts from zero again.
    public var maximumGiveUps = 3
    /// Seeds where the windows that prove a held copy against the device fall
    /// (``DeviceCopyProof``); nil: a fresh seed for each engine.
    package var proofSeed: UInt64?
    /// The steps each stored recording is owed after its export, in order (``FinishStep``):
    /// journaled before its device copy may be deleted, run apart from the transfers (never
    /// delaying a DELETE), each completed once. ``SyncEngine/finishOwedSteps()`` waits for
    /// them.
    public var finishSteps: [any FinishStep] = []
    /// How failed finish steps are tried again.
    public var finishStepPolicy = FinishStepPolicy()
    public init() {}
  }

  let journal: Journal
  let fileSystem: any DurableFileSystem
  let root: String
  /// How the journal spells paths: relative to `root`, so another spelling of it works too.
  let paths: StorageLayout
  let options: Options
  let clock: AnyClock
  package let eventSink: SyncEventSink
  /// Progress, in order. Single consumer; finishes when the engine is released.
  public nonisolated let events: AsyncStream<SyncEvent>
  /// What the last run that threw had done before it stopped (files finished, bytes moved),
  /// so a caller that resumes can report every file, including those the device no longer
  /// lists; nil after a run that completed.
  package internal(set) var interruptedReport: SyncReport?
  /// Every recording any run of this engine saw listed, by device.
  var listedByDevice: [String: Set<SessionID>] = [:]
  /// Recordings whose local bytes this run proved to be the device's copy (transferred by
  /// it, or matched by ``DeviceCopyProof``): the only ones a DELETE may name. A run is the
  /// engine's life, or since ``beginRun()`` (the front door's attempts at one sync, which
  /// reconnect to the recorder with the same serial and resume).
  var proven: Set<SessionID> = []
  /// Recordings given up since ``beginRun()``: not tried again in that run.
  var givenUpThisRun: Set<SessionID> = []
  /// Earlier generations this engine retired (``JournalTransaction/retire(_:reason:)``), by
  /// device, for the summary.
  var retiredByDevice: [String: Set<SessionID>] = [:]
  /// Ids whose earlier generation the running sync retired: its report names both.
  var retiredThisSync: Set<SessionID> = []
  /// Where the proof windows fall.
  var proofRandom: SplitMix64
  /// Runs the finish steps the journal owes; made at first use.
  var stepRunner: FinishStepRunner?
  /// The firmware each device reported in this engine's life, for the finish steps.
  var firmwareBySerial: [String: String] = [:]

  /// An engine over `journal`, keeping recordings and exports under `root`.
  public init(
    journal: Journal, root: String, options: Options = Options(), clock: AnyClock = .continuous
  ) {
    self.init(
      journal: journal, fileSystem: PosixFileSystem(), root: root, options: options, clock: clock)
  }

  /// An engine whose file work goes through `fileSystem` (a decorator that cuts power, in
  /// tests).
  package init(
    journal: Journal, fileSystem: any DurableFileSystem, root: String,
    options: Options = Options(), clock: AnyClock = .continuous
  ) {
    self.journal = journal
    self.fileSystem = fileSystem
    self.root = root
    paths = StorageLayout(root: root)
    self.options = options
    self.clock = clock
    proofRandom = SplitMix64(seed: options.proofSeed ?? UInt64.random(in: .min ... .max))
    (events, eventSink) = SyncEventSink.make()
  }

  /// Starts a run (the front door's ``Recorders/runSync(serial:into:options:report:)``, one
  /// sync of a watch): a recording given up in an earlier run may be tried again.
  package func beginRun() async {
    givenUpThisRun = []
    proven = []
    await stepRunner?.beginRun()
  }

  deinit { eventSink.finish() }

  /// Syncs everything `transport` lists. Throws on the first failure that stops the run (a
  /// disconnect, a full disk); whatever was made durable stays, and the next run resumes.
  /// - Parameter listing: what the device listed and the recording in progress, when the
  ///   caller asked it over the same connection just before (planning Wi-Fi): not asked
  ///   again.
  package func sync(
    using transport: any RecordingTransport,
    listing: (recordings: [Recording], inProgress: SessionID?)? = nil
  ) async throws(SyncError) -> SyncReport {
    // The serial names a folder and export files: a hostile one must not reach a path.
    let serial = try DeviceFolderName.serial(await transport.serial)
    var report = SyncReport()
    retiredThisSync = []
    if let firmware = await transport.firmware { firmwareBySerial[serial] = firmware }
    let listed: [Recording]
    let inProgress: SessionID?
    if let listing {
      (listed, inProgress) = listing
    } else {
      do {
        listed = try await transport.listRecordings()
        inProgress = try await transport.recordingInProgress()
      } catch {
        throw .device(error)
      }
    }
    try ensureDirectory(deviceDirectory(serial))
    try ensureDirectory(exportDirectory)
    // Exports interrupted mid-write leave temporaries (never under a final name); those of
    // exports still running stay. A run that exports nothing leaves the folder to the
    // export that will (`SyncWorkspace`'s sweeps its own folder).
    if options.format != nil {
      ExportTemporary.removeStale(in: exportDirectory, fileSystem: fileSystem)
    }
    let (recordings, contradictory) = Self.deduplicated(listed)
    listedByDevice[serial, default: []].formUnion(recordings.map(\.sessionId))
    for sessionId in contradictory.sorted() {
      report.skippedContradictory.append(sessionId)
      eventSink.yield(
        .fileSkipped(sessionId: sessionId, reason: "listed twice with different sizes"))
    }
    eventSink.yield(
      .listed(files: recordings.count, bytes: recordings.reduce(0) { $0 + Int64($1.size) }))
    try reconcileDeletedOnDevice(serial: serial, listed: Set(recordings.map(\.sessionId)))
    // Steps an earlier run left owed go on beside this run's transfers.
    if !options.finishSteps.isEmpty { await steps().wake() }

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
    report.files += try earlierGenerationFiles(serial: serial, ids: retiredThisSync)
    report.files.sort { $0.key < $1.key }
    return report
  }

  /// The finish of one recording the journal already holds stored, without the device:
  /// its export and finish steps as this engine's options say; nothing is deleted. Nil when
  /// the journal holds no stored copy of it.
  package func finishStored(serial: String, sessionId: SessionID) async throws(SyncError)
    -> SyncReport.File?
  {
    guard
      let record = try journalRead({ tx in try tx.recording(serial: serial, sessionId: sessionId) }
      ),
      record.stage >= .stored
    else { return nil }
    return try await finish(record, transport: nil, delete: false).get()
  }

  /// Bytes of listed recordings not yet stored locally (the durable part of a partial file
  /// does not count), leaving out the one still being recorded.
  package func bytesToMove(_ listed: [Recording], serial: String, skipping inProgress: SessionID?)
    throws(SyncError) -> Int64
  {
    let records: [SessionID: RecordingRecord]
    do {
      records = try journal.read { tx in
        Dictionary(
          try tx.recordings(serial: serial).map { ($0.session, $0) },
          uniquingKeysWith: { a, _ in a })
      }
    } catch {
      throw .journal("\(error)")
    }
    return listed.reduce(0) { total, recording in
      guard recording.sessionId != inProgress else { return total }
      guard let record = records[recording.sessionId] else { return total + Int64(recording.size) }
      guard record.stage < .stored else { return total }
      return total + max(0, Int64(recording.size) - record.durableBytes)
    }
  }

  /// Forgets what an interrupted run had done (a caller about to merge only what its next
  /// run finishes).
  package func clearInterruptedReport() { interruptedReport = nil }

  /// The outcome of a file's export and delete. If the sync is cancelled meanwhile (the
  /// background budget expired), the export is cancelled too: it stops within a second of
  /// audio, removes its partial output, and the journal resumes it on the next run.
  static func finished(_ task: Task<Result<SyncReport.File, SyncError>, Never>) async
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
  func syncListed(
    _ recordings: [Recording], inProgress: SessionID?, serial: String,
    via transport: any RecordingTransport, report: inout SyncReport,
    pendingFinish: inout Task<Result<SyncReport.File, SyncError>, Never>?, done: inout Int
  ) async throws(SyncError) {
    for recording in recordings {
      if Task.isCancelled { break }
      if recording.sessionId == inProgress {
        report.skippedInProgress.append(recording.sessionId)
        eventSink.yield(
          .fileSkipped(sessionId: recording.sessionId, reason: "still recording"))
        continue
      }
      if recording.size == 0 {
        report.skippedEmpty.append(recording.sessionId)
        eventSink.yield(
          .fileSkipped(sessionId: recording.sessionId, reason: "listed with 0 bytes"))
        continue
      }
      let loaded = try load(recording, serial: serial)
      if givenUpThisRun.contains(recording.sessionId) {
        report.givenUp.append(
          SyncReport.GivenUp(
            sessionId: recording.sessionId, size: Int64(recording.size),
            reason: loaded.giveUpReason ?? "", runs: loaded.giveUps, notTried: true))
        continue
      }
      var record = try await reconciled(loaded, listed: recording, via: transport)
      if record.giveUps >= options.maximumGiveUps, record.stage < .stored {
        report.givenUp.append(
          SyncReport.GivenUp(
            sessionId: recording.sessionId, size: Int64(recording.size),
            reason: record.giveUpReason ?? "", runs: record.giveUps, notTried: true))
        eventSink.yield(
          .fileSkipped(
            sessionId: recording.sessionId,
            reason: "given up by \(record.giveUps) runs; kept on the device"))
        continue
      }
      if record.stage < .stored, let damage = await transport.damage(of: recording.sessionId) {
        try giveUp(recording, serial: serial, reason: damage, report: &report)
        continue
      }
      if record.stage < .stored {
        do throws(SyncError) {
          record = try await transfer(recording, record: record, via: transport, report: &report)
        } catch .recordingUnreadable(_, let reason) {
          try giveUp(recording, serial: serial, reason: reason, report: &report)
          continue
        }
      }
      // Finish the previous file (export, delete) before starting this one's: one behind.
      if let previous = pendingFinish {
        pendingFinish = nil
        try await collect(previous, into: &report, serial: serial)
        done += 1
        eventSink.yield(.overall(done: done, total: recordings.count))
      }
      let stored = record
      let deleteNow = !transport.deletesOnlyAfterBatch
      pendingFinish = Task {
        await self.finish(stored, transport: transport, delete: deleteNow)
      }
    }
    if let previous = pendingFinish {
      try await collect(previous, into: &report, serial: serial)
      pendingFinish = nil
      done += 1
      eventSink.yield(.overall(done: done, total: recordings.count))
    }
    if transport.deletesOnlyAfterBatch, !Task.isCancelled {
      try await deleteAfterBatch(report: &report, serial: serial, via: transport)
    }
  }

  /// The outcome of the previous file's export and delete, added to `report`: a recording
  /// whose export cannot be made is given up for the run, any other failure stops it.
  func collect(
    _ task: Task<Result<SyncReport.File, SyncError>, Never>, into report: inout SyncReport,
    serial: String
  ) async throws(SyncError) {
    switch await Self.finished(task) {
    case .success(let file): report.files.append(file)
    case .failure(.export(let sessionId, let reason)) where !Task.isCancelled:
      // (An export the sync's cancellation stopped is no failure of the recording's.)
      guard
        let record = try journalRead({ tx in
          try tx.recording(serial: serial, sessionId: sessionId.rawValue)
        })
      else { throw .export(sessionId: sessionId, reason: reason) }
      let listed = Recording(
        sessionId: sessionId, size: UInt32(clamping: record.size), scene: nil, attribute: nil,
        channels: record.channels)
      try giveUp(listed, serial: serial, reason: "export failed: \(reason)", report: &report)
    case .failure(let error): throw error
    }
  }

  /// Gives `recording` up for this run: journaled with its reason, reported, kept on the
  /// device; the sync goes on with the next recording.
  func giveUp(
    _ recording: Recording, serial: String, reason: String, report: inout SyncReport
  ) throws(SyncError) {
    givenUpThisRun.insert(recording.sessionId)
    let record = try journalWrite { tx in
      var record =
        try tx.recording(serial: serial, sessionId: recording.sessionId.rawValue)
        ?? RecordingRecord(
          serial: serial, sessionId: recording.sessionId.rawValue, size: Int64(recording.size),
          channels: recording.channels, scene: recording.scene.map(Int.init))
      record.giveUps += 1
      record.giveUpReason = reason
      try tx.save(record)
      return record
    }
    report.givenUp.append(
      SyncReport.GivenUp(
        sessionId: recording.sessionId, size: Int64(recording.size), reason: reason,
        runs: record.giveUps, notTried: false))
    eventSink.yield(
      .fileSkipped(sessionId: recording.sessionId, reason: "given up for this run: \(reason)"))
  }

  // MARK: - Transfer

  /// Transfers the rest of `recording` (`RecordingTransfer`) and stores it; returns the
  /// journal record, `stored`.
  func transfer(
    _ recording: Recording, record held: RecordingRecord, via transport: any RecordingTransport,
    report: inout SyncReport
  ) async throws(SyncError) -> RecordingRecord {
    var initial = held
    // Bytes an earlier connection left in the partial file are the device's only if they
    // match it now: otherwise the file starts over.
    let heldBytes = min(held.durableBytes, fileSystem.size(of: partPath(held)) ?? 0)
    if heldBytes > 0, !proven.contains(recording.sessionId) {
      let verdict = try await DeviceCopyProof(
        transport: transport, sessionId: recording.sessionId, fileSystem: fileSystem
      ).check(
        localPath: partPath(held),
        windows: DeviceCopyProof.windows(held: heldBytes, random: &proofRandom))
      if verdict != .same {
        initial = try startOver(held, size: Int64(recording.size))
      }
    }
    // From here every byte the partial file gains comes from the device in this run.
    proven.insert(recording.sessionId)
    let transfer = RecordingTransfer(
      recording: recording, initial: initial, partPath: partPath(initial), transport: transport,
      firmware: await transport.firmware, fileSystem: fileSystem, journal: journal, clock: clock,
      policy: RecordingTransfer.Policy(
        checkpointBytes: options.checkpointBytes, maximumIdleReissues: options.maximumReissues,
        noProgressTimeout: options.noProgressTimeout, strictVerify: options.strictVerify),
      events: eventSink)
    let outcome = try await transfer.run(report: &report)
    return try store(
      initial, partPath: partPath(initial), checked: outcome.checked,
      transport: outcome.carriedBy.description)
  }

  /// Hash, rename the partial file to its final raw name, fsync the directory, journal.
  func store(
    _ record: RecordingRecord, partPath: String, checked: CheckedRanges, transport: String
  ) throws(SyncError) -> RecordingRecord {
    var verification = RecordingRecord.Verification(checked.weakestLevel(upTo: record.size))
    // Ogg pages were checked one by one as they came; the stream as a whole (OpusHead,
    // OpusTags, every packet the device's shape) is checked here. A stream that does not
    // hold together is kept, but never counts as verified (so it stays on the device).
    if Self.isOgg(partPath),
      (try? AudioExporter.frameCount(ofRecordingAt: partPath, recordedChannels: record.channels))
        == nil
    {
      verification = .unverified
    }
    let rawPath = self.rawPath(record)
    let digest = try storage { () throws(StorageError) in
      try fileSystem.syncFile(partPath)
      return try fileSystem.sha256Hex(of: partPath)
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
        $0.checked = checked
        $0.sha256 = digest
        $0.rawPath = paths.stored(rawPath)
        $0.transport = transport
      }
    }
    eventSink.yield(
      .fileStored(sessionId: record.session, verified: isAccepted(verification)))
    return stored
  }

  // MARK: - Export and delete

  /// Export (if asked and allowed), then delete the device copy (if asked and safe).
  func finish(
    _ initial: RecordingRecord, transport: (any RecordingTransport)?, delete: Bool
  ) async -> Result<SyncReport.File, SyncError> {
    do throws(SyncError) {
      var record = initial
      let verified = isAccepted(record.verification)
      if verified || options.exportUnverified, let transport {
        try deliverCompanions(of: record, from: transport)
      }
      // The finish steps are owed (journaled) before the DELETE, so a kill after it still
      // runs them: in the export's own transaction when there is one.
      let steps =
        verified || options.exportUnverified ? options.finishSteps.map(\.name) : []
      var stepsOwed = steps.isEmpty
      // Exports are per format: one made earlier in another format does not count.
      if let format = options.format, verified || options.exportUnverified,
        !(try exportStillThere(record))
      {
        // Only a verified copy is owed a conversion later: an unverified one stays on the
        // device, so nothing is gained by waiting.
        if options.exportPolicy == .deferConversion, verified {
          try deferConversion(of: record, format: format, owing: steps)
        } else {
          record = try export(record, format: format, owing: steps)
        }
        stepsOwed = true
      }
      if !stepsOwed {
        let owed = record
        try journalWrite { tx in
          try tx.oweFinishSteps(
            serial: owed.serial, sessionId: owed.sessionId, generation: owed.generation,
            steps: steps)
        }
      }
      if delete, let transport, let deleted = try await deleteIfSafe(record, via: transport) {
        record = deleted
      }
      // Run apart from the transfers, so they never hold a DELETE up.
      if !steps.isEmpty { await self.steps().wake() }
      let exportPath =
        if let format = options.format {
          try exportPath(of: record, format: format)
        } else {
          record.exportPath.map(paths.resolved)
        }
      var owed = false
      if exportPath == nil { owed = try conversionOwed(record) }
      return .success(
        SyncReport.File(
          sessionId: record.session, size: record.size, durationMs: durationMs(of: record),
          verified: verified, exportPath: exportPath,
          deletedFromDevice: record.stage == .deletedFromDevice, transport: record.transport,
          conversionPending: owed, generation: record.generation))
    } catch {
      return .failure(error)
    }
  }

  /// The export of `record` in `format`, ready to open, if the journal has one.
  func exportPath(of record: RecordingRecord, format: ExportFormat) throws(SyncError)
    -> String?
  {
    try journalRead { tx in
      try tx.exportPath(serial: record.serial, sessionId: record.sessionId, format: format.rawValue)
    }.map(paths.resolved)
  }

  func ensureDirectory(_ path: String) throws(SyncError) {
    try storage { () throws(StorageError) in try fileSystem.createDirectory(path) }
  }

  var exportDirectory: String { options.exportDirectory ?? paths.exports }
  func deviceDirectory(_ serial: String) -> String {
    paths.deviceDirectory(serial: serial)
  }
  func partPath(_ record: RecordingRecord) -> String {
    paths.partial(serial: record.serial, sessionId: record.session, generation: record.generation)
  }
  /// The duration of a stored recording: from the pages of an Ogg file (its last granule
  /// position; the whole stream was checked once, when it was stored), also inside an E2EE
  /// file when the user key opens it, else from the size of its audio
  /// (`audio / (80 × channels) × 20`), where `audio` leaves out the 512-byte header of an
  /// end-to-end encrypted file (PROTOCOL.md §5: the LIST size includes it).
  func durationMs(of record: RecordingRecord) -> Int {
    let path = record.rawPath.map(paths.resolved) ?? rawPath(record)
    if let duration = AudioExporter.oggDurationMs(ofRecordingAt: path) { return duration }
    guard E2EEFile.isEncrypted(path: path) else {
      return Int(record.size) / (80 * max(1, record.channels)) * 20
    }
    if let key = try? options.userKey?.userKey(),
      let duration = E2EEFile.oggDurationMs(ofEncrypted: path, userKey: key)
    {
      return duration
    }
    let audio = max(0, record.size - Int64(E2EEFileHeader.length))
    return Int(audio) / (80 * max(1, record.channels)) * 20
  }

  /// Whether the file at `path` starts with Ogg's capture pattern (never raw device audio,
  /// whose first byte is the TOC, nor an E2EE file, whose magic differs).
  static func isOgg(_ path: String) -> Bool {
    guard let handle = FileHandle(forReadingAtPath: path) else { return false }
    defer { try? handle.close() }
    return (try? handle.read(upToCount: 4)).map(Array.init) == Array("OggS".utf8)
  }

  func rawPath(_ record: RecordingRecord) -> String {
    paths.raw(serial: record.serial, sessionId: record.session, generation: record.generation)
  }

  func storage<T>(_ body: () throws(StorageError) -> T) throws(SyncError) -> T {
    try storageStep(body)
  }

  func journalRead<T>(_ body: (JournalTransaction) throws -> T) throws(SyncError) -> T {
    do {
      return try journal.read(body)
    } catch {
      throw .journal("\(error)")
    }
  }

  func journalWrite<T>(_ body: (JournalTransaction) throws -> T) throws(SyncError) -> T {
    try writeJournal(journal, body)
  }
}

extension RecordingRecord.Verification {
  /// Whether a stored file checked this well counts as good: exported, and reported as
  /// checked. The device's CRC, the framing checks and agreement do; a legacy "unverified"
  /// (a CRC that disagreed) and "pending" do not.
  var permitsExport: Bool {
    switch self {
    case .verified, .framing, .agreement: true
    case .pending, .unverified: false
    }
  }
}
