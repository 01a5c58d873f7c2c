import Foundation
import RecorderEmulator
import TestSupport
import Testing

@testable import RecorderAudio

/// A 2-channel recording's other reading (PROTOCOL.md §5): each 20 ms frame one 160-byte
/// stereo CELT packet, TOC `0xBC`, instead of two 80-byte mono packets `0xB8 … 0xB8 …`.
/// Both decode, export and re-read; a frame that is neither is refused with its offset.
@Suite(.blockingWaits) struct StereoPacketTests {
  /// A speech-like 2-channel recording of `frames` frames in `layout`, in memory.
  func recording(_ layout: DeviceAudioFormat.StereoLayout, frames: Int, seed: UInt64) throws
    -> [UInt8]
  {
    try DeviceRecordingWriter.speechRecording(
      format: .stereo, frameCount: frames, seed: seed, layout: layout)
  }

  func writeRecording(_ name: String, _ bytes: [UInt8]) throws -> String {
    let path = temporaryPath(name)
    try writeFile(path, bytes)
    return path
  }

  @Test func theEncoderMakesOne160ByteStereoPacketPerFrame() throws {
    let bytes = try recording(.stereoPacket, frames: 100, seed: 31)
    #expect(bytes.count == 100 * 160)
    let tocs = Set(stride(from: 0, to: bytes.count, by: 160).map { bytes[$0] })
    #expect(tocs == [0xBC], "every frame one stereo packet")
    let encoder = try DeviceOpusEncoder(channels: 2, layout: .stereoPacket)
    #expect(encoder.layout == .stereoPacket)
    #expect(throws: AudioError.wrongFrameLength(expected: 640, got: 320)) {
      try encoder.encode([Int16](repeating: 0, count: 320))
    }
    // The layout means nothing for one channel.
    #expect(try DeviceOpusEncoder(channels: 1, layout: .stereoPacket).layout == .twoMonoPackets)
  }

  /// Each channel of the decode follows its own channel of the source (channel 1 is a
  /// quieter copy of channel 0 with its own noise), in both layouts, in the right order.
  @Test(arguments: DeviceAudioFormat.StereoLayout.allCases)
  func framesDecodeToInterleavedPCMOfBothChannels(_ layout: DeviceAudioFormat.StereoLayout)
    throws
  {
    let frames = 150
    var signal = SpeechLikeSignal(seed: 32, channels: 2)
    let encoder = try DeviceOpusEncoder(channels: 2, layout: layout)
    let decoder = try DeviceOpusDecoder(channels: 2)
    var source: [Int16] = []
    var decoded: [Int16] = []
    for index in 0..<frames {
      let pcm = signal.nextFrame()
      source += pcm
      let packet = try encoder.encode(pcm)
      let out = try decoder.decode(packet, offset: index * 160)
      #expect(out.count == 640)
      decoded += out
    }
    let delay = encoder.lookaheadSamples
    #expect(delay > 0)
    func channel(_ samples: [Int16], _ number: Int) -> [Double] {
      stride(from: number, to: samples.count, by: 2).map { Double(samples[$0]) }
    }
    /// Signal-to-error ratio (dB) of `decoded` against `reference` delayed by the lookahead.
    func snr(_ reference: [Double], _ decoded: [Double]) -> Double {
      var signal = 0.0
      var error = 0.0
      for index in delay..<reference.count {
        signal += reference[index - delay] * reference[index - delay]
        let difference = decoded[index] - reference[index - delay]
        error += difference * difference
      }
      return 10 * log10(signal / max(error, 1))
    }
    let left = snr(channel(source, 0), channel(decoded, 0))
    let right = snr(channel(source, 1), channel(decoded, 1))
    let swapped = snr(channel(source, 0), channel(decoded, 1))
    // Measured: about 21 dB (two mono packets) and 27 dB (one stereo packet) per channel,
    // about 10 dB against the other channel.
    #expect(left > 15, "channel 0: \(left) dB")
    #expect(right > 15, "channel 1: \(right) dB")
    #expect(swapped < left - 8, "channels in order: \(swapped) vs \(left) dB")
  }

  @Test func aStereoPacketFileExportsToEveryFormat() throws {
    let bytes = try recording(.stereoPacket, frames: 120, seed: 33)
    let input = try writeRecording("b.raw", bytes)
    defer { removeFile(input) }
    let expected = try decodeAll(bytes, channels: 2)
    #expect(expected.count == 120 * 640)
    for format in ExportFormat.allCases {
      let out = temporaryPath("b.\(format.rawValue)")
      defer { removeFile(out) }
      let result = try AudioExporter.export(
        from: input, recordedChannels: 2, to: out, options: ExportOptions(format: format))
      #expect(result.frames == 120)
      #expect(result.channels == 2)
      #expect(result.durationMs == 2_400)
      let written = try readFile(out)
      switch format {
      case .pcm: #expect(int16s(written) == expected)
      case .wav:
        #expect(written.count == 44 + 120 * 1280)
        #expect(int16s(Array(written[44...])) == expected)
      case .mp3: #expect(written.count > 1000)
      case .opus:
        // One 2-channel stream, mapping family 0, the packets as they are.
        #expect(written[28..<36] == ArraySlice(Array("OpusHead".utf8)))
        #expect(written[37] == 2)
        #expect(written[46] == 0)
      }
    }
    // Downmixed to one channel (and re-encoded for Opus): the mean of both channels.
    let mono = temporaryPath("b-mono.pcm")
    let monoOpus = temporaryPath("b-mono.opus")
    defer { removeFile(mono); removeFile(monoOpus) }
    _ = try AudioExporter.export(
      from: input, recordedChannels: 2, to: mono, options: ExportOptions(format: .pcm, channels: 1))
    let downmix = stride(from: 0, to: expected.count, by: 2).map {
      Int16((Int32(expected[$0]) + Int32(expected[$0 + 1])) >> 1)
    }
    #expect(int16s(try readFile(mono)) == downmix)
    let reencoded = try AudioExporter.export(
      from: input, recordedChannels: 2, to: monoOpus,
      options: ExportOptions(format: .opus, channels: 1))
    #expect(reencoded.frames == 120)
    #expect(try AudioExporter.frameCount(ofRecordingAt: monoOpus, recordedChannels: 1) == 120)
  }

  /// Our .opus of a stereo-packet recording, read back by the exporter: the same frames byte
  /// for byte and the same decode.
  @Test func anOpusExportOfStereoPacketsReadsBack() throws {
    let bytes = try recording(.stereoPacket, frames: 130, seed: 34)
    let input = try writeRecording("b-rt.raw", bytes)
    let ogg = temporaryPath("b-rt.opus")
    let fromOgg = temporaryPath("b-rt.pcm")
    defer { for path in [input, ogg, fromOgg] { removeFile(path) } }
    _ = try AudioExporter.export(
      from: input, recordedChannels: 2, to: ogg, options: ExportOptions(format: .opus))
    let result = try AudioExporter.export(
      from: ogg, recordedChannels: 2, to: fromOgg, options: ExportOptions(format: .pcm))
    #expect(result.frames == 130)
    #expect(int16s(try readFile(fromOgg)) == (try decodeAll(bytes, channels: 2)))
    let source = try OggOpusFrameSource(source: MemoryByteSource(try readFile(ogg), chunkLimit: 97))
    #expect(source.stereoLayout == .stereoPacket)
    var batch = DeviceFrameBatch()
    var frames: [UInt8] = []
    repeat {
      try source.readFrames(into: &batch, maxFrames: 7)
      frames += batch.bytes
    } while batch.count > 0
    #expect(frames == bytes)
  }

  /// An independent decoder (ffmpeg with libopus) reads our family-0 stereo .opus and
  /// hears what our decoder hears, within 1 LSB at 48 kHz.
  @Test func ffmpegDecodesTheStereoPacketExportLikeUs() throws {
    let bytes = try recording(.stereoPacket, frames: 150, seed: 40)
    let input = try writeRecording("b-ff.raw", bytes)
    let output = temporaryPath("b-ff.opus")
    defer { removeFile(input); removeFile(output) }
    _ = try AudioExporter.export(
      from: input, recordedChannels: 2, to: output, options: ExportOptions(format: .opus))
    let run = try runTool(
      "ffmpeg",
      ["-v", "error", "-c:a", "libopus", "-i", output, "-f", "s16le", "-c:a", "pcm_s16le", "-"])
    #expect(run.status == 0, "\(run.stderr)")
    let theirs = int16s([UInt8](run.stdout))
    let ours = try decodeAll(bytes, channels: 2, sampleRate: 48_000)
    let skip = ExportPipeline.devicePreSkip * 2
    #expect(theirs.count == ours.count - skip, "ffmpeg \(theirs.count), we \(ours.count - skip)")
    var worst = 0
    for index in 0..<min(theirs.count, ours.count - skip) {
      worst = max(worst, abs(Int(theirs[index]) - Int(ours[index + skip])))
    }
    #expect(worst <= 1, "largest difference \(worst) LSB")
  }

  /// Ogg-wrapped stereo packets as a device would send them (`oggAudio = 1`): OpusHead with
  /// 2 channels and mapping family 0, one 160-byte `0xBC` packet per frame.
  @Test func oggFamilyZeroStereoInputIsFramesAsTheyAre() throws {
    let bytes = try recording(.stereoPacket, frames: 110, seed: 35)
    var writer = DeviceOggWriter(format: .stereo, serial: 9, stereoLayout: .stereoPacket)
    let ogg = writer.headerPages() + writer.pages(frames: bytes, last: true)
    let input = try writeRecording("b-device.opus", ogg)
    let out = temporaryPath("b-device.pcm")
    defer { removeFile(input); removeFile(out) }
    #expect(try AudioExporter.frameCount(ofRecordingAt: input, recordedChannels: 2) == 110)
    _ = try AudioExporter.export(
      from: input, recordedChannels: 2, to: out, options: ExportOptions(format: .pcm))
    #expect(int16s(try readFile(out)) == (try decodeAll(bytes, channels: 2)))
    // The device said one channel: refused.
    #expect(throws: AudioError.self) {
      try AudioExporter.export(
        from: input, recordedChannels: 1, to: out, options: ExportOptions(format: .pcm))
    }

    // A family-0 stereo stream whose packets are two mono packets, or 0xB8 stereo-sized:
    // not the device's shape, refused.
    let twoMono = try recording(.twoMonoPackets, frames: 10, seed: 36)
    var mislabelled = DeviceOggWriter(format: .stereo, serial: 9, stereoLayout: .stereoPacket)
    let wrong = mislabelled.headerPages() + mislabelled.pages(frames: twoMono, last: true)
    let source = try OggOpusFrameSource(source: MemoryByteSource(wrong))
    var batch = DeviceFrameBatch()
    #expect {
      try source.readFrames(into: &batch, maxFrames: 50)
    } throws: { error in
      guard case .unexpectedTOC(0xB8, _) = error as? AudioError else { return false }
      return true
    }
  }

  /// Every way a 2-channel frame can be neither layout, and a mono recording with a stereo
  /// packet: `unexpectedTOC` with the offset of the offending byte, from the exporter and
  /// from the decoder alike.
  @Test func aMixedOrBadTOCIsRefusedWithItsOffset() throws {
    let stereo = try recording(.stereoPacket, frames: 10, seed: 37)
    let twoMono = try recording(.twoMonoPackets, frames: 10, seed: 38)
    let mono = try DeviceRecordingWriter.speechRecording(format: .mono, frameCount: 10, seed: 39)
    var secondPacketStereo = twoMono
    secondPacketStereo[3 * 160 + 80] = 0xBC
    var notOpus = stereo
    notOpus[4 * 160] = 0xB0
    let twoMonoThenStereo = Array(twoMono[0..<5 * 160]) + Array(stereo[0..<5 * 160])
    let stereoThenTwoMono = Array(stereo[0..<6 * 160]) + Array(twoMono[0..<4 * 160])
    var monoWithStereoTOC = mono
    monoWithStereoTOC[7 * 80] = 0xBC
    let cases: [(name: String, bytes: [UInt8], channels: Int, byte: UInt8, offset: Int)] = [
      ("B8 then BC in one frame", secondPacketStereo, 2, 0xBC, 3 * 160 + 80),
      ("neither TOC", notOpus, 2, 0xB0, 4 * 160),
      ("two-mono frames, then a stereo packet", twoMonoThenStereo, 2, 0xBC, 5 * 160),
      ("stereo packets, then two-mono frames", stereoThenTwoMono, 2, 0xB8, 6 * 160),
      ("a stereo packet in a mono recording", monoWithStereoTOC, 1, 0xBC, 7 * 80),
    ]
    for item in cases {
      let input = try writeRecording("bad.raw", item.bytes)
      let out = temporaryPath("bad.pcm")
      defer { removeFile(input); removeFile(out) }
      let expected = AudioError.unexpectedTOC(byte: item.byte, offset: item.offset)
      #expect(throws: expected, "\(item.name)") {
        try AudioExporter.export(
          from: input, recordedChannels: item.channels, to: out,
          options: ExportOptions(format: .pcm))
      }
      #expect(throws: expected, "\(item.name): Opus pass-through") {
        try AudioExporter.export(
          from: input, recordedChannels: item.channels, to: out,
          options: ExportOptions(format: .opus))
      }
    }
    // The decoder on its own (it does not hold a recording to one layout).
    let decoder = try DeviceOpusDecoder(channels: 2)
    let frameStart = 3 * 160
    #expect(throws: AudioError.unexpectedTOC(byte: 0xBC, offset: 1000 + 80)) {
      try decoder.decode(Array(secondPacketStereo[frameStart..<frameStart + 160]), offset: 1000)
    }
    #expect(throws: AudioError.unexpectedTOC(byte: 0xBC, offset: 2000)) {
      try DeviceOpusDecoder(channels: 1).decode(Array(stereo[0..<80]), offset: 2000)
    }
  }

  /// The framing check on a chunk that ends inside a frame judges only the bytes present.
  @Test func theFramingCheckJudgesOnlyTheBytesPresent() throws {
    let format = DeviceAudioFormat.stereo
    #expect(format.frameIsDeviceOpus([0xBC], at: 0))
    #expect(format.frameIsDeviceOpus([0xB8] + [UInt8](repeating: 0, count: 40), at: 0))
    #expect(format.frameViolation(in: [0xB8] + [UInt8](repeating: 0, count: 80), at: 0) == 80)
    #expect(format.frameIsDeviceOpus([0xB8] + [UInt8](repeating: 0, count: 79) + [0xB8], at: 0))
    #expect(format.frameIsDeviceOpus([0xBC] + [UInt8](repeating: 0, count: 159), at: 0))
    #expect(format.frameViolation(in: [0, 0, 0xB9], at: 2) == 2)
    #expect(DeviceAudioFormat.mono.frameViolation(in: [0xBC], at: 0) == 0)
    #expect(DeviceAudioFormat.mono.frameIsDeviceOpus([0xB8], at: 0))
  }

  @Test func anEmptyTwoChannelOpusExportIsAValidEndedStream() throws {
    let input = try writeRecording("empty-2.raw", [])
    let out = temporaryPath("empty-2.opus")
    defer { removeFile(input); removeFile(out) }
    let result = try AudioExporter.export(
      from: input, recordedChannels: 2, to: out, options: ExportOptions(format: .opus))
    #expect(result.frames == 0)
    let written = try readFile(out)
    #expect(written.starts(with: Array("OggS".utf8)))
    #expect(try AudioExporter.frameCount(ofRecordingAt: out, recordedChannels: 2) == 0)
  }
}
