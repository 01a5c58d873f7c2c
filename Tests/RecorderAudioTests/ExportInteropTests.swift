import Foundation
import TestSupport
import Testing

@testable import RecorderAudio

/// Exports checked by real outside tools: ffprobe, opusinfo, ffmpeg's libopus decoder.
@Suite(.blockingWaits) struct ExportInteropTests {
  /// 10.02 s: not a whole number of MP3 frames, so padding shows.
  static let frames = 501

  @Test(arguments: [(1, nil), (2, nil), (2, 1), (1, 2)] as [(Int, Int?)])
  func wavDurationAndHeader(recorded: Int, out: Int?) throws {
    let input = try makeRecording(
      "wav-\(recorded)-\(out ?? 0).raw", channels: recorded, frames: Self.frames, seed: 11)
    let output = temporaryPath("wav-\(recorded)-\(out ?? 0).wav")
    defer { removeFile(input); removeFile(output) }
    let result = try AudioExporter.export(
      from: input, recordedChannels: recorded, to: output,
      options: ExportOptions(format: .wav, channels: out))
    let channels = out ?? recorded
    #expect(result.channels == channels)
    #expect(result.durationMs == Self.frames * 20)
    let duration = try probedDuration(output)
    #expect(abs(duration - Double(Self.frames) * 0.02) <= 0.020, "ffprobe says \(duration)")
    let bytes = try readFile(output)
    let dataBytes = Self.frames * 320 * channels * 2
    #expect(bytes.count == 44 + dataBytes)
    #expect(Array(bytes[4..<8]) == le32(36 + dataBytes))
    #expect(Array(bytes[40..<44]) == le32(dataBytes))
    #expect(bytes[22] == UInt8(channels))
  }

  @Test(arguments: [(1, nil), (2, nil), (2, 1), (1, 2)] as [(Int, Int?)])
  func oggOpusDurationAndOpusinfo(recorded: Int, out: Int?) throws {
    let input = try makeRecording(
      "ogg-\(recorded)-\(out ?? 0).raw", channels: recorded, frames: Self.frames, seed: 12)
    let output = temporaryPath("ogg-\(recorded)-\(out ?? 0).opus")
    defer { removeFile(input); removeFile(output) }
    _ = try AudioExporter.export(
      from: input, recordedChannels: recorded, to: output,
      options: ExportOptions(format: .opus, channels: out))
    let duration = try probedDuration(output)
    #expect(abs(duration - Double(Self.frames) * 0.02) <= 0.020, "ffprobe says \(duration)")
    let info = try runTool("opusinfo", [output])
    #expect(info.status == 0, "opusinfo: \(info.text) \(info.stderr)")
    let complaints = (info.text + info.stderr).lowercased()
    #expect(
      !complaints.contains("warning") && !complaints.contains("error"), "\(info.text)\(info.stderr)"
    )
  }

  @Test(arguments: [1, 2])
  func mp3DurationWithinLamePadding(channels: Int) throws {
    let input = try makeRecording(
      "mp3-\(channels).raw", channels: channels, frames: Self.frames, seed: 13)
    let output = temporaryPath("mp3-\(channels).mp3")
    defer { removeFile(input); removeFile(output) }
    _ = try AudioExporter.export(
      from: input, recordedChannels: channels, to: output, options: ExportOptions(format: .mp3))
    let truth = Double(Self.frames) * 0.02
    let duration = try probedDuration(output)
    #expect(
      duration >= truth - 0.0005 && duration <= truth + 0.110,
      "ffprobe says \(duration), true \(truth)")
    // The first frame is the Xing/LAME info frame LAME reserved and we filled in at the end.
    let head = try readFile(output).prefix(400)
    let text = String(decoding: head.map { $0 == 0 ? 32 : $0 }, as: UTF8.self)
    #expect(text.contains("Info") || text.contains("Xing"), "no Xing/Info frame")
    #expect(text.contains("LAME"), "no LAME tag")
  }

  /// ffmpeg's libopus decode of our Ogg Opus equals our own decode at the same rate after
  /// pre-skip (libopus's decoder in ffmpeg always runs at 48 kHz, so we decode at 48 kHz).
  @Test(arguments: [1, 2])
  func ffmpegLibopusDecodeMatchesOurs(channels: Int) throws {
    let input = try makeRecording(
      "ff-\(channels).raw", channels: channels, frames: Self.frames, seed: 14)
    let output = temporaryPath("ff-\(channels).opus")
    defer { removeFile(input); removeFile(output) }
    _ = try AudioExporter.export(
      from: input, recordedChannels: channels, to: output, options: ExportOptions(format: .opus))
    let run = try runTool(
      "ffmpeg",
      ["-v", "error", "-c:a", "libopus", "-i", output, "-f", "s16le", "-c:a", "pcm_s16le", "-"])
    #expect(run.status == 0, "\(run.stderr)")
    let theirs = int16s([UInt8](run.stdout))
    let ours = try decodeAll(try readFile(input), channels: channels, sampleRate: 48_000)
    let skip = ExportPipeline.devicePreSkip * channels
    #expect(
      theirs.count == ours.count - skip,
      "ffmpeg gave \(theirs.count) samples, we \(ours.count - skip)")
    var worst = 0
    for index in 0..<min(theirs.count, ours.count - skip) {
      worst = max(worst, abs(Int(theirs[index]) - Int(ours[index + skip])))
    }
    #expect(worst <= 1, "largest difference \(worst) LSB")
  }
}

func le32(_ value: Int) -> [UInt8] {
  (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
}
