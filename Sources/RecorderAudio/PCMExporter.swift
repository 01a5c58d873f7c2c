#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Exports 16-bit little-endian interleaved PCM at the device's 16 kHz (a recorder's USB
/// `.WAV` samples, say) to WAV, raw PCM or MP3, streaming one second at a time: memory does
/// not depend on the recording's length.
///
/// Opus is not made from PCM here: the device's own Opus (its `.ASR`, or the BLE copy) is
/// exported through ``AudioExporter`` instead, without a lossy re-encode.
public enum PCMExporter {
  /// Exports `length` bytes of `inputPath` starting at byte `offset`, `channels`
  /// interleaved, in `options.format` with `options.channels` (2 → 1 is the mean of both,
  /// 1 → 2 a copy on each). The output is complete when this returns, absent when it throws.
  /// - Throws: `.unsupportedAudioFormat` for Opus, `.unsupportedChannelCount`, `.io` for a
  ///   file that cannot be read or written, `.cancelled` when the task is cancelled.
  public static func export(
    from inputPath: String, offset: Int64, length: Int64, channels inChannels: Int,
    to outputPath: String, options: ExportOptions
  ) throws(AudioError) -> ExportResult {
    guard inChannels == 1 || inChannels == 2 else { throw .unsupportedChannelCount(inChannels) }
    let outChannels = options.channels ?? inChannels
    guard outChannels == 1 || outChannels == 2 else { throw .unsupportedChannelCount(outChannels) }
    let rate = DeviceAudioFormat.sampleRate
    let sink: any PCMSink
    switch options.format {
    case .wav: sink = try WAVWriter(path: outputPath, channels: outChannels, sampleRate: rate)
    case .pcm: sink = try RawPCMWriter(path: outputPath)
    case .mp3:
      sink = try MP3Writer(
        path: outputPath, channels: outChannels, sampleRate: rate, settings: options.mp3)
    case .opus:
      throw .unsupportedAudioFormat(
        reason: "Opus is exported from the device's own Opus frames, not re-encoded from PCM")
    }
    do throws(AudioError) {
      let input = try AudioInputFile(path: inputPath)
      var skip = [UInt8](repeating: 0, count: Int(min(offset, 1 << 16)))
      var skipped: Int64 = 0
      while skipped < offset {
        let count = Int(min(Int64(skip.count), offset - skipped))
        if count < skip.count { skip = [UInt8](repeating: 0, count: count) }
        let got = try input.read(into: &skip)
        guard got > 0 else { break }
        skipped += Int64(got)
      }
      let frameBytes = 2 * inChannels
      var chunk = [UInt8](repeating: 0, count: rate * frameBytes)
      var left = length - length % Int64(frameBytes)
      var samples: [Int16] = []
      var frames = 0
      while left > 0 {
        if Task.isCancelled { throw .cancelled }
        if Int64(chunk.count) > left { chunk = [UInt8](repeating: 0, count: Int(left)) }
        let got = try input.read(into: &chunk)
        let whole = got - got % frameBytes
        guard whole > 0 else { break }
        convert(chunk[0..<whole], from: inChannels, to: outChannels, into: &samples)
        try samples.withUnsafeBufferPointer { buffer throws(AudioError) in try sink.write(buffer) }
        frames += whole / frameBytes
        left -= Int64(whole)
      }
      try sink.finish()
      let perFrame = rate / 1000 * DeviceAudioFormat.frameDurationMs
      return ExportResult(
        frames: frames / perFrame, channels: outChannels, durationMs: frames * 1000 / rate)
    } catch {
      unlink(outputPath)
      throw error
    }
  }

  /// Little-endian s16 `bytes`, `from` channels interleaved, as `to` channels.
  private static func convert(
    _ bytes: ArraySlice<UInt8>, from: Int, to: Int, into samples: inout [Int16]
  ) {
    samples.removeAll(keepingCapacity: true)
    func sample(_ index: Int) -> Int16 {
      Int16(bitPattern: UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8)
    }
    var index = bytes.startIndex
    while index < bytes.endIndex {
      switch (from, to) {
      case (2, 1):
        samples.append(Int16((Int32(sample(index)) + Int32(sample(index + 2))) / 2))
      case (1, 2):
        samples.append(sample(index))
        samples.append(sample(index))
      default:
        for channel in 0..<from { samples.append(sample(index + 2 * channel)) }
      }
      index += 2 * from
    }
  }
}
