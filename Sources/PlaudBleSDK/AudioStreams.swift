import Foundation
import RecorderAudio
import RecorderConcurrency

/// The waveform of a recording file: its PCM decoded by RecorderAudio, one volume per second
/// (the median of its 20 ms RMS levels, 0–100) stored in ``JXRecordVolumer/shared``'s
/// `volumeMeters`; the callback gets `(true, seconds)` or `(false, 0)` (the reason on
/// `BleAgent.shared.lastError`).
public class JXFileSoundWave: NSObject, @unchecked Sendable {
  // Safety: no stored state; the work runs in the Sendable `Conversions`.
  /// The one generator.
  public static let shared = JXFileSoundWave()

  override init() { super.init() }

  /// Whether a waveform is being made.
  public func hasAvcToSoundWaveTask() -> Bool { Conversions.shared.isRunning("soundWave") }
  /// Stops making it.
  public func generateSoundWaveCancel() { Conversions.shared.cancel("soundWave") }

  /// The waveform of the raw or Ogg recording at `filePath` of `channels` (Ogg is recognised
  /// by its bytes; `isOgg` and `isMusic` change nothing).
  public func createSoundWave(
    _ filePath: String, _ channels: Int, _ isOgg: Bool, _ isMusic: Bool,
    _ callback: @escaping (Bool, Int) -> Void
  ) {
    avcToSoundWave(avcPath: filePath, channels: channels, completionHandler: callback)
  }

  /// The waveform of the raw recording at `avcPath`.
  public func avcToSoundWave(
    avcPath: String, channels: Int = 1, completionHandler: @escaping (Bool, Int) -> Void
  ) {
    SoundWave.start(
      "soundWave", avcPath, channels: channels, into: JXRecordVolumer.shared.meter,
      completionHandler)
  }
}

/// The same generator as ``JXFileSoundWave`` under the vendor's newer name: its waveform goes
/// to ``PDRecordVolumer/shared``.
public class PDFileSoundWave: NSObject, @unchecked Sendable {
  // Safety: no stored state; the work runs in the Sendable `Conversions`.
  /// The one generator.
  public static let shared = PDFileSoundWave()

  override init() { super.init() }

  /// Whether a waveform is being made.
  public func hasAvcToSoundWaveTask() -> Bool { Conversions.shared.isRunning("pdSoundWave") }
  /// Stops making it.
  public func generateSoundWaveCancel() { Conversions.shared.cancel("pdSoundWave") }

  /// The waveform of the raw or Ogg recording at `filePath` (as ``JXFileSoundWave``).
  public func createSoundWave(
    _ filePath: String, _ channels: Int, _ isOgg: Bool, _ isMusic: Bool,
    _ callback: @escaping (Bool, Int) -> Void
  ) {
    avcToSoundWave(avcPath: filePath, channels: channels, completionHandler: callback)
  }

  /// The waveform of the raw recording at `avcPath`.
  public func avcToSoundWave(
    avcPath: String, channels: Int = 1, completionHandler: @escaping (Bool, Int) -> Void
  ) {
    SoundWave.start(
      "pdSoundWave", avcPath, channels: channels, into: PDRecordVolumer.shared.meter,
      completionHandler)
  }
}

enum SoundWave {
  /// The waveform of `path` into `meter`, as the conversion `kind` (one at a time per kind).
  static func start(
    _ kind: String, _ path: String, channels: Int, into meter: SecondMeter,
    _ completionHandler: @escaping (Bool, Int) -> Void
  ) {
    Conversions.shared.start(kind, AppClosure(completionHandler)) { () throws(AudioError) in
      try measure(path, channels: channels, into: meter)
    }
  }

  /// Decodes `path` to mono PCM (a temporary file, removed after) and meters it; returns
  /// the seconds metered.
  static func measure(_ path: String, channels: Int, into meter: SecondMeter) throws(AudioError)
    -> Int
  {
    let pcm = NSTemporaryDirectory() + "plaud-wave-\(UUID().uuidString).pcm"
    defer { try? FileManager.default.removeItem(atPath: pcm) }
    _ = try AudioExporter.export(
      from: path, recordedChannels: channels, to: pcm,
      options: ExportOptions(format: .pcm, channels: 1))
    meter.reset()
    guard let handle = FileHandle(forReadingAtPath: pcm) else {
      throw .io(path: pcm, operation: "open", errno: 0, message: "cannot open the decoded audio")
    }
    defer { try? handle.close() }
    var ms = 0
    while let chunk = try? handle.read(upToCount: 32_000), !chunk.isEmpty {
      if Task.isCancelled { throw .cancelled }
      _ = meter.append(startMs: ms, pcm: chunk, channels: 1)
      ms += chunk.count / Volume.bytesPerMs(channels: 1)
    }
    meter.finish()
    return meter.state.current.perSecond.count
  }
}

/// Decodes device Opus frames (80 bytes per channel per 20 ms, PROTOCOL.md §5) to 16 kHz
/// 16-bit PCM with RecorderAudio's decoder. Not thread-safe: one owner.
public class JXAvcDecoder: NSObject {
  /// Bytes of one mono frame.
  public final let packSize: Int = DeviceAudioFormat.packetBytes
  /// Bytes of one 2-channel frame.
  public final let twoChannelPackSize: Int = DeviceAudioFormat.packetBytes * 2
  /// Bytes of one 4-channel frame.
  public final let fourChannelPackSize: Int = DeviceAudioFormat.packetBytes * 4

  private var decoder: DeviceOpusDecoder?

  public override init() { super.init() }

  /// Makes the decoder for `channels` (1 or 2) unless one for them exists.
  public func createDecoderIfNeed(_ channels: Int = 1) {
    if decoder?.format.channels != channels { decoder = try? DeviceOpusDecoder(channels: channels) }
  }

  /// Decodes whole frames of `data` (a trailing partial frame is ignored): interleaved
  /// 16-bit little-endian PCM, nil when a frame is not device Opus or `channels` is not 1
  /// or 2.
  public func decode(_ data: Data, _ channels: Int) -> Data? {
    createDecoderIfNeed(channels)
    guard let decoder else { return nil }
    let frame = DeviceAudioFormat.packetBytes * channels
    let bytes = Array(data)
    var pcm = Data()
    var offset = 0
    while offset + frame <= bytes.count {
      guard let samples = try? decoder.decode(Array(bytes[offset..<offset + frame]), offset: offset)
      else { return nil }
      samples.withUnsafeBytes { pcm.append(contentsOf: $0) }
      offset += frame
    }
    return pcm
  }

  /// Releases the decoder (the next decode makes a new one).
  public func releaseDecoder() { decoder = nil }
}

/// A live stream of device bytes decoded to PCM as it arrives: frames go to the delegate's
/// `onPcmData(sessionId, millisecond, pcm)` on ``callbackQueue``; a frame that is not device
/// Opus goes to `onDecodeErr(millisecond)` and is skipped.
public class JXPcmProcess: NSObject, @unchecked Sendable {
  // Safety: `state` (which holds the decoder) is only touched under its lock; the delegate
  // is a weak reference, invoked on `callbackQueue` only.
  /// The one pipeline.
  public static let shared = JXPcmProcess()

  struct State {
    var sessionId = 0
    var channels = 1
    var isOgg = false
    var decoder: DeviceOpusDecoder?
    var pending = Data()
    var nextMs = 0
    var delegate = Weak<AnyObject>(nil)
    var queue = DispatchQueue(label: "PlaudBleSDK.pcm")
  }

  let state = Locked(State())

  override init() { super.init() }

  /// The delegate (held weakly).
  public var delegate: (any JXPcmProcessDelegate)? {
    get { state.current.delegate.value as? any JXPcmProcessDelegate }
    set { state.withLock { $0.delegate = Weak(newValue) } }
  }
  /// Where the delegate is called (serial by default).
  public var callbackQueue: DispatchQueue {
    get { state.current.queue }
    set { state.withLock { $0.queue = newValue } }
  }

  /// Starts a new stream: `sessionId`'s audio of `channel` channels. An Ogg stream (`isOgg`)
  /// is not decoded live: its bytes go to `onDecodeErr`. `nsAgc` changes nothing.
  public func resetWith(_ sessionId: Int, _ channel: Int, _ isOgg: Bool, _ nsAgc: Bool = false) {
    state.withLock {
      $0.sessionId = sessionId
      $0.channels = max(1, channel)
      $0.isOgg = isOgg
      $0.decoder = try? DeviceOpusDecoder(channels: max(1, channel))
      $0.pending = Data()
      $0.nextMs = 0
    }
  }

  /// Device bytes of `sessionId` from byte `start` (a different session or a gap restarts
  /// the frame alignment at `start`).
  public func receiveData(_ sessionId: Int, _ start: Int, _ data: Data) {
    var out: [(Int, Data)] = []
    var errors: [Int] = []
    let (id, queue, target) = state.withLock { state -> (Int, DispatchQueue, Weak<AnyObject>) in
      let frame = DeviceAudioFormat.packetBytes * state.channels
      if sessionId != state.sessionId || state.decoder == nil {
        state.sessionId = sessionId
        state.decoder = try? DeviceOpusDecoder(channels: state.channels)
        state.pending = Data()
      }
      if state.pending.isEmpty { state.nextMs = start / frame * 20 }
      state.pending.append(data)
      while state.pending.count >= frame {
        let chunk = Array(state.pending.prefix(frame))
        state.pending.removeFirst(frame)
        if !state.isOgg, let samples = try? state.decoder?.decode(chunk) {
          out.append((state.nextMs, samples.withUnsafeBytes { Data($0) }))
        } else {
          errors.append(state.nextMs)
        }
        state.nextMs += 20
      }
      return (state.sessionId, state.queue, state.delegate)
    }
    let frames = out
    let failed = errors
    queue.async {
      guard let delegate = target.value as? any JXPcmProcessDelegate else { return }
      for (ms, pcm) in frames { delegate.onPcmData(id, ms, pcm) }
      for ms in failed { delegate.onDecodeErr(ms) }
    }
  }

  /// As ``receiveData(_:_:_:)``.
  public func receiveDataBytes(_ sessionId: Int, _ start: Int, _ data: Data) {
    receiveData(sessionId, start, data)
  }
}

extension JXPcmProcess: JXPcmProcessDelegate {
  /// Passes decoded PCM on to the delegate.
  public func onPcmData(_ sessionId: Int, _ millSec: Int, _ pcmData: Data) {
    delegate?.onPcmData(sessionId, millSec, pcmData)
  }
  /// Passes a decode failure on to the delegate.
  public func onDecodeErr(_ millSec: Int) { delegate?.onDecodeErr(millSec) }
}

/// A live stream of a WAV file's bytes passed on as PCM: the 44-byte header at byte 0 is
/// skipped; the delegate gets `onPcmData(sessionId, millisecond, pcm)` (16 kHz mono 16-bit).
public class JXWave2PcmProcess: NSObject, @unchecked Sendable {
  // Safety: `state` is only touched under its lock; the delegate is invoked on the queue.
  /// The one pipeline.
  public static let shared = JXWave2PcmProcess()

  struct State {
    var sessionId = 0
    var delegate = Weak<AnyObject>(nil)
    var queue = DispatchQueue(label: "PlaudBleSDK.wave2pcm")
  }

  let state = Locked(State())

  override init() { super.init() }

  /// The delegate (held weakly).
  public var delegate: (any JXPcmProcessDelegate)? {
    get { state.current.delegate.value as? any JXPcmProcessDelegate }
    set { state.withLock { $0.delegate = Weak(newValue) } }
  }
  /// Where the delegate is called.
  public var callbackQueue: DispatchQueue {
    get { state.current.queue }
    set { state.withLock { $0.queue = newValue } }
  }

  /// Starts a new stream for `sessionId`.
  public func resetWith(_ sessionId: Int) { state.withLock { $0.sessionId = sessionId } }

  /// WAV bytes of `sessionId` from byte `start`.
  public func receiveData(_ sessionId: Int, _ start: Int, _ data: Data) {
    let header = 44
    let skip = max(0, header - start)
    guard data.count > skip else { return }
    let pcm = data.subData(begin: skip, count: data.count - skip)
    let ms = max(0, start - header) / Volume.bytesPerMs(channels: 1)
    let (queue, target) = state.withLock { ($0.queue, $0.delegate) }
    queue.async {
      (target.value as? any JXPcmProcessDelegate)?.onPcmData(sessionId, ms, pcm)
    }
  }
}
