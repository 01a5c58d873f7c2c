#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Checks Ogg pages (RFC 3533) as their bytes arrive, for a device that sends its audio
/// Ogg-wrapped (`oggAudio = 1`, PROTOCOL.md §5): the transfer keeps only whole pages whose
/// checksum holds, in stream order, the way it keeps only whole 80-byte packets of raw audio.
///
/// Each page is checked for its capture pattern, version 0, reserved flags, its CRC, one
/// stream serial, consecutive sequence numbers, begin-of-stream on the first page only and
/// nothing after end-of-stream. A validator started mid-stream (a resumed transfer) adopts
/// the serial and sequence of the first page it sees. Memory: at most one page held
/// (65 307 bytes).
public struct OggPageValidator: Sendable {
  /// Bytes of the page still incomplete.
  public private(set) var held: [UInt8] = []
  /// Bytes of complete, checked pages so far (from where the validator started).
  public private(set) var accepted: Int64 = 0
  private var serial: UInt32?
  private var nextSequence: UInt32 = 0
  private var ended = false
  private let midStream: Bool

  /// - Parameter midStream: the first page may continue a stream (no begin-of-stream flag).
  public init(midStream: Bool = false) {
    self.midStream = midStream
  }

  /// Takes `data`; returns the bytes of the pages it completed (earlier held bytes first),
  /// keeping an incomplete page's bytes in ``held``.
  /// - Throws: ``AudioError/malformedOgg(offset:reason:)`` at the first bad page (offset from
  ///   where the validator started); nothing of that page is returned.
  public mutating func feed(_ data: [UInt8]) throws(AudioError) -> [UInt8] {
    held += data
    var complete = 0
    while let length = try pageLength(at: complete) {
      try check(page: held[complete..<complete + length], at: accepted + Int64(complete))
      complete += length
    }
    guard complete > 0 else { return [] }
    let pages = Array(held[0..<complete])
    held.removeFirst(complete)
    accepted += Int64(complete)
    return pages
  }

  /// Forgets the incomplete page (its bytes will be sent again).
  public mutating func discardHeld() { held.removeAll(keepingCapacity: true) }

  /// The length of the page starting at `start` in ``held``, or nil while it is incomplete.
  private func pageLength(at start: Int) throws(AudioError) -> Int? {
    let available = held.count - start
    guard available >= 4 else {
      // A wrong capture pattern is refused as soon as its bytes are there.
      if available > 0, !Array("OggS".utf8).starts(with: held[start...]) {
        throw .malformedOgg(offset: Int(accepted) + start, reason: "no OggS capture pattern")
      }
      return nil
    }
    guard held[start..<start + 4].elementsEqual("OggS".utf8) else {
      throw .malformedOgg(offset: Int(accepted) + start, reason: "no OggS capture pattern")
    }
    guard available >= 27 else { return nil }
    let segments = Int(held[start + 26])
    guard available >= 27 + segments else { return nil }
    var body = 0
    for index in 0..<segments { body += Int(held[start + 27 + index]) }
    let length = 27 + segments + body
    return available >= length ? length : nil
  }

  private mutating func check(page: ArraySlice<UInt8>, at offset: Int64) throws(AudioError) {
    let base = page.startIndex
    func le32(_ index: Int) -> UInt32 {
      UInt32(page[base + index]) | UInt32(page[base + index + 1]) << 8
        | UInt32(page[base + index + 2]) << 16 | UInt32(page[base + index + 3]) << 24
    }
    let position = Int(offset)
    guard page[base + 4] == 0 else {
      throw .malformedOgg(offset: position, reason: "unknown Ogg version \(page[base + 4])")
    }
    let flags = page[base + 5]
    guard flags & 0xF8 == 0 else {
      throw .malformedOgg(offset: position, reason: "reserved header flags set")
    }
    guard OggCRC.checksum(page, skipping: 22..<26) == le32(22) else {
      throw .malformedOgg(offset: position, reason: "page checksum mismatch")
    }
    let pageSerial = le32(14)
    let sequence = le32(18)
    let beginsStream = flags & 0x02 != 0
    guard !ended else {
      throw .malformedOgg(offset: position, reason: "page after the end of the stream")
    }
    if let serial {
      guard pageSerial == serial, !beginsStream else {
        throw .malformedOgg(offset: position, reason: "a second Ogg stream")
      }
      guard sequence == nextSequence else {
        throw .malformedOgg(
          offset: position, reason: "page \(sequence) where \(nextSequence) was expected")
      }
    } else {
      guard beginsStream || midStream else {
        throw .malformedOgg(offset: position, reason: "first page lacks begin-of-stream")
      }
      serial = pageSerial
    }
    nextSequence = sequence &+ 1
    if flags & 0x04 != 0 { ended = true }
  }
}

/// Builds the Ogg pages of device audio: OpusHead and OpusTags pages, then pages of
/// ``framesPerPage`` packets, the last with end-of-stream (RFC 7845's layout; mono as mapping
/// family 0, two mono packets as two uncoupled streams in multistream framing, one stereo
/// packet as a 2-channel family-0 stream: the shapes ``AudioExporter`` reads).
/// Deterministic: the same frames give the same bytes.
public struct DeviceOggWriter: Sendable {
  public let format: DeviceAudioFormat
  public let serial: UInt32
  /// The layout of a 2-channel recording's frames (ignored for mono).
  public let stereoLayout: DeviceAudioFormat.StereoLayout
  /// Packets (20 ms frames) per audio page.
  public let framesPerPage: Int
  private var sequence: UInt32 = 0
  private var frames: Int64 = 0

  /// `stereoLayout` must be the layout of the 2-channel frames later handed to
  /// ``pages(frames:last:)``.
  public init(
    format: DeviceAudioFormat, serial: UInt32, framesPerPage: Int = 50,
    stereoLayout: DeviceAudioFormat.StereoLayout = .twoMonoPackets
  ) {
    self.format = format
    self.serial = serial
    self.stereoLayout = stereoLayout
    self.framesPerPage = max(1, min(framesPerPage, 255))
  }

  private var isStereoPacket: Bool { format.channels == 2 && stereoLayout == .stereoPacket }

  /// 48 kHz samples per 20 ms packet (RFC 7845 granule units).
  static let granulePerFrame: Int64 = 960

  /// The two header pages (OpusHead, OpusTags).
  public mutating func headerPages() -> [UInt8] {
    var head = Array("OpusHead".utf8) + [1, UInt8(format.channels)]
    head += [0, 0]  // pre-skip
    head += le32(UInt32(DeviceAudioFormat.sampleRate))
    head += [0, 0]  // output gain
    head += format.channels == 1 || isStereoPacket ? [0] : [1, 2, 0, 0, 1]
    let vendor = Array("RecorderKit".utf8)
    let tags = Array("OpusTags".utf8) + le32(UInt32(vendor.count)) + vendor + le32(0)
    return page([head], granule: 0, flags: 0x02) + page([tags], granule: 0, flags: 0)
  }

  /// Pages for `bytes` (whole device frames, concatenated), ``framesPerPage`` to a page;
  /// `last` marks the final page end-of-stream (an empty last page when `bytes` is empty).
  public mutating func pages(frames bytes: [UInt8], last: Bool) -> [UInt8] {
    let frameBytes = format.bytesPerFrame
    let count = bytes.count / frameBytes
    var out: [UInt8] = []
    var first = 0
    repeat {
      let run = min(framesPerPage, count - first)
      var packets: [[UInt8]] = []
      for index in first..<first + run {
        packets.append(packet(bytes[index * frameBytes..<(index + 1) * frameBytes]))
      }
      first += run
      frames += Int64(run)
      let final = last && first >= count
      out += page(packets, granule: frames * Self.granulePerFrame, flags: final ? 0x04 : 0)
    } while first < count
    return out
  }

  /// One device frame as an Opus packet: mono or one stereo packet as it is; two mono
  /// packets in multistream framing (the first stream self-delimited: TOC, its length 79,
  /// its 79 bytes, then the second).
  private func packet(_ frame: ArraySlice<UInt8>) -> [UInt8] {
    guard format.channels == 2, !isStereoPacket else { return Array(frame) }
    let size = DeviceAudioFormat.packetBytes
    let start = frame.startIndex
    return [frame[start], UInt8(size - 1)] + frame[start + 1..<start + size]
      + frame[(start + size)...]
  }

  private mutating func page(_ packets: [[UInt8]], granule: Int64, flags: UInt8) -> [UInt8] {
    var lacing: [UInt8] = []
    for packet in packets {
      lacing += [UInt8](repeating: 255, count: packet.count / 255) + [UInt8(packet.count % 255)]
    }
    var page = Array("OggS".utf8) + [0, flags]
    page += (0..<8).map { UInt8(truncatingIfNeeded: UInt64(bitPattern: granule) >> (8 * $0)) }
    page += le32(serial) + le32(sequence) + [0, 0, 0, 0] + [UInt8(lacing.count)] + lacing
    for packet in packets { page += packet }
    let crc = OggCRC.checksum(page[...], skipping: 22..<26)
    page.replaceSubrange(22..<26, with: le32(crc))
    sequence &+= 1
    return page
  }

  private func le32(_ value: UInt32) -> [UInt8] {
    (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
  }
}

extension AudioExporter {
  /// The 20 ms frames in the recording at `path` (raw device audio or Ogg-wrapped), read
  /// and checked as an export reads them, without decoding: its duration is frames × 20 ms.
  /// - Throws: what ``export(from:recordedChannels:to:options:progress:)`` throws for the
  ///   same input.
  public static func frameCount(ofRecordingAt path: String, recordedChannels: Int)
    throws(AudioError) -> Int
  {
    let recorded = try DeviceAudioFormat(channels: recordedChannels)
    let source = try openSource(try AudioInputFile(path: path), recorded: recorded)
    var batch = DeviceFrameBatch()
    var frames = 0
    while true {
      try source.readFrames(into: &batch, maxFrames: batchFrames)
      if batch.count == 0 { return frames }
      frames += batch.count
    }
  }
}

extension AudioExporter {
  /// The duration of the Ogg Opus recording at `path`, in milliseconds, from its pages: the
  /// last page's granule position less OpusHead's pre-skip, in 48 kHz samples (RFC 7845
  /// §4). Reads the first page and the file's last 64 KiB only, so it is cheap for a long
  /// recording; nil when the file is not Ogg Opus or its pages do not say.
  public static func oggDurationMs(ofRecordingAt path: String) -> Int? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    func read(_ count: Int, at offset: Int64) -> [UInt8] {
      var bytes = [UInt8](repeating: 0, count: count)
      let got = bytes.withUnsafeMutableBytes {
        pread(descriptor, $0.baseAddress, count, off_t(offset))
      }
      return got > 0 ? Array(bytes.prefix(got)) : []
    }
    let size = Int64(lseek(descriptor, 0, SEEK_END))
    guard size > 0 else { return nil }
    let tailLength = min(size, Int64(oggTailBytes))
    let tail = read(Int(tailLength), at: size - tailLength)
    guard tail.count == Int(tailLength) else { return nil }
    return oggDurationMs(head: read(64, at: 0), tail: tail)
  }

  /// How many bytes at the end of an Ogg recording ``oggDurationMs(head:tail:)`` needs: the
  /// largest page (header and 255 × 255 body bytes fit) and a capture pattern.
  public static let oggTailBytes = 65_536 + 27

  /// ``oggDurationMs(ofRecordingAt:)`` from the recording's first 64 bytes and its last
  /// `min(size, oggTailBytes)` bytes (already decrypted, for an E2EE file).
  public static func oggDurationMs(head: [UInt8], tail: [UInt8]) -> Int? {
    guard head.count >= 47, head.starts(with: Array("OggS".utf8)) else { return nil }
    let bodyStart = 27 + Int(head[26])
    guard head.count >= bodyStart + 12,
      head[bodyStart..<bodyStart + 8].elementsEqual("OpusHead".utf8)
    else { return nil }
    let preSkip = Int64(head[bodyStart + 10]) | Int64(head[bodyStart + 11]) << 8
    guard tail.count >= 27 else { return nil }
    // The last page: the last capture pattern whose page runs exactly to the end.
    var start = tail.count - 27
    while start >= 0 {
      if tail[start..<start + 4].elementsEqual("OggS".utf8), tail[start + 4] == 0,
        start + 27 <= tail.count
      {
        let segments = Int(tail[start + 26])
        if start + 27 + segments <= tail.count {
          let body = tail[start + 27..<start + 27 + segments].reduce(0) { $0 + Int($1) }
          if start + 27 + segments + body == tail.count {
            var granule: Int64 = 0
            for index in 0..<8 { granule |= Int64(tail[start + 6 + index]) << (8 * index) }
            guard granule >= preSkip else { return nil }
            return Int((granule - preSkip) / 48)
          }
        }
      }
      start -= 1
    }
    return nil
  }
}
