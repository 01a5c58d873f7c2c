import Foundation
import RecorderAudio
import RecorderConcurrency
import RecorderProtocol

// The vendor's audio helpers, over RecorderAudio: device Opus ("AVC" in the vendor's names)
// and Ogg Opus decoded with libopus, PCM, WAV and MP3 written by RecorderAudio's writers.
// Volumes are real numbers from real samples: the RMS of 16-bit PCM as a percentage of full
// scale (0–100).

/// Volume arithmetic shared by the meters.
enum Volume {
  /// The RMS of `pcm` (16-bit little-endian samples) as a percentage of full scale, 0–100
  /// (0 for no samples).
  static func percent(_ pcm: Data) -> Int {
    let count = pcm.count / 2
    guard count > 0 else { return 0 }
    var sum = 0.0
    pcm.withUnsafeBytes { raw in
      for index in 0..<count {
        let sample = Double(
          Int16(littleEndian: raw.loadUnaligned(fromByteOffset: index * 2, as: Int16.self)))
        sum += sample * sample
      }
    }
    let rms = (sum / Double(count)).squareRoot()
    return min(100, Int((rms / 32_768 * 100).rounded()))
  }

  /// The vendor's `middleNum`: `values` sorted in place, then their median.
  static func middle(_ values: inout [Int]) -> Int {
    values.sort()
    return median(values)
  }

  /// The median of `values` (the lower middle for an even count; 0 when empty).
  static func median(_ values: [Int]) -> Int {
    guard !values.isEmpty else { return 0 }
    return values.sorted()[(values.count - 1) / 2]
  }

  /// Bytes of 16-bit PCM per millisecond at 16 kHz for `channels`.
  static func bytesPerMs(channels: Int) -> Int {
    DeviceAudioFormat.sampleRate / 1000 * 2 * max(1, channels)
  }
}

/// One volume per second of a recording, from its PCM (the recording meters' engine).
final class SecondMeter: Sendable {
  struct State {
    var waveInterval = 1000
    var perSecond: [(sec: Int, volume: Int)] = []
    var perTwenty: [(perTwentyMsec: Int, volume: Int)] = []
    var pending: [Int] = []
    var pendingSecond = 0
    var millis = 0
    var bytes = 0
  }

  let state = Locked(State())

  /// Adds `pcm` starting at `startMs`; returns the seconds completed by it.
  func append(startMs: Int, pcm: Data, channels: Int) -> [(sec: Int, volume: Int)] {
    let perMs = Volume.bytesPerMs(channels: channels)
    let twenty = perMs * 20
    return state.withLock { state in
      var completed: [(sec: Int, volume: Int)] = []
      var offset = 0
      var ms = startMs
      while offset < pcm.count {
        let chunk = pcm.subData(begin: offset, count: twenty)
        let volume = Volume.percent(chunk)
        state.perTwenty.append((ms / 20, volume))
        let second = ms / 1000
        if second != state.pendingSecond, !state.pending.isEmpty {
          let done = (state.pendingSecond, Volume.median(state.pending))
          state.perSecond.append(done)
          completed.append(done)
          state.pending = []
        }
        state.pendingSecond = second
        state.pending.append(volume)
        offset += twenty
        ms += 20
      }
      state.millis = max(state.millis, ms)
      state.bytes += pcm.count
      return completed
    }
  }

  /// Closes the second in progress (the end of a file).
  func finish() {
    state.withLock { state in
      guard !state.pending.isEmpty else { return }
      state.perSecond.append((state.pendingSecond, Volume.median(state.pending)))
      state.pending = []
    }
  }

  func reset() { state.withLock { $0 = State(waveInterval: $0.waveInterval) } }

  // What every vendor meter class exposes, once.

  /// Kept for the app: the meter makes one point per second whatever this says.
  var waveInterval: Int {
    get { state.current.waveInterval }
    set { state.withLock { $0.waveInterval = max(20, newValue) } }
  }
  /// The volumes per second.
  var perSecond: [(sec: Int, volume: Int)] {
    get { state.current.perSecond }
    set { state.withLock { $0.perSecond = newValue } }
  }
  /// The volumes as `[second, volume]` pairs; pairs of another length are dropped.
  var pairs: [[Int]] {
    get { perSecond.map { [$0.sec, $0.volume] } }
    set { perSecond = Self.seconds(newValue) }
  }
  /// The second reached.
  var second: Int { state.current.millis / 1000 }

  /// `[second, volume]` pairs as seconds; pairs of another length are dropped.
  static func seconds(_ pairs: [[Int]]) -> [(sec: Int, volume: Int)] {
    pairs.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil }
  }

  /// Restores meters saved earlier: the seconds, and the time reached after them.
  func restore(_ meters: [(sec: Int, volume: Int)]) {
    state.withLock { state in
      state.perSecond = meters
      state.millis = ((meters.map(\.sec).max() ?? -1) + 1) * 1000
      state.pendingSecond = state.millis / 1000
    }
  }
}

/// The volume meter of a recording's PCM: one volume per second (the median of its 20 ms
/// RMS levels, 0–100).
public class JXRecordVolumer: NSObject, @unchecked Sendable {
  // Safety: every stored property is a `let` of a Sendable type (`SecondMeter` locks).
  /// The one meter.
  public static let shared = JXRecordVolumer()

  let meter = SecondMeter()

  override init() { super.init() }

  /// Kept for the app: the meter makes one point per second whatever this says (1000).
  public var waveInterval: Int {
    get { meter.waveInterval }
    set { meter.waveInterval = newValue }
  }
  /// The volumes as `[second, volume]` pairs.
  public var volumeArr: [[Int]] {
    get { meter.pairs }
    set { meter.pairs = newValue }
  }
  /// The volumes per second.
  public var volumeMeters: [(sec: Int, volume: Int)] {
    get { meter.perSecond }
    set { meter.perSecond = newValue }
  }
  /// The second the meter has reached.
  public var curSec: Int { meter.second }

  /// The RMS of 16-bit PCM as a percentage of full scale (0–100).
  public func averageVolume(_ pcmData: Data) -> Int { Volume.percent(pcmData) }

  /// Adds mono 16 kHz PCM starting at `start` milliseconds.
  public func append(start: Int, pcmData: Data) {
    _ = meter.append(startMs: start, pcm: pcmData, channels: 1)
  }

  /// The median of `volumeArr` (sorted in place).
  public func middleNum(_ volumeArr: inout [Int]) -> Int { Volume.middle(&volumeArr) }

  /// Clears the meter.
  public func reset() { meter.reset() }
}

/// The volume meter of a recording's PCM under the vendor's newer name (as
/// ``JXRecordVolumer``).
public class PDRecordVolumer: NSObject, @unchecked Sendable {
  // Safety: every stored property is a `let` of a Sendable type (`SecondMeter` locks).
  /// The one meter.
  public static let shared = PDRecordVolumer()

  let meter = SecondMeter()

  override init() { super.init() }

  /// Kept for the app: the meter makes one point per second whatever this says (1000).
  public var waveInterval: Int {
    get { meter.waveInterval }
    set { meter.waveInterval = newValue }
  }
  /// The volumes as `[second, volume]` pairs.
  public var volumeArr: [[Int]] {
    get { meter.pairs }
    set { meter.pairs = newValue }
  }
  /// The volumes per second.
  public var volumeMeters: [(sec: Int, volume: Int)] {
    get { meter.perSecond }
    set { meter.perSecond = newValue }
  }
  /// The second the meter has reached.
  public var curSec: Int { meter.second }

  /// The RMS of 16-bit PCM as a percentage of full scale (0–100).
  public func averageVolume(_ pcmData: Data) -> Int { Volume.percent(pcmData) }

  /// Adds mono 16 kHz PCM starting at `start` milliseconds.
  public func append(start: Int, pcmData: Data) {
    _ = meter.append(startMs: start, pcm: pcmData, channels: 1)
  }

  /// The median of `volumeArr` (sorted in place).
  public func middleNum(_ volumeArr: inout [Int]) -> Int { Volume.middle(&volumeArr) }

  /// Clears the meter.
  public func reset() { meter.reset() }
}

/// A live recording's volume meter: feed it the live PCM (`blePcmData`) and its delegate
/// hears each finished second's volume and the duration so far.
public class JXRecordingVolumer: NSObject, @unchecked Sendable {
  // Safety: `meter` locks; the delegate is a weak reference set and read under `delegateRef`'s
  // lock and only invoked, never mutated.
  /// The one meter.
  public static let shared = JXRecordingVolumer()

  let meter = SecondMeter()
  let delegateRef = Locked(Weak<AnyObject>(nil))

  override init() { super.init() }

  /// The delegate (held weakly).
  public var delegate: (any VolumeProtocol)? {
    get { delegateRef.current.value as? any VolumeProtocol }
    set { delegateRef.withLock { $0 = Weak(newValue) } }
  }
  /// Kept for the app: the meter makes one point per second whatever this says (1000).
  public var waveInterval: Int {
    get { meter.waveInterval }
    set { meter.waveInterval = newValue }
  }
  /// The volumes as `[second, volume]` pairs.
  public var volumeArr: [[Int]] { meter.pairs }
  /// The volumes per second.
  public var volumeMeters: [(sec: Int, volume: Int)] { meter.perSecond }
  /// The second reached.
  public var curSec: Int { meter.second }
  /// The millisecond reached.
  public var curMillisec: Int { meter.state.current.millis }
  /// PCM bytes taken so far.
  public var curFileSize: Int { meter.state.current.bytes }

  /// The RMS of 16-bit PCM as a percentage of full scale (0–100).
  public func averageVolume(_ pcmData: Data) -> CGFloat { CGFloat(Volume.percent(pcmData)) }

  /// Adds 16 kHz PCM of `channels` starting at `start` milliseconds; tells the delegate.
  public func append(start: Int, pcmData: Data, channels: Int = 1) {
    let done = meter.append(startMs: start, pcm: pcmData, channels: channels)
    report(done, millis: meter.state.current.millis)
  }

  /// Adds mono PCM starting at `millSec` (the `blePcmData` arguments).
  public func append(_ millSec: Int, _ pcmData: Data) { append(start: millSec, pcmData: pcmData) }

  /// Restores meters saved earlier, as `[second, volume]` pairs.
  public func setOldVolumeMeters(meters: [[Int]]) { meter.restore(SecondMeter.seconds(meters)) }

  /// Restores meters saved earlier.
  public func setOldVolumeMeters(meters: [(sec: Int, volume: Int)]) { meter.restore(meters) }

  /// Clears the meter.
  public func reset() { meter.reset() }

  func report(_ seconds: [(sec: Int, volume: Int)], millis: Int) {
    guard let delegate else { return }
    for second in seconds { delegate.onVolume(sec: second.sec, volume: second.volume) }
    delegate.onDuration(millisec: millis)
  }
}

/// ``JXRecordingVolumer`` with 20 ms points too (``PDVolumeProtocol``).
public class PDRecordingVolumer: NSObject, @unchecked Sendable {
  // Safety: as JXRecordingVolumer.
  /// The one meter.
  public static let shared = PDRecordingVolumer()

  let meter = SecondMeter()
  let delegateRef = Locked(Weak<AnyObject>(nil))

  override init() { super.init() }

  /// The delegate (held weakly).
  public var delegate: (any PDVolumeProtocol)? {
    get { delegateRef.current.value as? any PDVolumeProtocol }
    set { delegateRef.withLock { $0 = Weak(newValue) } }
  }
  /// Kept for the app: the meter makes one point per second whatever this says (1000).
  public var waveInterval: Int {
    get { meter.waveInterval }
    set { meter.waveInterval = newValue }
  }
  /// The volumes as `[second, volume]` pairs.
  public var volumeArr: [[Int]] { meter.pairs }
  /// The volumes per second.
  public var volumeMeters: [(sec: Int, volume: Int)] { meter.perSecond }
  /// The volumes per 20 ms (index = milliseconds / 20).
  public var volumePerTwentyMsecs: [(perTwentyMsec: Int, volume: Int)] {
    meter.state.current.perTwenty
  }
  /// The second reached.
  public var curSec: Int { meter.second }
  /// The millisecond reached.
  public var curMillisec: Int { meter.state.current.millis }
  /// PCM bytes taken so far.
  public var curFileSize: Int { meter.state.current.bytes }

  /// The RMS of 16-bit PCM as a percentage of full scale (0–100).
  public func averageVolume(_ pcmData: Data) -> CGFloat { CGFloat(Volume.percent(pcmData)) }

  /// Adds 16 kHz PCM of `channels` starting at `start` ms; tells the delegate each 20 ms
  /// point, each finished second and the duration.
  public func append(start: Int, pcmData: Data, channels: Int = 1) {
    let before = meter.state.current.perTwenty.count
    let done = meter.append(startMs: start, pcm: pcmData, channels: channels)
    let (twenty, millis) = meter.state.withLock { (Array($0.perTwenty[before...]), $0.millis) }
    guard let delegate = delegate else { return }
    for point in twenty {
      delegate.onVolumePerTwentyMsec(mescSecond: point.perTwentyMsec * 20, volume: point.volume)
    }
    for second in done { delegate.onVolume(sec: second.sec, volume: second.volume) }
    delegate.onDuration(millisec: millis)
  }

  /// Adds mono PCM starting at `millSec`.
  public func append(_ millSec: Int, _ pcmData: Data) { append(start: millSec, pcmData: pcmData) }

  /// Restores meters saved earlier, as `[second, volume]` pairs.
  public func setOldVolumeMeters(meters: [[Int]]) { meter.restore(SecondMeter.seconds(meters)) }

  /// Restores meters saved earlier.
  public func setOldVolumeMeters(meters: [(sec: Int, volume: Int)]) { meter.restore(meters) }

  /// Clears the meter.
  public func reset() { meter.reset() }
}
