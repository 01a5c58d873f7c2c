import Foundation
import PlaudDeviceBasicSDK
import RecorderAudio
import RecorderConcurrency
import RecorderProtocol

/// The conversions in progress, one per kind (the vendor's has-task / cancel pairs).
final class Conversions: Sendable {
  static let shared = Conversions()
  /// Completions run here (serial, never the main queue).
  static let queue = DispatchQueue(label: "PlaudBleSDK.audio")

  private let running = Locked<[String: Task<Void, Never>]>([:])

  func isRunning(_ kind: String) -> Bool { running.current[kind] != nil }

  func cancel(_ kind: String) { running.withLock { $0.removeValue(forKey: kind) }?.cancel() }

  /// Runs `work` for `kind` in the background (a new one cancels the previous); the
  /// completion gets `(true, milliseconds of audio)` or `(false, 0)` with the reason on
  /// `BleAgent.shared.lastError`.
  func start(
    _ kind: String, _ completion: AppClosure<(Bool, Int)>,
    _ work: @escaping @Sendable () throws(AudioError) -> Int
  ) {
    let task = Task.detached { [weak self] in
      let outcome: (Bool, Int)
      do {
        outcome = (true, try work())
      } catch {
        BleAgent.shared.record(.operationFailed("\(kind): \(error)"), kind)
        outcome = (false, 0)
      }
      self?.running.withLock { _ = $0.removeValue(forKey: kind) }
      Conversions.queue.async { completion.body(outcome) }
    }
    running.withLock { $0.updateValue(task, forKey: kind) }?.cancel()
  }

  /// A member RecorderKit cannot run: `(false, 0)` and the reason on ``BleAgent/lastError``.
  func unsupported(_ member: String, _ reason: String, _ completion: AppClosure<(Bool, Int)>) {
    BleAgent.shared.record(.notSupported(member: member, reason: reason), member)
    Conversions.queue.async { completion.body((false, 0)) }
  }
}

/// The vendor's file converter, over RecorderAudio. Each conversion runs in the background;
/// its completion gets `(true, milliseconds of audio)` or `(false, 0)` (the reason on
/// `BleAgent.shared.lastError`), on a serial queue of its own. A new conversion of a kind
/// cancels the previous one of that kind. A partial output is always removed.
/// "AVC" is the device's raw Opus recording; `channels` is the recording's channel count;
/// `ns_agc` and `clearUnfinished` change nothing (RecorderKit applies no noise suppression,
/// and never leaves a partial file).
public class JXFileDecoder: NSObject, @unchecked Sendable {
  // Safety: no stored state; conversions are in the Sendable `Conversions`.
  /// The one converter.
  public static let shared = JXFileDecoder()

  override init() { super.init() }

  /// Raw 16-bit PCM (`channels`, `simpleRate` Hz) to WAV: `completionHandler(success)`.
  public func pcmToWav(
    pcmPath: String, wavPath: String, channels: UInt32 = 1, simpleRate: UInt32 = 16000,
    completionHandler: @escaping (Bool) -> Void
  ) {
    let done = AppClosure(completionHandler)
    Conversions.queue.async {
      done.body(
        WAVFile.wrap(pcm: pcmPath, into: wavPath, channels: Int(channels), rate: Int(simpleRate)))
    }
  }

  /// Rewrites the WAV header of `wavPath` for its current size, `channels` and `sampleRate`.
  public func resetWavHead(_ wavPath: String, _ channels: UInt32, _ sampleRate: UInt32 = 16000) {
    _ = WAVFile.rewriteHeader(wavPath, channels: Int(channels), rate: Int(sampleRate))
  }

  static func export(
    _ input: String, _ channels: Int32, _ output: String, _ format: ExportFormat,
    outChannels: Int32? = nil, quality: Int32? = nil
  ) -> @Sendable () throws(AudioError) -> Int {
    { () throws(AudioError) in
      var options = ExportOptions(format: format, channels: outChannels.map(Int.init))
      if let quality { options.mp3.encoderQuality = Int(quality) }
      return try AudioExporter.export(
        from: input, recordedChannels: Int(channels), to: output, options: options
      ).durationMs
    }
  }
}

extension JXFileDecoder {
  /// Whether a multi-to-single Ogg conversion runs.
  public func hasOggMulToSingleTask() -> Bool { Conversions.shared.isRunning("oggMulToSingle") }
  /// Cancels it.
  public func oggMulToSingleCancel() { Conversions.shared.cancel("oggMulToSingle") }
  /// A multi-channel Ogg Opus recording to a one-channel one (RecorderAudio's Ogg Opus
  /// export with one channel).
  public func oggMulToSingle(
    _ mulPath: String, _ singlePath: String, _ channels: Int32,
    _ callback: @escaping (Bool, Int) -> Void
  ) {
    Conversions.shared.start(
      "oggMulToSingle", AppClosure(callback),
      Self.export(mulPath, channels, singlePath, .opus, outChannels: 1))
  }
}

// swift-format-ignore: AlwaysUseLowerCamelCase
extension JXFileDecoder {
  /// Whether a raw-to-Ogg conversion runs.
  public func hasAvcToOggTask() -> Bool { Conversions.shared.isRunning("avcToOgg") }
  /// Cancels it.
  public func convertAvcToOggCancel() { Conversions.shared.cancel("avcToOgg") }
  /// An Ogg Opus recording to an Ogg Opus file (its packets passed through): `callback(ok)`.
  public func oggToOpus(
    _ oggPath: String, _ opusPath: String, _ channels: Int32, _ callback: @escaping (Bool) -> Void
  ) {
    let done = AppClosure(callback)
    Conversions.shared.start(
      "oggToOpus", AppClosure { done.body($0.0) },
      Self.export(oggPath, channels, opusPath, .opus))
  }
  /// A raw device recording to Ogg Opus with `targetChannels`.
  public func avcToOgg(
    _ avcPath: String, _ oggPath: String, clearUnfinished: Bool = true,
    _ iflyToolongCut: Bool = true, _ channels: Int32 = 1, _ targetChannels: Int32 = 1,
    _ ns_agc: Bool = false, _ callback: @escaping (Bool, Int) -> Void
  ) {
    Conversions.shared.start(
      "avcToOgg", AppClosure(callback),
      Self.export(avcPath, channels, oggPath, .opus, outChannels: targetChannels))
  }
}

extension JXFileDecoder {
  /// Whether an Ogg-to-MP3 conversion runs.
  public func hasOggToMp3Task() -> Bool { Conversions.shared.isRunning("oggToMp3") }
  /// Cancels it.
  public func convertOggToMp3Cancel() { Conversions.shared.cancel("oggToMp3") }
  /// An Ogg Opus recording to MP3 (LAME quality `quality`, 0 best – 9 fastest).
  public func oggToMp3(
    _ oggPath: String, _ mp3Path: String, _ channels: Int32, _ quality: Int32 = 4,
    _ callback: @escaping (Bool, Int) -> Void
  ) {
    Conversions.shared.start(
      "oggToMp3", AppClosure(callback),
      Self.export(oggPath, channels, mp3Path, .mp3, quality: quality))
  }
}

// swift-format-ignore: AlwaysUseLowerCamelCase
extension JXFileDecoder {
  /// Whether a raw-to-MP3 conversion runs.
  public func hasAvcToMp3Task() -> Bool { Conversions.shared.isRunning("avcToMp3") }
  /// Cancels it.
  public func convertAvcToMp3Cancel() { Conversions.shared.cancel("avcToMp3") }
  /// A raw device recording to MP3.
  public func avcToMp3(
    avcPath: String, mp3Path: String, clearUnfinished: Bool = true, quality: Int32 = 4,
    channels: Int32 = 1, ns_agc: Bool = false,
    completionHandler: @escaping (Bool, Int) -> Void
  ) {
    Conversions.shared.start(
      "avcToMp3", AppClosure(completionHandler),
      Self.export(avcPath, channels, mp3Path, .mp3, quality: quality))
  }
}

extension JXFileDecoder {
  /// Whether a PCM-to-MP3 conversion runs.
  public func hasPcmToMp3Task() -> Bool { Conversions.shared.isRunning("pcmToMp3") }
  /// Cancels it.
  public func convertPcmToMp3Cancel() { Conversions.shared.cancel("pcmToMp3") }
  /// Raw 16 kHz 16-bit PCM of `channels` to MP3.
  public func pcmToMp3(
    pcmPath: String, mp3Path: String, clearUnfinished: Bool = true, quality: Int32 = 4,
    channels: Int32 = 1, completionHandler: @escaping (Bool, Int) -> Void
  ) {
    Conversions.shared.start("pcmToMp3", AppClosure(completionHandler)) {
      () throws(AudioError) in
      var options = ExportOptions(format: .mp3)
      options.mp3.encoderQuality = Int(quality)
      let size = Int64(FileManager.default.fileSize(path: pcmPath))
      return try PCMExporter.export(
        from: pcmPath, offset: 0, length: size, channels: Int(channels), to: mp3Path,
        options: options
      ).durationMs
    }
  }
}

// swift-format-ignore: AlwaysUseLowerCamelCase
extension JXFileDecoder {
  /// Whether a raw-to-PCM conversion runs.
  public func hasAvcToPcmTask() -> Bool { Conversions.shared.isRunning("avcToPcm") }
  /// Cancels it.
  public func convertAvcToPcmCancel() { Conversions.shared.cancel("avcToPcm") }
  /// A raw device recording to raw 16 kHz 16-bit PCM.
  public func avcToPcm(
    avcPath: String, pcmPath: String, clearUnfinished: Bool = true, channels: Int32 = 1,
    ns_agc: Bool = false, completionHandler: @escaping (Bool, Int) -> Void
  ) {
    Conversions.shared.start(
      "avcToPcm", AppClosure(completionHandler),
      Self.export(avcPath, channels, pcmPath, .pcm))
  }
  /// An Ogg Opus recording (at `avcPath`) to raw 16 kHz 16-bit PCM.
  public func oggToPcm(
    avcPath: String, pcmPath: String, clearUnfinished: Bool = true, channels: Int32 = 1,
    ns_agc: Bool = false, completionHandler: @escaping (Bool, Int) -> Void
  ) {
    Conversions.shared.start(
      "avcToPcm", AppClosure(completionHandler),
      Self.export(avcPath, channels, pcmPath, .pcm))
  }
}

// swift-format-ignore: AlwaysUseLowerCamelCase
extension JXFileDecoder {
  /// Whether a raw-to-WAV conversion runs.
  public func hasAvcToWavTask() -> Bool { Conversions.shared.isRunning("avcToWav") }
  /// Cancels it.
  public func convertAvcToWavCancel() { Conversions.shared.cancel("avcToWav") }
  /// A raw device recording to WAV.
  public func avcToWav(
    avcPath: String, wavPath: String, channels: Int32 = 1, ns_agc: Bool = false,
    clearUnfinished: Bool = true, completionHandler: @escaping (Bool, Int) -> Void
  ) {
    Conversions.shared.start(
      "avcToWav", AppClosure(completionHandler),
      Self.export(avcPath, channels, wavPath, .wav))
  }
}

// swift-format-ignore: AlwaysUseLowerCamelCase
extension JXFileDecoder {
  /// Whether a noise-reduction conversion runs (never: see below).
  public func hasAvcToNoiseReductionWav() -> Bool { false }
  /// Nothing runs to cancel.
  public func convertAvcToNoiseReductionWavCancel() {}
  /// Not supported by RecorderKit (it has no noise reduction): `(false, 0)`.
  public func avcToNoiseReductionWav(
    avcPath: String, wavPath: String, channels: Int32 = 1, sound_plus: Bool = false,
    noiseReductionGain: Int = 6, clearUnfinished: Bool = true,
    completionHandler: @escaping (Bool, Int) -> Void
  ) {
    Conversions.shared.unsupported(
      "avcToNoiseReductionWav(avcPath:wavPath:channels:sound_plus:noiseReductionGain:clearUnfinished:completionHandler:)",
      "RecorderKit has no noise reduction", AppClosure(completionHandler))
  }
}

/// WAV files: RIFF headers written and read (PCM, 16-bit).
enum WAVFile {
  static func header(dataBytes: Int, channels: Int, rate: Int) -> Data {
    let blockAlign = 2 * max(1, channels)
    var bytes = Data("RIFF".utf8)
    bytes += UInt32(clamping: 36 + dataBytes).data
    bytes += Data("WAVEfmt ".utf8)
    bytes += UInt32(16).data + UInt16(1).data + UInt16(clamping: channels).data
    bytes += UInt32(clamping: rate).data + UInt32(clamping: rate * blockAlign).data
    bytes += UInt16(clamping: blockAlign).data + UInt16(16).data
    bytes += Data("data".utf8) + UInt32(clamping: dataBytes).data
    return bytes
  }

  /// Writes `pcm` behind a WAV header into `wav` (streaming); false when either file fails.
  static func wrap(pcm: String, into wav: String, channels: Int, rate: Int) -> Bool {
    guard let input = FileHandle(forReadingAtPath: pcm) else { return false }
    defer { try? input.close() }
    let size = FileManager.default.fileSize(path: pcm)
    guard
      FileManager.default.createFile(
        atPath: wav, contents: header(dataBytes: size, channels: channels, rate: rate)),
      let output = FileHandle(forWritingAtPath: wav)
    else { return false }
    defer { try? output.close() }
    do {
      try output.seekToEnd()
      while let chunk = try input.read(upToCount: 1 << 16), !chunk.isEmpty {
        try output.write(contentsOf: chunk)
      }
      return true
    } catch {
      try? FileManager.default.removeItem(atPath: wav)
      return false
    }
  }

  /// Rewrites the 44-byte header of `path` for its size.
  static func rewriteHeader(_ path: String, channels: Int, rate: Int) -> Bool {
    let size = FileManager.default.fileSize(path: path)
    guard size >= 44, let handle = FileHandle(forUpdatingAtPath: path) else { return false }
    defer { try? handle.close() }
    do {
      try handle.write(contentsOf: header(dataBytes: size - 44, channels: channels, rate: rate))
      return true
    } catch {
      return false
    }
  }

  /// The format and data chunk of the WAV file at `path` (``WAVChunks``), nil when it is not
  /// one.
  static func read(_ path: String) -> WAVChunks? {
    guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? handle.close() }
    guard let head = try? handle.read(upToCount: 4096) else { return nil }
    return WAVChunks(head: Array(head), fileSize: FileManager.default.fileSize(path: path))
  }
}

/// The vendor's WAV helper.
public class JXWaveHelper: NSObject, @unchecked Sendable {
  // Safety: no stored state.
  /// The one helper.
  public static let shared = JXWaveHelper()
  /// Scratch paths in the temporary directory.
  public static let tmpPcmPath: String = NSTemporaryDirectory() + "plaud_tmp.pcm"
  public static let tmpWavPath: String = NSTemporaryDirectory() + "plaud_tmp.wav"
  public static let leftPath: String = NSTemporaryDirectory() + "plaud_left.pcm"
  public static let rightPath: String = NSTemporaryDirectory() + "plaud_right.pcm"
  public static let leftWavPath: String = NSTemporaryDirectory() + "plaud_left.wav"
  public static let rightWavPath: String = NSTemporaryDirectory() + "plaud_right.wav"
  public static let leftLycPath: String = NSTemporaryDirectory() + "plaud_left.lyc"
  public static let rightLycPath: String = NSTemporaryDirectory() + "plaud_right.lyc"

  override init() { super.init() }

  /// Raw 16-bit PCM to WAV, synchronously; false when a file fails.
  public func pcmFileToWave(
    pcmFilePath: String = JXWaveHelper.tmpPcmPath, wavFilePath: String = JXWaveHelper.tmpWavPath,
    channels: UInt32 = 1, simpleRate: UInt32 = 16000
  ) -> Bool {
    WAVFile.wrap(
      pcm: pcmFilePath, into: wavFilePath, channels: Int(channels), rate: Int(simpleRate))
  }

  /// The WAV file's size, channels, sample rate, byte rate, bits per sample and data size;
  /// all 0 when it is not a PCM WAV file.
  public func readWaveHeader(wavePath: String) -> (
    fileSize: Int, channel: Int, sampleRate: Int, bitRate: Int, sampleBit: Int, dataSize: Int
  ) {
    guard let wav = WAVFile.read(wavePath) else { return (0, 0, 0, 0, 0, 0) }
    return (
      FileManager.default.fileSize(path: wavePath), wav.channels, wav.sampleRate,
      wav.sampleRate * wav.channels * wav.bitsPerSample / 8, wav.bitsPerSample, wav.dataSize
    )
  }

  /// Splits a 2-channel 16-bit WAV into two mono raw PCM files (left, right):
  /// `handler(success)` on a queue of its own.
  public func divideLeftAndRight(
    _ wavePath: String, _ leftPath: String = JXWaveHelper.leftPath,
    _ rightPath: String = JXWaveHelper.rightPath, handler: @escaping (Bool) -> Void
  ) {
    let done = AppClosure(handler)
    Conversions.queue.async {
      done.body(Self.divide(wavePath, leftPath, rightPath))
    }
  }

  static func divide(_ wavePath: String, _ leftPath: String, _ rightPath: String) -> Bool {
    guard let wav = WAVFile.read(wavePath), wav.channels == 2, wav.bitsPerSample == 16,
      let input = FileHandle(forReadingAtPath: wavePath),
      FileManager.default.createFile(atPath: leftPath, contents: nil),
      FileManager.default.createFile(atPath: rightPath, contents: nil),
      let left = FileHandle(forWritingAtPath: leftPath),
      let right = FileHandle(forWritingAtPath: rightPath)
    else { return false }
    defer {
      try? input.close()
      try? left.close()
      try? right.close()
    }
    do {
      try input.seek(toOffset: UInt64(wav.dataOffset))
      var remaining = wav.dataSize - wav.dataSize % 4
      while remaining > 0, let chunk = try input.read(upToCount: min(remaining, 1 << 16)),
        chunk.count >= 4
      {
        let whole = chunk.count - chunk.count % 4
        var l = Data(capacity: whole / 2)
        var r = Data(capacity: whole / 2)
        var index = chunk.startIndex
        while index + 3 < chunk.startIndex + whole {
          l.append(chunk[index])
          l.append(chunk[index + 1])
          r.append(chunk[index + 2])
          r.append(chunk[index + 3])
          index += 4
        }
        try left.write(contentsOf: l)
        try right.write(contentsOf: r)
        remaining -= whole
      }
      return true
    } catch {
      return false
    }
  }
}

/// The device's CRC-16 (PROTOCOL.md §10) of a file.
public class JXCrcHelper: NSObject, @unchecked Sendable {
  // Safety: no stored state.
  /// The one helper.
  public static let shared = JXCrcHelper()

  override init() { super.init() }

  /// The CRC-16 of the file at `path` (streaming), -1 when it cannot be read.
  public func getCrc(path: String) -> Int {
    guard let handle = FileHandle(forReadingAtPath: path) else { return -1 }
    defer { try? handle.close() }
    var crc = CRC16()
    do {
      while let chunk = try handle.read(upToCount: 1 << 16), !chunk.isEmpty { crc.update(chunk) }
    } catch {
      return -1
    }
    return Int(crc.value)
  }

  /// Whether the file at `path` has CRC-16 `crc` (false when it cannot be read).
  public func checkCrc(crc: Int, ofFile path: String) -> Bool {
    let actual = getCrc(path: path)
    return actual >= 0 && actual == crc
  }
}
