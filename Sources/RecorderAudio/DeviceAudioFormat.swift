/// The shape of the audio a Plaud Note / NotePin stores and sends (shared/PROTOCOL.md §5):
/// raw CELT-only Opus, 16 kHz, one 20 ms frame per packet, 80 bytes per packet per channel,
/// TOC byte `0xB8` (config 23 = CELT-only wideband 20 ms, mono, one frame), 32 kbit/s per
/// channel, no container [device][sdk].
///
/// A 2-channel recording has 160 bytes per 20 ms, read one of two ways (``StereoLayout``):
/// two *mono* Opus packets of 80 bytes each (channel 0 then channel 1, each TOC `0xB8`), or
/// one 160-byte *stereo* CELT packet (TOC `0xBC`: config 23 with the stereo flag). Which one
/// a frame is follows from its bytes (`frameViolation(in:at:)`); a frame that is neither is
/// refused, never decoded.
///
/// The device's `audioChannels` (HANDSHAKE response) decides `channels`; V0095 reports 1.
public struct DeviceAudioFormat: Sendable, Equatable, Hashable, CustomStringConvertible {
  /// Samples per second of the decoded audio [device].
  public static let sampleRate = 16_000
  /// Duration of one Opus frame in milliseconds [device].
  public static let frameDurationMs = 20
  /// Decoded samples per channel in one 20 ms frame at 16 kHz.
  public static let samplesPerFrame = sampleRate / 1000 * frameDurationMs
  /// Bytes of one channel's Opus packet [device].
  public static let packetBytes = 80
  /// The first byte of every device packet: config 23 (CELT-only, wideband, 20 ms), mono,
  /// code 0 (one frame) [device].
  public static let tocByte: UInt8 = 0xB8
  /// The first byte of a 2-channel frame that is one 160-byte stereo packet: config 23
  /// (CELT-only, wideband, 20 ms), stereo, code 0 (one frame).
  public static let stereoTOCByte: UInt8 = 0xBC
  /// Per-channel bit rate the device encodes at: 80 bytes every 20 ms [device].
  public static let bitRate = packetBytes * 8 * 1000 / frameDurationMs

  /// 1 (every device seen so far) or 2.
  public let channels: Int

  /// A format with `channels` channels; only 1 and 2 exist.
  /// - Throws: `AudioError.unsupportedChannelCount` for anything else, since the count
  ///   usually comes from a device's HANDSHAKE response (outside bytes).
  public init(channels: Int) throws(AudioError) {
    guard channels == 1 || channels == 2 else { throw .unsupportedChannelCount(channels) }
    self.channels = channels
  }

  /// The single-channel format of firmware V0095.
  public static let mono = DeviceAudioFormat(validChannels: 1)
  /// The two-channel format (160 bytes per 20 ms, either ``StereoLayout``).
  public static let stereo = DeviceAudioFormat(validChannels: 2)

  private init(validChannels: Int) { self.channels = validChannels }

  /// Sample rate, for call sites that hold a format value.
  public var sampleRate: Int { Self.sampleRate }
  /// Frame duration in milliseconds, for call sites that hold a format value.
  public var frameDurationMs: Int { Self.frameDurationMs }
  /// Bytes of one 20 ms frame across all channels: 80 × channels.
  public var bytesPerFrame: Int { Self.packetBytes * channels }
  /// Interleaved 16-bit samples in one decoded 20 ms frame: 320 × channels.
  public var samplesPerFrame: Int { Self.samplesPerFrame * channels }

  /// Whole frames in `byteCount` bytes; a trailing partial frame is not counted.
  public func frameCount(forByteCount byteCount: Int) -> Int {
    max(0, byteCount) / bytesPerFrame
  }

  /// Duration of a recording of `byteCount` bytes, as the vendor SDK computes it:
  /// `size / (80 × channels) × 20` (integer division; a partial frame has no duration).
  public func durationMs(forByteCount byteCount: Int) -> Int {
    frameCount(forByteCount: byteCount) * Self.frameDurationMs
  }

  /// The byte offset where time `ms` starts: `(ms / 20) × 80 × channels`, always a frame
  /// boundary, so a resumed read never starts mid-packet. Negative times map to 0.
  public func byteOffset(forMs ms: Int) -> Int {
    max(0, ms) / Self.frameDurationMs * bytesPerFrame
  }

  /// How a 2-channel frame's 160 bytes are laid out.
  public enum StereoLayout: String, Sendable, CaseIterable {
    /// Two mono packets, `B8 <79 bytes>` for channel 0 then `B8 <79 bytes>` for channel 1.
    case twoMonoPackets
    /// One stereo packet, `BC <159 bytes>`, at the same byte rate (64 kbit/s for both).
    case stereoPacket
  }

  /// The layout of the frame starting at `bytes[index]`, judged from the bytes present
  /// (a chunk may end inside the frame); nil for a mono format. Call it only on a frame
  /// that `frameViolation(in:at:)` accepts.
  public func stereoLayout(in bytes: UnsafeRawBufferPointer, at index: Int) -> StereoLayout? {
    guard channels == 2, index < bytes.count else { return nil }
    return bytes[index] == Self.stereoTOCByte ? .stereoPacket : .twoMonoPackets
  }

  /// Checks the device framing of the frame that starts at `bytes[index]`, as far as `bytes`
  /// reaches (a chunk may end inside the frame; the missing bytes are not judged).
  ///
  /// Mono: the first byte is `0xB8`. Two channels: the first byte is `0xBC` (one stereo
  /// packet), or the first byte and the byte 80 later are both `0xB8` (two mono packets).
  /// - Returns: nil when the frame is valid, else the index in `bytes` of the first byte
  ///   that is not the device's TOC (for an `unexpectedTOC` report).
  public func frameViolation(in bytes: UnsafeRawBufferPointer, at index: Int) -> Int? {
    guard index >= 0, index < bytes.count else { return nil }
    let first = bytes[index]
    if channels == 2, first == Self.stereoTOCByte { return nil }
    guard first == Self.tocByte else { return index }
    let second = index + Self.packetBytes
    if channels == 2, second < bytes.count, bytes[second] != Self.tocByte { return second }
    return nil
  }

  /// `frameViolation(in:at:)` over an array.
  public func frameViolation(in bytes: [UInt8], at index: Int) -> Int? {
    bytes.withUnsafeBytes { frameViolation(in: $0, at: index) }
  }

  /// Whether the frame starting at `bytes[index]` has the device's framing, as far as
  /// `bytes` reaches (`frameViolation(in:at:)` is nil).
  public func frameIsDeviceOpus(_ bytes: [UInt8], at index: Int) -> Bool {
    frameViolation(in: bytes, at: index) == nil
  }

  public var description: String {
    "Opus CELT 16 kHz 20 ms, \(channels) ch × \(Self.packetBytes) B"
  }
}
