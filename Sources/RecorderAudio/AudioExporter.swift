#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The file formats an export can produce.
public enum ExportFormat: String, Sendable, CaseIterable {
  /// MPEG-2 Layer III via LAME, with a Xing/LAME info frame (the vendor's recommendation).
  case mp3
  /// RIFF WAVE, 16-bit PCM.
  case wav
  /// Ogg Opus (RFC 7845), the device's packets passed through.
  case opus
  /// Raw PCM, signed 16-bit little-endian, interleaved, no header.
  case pcm

  /// The usual file extension.
  public var fileExtension: String { rawValue }
}

/// What to export and how.
public struct ExportOptions: Sendable, Equatable {
  public var format: ExportFormat
  /// The vendor API's `channels`: 1 = mono (a 2-channel recording is downmixed, the mean of
  /// both), 2 = two channels (a mono recording is duplicated); nil keeps the recording's.
  public var channels: Int?
  /// MP3 settings (ignored for other formats).
  public var mp3: MP3Settings

  public init(format: ExportFormat, channels: Int? = nil, mp3: MP3Settings = .speech) {
    self.format = format
    self.channels = channels
    self.mp3 = mp3
  }
}

/// Progress of a running export, reported as it goes.
public struct ExportProgress: Sendable, Equatable {
  /// 0…1, by input consumed.
  public var fraction: Double
  /// 20 ms frames exported so far.
  public var frames: Int
  /// Frames in the whole recording, when known up front (raw input); nil for Ogg input.
  public var totalFrames: Int?
}

/// What an export produced.
public struct ExportResult: Sendable, Equatable {
  /// 20 ms frames read from the input.
  public var frames: Int
  /// Channels of the output.
  public var channels: Int
  /// Duration of the audio, frames × 20 ms.
  public var durationMs: Int
}

/// Exports a device recording to a file, streaming: memory use is a few fixed buffers (one
/// second of frames, LAME's and libogg's state), whatever the recording's length.
///
/// The input is the raw device file (concatenated frames, PROTOCOL.md §5) or Ogg-wrapped
/// device audio (`oggAudio = 1`); Ogg is recognised by its `OggS` capture pattern, which a
/// raw file (starting with TOC `0xB8`) can never have.
///
/// Errors are typed: malformed input reports the byte offset of the bad frame or page. On
/// any error or cancellation the partial output file is removed, so a file under the output
/// path is always complete.
///
/// Blocking: this runs on the caller's thread (call it from a background task). Cancelling
/// the enclosing task stops the export within one second of audio (`AudioError.cancelled`).
/// `progress` is called on the same thread, about every 1 % and once at the end.
public enum AudioExporter {
  /// Frames decoded per batch: one second of audio.
  static let batchFrames = 50

  /// Exports the recording at `inputPath` to `outputPath`.
  /// - Parameters:
  ///   - inputPath: a raw device recording, or an Ogg Opus file.
  ///   - recordedChannels: the device's `audioChannels` for a raw file; for Ogg input the
  ///     OpusHead must agree.
  ///   - outputPath: the file to write (complete when this returns, absent when it throws).
  ///   - options: the format and channels of the output.
  ///   - progress: called about every 1 % and once at the end, on this thread.
  public static func export(
    from inputPath: String, recordedChannels: Int, to outputPath: String,
    options: ExportOptions, progress: ((ExportProgress) -> Void)? = nil
  ) throws(AudioError) -> ExportResult {
    let recorded = try DeviceAudioFormat(channels: recordedChannels)
    let input = try AudioInputFile(path: inputPath)
    let source = try openSource(input, recorded: recorded)
    do {
      return try run(source: source, to: outputPath, options: options, progress: progress)
    } catch {
      unlink(outputPath)
      throw error
    }
  }

  /// Picks the raw or the Ogg reader by peeking at the first four bytes.
  static func openSource(_ input: ByteSource, recorded: DeviceAudioFormat) throws(AudioError)
    -> DeviceFrameSource
  {
    let peeking = PeekingByteSource(input)
    let magic = try peeking.peek(4)
    guard magic == Array("OggS".utf8) else {
      return RawDeviceFrameSource(source: peeking, format: recorded)
    }
    let source = try OggOpusFrameSource(source: peeking)
    guard source.format == recorded else {
      throw .unsupportedAudioFormat(
        reason:
          "Ogg stream has \(source.format.channels) channels, the device said \(recorded.channels)")
    }
    return source
  }

  static func run(
    source: DeviceFrameSource, to outputPath: String, options: ExportOptions,
    progress: ((ExportProgress) -> Void)?
  ) throws(AudioError) -> ExportResult {
    let inChannels = source.format.channels
    let outChannels = options.channels ?? inChannels
    guard outChannels == 1 || outChannels == 2 else { throw .unsupportedChannelCount(outChannels) }
    // Known up front for a raw file (its size); Ogg input reports progress by bytes only.
    let totalFrames = (source as? RawDeviceFrameSource)?.totalFrames
    let pipeline = try ExportPipeline(
      inFormat: source.format, outChannels: outChannels, options: options, outputPath: outputPath,
      expectedFrames: totalFrames)
    var batch = DeviceFrameBatch()
    var frames = 0
    var reported = -1.0
    while true {
      if Task.isCancelled { throw .cancelled }
      try source.readFrames(into: &batch, maxFrames: batchFrames)
      if batch.count == 0 { break }
      try pipeline.consume(batch)
      frames += batch.count
      let fraction = source.fractionConsumed
      if let progress, fraction - reported >= 0.01 {
        reported = fraction
        progress(ExportProgress(fraction: fraction, frames: frames, totalFrames: totalFrames))
      }
    }
    try pipeline.finish()
    progress?(ExportProgress(fraction: 1, frames: frames, totalFrames: totalFrames))
    return ExportResult(
      frames: frames, channels: outChannels, durationMs: frames * DeviceAudioFormat.frameDurationMs)
  }
}

/// The decode → channel conversion → writer chain for one export.
final class ExportPipeline {
  private let inFormat: DeviceAudioFormat
  private let outChannels: Int
  private var decoder: DeviceOpusDecoder?
  private var pcmSink: PCMSink?
  private var oggWriter: OggOpusWriter?
  /// A 2 → 2 channel Opus export before its first frame: the stream's layout (two mono
  /// streams, or one stereo stream) is the first frame's.
  private var pendingPassThrough: PendingOggWriter?
  /// Re-encoder for the one case that cannot pass packets through: 2 → 1 channel Opus.
  private var reencoder: DeviceOpusEncoder?
  private var decoded: [Int16] = []
  private var converted: [Int16] = []
  private var packet: [UInt8] = []

  /// Pre-skip of device packets in 48 kHz samples: the 2.5 ms lookahead of a CELT-only
  /// encoder (our `DeviceOpusEncoder` reports 40 samples at 16 kHz). The device's own
  /// encoder delay is not documented [project].
  static let devicePreSkip = 120

  init(
    inFormat: DeviceAudioFormat, outChannels: Int, options: ExportOptions, outputPath: String,
    expectedFrames: Int?
  ) throws(AudioError) {
    self.inFormat = inFormat
    self.outChannels = outChannels
    let rate = DeviceAudioFormat.sampleRate
    switch options.format {
    case .wav:
      if let expectedFrames {
        let bytes =
          UInt64(expectedFrames) * UInt64(DeviceAudioFormat.samplesPerFrame * outChannels * 2)
        try WAVWriter.checkFits(dataBytes: bytes)
      }
      pcmSink = try WAVWriter(path: outputPath, channels: outChannels, sampleRate: rate)
    case .pcm:
      pcmSink = try RawPCMWriter(path: outputPath)
    case .mp3:
      pcmSink = try MP3Writer(
        path: outputPath, channels: outChannels, sampleRate: rate, settings: options.mp3)
    case .opus:
      let vendor = "RecorderKit (device Opus passed through)"
      // Any serial will do for a single stream; derived from the length (a multiplicative
      // hash), so exports repeat exactly.
      let serial = Int32(
        bitPattern: UInt32(
          truncatingIfNeeded: (UInt64(expectedFrames ?? 0) &* 0x9E37_79B9_7F4A_7C15) >> 32))
      switch (inFormat.channels, outChannels) {
      case (1, _):
        oggWriter = try OggOpusWriter(
          path: outputPath, layout: .family0(channels: outChannels), preSkip: Self.devicePreSkip,
          serial: serial, vendor: vendor)
      case (_, 2):
        // Two mono packets or one stereo packet: the first frame decides (`consume`).
        pendingPassThrough = PendingOggWriter(path: outputPath, serial: serial, vendor: vendor)
      default:
        let encoder = try DeviceOpusEncoder(channels: 1)
        reencoder = encoder
        oggWriter = try OggOpusWriter(
          path: outputPath, layout: .family0(channels: 1),
          preSkip: Self.devicePreSkip + encoder.lookaheadSamples * 3, serial: serial,
          vendor: "RecorderKit (device Opus downmixed and re-encoded)")
      }
    }
    if pcmSink != nil || reencoder != nil {
      decoder = try DeviceOpusDecoder(channels: inFormat.channels)
    }
  }

  func consume(_ batch: DeviceFrameBatch) throws(AudioError) {
    if let pending = pendingPassThrough, batch.count > 0 {
      let stereoPacket =
        batch.bytes.withUnsafeBytes { inFormat.stereoLayout(in: $0, at: 0) } == .stereoPacket
      oggWriter = try pending.open(layout: stereoPacket ? .family0(channels: 2) : .twoMonoStreams)
      pendingPassThrough = nil
    }
    if let oggWriter, reencoder == nil {
      try passThrough(batch, to: oggWriter)
      return
    }
    try decode(batch)
    let pcm = convertChannels()
    if let reencoder, let oggWriter {
      let frameSamples = DeviceAudioFormat.samplesPerFrame
      var frame = [Int16](repeating: 0, count: frameSamples)
      for index in 0..<batch.count {
        for sample in 0..<frameSamples { frame[sample] = pcm[index * frameSamples + sample] }
        let bytes = try reencoder.encode(frame)
        try oggWriter.write(packet: bytes)
      }
      return
    }
    guard let pcmSink else { return }
    let result = pcm.withUnsafeBufferPointer { buffer in
      Result { () throws(AudioError) in
        try pcmSink.write(
          UnsafeBufferPointer(
            rebasing: buffer[0..<batch.count * DeviceAudioFormat.samplesPerFrame * outChannels]))
      }
    }
    try result.get()
  }

  func finish() throws(AudioError) {
    if let pending = pendingPassThrough {
      // No frames at all: still a valid (empty) 2-channel stream, ended.
      oggWriter = try pending.open(layout: .twoMonoStreams)
      pendingPassThrough = nil
    }
    try pcmSink?.finish()
    try oggWriter?.finish()
  }

  private func passThrough(_ batch: DeviceFrameBatch, to writer: OggOpusWriter) throws(AudioError) {
    let frameBytes = inFormat.bytesPerFrame
    let size = DeviceAudioFormat.packetBytes
    let result = batch.bytes.withUnsafeBytes { raw in
      Result { () throws(AudioError) in
        for index in 0..<batch.count {
          let frame = UnsafeRawBufferPointer(
            rebasing: raw[index * frameBytes..<(index + 1) * frameBytes])
          if inFormat.channels == 1 || frame[0] == DeviceAudioFormat.stereoTOCByte {
            // A mono packet, or one stereo packet in a family-0 stereo stream: as it is.
            try writer.write(packet: frame)
          } else {
            // Multistream framing: stream 0 self-delimited (its frame length after the TOC).
            packet.removeAll(keepingCapacity: true)
            packet.append(frame[0])
            packet.append(UInt8(size - 1))
            packet.append(contentsOf: frame[1..<size])
            packet.append(contentsOf: frame[size..<2 * size])
            try writer.write(packet: packet)
          }
        }
      }
    }
    try result.get()
  }

  private func decode(_ batch: DeviceFrameBatch) throws(AudioError) {
    guard let decoder else { return }
    let frameSamples = decoder.samplesPerFrame
    if decoded.count < batch.count * frameSamples {
      decoded = [Int16](repeating: 0, count: batch.count * frameSamples)
    }
    let frameBytes = inFormat.bytesPerFrame
    let result = batch.bytes.withUnsafeBytes { raw in
      decoded.withUnsafeMutableBufferPointer { out in
        Result { () throws(AudioError) in
          for index in 0..<batch.count {
            let frame = UnsafeRawBufferPointer(
              rebasing: raw[index * frameBytes..<(index + 1) * frameBytes])
            let target = UnsafeMutableBufferPointer(
              rebasing: out[index * frameSamples..<(index + 1) * frameSamples])
            try decoder.decode(frame, offset: batch.offsets[index], into: target)
          }
        }
      }
    }
    try result.get()
    decodedFrames = batch.count
  }

  private var decodedFrames = 0

  /// The decoded batch in the output's channel layout.
  private func convertChannels() -> [Int16] {
    let perChannel = decodedFrames * DeviceAudioFormat.samplesPerFrame
    if inFormat.channels == outChannels { return decoded }
    if converted.count < perChannel * outChannels {
      converted = [Int16](repeating: 0, count: perChannel * outChannels)
    }
    if outChannels == 1 {
      for index in 0..<perChannel {
        // The mean of both channels; the sum of two Int16 fits Int32, halving cannot clip.
        converted[index] = Int16((Int32(decoded[2 * index]) + Int32(decoded[2 * index + 1])) >> 1)
      }
    } else {
      for index in 0..<perChannel {
        converted[2 * index] = decoded[index]
        converted[2 * index + 1] = decoded[index]
      }
    }
    return converted
  }
}

/// What a 2 → 2 channel Opus export needs to open its writer once the layout is known.
struct PendingOggWriter {
  let path: String
  let serial: Int32
  let vendor: String

  func open(layout: OggOpusWriter.Layout) throws(AudioError) -> OggOpusWriter {
    try OggOpusWriter(
      path: path, layout: layout, preSkip: ExportPipeline.devicePreSkip, serial: serial,
      vendor: vendor)
  }
}

/// Lets the exporter look at the first bytes (to recognise Ogg) and still hand the whole
/// input to the chosen reader.
final class PeekingByteSource: ByteSource {
  private let base: ByteSource
  private var peeked: [UInt8] = []

  init(_ base: ByteSource) { self.base = base }

  var totalBytes: Int? { base.totalBytes }

  /// Up to `count` first bytes (fewer if the input is shorter).
  func peek(_ count: Int) throws(AudioError) -> [UInt8] {
    var chunk = [UInt8](repeating: 0, count: count)
    while peeked.count < count {
      chunk = [UInt8](repeating: 0, count: count - peeked.count)
      let got = try base.read(into: &chunk)
      if got == 0 { break }
      peeked.append(contentsOf: chunk[0..<got])
    }
    return peeked
  }

  func read(into buffer: inout [UInt8]) throws(AudioError) -> Int {
    guard !peeked.isEmpty else { return try base.read(into: &buffer) }
    var filled = min(buffer.count, peeked.count)
    for index in 0..<filled { buffer[index] = peeked[index] }
    peeked.removeFirst(filled)
    if filled < buffer.count {
      var rest = [UInt8](repeating: 0, count: buffer.count - filled)
      let got = try base.read(into: &rest)
      for index in 0..<got { buffer[filled + index] = rest[index] }
      filled += got
    }
    return filled
  }
}
