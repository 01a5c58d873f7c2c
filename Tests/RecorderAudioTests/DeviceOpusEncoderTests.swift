import RecorderEmulator
import Testing

@testable import RecorderAudio

@Suite struct DeviceAudioFormatTests {
  @Test func protocolFigures() throws {
    let mono = try DeviceAudioFormat(channels: 1)
    #expect(mono.bytesPerFrame == 80)
    #expect(mono.samplesPerFrame == 320)
    // PROTOCOL.md §11: 69 280 B = 866 frames = 17.32 s on V0095.
    #expect(mono.durationMs(forByteCount: 69_280) == 17_320)
    #expect(mono.frameCount(forByteCount: 69_280) == 866)
    #expect(mono.byteOffset(forMs: 1_000) == 4_000)
    #expect(mono.byteOffset(forMs: 1_019) == 4_000)
    #expect(mono.byteOffset(forMs: -5) == 0)
    let stereo = try DeviceAudioFormat(channels: 2)
    #expect(stereo.bytesPerFrame == 160)
    #expect(stereo.durationMs(forByteCount: 160 * 50 + 79) == 1_000)
    #expect(stereo.byteOffset(forMs: 40) == 320)
    #expect(DeviceAudioFormat.bitRate == 32_000)
  }

  @Test(arguments: [0, 3, -1, 8]) func refusesOtherChannelCounts(_ channels: Int) {
    #expect(throws: AudioError.unsupportedChannelCount(channels)) {
      try DeviceAudioFormat(channels: channels)
    }
  }
}

@Suite struct DeviceOpusEncoderTests {
  @Test(arguments: [1, 2]) func packetsHaveTheDeviceShape(_ channels: Int) throws {
    let encoder = try DeviceOpusEncoder(channels: channels)
    var signal = SpeechLikeSignal(seed: 7, channels: channels)
    // Include silence: CBR must still give 80 bytes and the wideband TOC.
    let silence = [Int16](repeating: 0, count: 320 * channels)
    for index in 0..<300 {
      let pcm = index < 20 ? silence : signal.nextFrame()
      let bytes = try encoder.encode(pcm)
      #expect(bytes.count == 80 * channels)
      for channel in 0..<channels {
        #expect(bytes[channel * 80] == 0xB8, "frame \(index) channel \(channel)")
      }
    }
    #expect(encoder.lookaheadSamples == 40)
  }

  @Test func refusesAWrongFrameLength() throws {
    let encoder = try DeviceOpusEncoder(channels: 2)
    #expect(throws: AudioError.wrongFrameLength(expected: 640, got: 320)) {
      try encoder.encode([Int16](repeating: 0, count: 320))
    }
  }

  @Test func refusesThreeChannels() {
    #expect(throws: AudioError.unsupportedChannelCount(3)) { try DeviceOpusEncoder(channels: 3) }
  }
}

@Suite struct SpeechLikeSignalTests {
  @Test func sameSeedSameAudioDifferentSeedDifferentAudio() {
    var first = SpeechLikeSignal(seed: 42)
    var second = SpeechLikeSignal(seed: 42)
    var other = SpeechLikeSignal(seed: 43)
    var differs = false
    for _ in 0..<100 {
      let frame = first.nextFrame()
      #expect(frame == second.nextFrame())
      if frame != other.nextFrame() { differs = true }
    }
    #expect(differs)
  }

  @Test func soundsLikeSpeechNotSilenceOrClipping() {
    var signal = SpeechLikeSignal(seed: 1)
    var loudFrames = 0
    var quietFrames = 0
    var peak = 0
    for _ in 0..<500 {  // 10 s
      let frame = signal.nextFrame()
      let energy = frame.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(frame.count)
      let rms = energy.squareRoot()
      if rms > 1_000 { loudFrames += 1 }
      if rms < 200 { quietFrames += 1 }
      peak = max(peak, frame.map { abs(Int($0)) }.max() ?? 0)
    }
    // Syllables and pauses both present, and no clipping.
    #expect(loudFrames > 50, "loud frames \(loudFrames)")
    #expect(quietFrames > 25, "quiet frames \(quietFrames)")
    #expect(peak < 32_000, "peak \(peak)")
  }
}

@Suite struct DeviceRecordingWriterTests {
  @Test(arguments: [1, 2]) func writesWholeFramesAndCycles(_ channels: Int) throws {
    let format = try DeviceAudioFormat(channels: channels)
    let path = temporaryPath("writer-\(channels).raw")
    defer { removeFile(path) }
    try DeviceRecordingWriter.writeSpeech(
      toPath: path, format: format, frameCount: 260, seed: 5, cycleFrames: 100)
    let bytes = try readFile(path)
    #expect(bytes.count == 260 * format.bytesPerFrame)
    let cycle = try DeviceRecordingWriter.speechRecording(format: format, frameCount: 100, seed: 5)
    #expect(Array(bytes[0..<cycle.count]) == cycle)
    #expect(Array(bytes[cycle.count..<2 * cycle.count]) == cycle)
    for frame in 0..<260 * channels { #expect(bytes[frame * 80] == 0xB8) }

    try DeviceRecordingWriter.writeSpeech(toPath: path, format: format, frameCount: 260, seed: 5)
    let unique = try readFile(path)
    #expect(unique.count == bytes.count)
    #expect(Array(unique[0..<cycle.count]) == cycle)
  }
}
