import RecorderAudio
import RecorderBluetooth
import RecorderConcurrency
import RecorderProtocol
import RecorderStore

/// Where one recording stands in the journal: what a resumed sync starts from.
public struct RecordingCheckpoint: Sendable, Equatable {
  public var serial: String
  public var sessionId: SessionID
  public var size: Int64
  /// Where it stands in the journal (stages only move forward, in the order of
  /// `RecordingStage`'s cases).
  public var stage: RecordingStage
  /// Bytes fsync'd and journalled: a resumed transfer starts here (rounded to a frame).
  public var durableBytes: Int64
  /// SHA-256 of the stored raw bytes (from `stored` on).
  public var sha256: String?
  /// The latest export, ready to open.
  public var exportPath: String?
  /// The partial file a transfer appends to (exists while `transferring`).
  public var partialPath: String
}

/// One storage root (``StorageLayout``): the journal at `<root>/journal.sqlite` and the
/// device folders beside it. Makes ``SyncEngine``s that
/// share the journal, and answers where each recording stands.
public final class SyncWorkspace: Sendable {
  /// The storage root.
  public var root: String { layout.root }
  /// Where everything under the root goes.
  public let layout: StorageLayout
  let journal: Journal
  let fileSystem: any DurableFileSystem
  /// The user key that decrypts end-to-end encrypted recordings for export (its engines'
  /// `SyncEngine/Options/userKey` too); nil: such a recording cannot be exported.
  let userKey: ModeBCredentials?
  /// Recordings an export of this workspace is transferring now ("serial/id").
  private let transfers = Locked<Set<String>>([])

  /// Opens (creating if needed) the root and its journal; `userKey` decrypts end-to-end
  /// encrypted recordings when they are exported.
  public convenience init(root: String, userKey: ModeBCredentials? = nil) throws(SyncError) {
    try self.init(root: root, fileSystem: PosixFileSystem(), userKey: userKey)
  }

  /// A workspace whose file work goes through `fileSystem` (a decorator that cuts power, in
  /// tests).
  package init(
    root: String, fileSystem: any DurableFileSystem, userKey: ModeBCredentials? = nil
  ) throws(SyncError) {
    layout = StorageLayout(root: root)
    self.fileSystem = fileSystem
    self.userKey = userKey
    do {
      try fileSystem.createDirectory(root)
    } catch {
      throw .storage(error)
    }
    do {
      journal = try Journal(path: layout.journal)
    } catch {
      throw .journal(error.description)
    }
  }

  /// Takes `sessionId` of `serial` for one transfer; false when another holds it.
  func claimTransfer(serial: String, sessionId: SessionID) -> Bool {
    transfers.withLock { $0.insert("\(serial)/\(sessionId)").inserted }
  }

  /// Gives back what ``claimTransfer(serial:sessionId:)`` took.
  func releaseTransfer(serial: String, sessionId: SessionID) {
    _ = transfers.withLock { $0.remove("\(serial)/\(sessionId)") }
  }

  /// A sync engine on this root.
  /// - Parameters:
  ///   - format: export format, nil to keep the raw device bytes only.
  ///   - channels: output channels (nil: as recorded).
  ///   - exportDirectory: where exports go (nil: `<root>/exports`).
  ///   - deleteFromDevice: delete device copies once safe.
  ///   - exportPolicy: convert at once, or leave the conversions owed (``ExportPolicy``).
  ///   - clock: the engine's clock (timeouts, checkpoints, speed).
  package func makeEngine(
    format: ExportFormat?, channels: Int? = nil, exportDirectory: String? = nil,
    deleteFromDevice: Bool, exportPolicy: ExportPolicy = .convertImmediately, clock: AnyClock
  ) -> SyncEngine {
    var options = SyncEngine.Options()
    options.format = format
    options.exportPolicy = exportPolicy
    options.channels = channels
    options.exportDirectory = exportDirectory
    options.deleteFromDevice = deleteFromDevice
    options.userKey = userKey
    return SyncEngine(
      journal: journal, fileSystem: fileSystem, root: root, options: options, clock: clock)
  }

  /// Every recording the journal knows for `serial`, by session id.
  public func checkpoints(serial: String) throws(SyncError) -> [RecordingCheckpoint] {
    let records: [RecordingRecord]
    do {
      records = try journal.read { try $0.recordings(serial: serial) }
    } catch {
      throw .journal("\(error)")
    }
    return records.sorted { $0.sessionId < $1.sessionId }.map { record in
      RecordingCheckpoint(
        serial: record.serial, sessionId: record.session, size: record.size,
        stage: record.stage,
        durableBytes: record.durableBytes, sha256: record.sha256,
        exportPath: record.exportPath.map(layout.resolved),
        partialPath: layout.partial(
          serial: record.serial, sessionId: record.session, generation: record.generation))
    }
  }

  /// The raw copy of recording `sessionId` of `serial` (the device's bytes, as moved), when
  /// the journal holds it stored and the file on disk is the one it vouches for (its size
  /// and SHA-256); nil otherwise.
  public func storedCopy(serial: String, sessionId: SessionID) throws(SyncError) -> String? {
    let record: RecordingRecord?
    do {
      record = try journal.read { try $0.recording(serial: serial, sessionId: sessionId) }
    } catch {
      throw .journal("\(error)")
    }
    guard let record, record.stage >= .stored, let rawPath = record.rawPath else { return nil }
    let writer = ExportWriter(
      journal: journal, fileSystem: fileSystem, layout: layout, userKey: userKey)
    return writer.holdsRawCopy(record) ? layout.resolved(rawPath) : nil
  }

  /// Records that the app deleted `sessionId` from the device itself (the vendor's
  /// `deleteFile`), so a later sync does not wait for it. Unknown recordings are ignored.
  package func noteDeletedOnDevice(serial: String, sessionId: SessionID) throws(SyncError) {
    do {
      try journal.write { tx in
        guard var record = try tx.recording(serial: serial, sessionId: sessionId),
          record.stage >= .stored
        else { return }
        record.stage = .deletedFromDevice
        try tx.save(record)
      }
    } catch {
      throw .journal("\(error)")
    }
  }
}
