import RecorderConcurrency
import RecorderProtocol

/// A transport narrowed to one recording (or left whole) that tells its owner what moves
/// through it and can be stopped without ending the link underneath.
///
/// ``RecordingExport`` and `WiFiSession` drive the sync engine through it: the engine
/// resumes, verifies, stores and exports as usual, while the observer hears each listing,
/// each frame the engine accepted and each stream that reached the device's tail. While
/// `Observer/shouldStop` answers true the next frame is refused (the base transport
/// sends its STOP and the link stays usable) and the stream throws
/// ``DeviceError/cancelled``, which the engine reports as a failed run with its checkpoint
/// kept. (Cancelling the task instead would close a Wi-Fi session as a whole.)
struct ObservedTransport: RecordingTransport {
  /// What the owner hears. Every closure runs on the transfer's task and must not block.
  struct Observer: Sendable {
    /// The recordings the engine will see (after narrowing), as listed.
    var listed: @Sendable ([Recording]) -> Void = { _ in }
    /// A stream of `sessionId` begins at byte `start` (a first request or a re-issue).
    var streaming: @Sendable (_ sessionId: SessionID, _ start: UInt32) -> Void = { _, _ in }
    /// A frame the engine accepted.
    var frame: @Sendable (_ sessionId: SessionID, _ frame: BulkFrame) -> Void = { _, _ in }
    /// A stream reached the device's tail: every byte of the range arrived.
    var finished: @Sendable (_ sessionId: SessionID) -> Void = { _ in }
    /// Asked before each frame: true stops the transfer.
    var shouldStop: @Sendable () -> Bool = { false }
  }

  let base: any RecordingTransport
  /// The one recording the engine may see; nil: all of them.
  let only: SessionID?
  let observer: Observer

  var name: String { base.name }
  var deletesOnlyAfterBatch: Bool { base.deletesOnlyAfterBatch }
  var tailCarriesDeviceCRC: Bool { base.tailCarriesDeviceCRC }
  var serial: String { get async { await base.serial } }
  var audioChannels: Int { get async { await base.audioChannels } }

  func listRecordings() async throws(DeviceError) -> [Recording] {
    let all = try await base.listRecordings()
    let narrowed = only.map { id in all.filter { $0.sessionId == id } } ?? all
    observer.listed(narrowed)
    return narrowed
  }

  func recordingInProgress() async throws(DeviceError) -> SessionID? {
    try await base.recordingInProgress()
  }

  func stream(
    sessionId: SessionID, start: UInt32, end: UInt32,
    receive: @Sendable (BulkFrame) async -> StreamDecision
  ) async throws(DeviceError) -> SyncTail? {
    let observer = self.observer
    let stopped = Locked(false)
    observer.streaming(sessionId, start)
    let tail = try await base.stream(sessionId: sessionId, start: start, end: end) { frame in
      if observer.shouldStop() {
        stopped.withLock { $0 = true }
        return .stop
      }
      let decision = await receive(frame)
      guard decision == .continue else { return decision }
      observer.frame(sessionId, frame)
      return decision
    }
    if stopped.withLock({ $0 }) { throw .cancelled }
    if tail != nil { observer.finished(sessionId) }
    return tail
  }

  func delete(sessionId: SessionID) async throws(DeviceError) {
    try await base.delete(sessionId: sessionId)
  }
}
