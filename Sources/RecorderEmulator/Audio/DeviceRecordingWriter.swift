import RecorderAudio

/// Makes device recordings (raw concatenated 80-byte packets, PROTOCOL.md §5) of
/// `SpeechLikeSignal` audio: for the emulator's flash, for tests and for benchmarks.
///
/// Encoding costs real CPU (about 900 000 frames for 5 hours), so long recordings can be made
/// from a *cycle*: the first `cycleFrames` frames are encoded once and their packets
/// repeated. Every packet is still a real device packet, and decoding the repeat is valid
/// Opus (the decoder simply continues), so a 5-hour test file takes a few seconds. A cycled
/// recording is periodic, which is fine for transfer, export and memory tests but not for
/// anything that judges the audio's content over long spans.
public enum DeviceRecordingWriter {
  /// Writes `frameCount` frames to `path`, streaming: memory is one chunk of frames (or the
  /// cycle) regardless of `frameCount`.
  /// - Parameters:
  ///   - path: the file to write.
  ///   - format: the recording's shape (channels).
  ///   - frameCount: 20 ms frames to write.
  ///   - seed: seeds the speech-like signal, so the same seed writes the same bytes.
  ///   - cycleFrames: encode this many frames once and repeat them; `nil` encodes every
  ///     frame (unique audio, slow for hours).
  ///   - progress: called after each chunk with the frames written so far.
  public static func writeSpeech(
    toPath path: String, format: DeviceAudioFormat, frameCount: Int, seed: UInt64,
    cycleFrames: Int? = nil, progress: ((Int) -> Void)? = nil
  ) throws(AudioError) {
    precondition(frameCount >= 0, "frameCount must not be negative")
    let file = try AudioOutputFile(path: path)
    if let cycleFrames, cycleFrames > 0, cycleFrames < frameCount {
      let cycle = try speechRecording(format: format, frameCount: cycleFrames, seed: seed)
      var written = 0
      while written < frameCount {
        let frames = min(cycleFrames, frameCount - written)
        try file.write(cycle, 0..<frames * format.bytesPerFrame)
        written += frames
        progress?(written)
      }
    } else {
      var generator = try SpeechRecordingGenerator(format: format, seed: seed)
      let chunkFrames = 250
      var chunk = [UInt8](repeating: 0, count: chunkFrames * format.bytesPerFrame)
      var written = 0
      while written < frameCount {
        let frames = min(chunkFrames, frameCount - written)
        for index in 0..<frames {
          try generator.encodeNextFrame(into: &chunk, at: index * format.bytesPerFrame)
        }
        try file.write(chunk, 0..<frames * format.bytesPerFrame)
        written += frames
        progress?(written)
      }
    }
    try file.close()
  }

  /// A whole recording in memory, for short recordings (tests, the emulator's flash):
  /// `frameCount × 80 × channels` bytes, a 2-channel one in `layout`.
  public static func speechRecording(
    format: DeviceAudioFormat, frameCount: Int, seed: UInt64,
    layout: DeviceAudioFormat.StereoLayout = .twoMonoPackets
  ) throws(AudioError) -> [UInt8] {
    precondition(frameCount >= 0, "frameCount must not be negative")
    var generator = try SpeechRecordingGenerator(format: format, seed: seed, layout: layout)
    var bytes = [UInt8](repeating: 0, count: frameCount * format.bytesPerFrame)
    for index in 0..<frameCount {
      try generator.encodeNextFrame(into: &bytes, at: index * format.bytesPerFrame)
    }
    return bytes
  }
}

/// Speech-like audio encoded frame by frame into device packets; the building block of
/// `DeviceRecordingWriter`, public so the emulator can record "live".
///
/// Ownership: not `Sendable` (it owns a `DeviceOpusEncoder`).
public struct SpeechRecordingGenerator {
  public let format: DeviceAudioFormat
  private var signal: SpeechLikeSignal
  private let encoder: DeviceOpusEncoder
  private var pcm: [Int16]

  /// `layout` chooses a 2-channel frame's shape (ignored for mono).
  public init(
    format: DeviceAudioFormat, seed: UInt64,
    layout: DeviceAudioFormat.StereoLayout = .twoMonoPackets
  ) throws(AudioError) {
    self.format = format
    signal = SpeechLikeSignal(seed: seed, channels: format.channels)
    encoder = try DeviceOpusEncoder(channels: format.channels, layout: layout)
    pcm = [Int16](repeating: 0, count: format.samplesPerFrame)
  }

  /// The next 20 ms as device bytes (80 × channels).
  public mutating func nextFrame() throws(AudioError) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: format.bytesPerFrame)
    try encodeNextFrame(into: &bytes, at: 0)
    return bytes
  }

  /// Encodes the next 20 ms into `output[offset ..< offset + 80 × channels]`.
  public mutating func encodeNextFrame(into output: inout [UInt8], at offset: Int)
    throws(AudioError)
  {
    signal.nextFrame(into: &pcm)
    try encoder.encode(pcm, into: &output, at: offset)
  }
}
