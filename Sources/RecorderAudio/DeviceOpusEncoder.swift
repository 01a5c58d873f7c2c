import COpus
import COpusShim

/// Encodes 16 kHz PCM into packets shaped exactly like the device's (PROTOCOL.md §5): per
/// channel, one 80-byte CBR CELT-only mono packet per 20 ms, first byte `0xB8`.
///
/// Used by the emulator to fill its flash with real audio, and by tests and benchmarks. A
/// 2-channel encoder makes either ``DeviceAudioFormat/StereoLayout``: two mono packets per
/// frame from two independent mono libopus encoders (the default), or one 160-byte stereo
/// packet (TOC `0xBC`) from one 2-channel libopus encoder at 64 kbit/s with both channels
/// forced, the same configuration otherwise.
///
/// Configuration and why: `OPUS_APPLICATION_RESTRICTED_LOWDELAY` (CELT only by construction,
/// so no SILK or hybrid packet can ever appear; 2.5 ms lookahead), CBR at 32 kbit/s (exactly
/// 80 bytes per 20 ms), bandwidth pinned to wideband (TOC config 23 rather than a narrower
/// config on quiet input). The libopus ctl calls go through the small C target `COpusShim`
/// because `opus_encoder_ctl` is variadic, which Swift cannot call portably.
///
/// Ownership: not `Sendable`. An instance holds mutable libopus state; use it from one task
/// at a time (each emulated device owns its own encoder).
public final class DeviceOpusEncoder {
  /// The shape of what this encoder produces.
  public let format: DeviceAudioFormat
  /// How a 2-channel frame is laid out (`.twoMonoPackets` for mono, where it has no effect).
  public let layout: DeviceAudioFormat.StereoLayout
  /// One mono libopus encoder per channel, or one 2-channel encoder for `.stereoPacket`;
  /// freed in `deinit`.
  private let encoders: [OpaquePointer]
  /// Scratch for one channel's deinterleaved samples.
  private var channelPCM: [Int16]

  /// An encoder for `channels` (1 or 2) channels; `layout` chooses a 2-channel frame's shape
  /// and is ignored for one channel.
  /// - Throws: `AudioError.unsupportedChannelCount`, or `.opusSetupFailed` when libopus
  ///   refuses the configuration.
  public init(channels: Int, layout: DeviceAudioFormat.StereoLayout = .twoMonoPackets)
    throws(AudioError)
  {
    format = try DeviceAudioFormat(channels: channels)
    self.layout = channels == 2 ? layout : .twoMonoPackets
    channelPCM = [Int16](repeating: 0, count: DeviceAudioFormat.samplesPerFrame)
    var made: [OpaquePointer] = []
    do {
      if self.layout == .stereoPacket {
        made.append(try Self.makeEncoder(channels: 2))
      } else {
        for _ in 0..<channels { made.append(try Self.makeEncoder(channels: 1)) }
      }
    } catch {
      for encoder in made { opus_encoder_destroy(encoder) }
      throw error
    }
    encoders = made
  }

  /// The encoder's lookahead in 16 kHz samples (40 = 2.5 ms for this configuration); the Ogg
  /// writer's pre-skip is this × 3.
  public var lookaheadSamples: Int {
    var value: opus_int32 = 0
    guard let first = encoders.first,
      recorder_opus_encoder_get(first, OPUS_GET_LOOKAHEAD_REQUEST, &value) == OPUS_OK
    else { return 0 }
    return Int(value)
  }

  deinit {
    for encoder in encoders { opus_encoder_destroy(encoder) }
  }

  /// Encodes one 20 ms frame.
  /// - Parameter pcm: 320 × channels interleaved samples (channel 0 first).
  /// - Returns: 80 × channels bytes: channel 0's packet, then channel 1's, or the one
  ///   160-byte stereo packet.
  /// - Throws: `.wrongFrameLength` for any other sample count; `.opusEncodeFailed` if
  ///   libopus produced anything but an 80-byte `0xB8` packet (a 160-byte `0xBC` one for
  ///   `.stereoPacket`).
  public func encode(_ pcm: [Int16]) throws(AudioError) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: format.bytesPerFrame)
    try encode(pcm, into: &out, at: 0)
    return out
  }

  /// Like `encode(_:)`, writing the frame into `output[offset ..< offset + 80 × channels]`,
  /// so a caller can fill one buffer with many frames without allocating per frame.
  public func encode(_ pcm: [Int16], into output: inout [UInt8], at offset: Int) throws(AudioError)
  {
    guard pcm.count == format.samplesPerFrame else {
      throw .wrongFrameLength(expected: format.samplesPerFrame, got: pcm.count)
    }
    precondition(offset >= 0 && offset + format.bytesPerFrame <= output.count, "output too small")
    if layout == .stereoPacket {
      try encodeStereoPacket(pcm, into: &output, at: offset)
      return
    }
    let channels = format.channels
    let packetBytes = DeviceAudioFormat.packetBytes
    for (channel, encoder) in encoders.enumerated() {
      let written: Int32
      if channels == 1 {
        written = pcm.withUnsafeBufferPointer { samples in
          output.withUnsafeMutableBufferPointer { bytes in
            opus_encode(
              encoder, samples.baseAddress!, Int32(DeviceAudioFormat.samplesPerFrame),
              bytes.baseAddress! + offset, Int32(packetBytes))
          }
        }
      } else {
        for index in 0..<DeviceAudioFormat.samplesPerFrame {
          channelPCM[index] = pcm[index * channels + channel]
        }
        let start = offset + channel * packetBytes
        written = channelPCM.withUnsafeBufferPointer { samples in
          output.withUnsafeMutableBufferPointer { bytes in
            opus_encode(
              encoder, samples.baseAddress!, Int32(DeviceAudioFormat.samplesPerFrame),
              bytes.baseAddress! + start, Int32(packetBytes))
          }
        }
      }
      guard written == Int32(packetBytes) else {
        throw .opusEncodeFailed(reason: "packet of \(written) bytes, expected \(packetBytes)")
      }
      let toc = output[offset + channel * packetBytes]
      guard toc == DeviceAudioFormat.tocByte else {
        throw .opusEncodeFailed(reason: "TOC 0x\(String(toc, radix: 16)), expected 0xb8")
      }
    }
  }

  /// The one 160-byte stereo packet of a `.stereoPacket` frame.
  private func encodeStereoPacket(_ pcm: [Int16], into output: inout [UInt8], at offset: Int)
    throws(AudioError)
  {
    let frameBytes = format.bytesPerFrame
    let encoder = encoders[0]
    let written = pcm.withUnsafeBufferPointer { samples in
      output.withUnsafeMutableBufferPointer { bytes in
        opus_encode(
          encoder, samples.baseAddress!, Int32(DeviceAudioFormat.samplesPerFrame),
          bytes.baseAddress! + offset, Int32(frameBytes))
      }
    }
    guard written == Int32(frameBytes) else {
      throw .opusEncodeFailed(reason: "packet of \(written) bytes, expected \(frameBytes)")
    }
    let toc = output[offset]
    guard toc == DeviceAudioFormat.stereoTOCByte else {
      throw .opusEncodeFailed(reason: "TOC 0x\(String(toc, radix: 16)), expected 0xbc")
    }
  }

  /// A CELT-only CBR wideband encoder at 32 kbit/s per channel; a 2-channel one codes both
  /// channels (never a mono stream inside a stereo packet).
  private static func makeEncoder(channels: Int32) throws(AudioError) -> OpaquePointer {
    var status: Int32 = 0
    guard
      let encoder = opus_encoder_create(
        opus_int32(DeviceAudioFormat.sampleRate), channels, OPUS_APPLICATION_RESTRICTED_LOWDELAY,
        &status),
      status == OPUS_OK
    else { throw .opusSetupFailed(code: status, message: opusErrorText(status)) }
    var settings: [(Int32, Int32)] = [
      (OPUS_SET_BITRATE_REQUEST, Int32(DeviceAudioFormat.bitRate) * channels),
      (OPUS_SET_VBR_REQUEST, 0),
      (OPUS_SET_BANDWIDTH_REQUEST, OPUS_BANDWIDTH_WIDEBAND),
      (OPUS_SET_SIGNAL_REQUEST, OPUS_SIGNAL_VOICE),
      (OPUS_SET_COMPLEXITY_REQUEST, 10),
    ]
    if channels == 2 { settings.append((OPUS_SET_FORCE_CHANNELS_REQUEST, 2)) }
    for (request, value) in settings {
      let result = recorder_opus_encoder_set(encoder, request, value)
      guard result == OPUS_OK else {
        opus_encoder_destroy(encoder)
        throw .opusSetupFailed(code: result, message: opusErrorText(result))
      }
    }
    return encoder
  }
}

/// libopus's text for an error code.
func opusErrorText(_ code: Int32) -> String {
  guard let text = opus_strerror(code) else { return "unknown error" }
  return String(cString: text)
}
