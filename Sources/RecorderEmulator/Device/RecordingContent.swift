import RecorderAudio

/// Where the device's recorded audio comes from: the one place that knows RecorderAudio's
/// encoder.
///
/// Encoding is real CPU, so the device encodes one *cycle* of speech-like audio once
/// (``cycleFrames`` frames of `SpeechLikeSignal`, seeded) and every recording is that cycle
/// repeated from its own starting frame. Every packet is a real 80-byte CELT packet with TOC
/// `0xB8` (or, for a 2-channel stereo-packet device, a real 160-byte one with TOC `0xBC`),
/// and a repeated cycle decodes as valid Opus (the decoder just continues).
///
/// Ownership: immutable after `init`, so `Sendable`.
struct RecordingContent: Sendable {
  let bytesPerFrame: Int
  /// `cycleFrames × bytesPerFrame` bytes of device packets.
  private let cycle: [UInt8]

  /// Ten seconds of audio per cycle.
  static let defaultCycleFrames = 500

  var cycleFrames: Int { cycle.count / bytesPerFrame }

  /// `layout` shapes a 2-channel frame (``DeviceConfiguration/stereoLayout``).
  init(
    channels: Int, seed: UInt64, layout: DeviceAudioFormat.StereoLayout = .twoMonoPackets,
    cycleFrames: Int = defaultCycleFrames
  ) throws(EmulatorError) {
    do {
      let format = try DeviceAudioFormat(channels: channels)
      cycle = try DeviceRecordingWriter.speechRecording(
        format: format, frameCount: cycleFrames, seed: seed, layout: layout)
      bytesPerFrame = format.bytesPerFrame
    } catch {
      throw .audio(error.description)
    }
  }

  /// Frames `first ..< first + count` of a recording whose audio starts at cycle frame
  /// `phase`, as device bytes.
  func frames(phase: Int, first: Int, count: Int) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(count * bytesPerFrame)
    let frames = cycleFrames
    var index = (phase + first) % frames
    var left = count
    while left > 0 {
      let run = min(left, frames - index)
      out.append(contentsOf: cycle[index * bytesPerFrame..<(index + run) * bytesPerFrame])
      left -= run
      index = 0
    }
    return out
  }
}
