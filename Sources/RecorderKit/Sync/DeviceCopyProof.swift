import RecorderConcurrency
import RecorderProtocol
import RecorderStore

/// Whether bytes we hold of a recording are the device's copy now: windows of them read
/// again from the device and compared byte for byte (DESIGN.md invariant 8).
///
/// A session id is the recording's start second and LIST gives only its size, so a device
/// reset and re-recorded, two devices restored from one backup or a clock reset can list
/// other audio under an id and size the journal already holds. A DELETE is sent only for
/// bytes a run proved to be the device's: transferred by that run, or held from before and
/// matched here.
///
/// The windows: the first ``windowBytes`` (an end-to-end encrypted file's header, whose
/// nonce and wrapped key are drawn afresh for every file; an Ogg file's first pages; a raw
/// file's first frames), the last ``windowBytes`` (the audio that ended the recording) and
/// one window at a seeded random place between, so a device cannot pass by matching the ends
/// alone. Two recordings of other sound differ in nearly every 80-byte Opus frame, so one
/// frame differing anywhere in a window settles it. About 3.8 KB per file and connection: a
/// fraction of a second over BLE, whatever the recording's length.
struct DeviceCopyProof {
  /// What the windows showed.
  enum Verdict: Equatable {
    /// Every window matched.
    case same
    /// A window differs: the device lists another recording under this id.
    case different
    /// A window could not be read whole (the device sent less, with gaps, each time): no
    /// conclusion, so nothing is deleted on it.
    case inconclusive
  }

  /// Bytes per window: 16 frames of mono device audio.
  static let windowBytes: Int64 = 1_280
  /// Reads of one window before it is given up as inconclusive.
  static let readsPerWindow = 3

  let transport: any RecordingTransport
  let sessionId: SessionID
  let fileSystem: any DurableFileSystem

  /// The windows that check `held` bytes: all of them when they fit in three windows.
  static func windows(held: Int64, random: inout SplitMix64) -> [Range<Int64>] {
    guard held > 0 else { return [] }
    guard held > 3 * windowBytes else { return [0..<held] }
    let middleStart = Int64(random.next(in: Int(windowBytes)...Int(held - 2 * windowBytes)))
    return [
      0..<windowBytes, middleStart..<(middleStart + windowBytes), (held - windowBytes)..<held,
    ]
  }

  /// Compares `windows` of the file at `localPath` (from ``windows(held:random:)``) with the
  /// device's bytes there.
  /// - Throws: ``SyncError/device(_:)`` when the link fails (the run stops, as for a
  ///   transfer), ``SyncError/storage(_:)`` when the local copy cannot be read.
  func check(localPath: String, windows: [Range<Int64>]) async throws(SyncError) -> Verdict {
    for window in windows {
      let local = try storageStep { () throws(StorageError) in
        let reader = try FileReader(path: localPath)
        try reader.skip(window.lowerBound)
        return try reader.read(upTo: window.count)
      }
      guard local.count == window.count else { return .different }
      guard let device = try await read(window) else { return .inconclusive }
      if device != local { return .different }
    }
    return .same
  }

  /// The device's bytes `window`, or nil when no read delivered them whole and in order.
  private func read(_ window: Range<Int64>) async throws(SyncError) -> [UInt8]? {
    for _ in 0..<Self.readsPerWindow {
      let collected = Locked<[UInt8]>([])
      do {
        _ = try await transport.stream(
          sessionId: sessionId, start: UInt32(window.lowerBound), end: UInt32(window.upperBound)
        ) { frame in
          collected.withLock { Self.take(frame, into: &$0, window: window) }
        }
      } catch {
        throw .device(error)
      }
      let bytes = collected.withLock { $0 }
      if bytes.count == window.count { return bytes }
    }
    return nil
  }

  /// Appends the part of `frame` that continues `buffer` within `window`; a gap stops the
  /// read (it is read again), a repeat is ignored, bytes past the window are dropped.
  private static func take(_ frame: BulkFrame, into buffer: inout [UInt8], window: Range<Int64>)
    -> StreamDecision
  {
    guard frame.offset != BulkFrame.terminalOffset else { return .continue }
    let next = window.lowerBound + Int64(buffer.count)
    let start = Int64(frame.offset)
    let end = start + Int64(frame.data.count)
    if start > next { return .stop }
    guard end > next, next < window.upperBound else { return .continue }
    let from = Int(next - start)
    let to = Int(min(end, window.upperBound) - start)
    buffer.append(contentsOf: frame.data[from..<to])
    return .continue
  }
}
