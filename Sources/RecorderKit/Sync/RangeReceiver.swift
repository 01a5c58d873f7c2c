import RecorderAudio
import RecorderConcurrency
import RecorderProtocol

/// Receives one recording's frames into its partial file: accepts frames in offset order,
/// ignores duplicates, stops on a gap or a frame that is not the device's Opus format,
/// computes the CRC of each request's bytes, and fsyncs at checkpoints.
///
/// An Ogg-wrapped recording (``RecordingContainer/ogg``) is kept a whole page at a time:
/// bytes of a page still arriving are held back (they count as received, not as stored),
/// a page whose checksum or order is wrong stops the stream, and every offset the receiver
/// reports (and so every resume point) is a page boundary.
///
/// `@unchecked Sendable`: the engine hands it to the transport's `receive` closure, which the
/// transport calls serially (one frame at a time, awaiting each) while the engine awaits
/// the transport; the engine touches it again only after the transport returned. All state
/// is therefore owned by one task at a time; `state` is still behind a lock so that holds
/// even if a transport were to misbehave.
final class RangeReceiver: @unchecked Sendable {
  private struct State {
    var offset: Int64
    var durableOffset: Int64
    var requestCRC = CRC16()
    /// CRC of this request's frames as sent, headers included (`TailCRCCoverage/requestFrames`);
    /// nil once a frame was taken only in part.
    var framesCRC: CRC16? = CRC16()
    /// Bytes the device delivered for this request, duplicates included, and the most it may.
    var requestDelivered: Int64 = 0
    var requestLimit: Int64 = .max
    var overDelivered = false
    var pastListedSize = false
    var bytesReceived: Int64 = 0
    var storageError: StorageError?
    var startedAt: Duration = .zero
    var startOffset: Int64 = 0
    var lastProgress: Duration = .zero
    /// Accepted bytes not yet handed to the file: one write(2) per 64 KiB, not per frame.
    var pending: [UInt8] = []
    /// The recording is stored end-to-end encrypted (PROTOCOL.md §9): its bytes are
    /// ciphertext, so the Opus framing check cannot apply (the CRC and the digest still do).
    var endToEndEncrypted = false
    /// The page check of an Ogg recording; nil for raw packets.
    var ogg: OggPageValidator?
  }

  /// Bytes gathered before a write(2).
  static let writeBufferBytes = 64 * 1024

  private let file: any DurableFile
  private let frameBytes: Int
  private let clock: AnyClock
  private let sessionId: SessionID
  private let size: Int64
  private let events: SyncEventSink
  private let checkpointBytes: Int64
  /// Whether to keep the CRC of each request's bytes (only a transport whose tail carries
  /// the device's CRC needs it).
  private let computesCRC: Bool
  /// Told each new durable offset at a checkpoint (the engine journals it), so a process
  /// killed mid-stream resumes from its last checkpoint, not from the request's start.
  private let onCheckpoint: @Sendable (Int64) -> Void
  private let state: Locked<State>

  init(
    file: any DurableFile, offset: Int64, frameBytes: Int, clock: AnyClock, sessionId: SessionID,
    size: Int64, checkpointBytes: Int64, computesCRC: Bool = true,
    events: SyncEventSink, endToEndEncrypted: Bool = false,
    container: RecordingContainer = .raw,
    onCheckpoint: @escaping @Sendable (Int64) -> Void = { _ in }
  ) {
    self.checkpointBytes = checkpointBytes
    self.computesCRC = computesCRC
    self.onCheckpoint = onCheckpoint
    self.file = file
    self.frameBytes = frameBytes
    self.clock = clock
    self.sessionId = sessionId
    self.size = size
    self.events = events
    var initial = State(
      offset: offset, durableOffset: offset, startedAt: clock.elapsed, startOffset: offset)
    initial.endToEndEncrypted = endToEndEncrypted
    if container == .ogg { initial.ogg = OggPageValidator(midStream: offset > 0) }
    state = Locked(initial)
  }

  var offset: Int64 { state.withLock { $0.offset } }
  var durableOffset: Int64 { state.withLock { $0.durableOffset } }
  var requestCRC: UInt16 { state.withLock { $0.requestCRC.value } }
  var framesCRC: UInt16? { state.withLock { $0.framesCRC?.value } }
  /// True when the last request delivered more bytes than its range allows (a device that
  /// repeats itself): the stream was stopped.
  var overDelivered: Bool { state.withLock { $0.overDelivered } }
  /// True once the device sent a byte at or past the recording's listed size.
  var pastListedSize: Bool { state.withLock { $0.pastListedSize } }
  var bytesReceived: Int64 { state.withLock { $0.bytesReceived } }
  var storageError: StorageError? { state.withLock { $0.storageError } }

  /// Bytes a request may deliver beyond its length (duplicates, a frame repeated after a
  /// re-issue) before it is stopped as a device that repeats itself (DESIGN.md invariant 9).
  static let repeatSlack: Int64 = 64 * 1024

  /// A new SYNC_START for `length` bytes goes out: its CRCs and its byte budget start afresh.
  func beginRequest(length: Int64) {
    state.withLock {
      $0.requestCRC = CRC16()
      $0.framesCRC = CRC16()
      $0.requestDelivered = 0
      $0.requestLimit = length + Self.repeatSlack
      $0.overDelivered = false
      // The request starts at `offset`: a page still arriving comes again whole.
      $0.ogg?.discardHeld()
    }
  }

  func receive(_ frame: BulkFrame) async -> StreamDecision {
    let (expected, overBudget) = state.withLock { state -> (Int64, Bool) in
      state.requestDelivered += Int64(frame.data.count)
      if state.requestDelivered > state.requestLimit { state.overDelivered = true }
      return (state.offset + Int64(state.ogg?.held.count ?? 0), state.overDelivered)
    }
    guard !overBudget else { return .stop }
    let frameOffset = Int64(frame.offset)
    if frameOffset < expected {
      // A duplicate, or overlap: take only what is new, if the overlap is consistent.
      let skip = Int(expected - frameOffset)
      guard skip < frame.data.count else { return .continue }
      state.withLock { $0.framesCRC = nil }
      return accept(Array(frame.data[skip...]), at: expected, header: nil)
    }
    guard frameOffset == expected else { return .stop }
    let header =
      computesCRC
      ? TailCRCCoverage.frameHeader(
        sessionId: sessionId, offset: frame.offset, length: frame.data.count) : nil
    return accept(frame.data, at: expected, header: header)
  }

  private func accept(_ data: [UInt8], at start: Int64, header: [UInt8]?) -> StreamDecision {
    guard start + Int64(data.count) <= size else {
      // The device has more than LIST gave it: that size cannot be trusted.
      state.withLock { $0.pastListedSize = true }
      return .stop
    }
    // The format is known from the content at offset 0, never from the HANDSHAKE's
    // `oggAudio` flag (PROTOCOL.md §5, §12 [sdk-code]): the E2EE magic `PLAUD.AI` (never
    // Opus: that byte is the TOC), else `OggS` (Ogg pages), else raw packets.
    let encrypted = state.withLock { state -> Bool in
      if start == 0 { Self.recognise(data, in: &state) }
      return state.endToEndEncrypted
    }
    let ogg = !encrypted && state.withLock { $0.ogg != nil }
    guard encrypted || ogg || Self.isDeviceOpus(data, at: start, frameBytes: frameBytes) else {
      return .stop
    }
    let (offset, needsWrite, needsCheckpoint, valid) = state.withLock {
      state -> (Int64, Bool, Bool, Bool) in
      var kept = data
      if ogg {
        do {
          kept = try state.ogg?.feed(data) ?? data
        } catch {
          return (state.offset, false, false, false)
        }
      }
      state.pending += kept
      state.offset += Int64(kept.count)
      state.bytesReceived += Int64(data.count)
      if computesCRC {
        state.requestCRC.update(data)
        if let header {
          state.framesCRC?.update(header)
          state.framesCRC?.update(data)
        }
      }
      return (
        state.offset, state.pending.count >= Self.writeBufferBytes,
        state.offset - state.durableOffset >= checkpointBytes, true
      )
    }
    guard valid else { return .stop }
    do {
      if needsCheckpoint {
        try flush()
        onCheckpoint(durableOffset)
      } else if needsWrite {
        try writePending()
      }
    } catch {
      state.withLock { $0.storageError = error }
      return .stop
    }
    reportProgress(offset: offset)
    return .continue
  }

  /// Hands buffered bytes to the file (no fsync). A failed write may have left part of them
  /// in the file: the receiver is then poisoned (every later write or flush throws the same
  /// error), so no later fsync can make bytes that never reached the file count as durable.
  private func writePending() throws(StorageError) {
    let (bytes, failed) = state.withLock { state -> ([UInt8], StorageError?) in
      if let error = state.storageError { return ([], error) }
      defer { state.pending.removeAll(keepingCapacity: true) }
      return (state.pending, nil)
    }
    if let failed { throw failed }
    guard !bytes.isEmpty else { return }
    do {
      try file.write(bytes)
    } catch {
      state.withLock { $0.storageError = error }
      throw error
    }
  }

  /// Writes and fsyncs what was received; the durable offset is the last whole frame.
  func flush() throws(StorageError) {
    try writePending()
    try file.sync()
    state.withLock { state in
      // Ogg: `offset` is always a page boundary.
      state.durableOffset =
        state.ogg != nil ? state.offset : state.offset - state.offset % Int64(frameBytes)
    }
  }

  /// The first bytes of every Ogg page.
  static let oggCapturePattern = Array("OggS".utf8)

  /// Sets what the recording is from its first bytes: end-to-end encrypted, Ogg pages
  /// (checked page by page from here) or raw packets, whatever the listing guessed.
  private static func recognise(_ first: [UInt8], in state: inout State) {
    if E2EEFileHeader.looksEncrypted(first) {
      state.endToEndEncrypted = true
      state.ogg = nil
    } else if first.starts(with: Self.oggCapturePattern) {
      if state.ogg == nil { state.ogg = OggPageValidator(midStream: false) }
    } else if first.count >= Self.oggCapturePattern.count {
      state.ogg = nil
    }
  }

  /// Every frame (`frameBytes` = 80 × channels) that starts inside `data`, which sits at
  /// byte `start` of the recording, must have the device's framing as far as `data` reaches
  /// (`DeviceAudioFormat/frameViolation(in:at:)`: mono `B8`; two channels `B8 … B8` or `BC`).
  /// The tail of a frame begun in an earlier chunk cannot be judged alone and is let through.
  static func isDeviceOpus(_ data: [UInt8], at start: Int64, frameBytes: Int) -> Bool {
    guard let format = try? DeviceAudioFormat(channels: frameBytes / DeviceAudioFormat.packetBytes)
    else { return false }
    let frame = Int64(format.bytesPerFrame)
    var position = (frame - start % frame) % frame
    while position < Int64(data.count) {
      if !format.frameIsDeviceOpus(data, at: Int(position)) { return false }
      position += frame
    }
    return true
  }

  private func reportProgress(offset: Int64) {
    let now = clock.elapsed
    let (started, startOffset, due) = state.withLock { state -> (Duration, Int64, Bool) in
      let due = now - state.lastProgress >= .milliseconds(250) || offset == size
      if due { state.lastProgress = now }
      return (state.startedAt, state.startOffset, due)
    }
    guard due else { return }
    let seconds = (now - started).seconds
    let rate = seconds > 0 ? Double(offset - startOffset) / seconds : 0
    let eta: Duration? = rate > 0 ? .seconds(Double(size - offset) / rate) : nil
    events.yield(
      .fileProgress(
        sessionId: sessionId, fraction: size > 0 ? Double(offset) / Double(size) : 1, bytes: offset,
        bytesPerSecond: rate, eta: eta))
  }
}
