/// Everything that can go wrong in RecorderAudio, with what a user or caller needs to act.
///
/// Offsets are byte offsets into the *input* as given (the raw device file, or the Ogg
/// stream for Ogg-wrapped input), so a bad frame can be found with a hex editor.
public enum AudioError: Error, Sendable, Equatable, CustomStringConvertible {
  /// A channel count other than 1 or 2 (device `audioChannels`, or an export option).
  case unsupportedChannelCount(Int)
  /// The input is not audio we can decode faithfully (an unknown container, a packet that
  /// is not the device's 80-byte CELT mono shape, Ogg with a codec other than Opus, …).
  /// Never guessed at: mis-decoded audio is worse than a refusal.
  case unsupportedAudioFormat(reason: String)
  /// A device frame without the device's TOC where it belongs: not `0xB8` (mono, or each
  /// packet of a two-mono-packet frame), not `0xBC` (a 2-channel stereo-packet frame), or a
  /// 2-channel frame whose layout differs from the recording's first frame.
  case unexpectedTOC(byte: UInt8, offset: Int)
  /// The input ends inside a frame: `trailingBytes` bytes after the last whole frame.
  case truncatedFrame(offset: Int, trailingBytes: Int)
  /// libopus rejected the packet at `offset` (its error code and message).
  case opusDecodeFailed(offset: Int, code: Int32, message: String)
  /// libopus refused to create or configure an encoder or decoder.
  case opusSetupFailed(code: Int32, message: String)
  /// libopus encoded a packet of a shape the device never produces (a library bug or an
  /// unexpected libopus version); `reason` says what was off.
  case opusEncodeFailed(reason: String)
  /// The PCM handed to an encoder was not exactly one 20 ms frame.
  case wrongFrameLength(expected: Int, got: Int)
  /// A malformed Ogg page or Opus header at `offset` of the Ogg stream.
  case malformedOgg(offset: Int, reason: String)
  /// LAME refused to initialise or encode (its return code).
  case mp3EncoderFailed(stage: String, code: Int32)
  /// libogg refused a call.
  case oggFailed(stage: String)
  /// The WAV would exceed RIFF's 32-bit sizes (4 GiB); use raw PCM or split the export.
  case wavTooLarge(dataBytes: UInt64)
  /// The export's task was cancelled; the partial output was removed.
  case cancelled
  /// A file could not be opened, read or written (`errno` and its text).
  case io(path: String, operation: String, errno: Int32, message: String)

  public var description: String {
    switch self {
    case .unsupportedChannelCount(let count):
      return "unsupported channel count \(count) (the device records 1 or 2)"
    case .unsupportedAudioFormat(let reason):
      return "unsupported audio format: \(reason)"
    case .unexpectedTOC(let byte, let offset):
      return
        "byte \(offset) is 0x\(hex(byte)) where a device frame has its TOC: 0xB8 (for two "
        + "channels 0xB8 at both packets, or 0xBC for one stereo packet; one layout a recording)"
    case .truncatedFrame(let offset, let trailingBytes):
      return "input ends inside a frame: \(trailingBytes) stray bytes at byte \(offset)"
    case .opusDecodeFailed(let offset, let code, let message):
      return "libopus rejected the frame at byte \(offset): \(message) (\(code))"
    case .opusSetupFailed(let code, let message):
      return "libopus setup failed: \(message) (\(code))"
    case .opusEncodeFailed(let reason):
      return "Opus encode failed: \(reason)"
    case .wrongFrameLength(let expected, let got):
      return "expected \(expected) samples for one 20 ms frame, got \(got)"
    case .malformedOgg(let offset, let reason):
      return "malformed Ogg at byte \(offset): \(reason)"
    case .mp3EncoderFailed(let stage, let code):
      return "LAME \(stage) failed (\(code))"
    case .oggFailed(let stage):
      return "libogg \(stage) failed"
    case .wavTooLarge(let dataBytes):
      return "\(dataBytes) bytes of samples exceed the WAV (RIFF) 4 GiB limit; export pcm instead"
    case .cancelled:
      return "export cancelled"
    case .io(let path, let operation, let errno, let message):
      return "\(operation) \(path): \(message) (errno \(errno))"
    }
  }
}

private func hex(_ byte: UInt8) -> String {
  let digits = Array("0123456789ABCDEF")
  return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
}
