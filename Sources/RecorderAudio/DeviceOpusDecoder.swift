import COpus

/// Decodes device frames (PROTOCOL.md §5) to 16-bit PCM with libopus.
///
/// A device frame is 80 × channels bytes: one mono Opus packet per channel, each channel with
/// its own mono libopus decoder, or (two channels only) one 160-byte stereo packet, decoded
/// by a 2-channel libopus decoder made on first use (``DeviceAudioFormat/StereoLayout``).
/// CELT keeps state across frames, so frames must be fed in order. Before libopus sees a
/// frame its TOCs are checked (`DeviceAudioFormat.frameViolation(in:at:)`): anything else
/// is reported as `unexpectedTOC` with its offset rather than decoded, because libopus would
/// happily decode, say, a SILK packet into audio that is not what the device recorded.
///
/// Ownership: not `Sendable`; one export at a time owns a decoder.
public final class DeviceOpusDecoder {
  /// The recording's shape.
  public let format: DeviceAudioFormat
  /// Output rate: 16 000 (the device's rate, the default) or another rate libopus supports
  /// (8 000, 12 000, 24 000, 48 000; the interop tests compare with ffmpeg at 48 000).
  public let sampleRate: Int
  /// Samples per channel in one decoded 20 ms frame at `sampleRate`.
  public let samplesPerChannel: Int
  private let decoders: [OpaquePointer]
  /// The 2-channel decoder for stereo-packet frames, made on first use.
  private var stereoDecoder: OpaquePointer?
  private var scratch: [Int16]

  /// - Throws: `.unsupportedChannelCount`, or `.opusSetupFailed` for a rate libopus refuses.
  public init(channels: Int, sampleRate: Int = DeviceAudioFormat.sampleRate) throws(AudioError) {
    format = try DeviceAudioFormat(channels: channels)
    self.sampleRate = sampleRate
    samplesPerChannel = sampleRate / 1000 * DeviceAudioFormat.frameDurationMs
    scratch = [Int16](repeating: 0, count: samplesPerChannel)
    var made: [OpaquePointer] = []
    for _ in 0..<channels {
      var status: Int32 = 0
      guard let decoder = opus_decoder_create(opus_int32(sampleRate), 1, &status), status == OPUS_OK
      else {
        for decoder in made { opus_decoder_destroy(decoder) }
        throw .opusSetupFailed(code: status, message: opusErrorText(status))
      }
      made.append(decoder)
    }
    decoders = made
  }

  deinit {
    for decoder in decoders { opus_decoder_destroy(decoder) }
    if let stereoDecoder { opus_decoder_destroy(stereoDecoder) }
  }

  /// Interleaved samples in one decoded frame: `samplesPerChannel × channels`.
  public var samplesPerFrame: Int { samplesPerChannel * format.channels }

  /// Decodes one device frame.
  /// - Parameters:
  ///   - frame: exactly `80 × channels` bytes (for two channels, either layout).
  ///   - offset: where the frame sits in the input, for error reports.
  /// - Returns: `samplesPerFrame` interleaved samples.
  public func decode(_ frame: [UInt8], offset: Int = 0) throws(AudioError) -> [Int16] {
    var pcm = [Int16](repeating: 0, count: samplesPerFrame)
    let result = frame.withUnsafeBytes { bytes in
      pcm.withUnsafeMutableBufferPointer { out in
        Result { () throws(AudioError) in try decode(bytes, offset: offset, into: out) }
      }
    }
    try result.get()
    return pcm
  }

  /// Decodes one device frame from `frame` (80 × channels bytes) into `pcm`, which must
  /// hold `samplesPerFrame` samples. The allocation-free form the exporter uses.
  public func decode(
    _ frame: UnsafeRawBufferPointer, offset: Int, into pcm: UnsafeMutableBufferPointer<Int16>
  ) throws(AudioError) {
    guard frame.count == format.bytesPerFrame else {
      throw .truncatedFrame(offset: offset, trailingBytes: frame.count)
    }
    precondition(pcm.count >= samplesPerFrame, "pcm buffer too small")
    if let bad = format.frameViolation(in: frame, at: 0) {
      throw .unexpectedTOC(byte: frame[bad], offset: offset + bad)
    }
    if format.stereoLayout(in: frame, at: 0) == .stereoPacket {
      try decodeStereoPacket(frame, offset: offset, into: pcm)
      return
    }
    let channels = format.channels
    for channel in 0..<channels {
      let start = channel * DeviceAudioFormat.packetBytes
      let packet = UnsafeRawBufferPointer(
        rebasing: frame[start..<start + DeviceAudioFormat.packetBytes])
      let packetOffset = offset + start
      if channels == 1 {
        try decodePacket(packet, channel: 0, offset: packetOffset, into: pcm)
      } else {
        let result = scratch.withUnsafeMutableBufferPointer { out in
          Result { () throws(AudioError) in
            try decodePacket(packet, channel: channel, offset: packetOffset, into: out)
          }
        }
        try result.get()
        for index in 0..<samplesPerChannel {
          pcm[index * channels + channel] = scratch[index]
        }
      }
    }
  }

  /// One 160-byte stereo packet through the 2-channel decoder, straight into interleaved PCM.
  private func decodeStereoPacket(
    _ packet: UnsafeRawBufferPointer, offset: Int, into pcm: UnsafeMutableBufferPointer<Int16>
  ) throws(AudioError) {
    let decoder: OpaquePointer
    if let stereoDecoder {
      decoder = stereoDecoder
    } else {
      var status: Int32 = 0
      guard let made = opus_decoder_create(opus_int32(sampleRate), 2, &status), status == OPUS_OK
      else { throw .opusSetupFailed(code: status, message: opusErrorText(status)) }
      stereoDecoder = made
      decoder = made
    }
    guard let outBase = pcm.baseAddress else { preconditionFailure("pcm buffer too small") }
    let decoded = opus_decode(
      decoder, packet.baseAddress?.assumingMemoryBound(to: UInt8.self), opus_int32(packet.count),
      outBase, Int32(samplesPerChannel), 0)
    try checkDecoded(decoded, offset: offset)
  }

  private func checkDecoded(_ decoded: Int32, offset: Int) throws(AudioError) {
    if decoded < 0 {
      throw .opusDecodeFailed(offset: offset, code: decoded, message: opusErrorText(decoded))
    }
    if decoded != Int32(samplesPerChannel) {
      throw .opusDecodeFailed(
        offset: offset, code: OPUS_INVALID_PACKET,
        message: "decoded \(decoded) samples, expected \(samplesPerChannel) (not a 20 ms packet)")
    }
  }

  /// One channel's packet through libopus, without the TOC check (tests reach libopus's own
  /// rejection through this).
  func decodePacket(
    _ packet: UnsafeRawBufferPointer, channel: Int, offset: Int,
    into out: UnsafeMutableBufferPointer<Int16>
  ) throws(AudioError) {
    guard let outBase = out.baseAddress, out.count >= samplesPerChannel else {
      preconditionFailure("pcm buffer too small")
    }
    let decoded = opus_decode(
      decoders[channel], packet.baseAddress?.assumingMemoryBound(to: UInt8.self),
      opus_int32(packet.count), outBase, Int32(samplesPerChannel), 0)
    try checkDecoded(decoded, offset: offset)
  }
}
