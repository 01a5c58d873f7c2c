import Foundation
import RecorderConcurrency
import RecorderKit
import RecorderProtocol

/// A callback to deliver to the Wi-Fi delegate on the callback queue.
typealias WiFiDelegateEvent = @Sendable (any PlaudWiFiAgentProtocol) -> Void

/// The delegate's view of a Wi-Fi transfer: `wifiSyncFile(id, 0)` before a recording's first
/// data, `wifiSyncFileData` in contiguous chunks of up to `DataChunks/limit` bytes,
/// `wifiDataComplete()` at the device's tail. Used by one transfer at a time, from the
/// Wi-Fi core's actor.
final class WiFiTransferReporter: Sendable {
  private let chunks = DataChunks()
  private let started = Locked<Set<SessionID>>([])
  private let emit: @Sendable (@escaping WiFiDelegateEvent) -> Void

  init(emit: @escaping @Sendable (@escaping WiFiDelegateEvent) -> Void) { self.emit = emit }

  /// Bytes at `offset` of `sessionId` arrived.
  func data(_ sessionId: SessionID, offset: Int, bytes: [UInt8]) {
    announce(sessionId)
    if let full = chunks.append(sessionId, offset, Data(bytes)) { deliver(full) }
  }

  /// The device's last byte of `sessionId` arrived.
  func transferred(_ sessionId: SessionID) {
    announce(sessionId)
    flush()
    emit { $0.wifiDataComplete() }
  }

  /// Whether `wifiSyncFile(id, 0)` went out.
  func announced(_ sessionId: SessionID) -> Bool { started.current.contains(sessionId) }

  /// Delivers the data held back (a stopped or failed transfer).
  func flush() {
    if let rest = chunks.flush() { deliver(rest) }
  }

  private func announce(_ sessionId: SessionID) {
    let first = started.withLock { $0.insert(sessionId).inserted }
    if first { emit { $0.wifiSyncFile(Int(sessionId), 0) } }
  }

  private func deliver(_ chunk: DataChunks.Chunk) {
    emit { $0.wifiSyncFileData(Int(chunk.sessionId), chunk.offset, chunk.data.count, chunk.data) }
  }
}

/// Joins contiguous frames into chunks for `wifiSyncFileData`.
final class DataChunks: Sendable {
  struct Chunk: Sendable {
    var sessionId: SessionID
    var offset: Int
    var data: Data
  }
  /// Largest chunk handed to the delegate.
  static let limit = 16 * 1024
  private let pending = Locked<Chunk?>(nil)

  /// Adds a frame; returns a chunk to deliver when it filled up or the frame does not follow
  /// on (then the frame starts the next chunk).
  func append(_ sessionId: SessionID, _ offset: Int, _ data: Data) -> Chunk? {
    pending.withLock { pending in
      if var current = pending, current.sessionId == sessionId,
        current.offset + current.data.count == offset
      {
        current.data.append(data)
        if current.data.count >= Self.limit {
          pending = nil
          return current
        }
        pending = current
        return nil
      }
      let previous = pending
      pending = Chunk(sessionId: sessionId, offset: offset, data: data)
      return previous
    }
  }

  /// The chunk held back, if any.
  func flush() -> Chunk? {
    pending.withLock { pending in
      defer { pending = nil }
      return pending
    }
  }
}
