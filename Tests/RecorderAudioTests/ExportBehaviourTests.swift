import Foundation
import Testing

@testable import RecorderAudio

/// The exporter's contract without outside tools: channel options, Ogg input, progress,
/// cancellation, limits, and every refusal of malformed input.
@Suite struct ExportBehaviourTests {
  @Test func pcmIsOurDecodeAndChannelOptionsDownmixOrDuplicate() throws {
    let stereoInput = try makeRecording("pcm-2.raw", channels: 2, frames: 120, seed: 21)
    let monoInput = try makeRecording("pcm-1.raw", channels: 1, frames: 120, seed: 22)
    let out = temporaryPath("pcm-out.pcm")
    defer { removeFile(stereoInput); removeFile(monoInput); removeFile(out) }

    let stereo = try decodeAll(try readFile(stereoInput), channels: 2)
    _ = try AudioExporter.export(
      from: stereoInput, recordedChannels: 2, to: out, options: ExportOptions(format: .pcm))
    #expect(int16s(try readFile(out)) == stereo)

    _ = try AudioExporter.export(
      from: stereoInput, recordedChannels: 2, to: out,
      options: ExportOptions(format: .pcm, channels: 1))
    let downmix = stride(from: 0, to: stereo.count, by: 2).map {
      Int16((Int32(stereo[$0]) + Int32(stereo[$0 + 1])) >> 1)
    }
    #expect(int16s(try readFile(out)) == downmix)

    let mono = try decodeAll(try readFile(monoInput), channels: 1)
    _ = try AudioExporter.export(
      from: monoInput, recordedChannels: 1, to: out,
      options: ExportOptions(format: .pcm, channels: 2))
    #expect(int16s(try readFile(out)) == mono.flatMap { [$0, $0] })
  }

  /// Our Ogg Opus read back as input gives exactly the frames of the raw file: the
  /// pass-through is lossless, and Ogg input (`oggAudio = 1`) decodes like raw input.
  @Test(arguments: [1, 2]) func oggInputRoundTrips(channels: Int) throws {
    let raw = try makeRecording("rt-\(channels).raw", channels: channels, frames: 150, seed: 23)
    let ogg = temporaryPath("rt-\(channels).opus")
    let fromRaw = temporaryPath("rt-\(channels)-a.pcm")
    let fromOgg = temporaryPath("rt-\(channels)-b.pcm")
    defer { for path in [raw, ogg, fromRaw, fromOgg] { removeFile(path) } }
    _ = try AudioExporter.export(
      from: raw, recordedChannels: channels, to: ogg, options: ExportOptions(format: .opus))
    _ = try AudioExporter.export(
      from: raw, recordedChannels: channels, to: fromRaw, options: ExportOptions(format: .pcm))
    let result = try AudioExporter.export(
      from: ogg, recordedChannels: channels, to: fromOgg, options: ExportOptions(format: .pcm))
    #expect(result.frames == 150)
    #expect(try readFile(fromOgg) == readFile(fromRaw))

    // Frames survive byte for byte.
    let source = try OggOpusFrameSource(source: MemoryByteSource(try readFile(ogg), chunkLimit: 97))
    var batch = DeviceFrameBatch()
    var bytes: [UInt8] = []
    repeat {
      try source.readFrames(into: &batch, maxFrames: 7)
      bytes += batch.bytes
    } while batch.count > 0
    #expect(bytes == (try readFile(raw)))

    // The device said the other channel count: refused, not guessed.
    #expect(throws: AudioError.self) {
      try AudioExporter.export(
        from: ogg, recordedChannels: 3 - channels, to: fromOgg, options: ExportOptions(format: .pcm)
      )
    }
  }

  @Test func progressIsMonotonicAndEndsAtOne() throws {
    let input = try makeRecording("progress.raw", channels: 1, frames: 400, seed: 24)
    let out = temporaryPath("progress.wav")
    defer { removeFile(input); removeFile(out) }
    var reports: [ExportProgress] = []
    _ = try AudioExporter.export(
      from: input, recordedChannels: 1, to: out, options: ExportOptions(format: .wav),
      progress: { reports.append($0) })
    #expect(reports.count >= 8)
    #expect(
      zip(reports, reports.dropFirst()).allSatisfy {
        $0.fraction <= $1.fraction && $0.frames <= $1.frames
      })
    #expect(reports.last == ExportProgress(fraction: 1, frames: 400, totalFrames: 400))
  }

  @Test func cancellationStopsAndRemovesThePartialFile() async throws {
    let input = try makeRecording("cancel.raw", channels: 1, frames: 100, seed: 25)
    let out = temporaryPath("cancel.mp3")
    defer { removeFile(input) }
    let task = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return try AudioExporter.export(
        from: input, recordedChannels: 1, to: out, options: ExportOptions(format: .mp3))
    }
    await #expect(throws: AudioError.cancelled) { try await task.value }
    #expect(access(out, F_OK) != 0, "partial output left behind")
  }

  @Test func wavRefusesPastTheRIFFLimitAndWritesUnsignedSizesBelowIt() throws {
    #expect(throws: AudioError.wavTooLarge(dataBytes: WAVWriter.maxDataBytes + 1)) {
      try WAVWriter.checkFits(dataBytes: WAVWriter.maxDataBytes + 1)
    }
    try WAVWriter.checkFits(dataBytes: WAVWriter.maxDataBytes)
    // 3 GiB of samples (over the signed 2 GiB line) still gets exact unsigned sizes.
    let threeGiB: UInt64 = 3 << 30
    let header = WAVWriter.header(channels: 1, sampleRate: 16_000, dataBytes: threeGiB)
    #expect(Array(header[4..<8]) == le32(Int(threeGiB) + 36))
    #expect(Array(header[40..<44]) == le32(Int(threeGiB)))
    // An export that cannot fit is refused before anything is written.
    let out = temporaryPath("huge.wav")
    #expect(throws: AudioError.self) {
      try ExportPipeline(
        inFormat: .stereo, outChannels: 2, options: ExportOptions(format: .wav), outputPath: out,
        expectedFrames: 7_000_000)
    }
    #expect(access(out, F_OK) != 0)
  }

  @Test func missingInputAndUnwritableOutputAreIOErrors() throws {
    #expect {
      try AudioExporter.export(
        from: "/nonexistent/x.raw", recordedChannels: 1, to: temporaryPath("x.wav"),
        options: ExportOptions(format: .wav))
    } throws: { error in
      guard case .io(_, "open", _, _) = error as? AudioError else { return false }
      return true
    }
    let input = try makeRecording("io.raw", channels: 1, frames: 5, seed: 26)
    defer { removeFile(input) }
    #expect {
      try AudioExporter.export(
        from: input, recordedChannels: 1, to: "/nonexistent/out.wav",
        options: ExportOptions(format: .wav))
    } throws: { error in
      guard case .io(_, "create", _, _) = error as? AudioError else { return false }
      return true
    }
  }

  @Test func emptyRecordingsExportToValidEmptyFiles() throws {
    let input = temporaryPath("empty.raw")
    try writeFile(input, [])
    defer { removeFile(input) }
    for format in ExportFormat.allCases {
      let out = temporaryPath("empty.\(format.rawValue)")
      defer { removeFile(out) }
      let result = try AudioExporter.export(
        from: input, recordedChannels: 1, to: out, options: ExportOptions(format: format))
      #expect(result.frames == 0)
    }
  }
}
