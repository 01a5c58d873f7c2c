/// Device audio wrapped in Ogg (`oggAudio = 1`, PROTOCOL.md §5), or an Ogg Opus file this
/// package wrote, turned back into canonical device frames.
///
/// Accepted shapes, and nothing else (anything else is `unsupportedAudioFormat`, never a
/// guess):
/// - OpusHead with 1 channel, mapping family 0, and audio packets that are each one device
///   packet (80 bytes, TOC `0xB8`);
/// - OpusHead with 2 channels, mapping family 1, 2 streams, 0 coupled, mapping `[0, 1]`,
///   and audio packets that are two device packets in Opus multistream framing (the first
///   self-delimited, RFC 6716 Appendix B): `B8 4F <79 bytes> B8 <79 bytes>`. This is what
///   `OggOpusWriter` writes for a 2-channel recording of two mono packets;
/// - OpusHead with 2 channels, mapping family 0 (one stereo stream), and audio packets that
///   are each one 160-byte stereo device packet (TOC `0xBC`), kept as they are.
///
/// The OpusTags packet is checked for its magic and otherwise skipped. Granule positions
/// and pre-skip do not change which frames exist, so every audio packet becomes one frame.
final class OggOpusFrameSource: DeviceFrameSource {
  let format: DeviceAudioFormat
  /// For two channels, the frames' layout (from the OpusHead's mapping family); nil for mono.
  let stereoLayout: DeviceAudioFormat.StereoLayout?
  private let reader: OggPageReader
  private let totalBytes: Int?

  /// Reads and validates the two header packets.
  init(source: ByteSource, verifiesChecksum: Bool = true) throws(AudioError) {
    reader = OggPageReader(source: source)
    reader.verifiesChecksum = verifiesChecksum
    totalBytes = source.totalBytes
    guard let head = try reader.nextPacket() else {
      throw .malformedOgg(offset: 0, reason: "no packets")
    }
    (format, stereoLayout) = try Self.parseHead(head)
    guard let tags = try reader.nextPacket() else {
      throw .malformedOgg(offset: reader.bytesConsumed, reason: "stream ends before OpusTags")
    }
    guard tags.bytes.starts(with: Array("OpusTags".utf8)) else {
      throw .malformedOgg(offset: tags.pageOffset, reason: "second packet is not OpusTags")
    }
  }

  var fractionConsumed: Double {
    guard let totalBytes, totalBytes > 0 else { return 0 }
    return min(1, Double(reader.bytesConsumed) / Double(totalBytes))
  }

  func readFrames(into batch: inout DeviceFrameBatch, maxFrames: Int) throws(AudioError) {
    batch.removeAll()
    while batch.count < maxFrames, let packet = try reader.nextPacket() {
      try append(packet, to: &batch)
    }
  }

  private func append(_ packet: OggPageReader.Packet, to batch: inout DeviceFrameBatch)
    throws(AudioError)
  {
    let bytes = packet.bytes
    let size = DeviceAudioFormat.packetBytes
    let toc = DeviceAudioFormat.tocByte
    if format.channels == 1 {
      guard bytes.count == size else { throw wrongShape(packet) }
      guard bytes[0] == toc else { throw .unexpectedTOC(byte: bytes[0], offset: packet.pageOffset) }
      batch.bytes.append(contentsOf: bytes)
    } else if stereoLayout == .stereoPacket {
      guard bytes.count == 2 * size else { throw wrongShape(packet) }
      guard bytes[0] == DeviceAudioFormat.stereoTOCByte else {
        throw .unexpectedTOC(byte: bytes[0], offset: packet.pageOffset)
      }
      batch.bytes.append(contentsOf: bytes)
    } else {
      // B8 | 79 | 79 bytes | B8 | 79 bytes  (first stream self-delimited).
      guard bytes.count == 2 * size + 1, bytes[1] == UInt8(size - 1) else {
        throw wrongShape(packet)
      }
      guard bytes[0] == toc, bytes[size + 1] == toc else {
        throw .unexpectedTOC(
          byte: bytes[0] == toc ? bytes[size + 1] : bytes[0], offset: packet.pageOffset)
      }
      batch.bytes.append(toc)
      batch.bytes.append(contentsOf: bytes[2..<size + 1])
      batch.bytes.append(contentsOf: bytes[(size + 1)...])
    }
    batch.offsets.append(packet.pageOffset)
  }

  private func wrongShape(_ packet: OggPageReader.Packet) -> AudioError {
    .unsupportedAudioFormat(
      reason: "Opus packet of \(packet.bytes.count) bytes in the page at byte \(packet.pageOffset) "
        + "is not the device's \(format.channels)-channel 80-byte CELT shape")
  }

  /// Validates OpusHead (RFC 7845 §5.1) and maps it to a device format and, for two
  /// channels, the layout of its frames.
  static func parseHead(_ packet: OggPageReader.Packet) throws(AudioError) -> (
    DeviceAudioFormat, DeviceAudioFormat.StereoLayout?
  ) {
    let bytes = packet.bytes
    guard bytes.starts(with: Array("OpusHead".utf8)) else {
      throw .unsupportedAudioFormat(reason: "Ogg stream is not Opus (no OpusHead)")
    }
    guard bytes.count >= 19 else {
      throw .malformedOgg(offset: packet.pageOffset, reason: "OpusHead shorter than 19 bytes")
    }
    guard bytes[8] & 0xF0 == 0 else {
      throw .unsupportedAudioFormat(reason: "Ogg Opus version \(bytes[8])")
    }
    let channels = Int(bytes[9])
    let inputRate =
      UInt32(bytes[12]) | UInt32(bytes[13]) << 8 | UInt32(bytes[14]) << 16 | UInt32(bytes[15]) << 24
    let family = bytes[18]
    // The input rate is informational (RFC 7845 §5.1); the packets' TOC decides the rest.
    _ = inputRate
    switch (channels, family) {
    case (1, 0):
      return (.mono, nil)
    case (2, 0):
      return (.stereo, .stereoPacket)
    case (2, 1):
      guard bytes.count >= 23 else {
        throw .malformedOgg(offset: packet.pageOffset, reason: "OpusHead mapping table missing")
      }
      guard bytes[19] == 2, bytes[20] == 0, bytes[21] == 0, bytes[22] == 1 else {
        throw .unsupportedAudioFormat(
          reason: "2-channel Ogg Opus that is not two uncoupled mono streams")
      }
      return (.stereo, .twoMonoPackets)
    default:
      throw .unsupportedAudioFormat(
        reason: "Ogg Opus with \(channels) channels and mapping family \(family)")
    }
  }
}
