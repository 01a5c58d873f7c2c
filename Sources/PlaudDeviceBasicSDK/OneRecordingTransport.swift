import Foundation
import RecorderKit

/// The BLE transport narrowed to one recording, for `exportAudio`: the sync engine sees a
/// device holding just that file, so it transfers (or resumes) it, verifies, stores and
/// exports it, with the journal keeping it exactly once. On the way it reports the vendor's
/// `bleData` per frame, `bleDataComplete` at the tail, and export progress 0–99 %.
struct OneRecordingTransport: RecordingTransport {
  let base: BLETransport
  let sessionId: UInt32
  let emit: @Sendable (@escaping DelegateEvent) -> Void
  let report: ExportReporter

  var name: String { base.name }
  var serial: String { get async { await base.serial } }
  var audioChannels: Int { get async { await base.audioChannels } }

  func listRecordings() async throws(DeviceError) -> [Recording] {
    try await base.listRecordings().filter { $0.sessionId == sessionId }
  }

  func recordingInProgress() async throws(DeviceError) -> UInt32? {
    try await base.recordingInProgress()
  }

  func stream(
    sessionId: UInt32, start: UInt32, end: UInt32,
    receive: @Sendable (RecorderBulkFrame) async -> StreamDecision
  ) async throws(DeviceError) -> RecorderSyncTail? {
    let emit = self.emit
    let report = self.report
    let lastPercent = Guarded(0)
    let total = max(1, Int(end))
    let tail = try await base.stream(sessionId: sessionId, start: start, end: end) { frame in
      let decision = await receive(frame)
      guard decision == .continue else { return decision }
      let offset = Int(frame.offset)
      let data = Data(frame.data)
      emit { $0.bleData(sessionId: Int(sessionId), start: offset, data: data) }
      let percent = min(99, (offset + data.count) * 100 / total)
      let changed = lastPercent.withLock { last in
        defer { last = max(last, percent) }
        return percent > last
      }
      if changed { report { $0.onProgress(percent, message: "receiving") } }
      return decision
    }
    if tail != nil { emit { $0.bleDataComplete() } }
    return tail
  }

  func delete(sessionId: UInt32) async throws(DeviceError) {
    try await base.delete(sessionId: sessionId)
  }
}
