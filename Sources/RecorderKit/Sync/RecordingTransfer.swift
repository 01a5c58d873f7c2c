import RecorderConcurrency
import RecorderProtocol
import RecorderStore

/// One recording's transfer into its partial file: owns the resume offset, the re-issue
/// policy and the CRC policy, and records what checked each byte range.
///
/// - **Resume**: from the journal's durable offset, rounded down to a frame boundary
///   (invariant 3), whichever transport carried the earlier bytes.
/// - **Re-issue from the last good byte** (§3.3): a stream stopped on a gap, a bad frame or
///   silence keeps every in-order, Opus-framed byte it delivered (checked by the framing
///   checks only) and asks for the rest. A request whose tail CRC matches records its range
///   as checked by the device's CRC.
/// - **Bounded** (invariant 9): a request may not deliver more than its length plus
///   `RangeReceiver/repeatSlack`; a transfer that makes no new byte durable for
///   `Policy/noProgressTimeout` or over `Policy/maximumIdleReissues` re-issues in a row
///   ends with ``DeviceError/timeout(operation:)``.
/// - **CRC coverage** (§10, unknown): a tail that disagrees is first compared under every
///   plausible coverage (`TailCRCCoverage`); one that matches is remembered for the
///   device's firmware. If none does, the range is read again: identical bytes are
///   "verified by agreement", different bytes are read until two agree.
struct RecordingTransfer {
  struct Policy: Sendable {
    var checkpointBytes: Int64
    /// Re-issues in a row that bring no new byte before the transfer gives up.
    var maximumIdleReissues: Int
    /// Longest time without a new durable byte.
    var noProgressTimeout: Duration
    /// Re-read every range only the framing checks covered, as its own ranged request with
    /// its own tail CRC, before the file is stored.
    var strictVerify: Bool
  }

  /// What the transfer leaves for the engine to store.
  struct Outcome {
    var checked: CheckedRanges
    /// The transports that carried the file, in order.
    var carriedBy: TransportTrail
  }

  let recording: Recording
  let initial: RecordingRecord
  let partPath: String
  let transport: any RecordingTransport
  let firmware: String?
  let fileSystem: any DurableFileSystem
  let journal: Journal
  let clock: AnyClock
  let policy: Policy
  let events: SyncEventSink

  private var size: Int64 { Int64(recording.size) }

  /// Strict-verification passes over one file before its framing-only ranges are left as
  /// they are (and the file, under strict verification, on the device).
  static let maximumStrictPasses = 3

  /// Runs the transfer to the end of the recording; the partial file then holds every byte,
  /// fsync'd. Adds what moved to `report` whatever happens.
  func run(report: inout SyncReport) async throws(SyncError) -> Outcome {
    let frameBytes = Int64(recording.bytesPerFrame)
    var offset = min(initial.durableBytes, fileSystem.size(of: partPath) ?? 0)
    if container(resumingAt: offset) == .ogg {
      // Journaled durable offsets are page boundaries; a file shorter than its journal is
      // not known to end on one: start the recording again.
      if offset < initial.durableBytes { offset = 0 }
    } else {
      offset -= offset % frameBytes
    }
    var checked = initial.checked
    checked.truncate(to: offset)
    // Checkpoints journal the durable offset as they happen, their checks only when a
    // request ends: durable bytes no check names (a kill mid-request) were accepted in
    // order and Opus-framed, nothing more.
    checked.fillGaps(upTo: offset, with: .framing)
    let carriedBy = TransportTrail(initial.transport).resumed(on: transport.name, at: offset)
    var file = try storageStep { () throws(StorageError) in
      try fileSystem.openForAppend(partPath, truncatingTo: offset)
    }
    defer { file.close() }
    try saveProgress(offset: offset, checked: checked, stage: .transferring, carriedBy: carriedBy)
    try storageStep { () throws(StorageError) in try fileSystem.syncDirectory(parent(of: partPath))
    }

    var receiver = makeReceiver(file: file, offset: offset)
    var mismatch: (start: Int64, ours: UInt16)?
    var idleReissues = 0
    var lastProgress = clock.elapsed
    // Strict passes left: a pass that finds different bytes cuts the file back and fetches
    // them again, then checks once more; a device that never agrees ends at framing level.
    var strictPasses =
      policy.strictVerify && transport.tailCarriesDeviceCRC ? Self.maximumStrictPasses : 0

    while true {
      if receiver.offset >= size {
        // Whole: under strict verification, re-read what only the framing checks covered.
        guard strictPasses > 0 else { break }
        strictPasses -= 1
        if let cut = try await strictlyVerify(&checked) {
          report.bytesReceived += receiver.bytesReceived
          file.close()
          file = try reopen(truncatingTo: cut, checked: &checked)
          receiver = makeReceiver(file: file, offset: cut)
        }
        continue
      }
      let requestStart = receiver.offset
      receiver.beginRequest(length: size - requestStart)
      let tail: SyncTail?
      do {
        let current = receiver
        tail = try await transport.stream(
          sessionId: recording.sessionId, start: UInt32(requestStart), end: UInt32(size)
        ) { frame in await current.receive(frame) }
      } catch {
        // The link went: keep every byte that arrived (fsync), checked by framing alone.
        try? receiver.flush()
        checked.record(requestStart, receiver.durableOffset, .framing)
        try? saveProgress(offset: receiver.durableOffset, checked: checked)
        report.bytesReceived += receiver.bytesReceived
        throw receiver.storageError.map(SyncError.storage) ?? .device(error)
      }
      if let error = receiver.storageError {
        checked.record(requestStart, receiver.durableOffset, .framing)
        try? saveProgress(offset: receiver.durableOffset, checked: checked)
        report.bytesReceived += receiver.bytesReceived
        throw .storage(error)
      }
      try storageStep { () throws(StorageError) in try receiver.flush() }
      if receiver.pastListedSize {
        // More bytes than LIST said: the recording grew, or the device lies about it. Keep
        // what arrived, end the run; the next one lists again (invariant 8: re-check).
        checked.record(requestStart, receiver.offset, .framing)
        try saveProgress(offset: receiver.durableOffset, checked: checked)
        report.bytesReceived += receiver.bytesReceived
        throw .device(
          .malformedReply(
            operation: "SYNC_START",
            reason: "recording \(recording.sessionId) has bytes past the \(size) LIST gave it"))
      }
      if receiver.offset > requestStart {
        idleReissues = 0
        lastProgress = clock.elapsed
      }
      guard let tail, receiver.offset >= size else {
        // Stopped on a gap, a bad frame, silence or a device that repeats itself: keep the
        // in-order bytes (framing-checked) and ask for the rest from the last good byte.
        checked.record(requestStart, receiver.offset, .framing)
        try saveProgress(offset: receiver.durableOffset, checked: checked)
        idleReissues += receiver.offset > requestStart ? 0 : 1
        report.reissues += 1
        try giveUpIfStuck(
          idleReissues: idleReissues, since: lastProgress, report: &report, receiver)
        continue
      }
      guard transport.tailCarriesDeviceCRC else {
        // Wi-Fi: the whole range arrived in order over TCP, Opus-framed; no device CRC.
        checked.record(requestStart, size, .framing)
        continue
      }
      if let covered = try coverage(of: tail, requestStart: requestStart, receiver: receiver) {
        checked.record(covered.lowerBound, covered.upperBound, .deviceCRC)
        continue
      }
      if let first = mismatch, first.start == requestStart, first.ours == receiver.requestCRC {
        // Two identical reads, and no coverage we know matches the device's CRC.
        checked.record(requestStart, size, .agreement)
        continue
      }
      // Read the range again: the bytes or the CRC's coverage differ from ours.
      mismatch = (requestStart, receiver.requestCRC)
      report.reissues += 1
      report.bytesReceived += receiver.bytesReceived
      file.close()
      file = try reopen(truncatingTo: requestStart, checked: &checked)
      receiver = makeReceiver(file: file, offset: requestStart)
    }
    report.bytesReceived += receiver.bytesReceived
    try saveProgress(offset: receiver.durableOffset, checked: checked)
    return Outcome(checked: checked, carriedBy: carriedBy)
  }

  /// Ends a transfer that stopped making progress (invariant 9).
  private func giveUpIfStuck(
    idleReissues: Int, since lastProgress: Duration, report: inout SyncReport,
    _ receiver: RangeReceiver
  ) throws(SyncError) {
    let repeating = receiver.overDelivered ? " (the device repeats itself)" : ""
    guard
      idleReissues > policy.maximumIdleReissues
        || clock.elapsed - lastProgress > policy.noProgressTimeout
    else { return }
    report.bytesReceived += receiver.bytesReceived
    let reason =
      idleReissues > policy.maximumIdleReissues
      ? "\(idleReissues) reads in a row brought no new byte past \(receiver.offset)\(repeating)"
      : "no new byte past \(receiver.offset) for \(policy.noProgressTimeout)\(repeating)"
    throw .recordingUnreadable(sessionId: recording.sessionId, reason: reason)
  }

  // MARK: - CRC policy

  /// The bytes the device's `tail` covers, if its CRC matches ours under some coverage: the
  /// one remembered for this firmware first, then every other (§10: coverage unknown). A
  /// match under a new coverage is remembered.
  private func coverage(
    of tail: SyncTail, requestStart: Int64, receiver: RangeReceiver
  ) throws(SyncError) -> Swift.Range<Int64>? {
    let remembered = firmware.flatMap { firmware in
      (try? journal.read { tx in try tx.crcCoverage(firmware: firmware) })?
        .flatMap(TailCRCCoverage.init(rawValue:))
    }
    var order = TailCRCCoverage.allCases
    if let remembered { order.sort { first, _ in first == remembered } }
    for candidate in order {
      guard
        try crc(under: candidate, requestStart: requestStart, receiver: receiver) == tail.crc
      else { continue }
      if candidate != remembered, let firmware {
        try writeJournal(journal) { tx in
          try tx.saveCRCCoverage(firmware: firmware, coverage: candidate.rawValue)
        }
      }
      return candidate == .fileFromStart ? 0..<size : requestStart..<size
    }
    return nil
  }

  /// Our CRC of the bytes `coverage` names; nil when it cannot be known (a frame taken in
  /// part has no header to count).
  private func crc(
    under coverage: TailCRCCoverage, requestStart: Int64, receiver: RangeReceiver
  ) throws(SyncError) -> UInt16? {
    switch coverage {
    case .requestBytes: return receiver.requestCRC
    case .requestFrames: return receiver.framesCRC
    case .fileFromStart: return try fileCRC(0..<size)
    }
  }

  /// CRC-16 of bytes `range` of the partial file, read in 64 KiB chunks.
  private func fileCRC(_ range: Swift.Range<Int64>) throws(SyncError) -> UInt16 {
    try storageStep { () throws(StorageError) in
      let reader = try FileReader(path: partPath)
      try reader.skip(range.lowerBound)
      var crc = CRC16()
      var left = range.count
      while left > 0 {
        let chunk = try reader.read(upTo: min(1 << 16, left))
        if chunk.isEmpty { break }
        crc.update(chunk)
        left -= chunk.count
      }
      return crc.value
    }
  }

  /// Strict verification: every range only the framing checks covered is read again as its
  /// own ranged request; a matching tail CRC upgrades it. Returns the offset to cut the file
  /// back to when the device's bytes differ from ours there (they are fetched again).
  private func strictlyVerify(_ checked: inout CheckedRanges) async throws(SyncError) -> Int64? {
    for range in checked.ranges(at: .framing, upTo: size) {
      let ours = try fileCRC(range.start..<range.end)
      let delivered = Locked(CRC16())
      let tail: SyncTail?
      do {
        tail = try await transport.stream(
          sessionId: recording.sessionId, start: UInt32(range.start), end: UInt32(range.end)
        ) { frame in
          delivered.withLock { $0.update(frame.data) }
          return .continue
        }
      } catch {
        throw .device(error)
      }
      guard let tail, tail.crc == delivered.withLock({ $0.value }) else { continue }
      if tail.crc == ours {
        checked.record(range.start, range.end, .deviceCRC)
      } else {
        return range.start
      }
    }
    return nil
  }

  // MARK: - Files and journal

  /// How the bytes already held are stored, from their content (PROTOCOL.md §5: `OggS` at
  /// the start → Ogg, else raw packets or an E2EE file; the HANDSHAKE's `oggAudio` flag is
  /// never the judge). From byte 0 the receiver decides on the first bytes itself; the
  /// listing's guess is only where it starts.
  private func container(resumingAt offset: Int64) -> RecordingContainer {
    guard offset > 0 else { return recording.container }
    return SyncEngine.isOgg(partPath) ? .ogg : .raw
  }

  private func makeReceiver(file: any DurableFile, offset: Int64) -> RangeReceiver {
    let journal = self.journal
    let recording = self.recording
    let serial = initial.serial
    return RangeReceiver(
      file: file, offset: offset, frameBytes: recording.bytesPerFrame,
      clock: clock, sessionId: recording.sessionId,
      size: Int64(recording.size), checkpointBytes: policy.checkpointBytes,
      computesCRC: transport.tailCarriesDeviceCRC, events: events,
      endToEndEncrypted: offset > 0 && E2EEFile.isEncrypted(path: partPath),
      container: container(resumingAt: offset),
      onCheckpoint: { durable in
        // Journal each fsync'd checkpoint as it happens (a SIGKILL runs no catch block); a
        // failure here is retried by the next checkpoint and by the one when the stream ends.
        _ = try? journal.write { tx in
          try tx.update(serial: serial, sessionId: recording.sessionId) {
            $0.durableBytes = durable
          }
        }
      })
  }

  /// Cuts the partial file back to `offset` (forgetting the checks of what follows).
  private func reopen(truncatingTo offset: Int64, checked: inout CheckedRanges)
    throws(SyncError) -> any DurableFile
  {
    checked.truncate(to: offset)
    try saveProgress(offset: offset, checked: checked)
    return try storageStep { () throws(StorageError) in
      try fileSystem.openForAppend(partPath, truncatingTo: offset)
    }
  }

  /// fsync'd bytes and their checks → journal, so a restart resumes there and knows what
  /// checked what.
  private func saveProgress(
    offset: Int64, checked: CheckedRanges, stage: RecordingStage? = nil,
    carriedBy: TransportTrail? = nil
  ) throws(SyncError) {
    try writeJournal(journal) { tx in
      // A recording new to the journal is first written here (one commit, not two).
      var record = try tx.recording(serial: initial.serial, sessionId: initial.sessionId) ?? initial
      record.durableBytes = offset
      record.checked = checked
      if let stage { record.stage = stage }
      if let carriedBy { record.transport = carriedBy.description }
      try tx.save(record)
    }
  }
}

/// Which transports carried a file, in order ("ble", then "wifi" after a fall-back): a typed
/// value, journalled as `ble+wifi`.
package struct TransportTrail: Sendable, Equatable, CustomStringConvertible {
  /// Transport names in the order they carried bytes, without repeats in a row.
  public private(set) var names: [String]

  /// Parses the journal's text (`ble+wifi`); empty for nil or "".
  public init(_ text: String?) {
    names = (text ?? "").split(separator: "+").map(String.init)
  }

  /// The trail after a transfer on `transport` that resumes at `offset`: a file started over
  /// from 0 is carried by that transport alone.
  public func resumed(on transport: String, at offset: Int64) -> TransportTrail {
    var trail = offset > 0 ? self : TransportTrail(nil)
    if trail.names.last != transport { trail.names.append(transport) }
    return trail
  }

  public var description: String { names.joined(separator: "+") }
}
