/// Reads the packets of one logical Ogg stream (RFC 3533) from untrusted bytes, page by page,
/// holding at most one page and one packet in memory.
///
/// Defensive by design (DESIGN.md invariant 6): every page's capture pattern, version, CRC,
/// serial number and sequence number are checked; a continuation flag that disagrees with
/// the previous page, a page cut short by the end of input, or a packet larger than
/// `maxPacketBytes` is a `malformedOgg` error at the page's offset. Multiplexed or chained
/// streams are refused as `unsupportedAudioFormat`: the device writes one stream.
final class OggPageReader {
  /// One packet and the offset of the page on which it ends.
  struct Packet {
    var bytes: [UInt8]
    var pageOffset: Int
  }

  static let maxPacketBytes = 1 << 20
  private let source: ByteSource
  /// Unread input; `start` is the first unread byte.
  private var buffer: [UInt8] = []
  private var start = 0
  private var readChunk = [UInt8](repeating: 0, count: 65_536)
  private var inputEnded = false
  /// Offset in the input of `buffer[start]`.
  private var offset = 0
  private var serial: UInt32?
  private var nextSequence: UInt32 = 0
  private var sawEndOfStream = false
  private var partial: [UInt8] = []
  private var partialOpen = false
  private var ready: [Packet] = []
  private var readyIndex = 0
  /// The fuzz entry turns this off so mutated inputs get past the checksum.
  var verifiesChecksum = true

  init(source: ByteSource) { self.source = source }

  /// Bytes of input consumed so far.
  var bytesConsumed: Int { offset }

  /// The next packet, or nil at the end of the stream.
  func nextPacket() throws(AudioError) -> Packet? {
    while readyIndex >= ready.count {
      ready.removeAll(keepingCapacity: true)
      readyIndex = 0
      guard try readPage() else {
        if partialOpen {
          throw .malformedOgg(offset: offset, reason: "stream ends inside a packet")
        }
        return nil
      }
    }
    defer { readyIndex += 1 }
    return ready[readyIndex]
  }

  /// Parses the next page into `ready`; false at a clean end of input.
  private func readPage() throws(AudioError) -> Bool {
    guard try fill(27) else {
      if available == 0 { return false }
      throw .malformedOgg(offset: offset, reason: "input ends inside a page header")
    }
    let pageOffset = offset
    guard byte(0) == 0x4F, byte(1) == 0x67, byte(2) == 0x67, byte(3) == 0x53 else {
      throw .malformedOgg(offset: pageOffset, reason: "no OggS capture pattern")
    }
    guard byte(4) == 0 else {
      throw .malformedOgg(offset: pageOffset, reason: "unknown Ogg version \(byte(4))")
    }
    let flags = byte(5)
    guard flags & 0xF8 == 0 else {
      throw .malformedOgg(offset: pageOffset, reason: "reserved header flags set")
    }
    let pageSerial = le32(14)
    let sequence = le32(18)
    let storedCRC = le32(22)
    let segmentCount = Int(byte(26))
    guard try fill(27 + segmentCount) else {
      throw .malformedOgg(offset: pageOffset, reason: "input ends inside a lacing table")
    }
    var bodyLength = 0
    for index in 0..<segmentCount { bodyLength += Int(byte(27 + index)) }
    let pageLength = 27 + segmentCount + bodyLength
    guard try fill(pageLength) else {
      throw .malformedOgg(offset: pageOffset, reason: "input ends inside a page body")
    }
    if verifiesChecksum {
      let computed = OggCRC.checksum(buffer[start..<start + pageLength], skipping: 22..<26)
      guard computed == storedCRC else {
        throw .malformedOgg(offset: pageOffset, reason: "page checksum mismatch")
      }
    }
    try checkStreamOrder(
      flags: flags, serial: pageSerial, sequence: sequence, pageOffset: pageOffset)
    let continued = flags & 0x01 != 0
    guard continued == partialOpen else {
      throw .malformedOgg(
        offset: pageOffset,
        reason: continued ? "continuation page without an open packet" : "open packet not continued"
      )
    }
    var bodyPosition = start + 27 + segmentCount
    for index in 0..<segmentCount {
      let lace = Int(byte(27 + index))
      guard partial.count + lace <= Self.maxPacketBytes else {
        throw .malformedOgg(offset: pageOffset, reason: "packet larger than 1 MiB")
      }
      partial.append(contentsOf: buffer[bodyPosition..<bodyPosition + lace])
      bodyPosition += lace
      if lace < 255 {
        ready.append(Packet(bytes: partial, pageOffset: pageOffset))
        partial.removeAll(keepingCapacity: true)
        partialOpen = false
      } else {
        partialOpen = true
      }
    }
    consume(pageLength)
    return true
  }

  private func checkStreamOrder(
    flags: UInt8, serial pageSerial: UInt32, sequence: UInt32, pageOffset: Int
  )
    throws(AudioError)
  {
    let beginsStream = flags & 0x02 != 0
    if let serial {
      guard pageSerial == serial, !beginsStream else {
        throw .unsupportedAudioFormat(
          reason: "multiplexed or chained Ogg streams at byte \(pageOffset)")
      }
      guard !sawEndOfStream else {
        throw .malformedOgg(offset: pageOffset, reason: "page after the end of the stream")
      }
      guard sequence == nextSequence else {
        throw .malformedOgg(
          offset: pageOffset,
          reason: "page \(sequence) where \(nextSequence) was expected (lost data)")
      }
    } else {
      guard beginsStream else {
        throw .malformedOgg(
          offset: pageOffset, reason: "first page lacks the beginning-of-stream flag")
      }
      serial = pageSerial
    }
    nextSequence = sequence &+ 1
    if flags & 0x04 != 0 { sawEndOfStream = true }
  }

  private var available: Int { buffer.count - start }

  private func byte(_ index: Int) -> UInt8 { buffer[start + index] }

  private func le32(_ index: Int) -> UInt32 {
    UInt32(byte(index)) | UInt32(byte(index + 1)) << 8 | UInt32(byte(index + 2)) << 16
      | UInt32(byte(index + 3)) << 24
  }

  /// Makes `count` bytes available; false when the input ends first.
  private func fill(_ count: Int) throws(AudioError) -> Bool {
    while available < count {
      if inputEnded { return false }
      if start > 0 {
        buffer.removeFirst(start)
        start = 0
      }
      let got = try source.read(into: &readChunk)
      if got == 0 {
        inputEnded = true
      } else {
        buffer.append(contentsOf: readChunk[0..<got])
      }
    }
    return true
  }

  private func consume(_ count: Int) {
    start += count
    offset += count
  }
}

/// The Ogg page checksum: CRC-32, polynomial 0x04C11DB7, not reflected, initial value 0.
enum OggCRC {
  static let table: [UInt32] = (0..<256).map { index in
    var value = UInt32(index) << 24
    for _ in 0..<8 { value = value & 0x8000_0000 != 0 ? (value << 1) ^ 0x04C1_1DB7 : value << 1 }
    return value
  }

  /// The checksum of `bytes`, reading the indices in `skipping` (relative to the slice's
  /// start) as zero: the page's own checksum field.
  static func checksum(_ bytes: ArraySlice<UInt8>, skipping: Range<Int>) -> UInt32 {
    var crc: UInt32 = 0
    var relative = 0
    for byte in bytes {
      let value = skipping.contains(relative) ? 0 : byte
      crc = (crc << 8) ^ table[Int(((crc >> 24) ^ UInt32(value)) & 0xFF)]
      relative += 1
    }
    return crc
  }
}
