import RecorderConcurrency
import RecorderProtocol

/// Progress of a sync, as it happens.
public enum SyncEvent: Sendable, Equatable {
  /// The device's list: recordings to consider and their bytes.
  case listed(files: Int, bytes: Int64)
  /// A file's transfer progress (0–1), speed in bytes per second of the sync's clock, and
  /// the estimated time left for this file.
  case fileProgress(
    sessionId: SessionID, fraction: Double, bytes: Int64, bytesPerSecond: Double, eta: Duration?)
  /// Every byte is durable and renamed to its final raw name.
  case fileStored(sessionId: SessionID, verified: Bool)
  /// The export is in place.
  case fileExported(sessionId: SessionID, path: String)
  /// The device copy was deleted.
  case fileDeleted(sessionId: SessionID)
  /// The file was left alone this time, with the reason.
  case fileSkipped(sessionId: SessionID, reason: String)
  /// Files fully handled so far, of the total.
  case overall(done: Int, total: Int)
  /// A finish step (``FinishStep``) completed for the recording; journaled, never run again.
  case stepDone(sessionId: SessionID, step: String)
  /// An attempt at a finish step failed; `willRetry` says whether this run tries again
  /// (after a backoff). Either way it stays owed until it completes.
  case stepFailed(sessionId: SessionID, step: String, reason: String, willRetry: Bool)
}

/// What a sync run did.
public struct SyncReport: Sendable, Equatable {
  /// Per-file outcome.
  public struct File: Sendable, Equatable {
    public var sessionId: SessionID
    public var size: Int64
    public var durationMs: Int
    public var verified: Bool
    public var exportPath: String?
    public var deletedFromDevice: Bool
    public var transport: String?
    /// The export was deferred (``ExportPolicy/deferConversion``) and is still owed:
    /// ``exportPath`` is nil until ``SyncWorkspace/convertPending(shouldStop:converted:)``
    /// makes it.
    public var conversionPending = false
    /// Which recording under ``sessionId``: 0 for the first, one more for each later
    /// recording the device listed under the same id with other bytes
    /// (`RecordingRecord.generation`); each has exports of its own.
    public var generation = 0

    /// The file's place in a report: its session id, then its generation.
    package var key: FileKey { FileKey(sessionId: sessionId, generation: generation) }
  }

  /// A file's session id and generation, in that order.
  package struct FileKey: Hashable, Comparable, Sendable {
    var sessionId: SessionID
    var generation: Int
    package static func < (lhs: FileKey, rhs: FileKey) -> Bool {
      (lhs.sessionId, lhs.generation) < (rhs.sessionId, rhs.generation)
    }
  }
  /// A recording given up for the run: its bytes could not be taken from the device (the
  /// same damaged data again and again) or its export could not be made. It stays on the
  /// device and in the journal with its reason; later runs try it again, up to
  /// ``SyncEngine/Options/maximumGiveUps`` runs in all while the device lists it unchanged.
  public struct GivenUp: Sendable, Equatable {
    public var sessionId: SessionID
    /// The size the device lists.
    public var size: Int64
    public var reason: String
    /// Runs that have given it up, this one included.
    public var runs: Int
    /// True when this sync did not try it: earlier runs gave it up
    /// ``SyncEngine/Options/maximumGiveUps`` times, or an earlier attempt of this run did.
    public var notTried: Bool
  }
  public var files: [File] = []
  /// Recordings given up for this run (kept on the device), oldest first.
  public var givenUp: [GivenUp] = []
  /// File bytes moved over the link in this run (including re-sends).
  public var bytesReceived: Int64 = 0
  /// Re-issued requests (gap, corruption, CRC re-read).
  public var reissues = 0
  /// Files left on the device because they were still being recorded.
  public var skippedInProgress: [SessionID] = []
  /// Session ids the device listed twice with different sizes: left alone this run.
  public var skippedContradictory: [SessionID] = []
  /// Session ids listed with 0 bytes: nothing to keep, so nothing to delete on that word
  /// (a device that lists a recording short must not get it deleted unread).
  public var skippedEmpty: [SessionID] = []
  /// Why Wi-Fi was not used, or stopped part-way, when it was asked for (the rest went over
  /// BLE); nil when Wi-Fi carried the backlog or was not asked for.
  public var wifiFallback: DeviceError?

  package init() {}

  /// Folds in `later`, a later attempt of the same run (the one report merge): its files win
  /// by session id and generation, a recording it tried and gave up wins over one it only
  /// reported not tried, its bytes and re-issues add, and its skip lists and Wi-Fi fallback
  /// are the run's now. Files stay in session id order, given-up recordings too.
  public mutating func absorb(_ later: SyncReport) {
    absorb(files: later)
    skippedInProgress = later.skippedInProgress
    skippedContradictory = later.skippedContradictory
    skippedEmpty = later.skippedEmpty
    wifiFallback = later.wifiFallback
  }

  /// ``absorb(_:)`` of what an interrupted attempt finished: its files, given-up recordings,
  /// bytes and re-issues (its skip lists say nothing of the run).
  package mutating func absorb(files later: SyncReport) {
    var byKey = Dictionary(files.map { ($0.key, $0) }, uniquingKeysWith: { $1 })
    for file in later.files { byKey[file.key] = file }
    files = byKey.values.sorted { $0.key < $1.key }
    var givenUpById = Dictionary(givenUp.map { ($0.sessionId, $0) }, uniquingKeysWith: { $1 })
    for file in later.givenUp {
      // An attempt that tried it wins over a later one that skipped it.
      if file.notTried, let earlier = givenUpById[file.sessionId], !earlier.notTried { continue }
      givenUpById[file.sessionId] = file
    }
    givenUp = givenUpById.values.sorted { $0.sessionId < $1.sessionId }
    bytesReceived += later.bytesReceived
    reissues += later.reissues
  }
}

/// Why a sync stopped early.
public enum SyncError: Error, Sendable, Equatable, CustomStringConvertible {
  case device(DeviceError)
  case storage(StorageError)
  case journal(String)
  case export(sessionId: SessionID, reason: String)
  case cancelled
  /// The device's serial is not a safe folder name (`DeviceFolderName`): shown quoted and
  /// escaped. Nothing was written and nothing is deleted from such a device.
  case unsafeSerial(String)
  /// The lock on the sync's root (`<root>/sync.lock`, ``StorageLayout/lock``, held by a
  /// gateway such as `recorder sync`) no longer guards it, so another sync may be using the
  /// folder: nothing more is deleted from the device. The reason, in words.
  case folderLockLost(String)
  /// The device's bytes of one recording could not be taken: the same damaged data at the
  /// same place on every read, or no new byte for the no-progress bound. The sync gives
  /// that recording up for the run (``SyncReport/givenUp``) and goes on with the next.
  case recordingUnreadable(sessionId: SessionID, reason: String)

  public var description: String {
    switch self {
    case .device(let error): "device: \(error)"
    case .storage(let error): "storage: \(error)"
    case .journal(let text): "journal: \(text)"
    case .export(let sessionId, let reason): "export of \(sessionId) failed: \(reason)"
    case .cancelled: "sync cancelled"
    case .unsafeSerial(let shown):
      "the device reports serial \(shown), which is not 1-32 ASCII letters and digits: "
        + "refusing to use it as a folder name"
    case .folderLockLost(let reason): "\(reason); nothing more is deleted from the device"
    case .recordingUnreadable(let sessionId, let reason):
      "recording \(sessionId) could not be read from the device: \(reason)"
    }
  }
}

/// Where the pipeline's events go: the engine's own stream (``SyncEngine/events``) and every
/// tap a door holds for the run it drives (``Recorders/sync(serial:into:options:)`` forwards
/// them as ``SyncRunEvent/pipeline(_:)``), so a door reads one stream.
package struct SyncEventSink: Sendable {
  private let continuation: AsyncStream<SyncEvent>.Continuation
  private let taps = Locked<[UInt64: @Sendable (SyncEvent) -> Void]>([:])
  private let nextTap = Locked<UInt64>(0)

  /// A sink and the stream it feeds. The stream keeps the newest 4,096 events nobody read
  /// (a door that reads a tap instead leaves it unread: bounded, not growing).
  static func make() -> (AsyncStream<SyncEvent>, SyncEventSink) {
    let (stream, continuation) = AsyncStream.makeStream(
      of: SyncEvent.self, bufferingPolicy: .bufferingNewest(4096))
    return (stream, SyncEventSink(continuation: continuation))
  }

  private init(continuation: AsyncStream<SyncEvent>.Continuation) {
    self.continuation = continuation
  }

  func yield(_ event: SyncEvent) {
    continuation.yield(event)
    for tap in taps.withLock({ Array($0.values) }) { tap(event) }
  }

  func finish() { continuation.finish() }

  /// Starts telling `body` every event, until ``removeTap(_:)`` with the answer.
  package func addTap(_ body: @escaping @Sendable (SyncEvent) -> Void) -> UInt64 {
    let id = nextTap.withLock { next in
      defer { next += 1 }
      return next
    }
    taps.withLock { $0[id] = body }
    return id
  }

  package func removeTap(_ id: UInt64) { _ = taps.withLock { $0.removeValue(forKey: id) } }
}
