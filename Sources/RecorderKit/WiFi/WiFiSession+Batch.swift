import RecorderConcurrency
import RecorderProtocol

/// A batch download over Wi-Fi: every recording on the device, oldest first, in one run of
/// the pipeline (``SyncEngine``: one LIST, one recording-in-progress question), stored and
/// exported by its export step, nothing deleted (delete after the batch: between downloads the device stalls [sdk]).
package enum WiFiBatch {
  /// What to export and where.
  public struct Request: Sendable, Equatable {
    public var format: ExportFormat
    /// Output channels (nil: as recorded).
    public var channels: Int?
    /// The folder of the exports (nil: `<root>/exports`).
    public var directory: String?
    /// Report every frame's bytes as ``Event/data(sessionId:offset:bytes:)``.
    public var reportsData: Bool

    public init(
      format: ExportFormat, channels: Int? = nil, directory: String? = nil,
      reportsData: Bool = false
    ) {
      self.format = format
      self.channels = channels
      self.directory = directory
      self.reportsData = reportsData
    }
  }

  /// Where the batch is.
  public struct Progress: Sendable, Equatable {
    /// The recording's place in the batch, from 0.
    public var index: Int
    public var recording: Recording
    /// Bytes of this recording held locally.
    public var fileBytes: Int64
    /// 0…1 over the bytes of the whole batch.
    public var fraction: Double
  }

  /// What a batch reports, in order.
  public enum Event: Sendable, Equatable {
    /// The batch, oldest first.
    case listed([Recording])
    /// At each recording's start (those already held included, in order), then whenever
    /// the batch's whole percentage grows.
    case progress(Progress)
    /// A frame the engine accepted (only with ``Request/reportsData``).
    case data(sessionId: SessionID, offset: Int, bytes: [UInt8])
    /// The device's last byte of a recording arrived.
    case transferred(sessionId: SessionID)
    /// The last event.
    case finished(Report)
  }

  /// How a batch ended.
  public struct Report: Sendable, Equatable {
    /// The batch, oldest first; nil when the LIST failed.
    public var recordings: [Recording]?
    /// The recordings exported as asked, in order.
    public var exported: [ExportedRecording]
    /// Why the batch ended early (``RecordingExportError/stopped(sessionId:)`` after
    /// `WiFiSession/stopTransfer()`), nil when it ran through. Recordings left unverified
    /// or still being recorded are simply not in ``exported``.
    public var failure: RecordingExportError?

    /// Recordings of the batch not exported (failed, unverified, in progress, or left by a
    /// stop).
    public var notExported: Int { (recordings?.count ?? 0) - exported.count }
  }
}

extension WiFiSession {
  /// Downloads every recording into `workspace` and exports each as asked (see
  /// `WiFiBatch`), stoppable with ``stopTransfer()`` or `shouldStop`, asked before each
  /// frame.
  public func downloadAll(
    _ request: WiFiBatch.Request, into workspace: SyncWorkspace,
    stopWhen shouldStop: @escaping @Sendable () -> Bool = { false }
  ) -> AsyncStream<WiFiBatch.Event> {
    let (events, continuation) = AsyncStream.makeStream(of: WiFiBatch.Event.self)
    let shouldStop = stopCheck(or: shouldStop)
    let transport = link.transport
    let clock = self.clock
    let task = Task {
      let report = await Self.runBatch(
        request, over: transport, into: workspace, clock: clock, shouldStop: shouldStop,
        events: continuation)
      continuation.yield(.finished(report))
      continuation.finish()
    }
    continuation.onTermination = { _ in task.cancel() }
    return events
  }

  private static func runBatch(
    _ request: WiFiBatch.Request, over transport: any RecordingTransport,
    into workspace: SyncWorkspace, clock: AnyClock, shouldStop: @escaping @Sendable () -> Bool,
    events: AsyncStream<WiFiBatch.Event>.Continuation
  ) async -> WiFiBatch.Report {
    let serial = await transport.serial
    let directory = request.directory ?? workspace.layout.exports
    let batch = BatchTracker(held: workspace.heldBytes(serial: serial))
    var observer = ObservedTransport.Observer()
    observer.listed = { listed in
      events.yield(.listed(batch.begin(listed)))
    }
    observer.streaming = { id, start in
      for progress in batch.reach(id, heldBytes: Int64(start)) { events.yield(.progress(progress)) }
    }
    observer.frame = { id, frame in
      if request.reportsData {
        events.yield(.data(sessionId: id, offset: Int(frame.offset), bytes: frame.data))
      }
      let end = Int64(frame.offset) + Int64(frame.data.count)
      if let progress = batch.advance(id, to: end) { events.yield(.progress(progress)) }
    }
    observer.finished = { events.yield(.transferred(sessionId: $0)) }
    observer.shouldStop = shouldStop
    let engine = workspace.makeEngine(
      format: request.format, channels: request.channels, exportDirectory: directory,
      deleteFromDevice: false, clock: clock)
    let synced: SyncReport
    var failure: RecordingExportError?
    do {
      synced = try await engine.sync(
        using: ObservedTransport(base: transport, only: nil, observer: observer))
      for progress in batch.reachEnd() { events.yield(.progress(progress)) }
    } catch {
      synced = await engine.interruptedReport ?? SyncReport()
      if case .device(.cancelled) = error, shouldStop() {
        failure = .stopped(sessionId: batch.current ?? 0)
      } else {
        failure = .sync(error)
      }
    }
    guard let recordings = batch.recordings else {
      return WiFiBatch.Report(recordings: nil, exported: [], failure: failure)
    }
    // The pipeline exported each verified recording where and as this batch asked.
    let exported = synced.files.compactMap { file in
      file.verified
        ? file.exportPath.map {
          ExportedRecording(sessionId: file.sessionId, path: $0, transport: file.transport)
        } : nil
    }
    return WiFiBatch.Report(recordings: recordings, exported: exported, failure: failure)
  }
}

/// Where a batch is, from the transfer's hooks (they run on the engine's task, one at a
/// time, but are `@Sendable`: the state sits behind a lock).
private final class BatchTracker: Sendable {
  private struct State {
    var held: [SessionID: Int64]
    var recordings: [Recording]?
    /// Bytes of the batch before each recording.
    var before: [Int64] = []
    var totalBytes: Int64 = 1
    /// Recordings announced so far (a prefix of `recordings`).
    var reached = 0
    var lastPercent: Int64 = 0
  }
  private let state: Locked<State>

  init(held: [SessionID: Int64]) { state = Locked(State(held: held)) }

  var recordings: [Recording]? { state.withLock { $0.recordings } }

  /// The recording running now (the last one reached).
  var current: SessionID? {
    state.withLock { state in
      guard state.reached > 0 else { return nil }
      return state.recordings?[state.reached - 1].sessionId
    }
  }

  /// The batch as the engine listed it, oldest first.
  func begin(_ listed: [Recording]) -> [Recording] {
    let sorted = listed.sorted { $0.sessionId < $1.sessionId }
    state.withLock { state in
      state.recordings = sorted
      var sum: Int64 = 0
      state.before = sorted.map { recording in
        defer { sum += Int64(recording.size) }
        return sum
      }
      state.totalBytes = max(1, sum)
    }
    return sorted
  }

  /// The engine asked for `sessionId`: announces every recording up to it not announced yet
  /// (those before it needed no transfer).
  func reach(_ sessionId: SessionID, heldBytes: Int64) -> [WiFiBatch.Progress] {
    state.withLock { state in
      guard let recordings = state.recordings,
        let target = recordings.firstIndex(where: { $0.sessionId == sessionId }),
        target >= state.reached
      else { return [] }
      return (state.reached...target).map { index in
        let recording = recordings[index]
        let bytes = index == target ? heldBytes : state.held[recording.sessionId] ?? 0
        state.reached = index + 1
        state.lastPercent = state.before[index] * 100 / state.totalBytes
        return WiFiBatch.Progress(
          index: index, recording: recording, fileBytes: bytes,
          fraction: Double(state.before[index]) / Double(state.totalBytes))
      }
    }
  }

  /// Announces the recordings after the last transfer (all held already).
  func reachEnd() -> [WiFiBatch.Progress] {
    guard let last = recordings?.last else { return [] }
    return reach(last.sessionId, heldBytes: state.withLock { $0.held[last.sessionId] ?? 0 })
  }

  /// `end` bytes of `sessionId` are held: the progress if the batch's percentage grew.
  func advance(_ sessionId: SessionID, to end: Int64) -> WiFiBatch.Progress? {
    state.withLock { state in
      guard let recordings = state.recordings,
        let index = recordings.firstIndex(where: { $0.sessionId == sessionId })
      else { return nil }
      let done = state.before[index] + end
      let percent = done * 100 / state.totalBytes
      guard percent > state.lastPercent else { return nil }
      state.lastPercent = percent
      return WiFiBatch.Progress(
        index: index, recording: recordings[index], fileBytes: end,
        fraction: Double(done) / Double(state.totalBytes))
    }
  }
}
