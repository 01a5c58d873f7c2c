import Foundation
import RecorderKit

/// A transport (BLE or Wi-Fi) narrowed to one recording or left whole, that reports what
/// moves through it: the sync engine drives it (resume, verify, store, export, journal) and
/// the facade hears each frame, each finished file and each listing through ``Hooks``.
///
/// It also lets the facade stop a Wi-Fi transfer without ending the Wi-Fi session: while
/// ``Hooks/shouldStop`` answers true the next frame is refused (the transport sends STOP and
/// waits for its acknowledgement, the session stays usable) and the stream throws
/// ``DeviceError/cancelled``, which the engine reports as a failed run with the checkpoint
/// kept. (Cancelling the task instead would close the whole Wi-Fi session.)
struct ReportingTransport: RecordingTransport {
  /// What the facade hears. Every hook runs on the transfer's task; hooks only queue
  /// callbacks, they never block.
  struct Hooks: Sendable {
    /// The recordings the engine will see (after narrowing).
    var listed: @Sendable ([Recording]) -> Void = { _ in }
    /// A frame accepted by the engine: session, byte offset, bytes.
    var frame: @Sendable (UInt32, Int, Data) -> Void = { _, _, _ in }
    /// A stream reached the device's tail (every byte of the range delivered).
    var finished: @Sendable (UInt32) -> Void = { _ in }
    /// Asked before each frame: true stops the transfer (Wi-Fi STOP).
    var shouldStop: @Sendable () -> Bool = { false }
  }

  let base: any RecordingTransport
  /// The one recording the engine may see; nil: all of them.
  let only: UInt32?
  let hooks: Hooks

  var name: String { base.name }
  var deletesOnlyAfterBatch: Bool { base.deletesOnlyAfterBatch }
  var tailCarriesDeviceCRC: Bool { base.tailCarriesDeviceCRC }
  var serial: String { get async { await base.serial } }
  var audioChannels: Int { get async { await base.audioChannels } }

  func listRecordings() async throws(DeviceError) -> [Recording] {
    let all = try await base.listRecordings()
    let narrowed = only.map { id in all.filter { $0.sessionId == id } } ?? all
    hooks.listed(narrowed)
    return narrowed
  }

  func recordingInProgress() async throws(DeviceError) -> UInt32? {
    try await base.recordingInProgress()
  }

  func stream(
    sessionId: UInt32, start: UInt32, end: UInt32,
    receive: @Sendable (RecorderBulkFrame) async -> StreamDecision
  ) async throws(DeviceError) -> RecorderSyncTail? {
    let hooks = self.hooks
    let stopped = Guarded(false)
    let tail = try await base.stream(sessionId: sessionId, start: start, end: end) { frame in
      if hooks.shouldStop() {
        stopped.withLock { $0 = true }
        return .stop
      }
      let decision = await receive(frame)
      guard decision == .continue else { return decision }
      hooks.frame(sessionId, Int(frame.offset), Data(frame.data))
      return decision
    }
    if stopped.current { throw .cancelled }
    if tail != nil { hooks.finished(sessionId) }
    return tail
  }

  func delete(sessionId: UInt32) async throws(DeviceError) {
    try await base.delete(sessionId: sessionId)
  }
}

/// Export progress 0–99 % from the bytes received of one recording, reported only when the
/// whole percentage grows (the caller adds 0 before and 100 after).
final class ExportProgress: Sendable {
  private let last = Guarded(0)
  private let total: Guarded<Int>

  init(total: Int = 0) { self.total = Guarded(max(1, total)) }

  /// Sets the recording's size once it is listed.
  func setTotal(_ bytes: Int) { total.withLock { $0 = max(1, bytes) } }

  /// The new percentage if `end` (bytes received so far) moved it, else nil.
  func advance(to end: Int) -> Int? {
    let percent = min(99, end * 100 / total.current)
    return last.withLock { last in
      guard percent > last else { return nil }
      last = percent
      return percent
    }
  }
}
