import CLame

/// MP3 encoder settings. The default suits 16 kHz speech: MPEG-2 Layer III at the device's
/// own rate (no resampling), CBR 40 kbit/s mono or 48 kbit/s joint stereo, LAME algorithm
/// quality 5 (LAME's "good and fast", and ffmpeg's default, which keeps the benchmark
/// comparison like for like).
///
/// Why 40 and not 32 kbit/s mono: LAME writes its Xing/LAME info frame at the stream's CBR
/// rate, and at 16 kHz a 32 kbit/s frame is 144 bytes, too small for the 165-byte tag, so LAME
/// silently drops it (`InitVbrTag`). 40 kbit/s (180-byte frames) is the lowest rate that keeps
/// the info frame; the device's own Opus is 32 kbit/s, so the MP3 costs about the same space.
/// A lower `.constant` rate is allowed but produces no info frame (players then estimate the
/// length from the constant rate, which is still close).
public struct MP3Settings: Sendable, Equatable {
  /// How LAME spends bits.
  public enum BitRate: Sendable, Equatable {
    /// 40 kbit/s mono, 48 kbit/s for two channels, CBR.
    case speechDefault
    /// Constant bit rate in kbit/s (MPEG-2 at 16 kHz allows 8–160; LAME picks the nearest).
    case constant(kbps: Int)
    /// LAME VBR (`-V`), 0 = best … 9 = smallest.
    case variable(quality: Int)
  }

  public var bitRate: BitRate
  /// LAME's algorithm quality (`-q`), 0 = slowest/best … 9 = fastest.
  public var encoderQuality: Int

  public init(bitRate: BitRate = .speechDefault, encoderQuality: Int = 5) {
    self.bitRate = bitRate
    self.encoderQuality = encoderQuality
  }

  /// The default, for 16 kHz speech.
  public static let speech = MP3Settings()

  /// The CBR rate `.speechDefault` resolves to for `channels` channels.
  public static func speechKbps(channels: Int) -> Int { channels == 1 ? 40 : 48 }
}

/// Streams PCM through LAME into an MP3 file, then writes the Xing/LAME info frame over the
/// placeholder LAME reserved at the start, so players and ffprobe know the exact frame
/// count, encoder delay and padding instead of estimating from the bit rate.
///
/// Ownership: not `Sendable`; one export owns it.
final class MP3Writer: PCMSink {
  private let file: AudioOutputFile
  private let lame: OpaquePointer
  private let channels: Int
  private var output: [UInt8] = []

  init(path: String, channels: Int, sampleRate: Int, settings: MP3Settings) throws(AudioError) {
    guard let lame = lame_init() else { throw .mp3EncoderFailed(stage: "lame_init", code: -1) }
    self.lame = lame
    self.channels = channels
    lame_set_num_channels(lame, Int32(channels))
    lame_set_in_samplerate(lame, Int32(sampleRate))
    lame_set_out_samplerate(lame, Int32(sampleRate))
    lame_set_mode(lame, channels == 1 ? MONO : JOINT_STEREO)
    lame_set_quality(lame, Int32(min(9, max(0, settings.encoderQuality))))
    lame_set_bWriteVbrTag(lame, 1)
    lame_set_write_id3tag_automatic(lame, 0)
    switch settings.bitRate {
    case .speechDefault:
      lame_set_VBR(lame, vbr_off)
      lame_set_brate(lame, Int32(MP3Settings.speechKbps(channels: channels)))
    case .constant(let kbps):
      lame_set_VBR(lame, vbr_off)
      lame_set_brate(lame, Int32(kbps))
    case .variable(let quality):
      lame_set_VBR(lame, vbr_default)
      lame_set_VBR_quality(lame, Float(min(9, max(0, quality))))
    }
    let status = lame_init_params(lame)
    guard status >= 0 else {
      lame_close(lame)
      throw .mp3EncoderFailed(stage: "lame_init_params", code: status)
    }
    do {
      file = try AudioOutputFile(path: path)
    } catch {
      lame_close(lame)
      throw error
    }
  }

  deinit { lame_close(lame) }

  func write(_ samples: UnsafeBufferPointer<Int16>) throws(AudioError) {
    guard let base = samples.baseAddress, !samples.isEmpty else { return }
    let perChannel = samples.count / channels
    // LAME's documented worst case: 1.25 × samples + 7200.
    let needed = perChannel * 5 / 4 + 7200
    if output.count < needed { output = [UInt8](repeating: 0, count: needed) }
    let produced = output.withUnsafeMutableBufferPointer { out in
      if channels == 1 {
        return lame_encode_buffer(
          lame, base, base, Int32(perChannel), out.baseAddress, Int32(out.count))
      }
      return lame_encode_buffer_interleaved(
        lame, UnsafeMutablePointer(mutating: base), Int32(perChannel), out.baseAddress,
        Int32(out.count))
    }
    guard produced >= 0 else {
      throw .mp3EncoderFailed(stage: "lame_encode_buffer", code: produced)
    }
    try file.write(output, 0..<Int(produced))
  }

  func finish() throws(AudioError) {
    if output.count < 7200 { output = [UInt8](repeating: 0, count: 7200) }
    let flushed = output.withUnsafeMutableBufferPointer { out in
      lame_encode_flush(lame, out.baseAddress, Int32(out.count))
    }
    guard flushed >= 0 else { throw .mp3EncoderFailed(stage: "lame_encode_flush", code: flushed) }
    try file.write(output, 0..<Int(flushed))
    var tag = [UInt8](repeating: 0, count: 2880)
    let tagSize = tag.withUnsafeMutableBufferPointer { out in
      lame_get_lametag_frame(lame, out.baseAddress, out.count)
    }
    if tagSize > 0 && tagSize <= tag.count {
      try file.patch(Array(tag[0..<tagSize]), at: 0)
    }
    try file.close()
  }
}
