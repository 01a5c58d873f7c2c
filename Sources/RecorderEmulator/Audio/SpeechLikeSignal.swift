import RecorderAudio
import RecorderConcurrency

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A seeded, deterministic generator of speech-like 16 kHz audio, one 20 ms frame at a time.
///
/// Why not silence or a sine: the Opus encoder, the decoder, the MP3 encoder and the
/// benchmarks all behave differently on real speech (transients, pitch glides, pauses), and
/// tests must be reproducible without shipping recordings. This is a small source-filter
/// model: a voiced source of harmonics with a wandering pitch (85–255 Hz), amplitude-shaped by
/// three gliding formants picked per syllable from a vowel table, syllable envelopes of
/// 120–320 ms, occasional fricative noise at a syllable's onset, pauses of 150–700 ms between
/// phrases, and a low noise floor. Peaks stay below about −6 dBFS.
///
/// The same seed yields the same samples on a given platform (it uses libm `sin`/`cos`).
/// For 2 channels, channel 1 is a quieter copy of channel 0 with its own noise floor, like a
/// second microphone.
public struct SpeechLikeSignal: Sendable {
  /// Interleaved channels per frame (1 or 2).
  public let channels: Int

  private var random: SplitMix64
  private var phase = 0.0
  private var pitch = 140.0
  private var pitchTarget = 140.0
  private var formants: (Double, Double, Double) = (500, 1500, 2500)
  private var formantTargets: (Double, Double, Double) = (500, 1500, 2500)
  /// Samples left in the current syllable or pause, and its length.
  private var segmentLeft = 0
  private var segmentLength = 1
  private var voiced = false
  private var fricativeSamples = 0
  private var syllablesLeftInPhrase = 0
  private var lowpassNoise = 0.0
  private var amplitudes = [Double](repeating: 0, count: 48)

  /// A generator for `channels` channels (1 or 2; anything else is a programmer error).
  public init(seed: UInt64, channels: Int = 1) {
    precondition(channels == 1 || channels == 2, "the device records 1 or 2 channels")
    self.channels = channels
    random = SplitMix64(seed: seed)
  }

  /// The next 20 ms: 320 × channels interleaved samples.
  public mutating func nextFrame() -> [Int16] {
    var frame = [Int16](repeating: 0, count: DeviceAudioFormat.samplesPerFrame * channels)
    nextFrame(into: &frame)
    return frame
  }

  /// Fills `frame` (320 × channels samples) with the next 20 ms, without allocating.
  public mutating func nextFrame(into frame: inout [Int16]) {
    precondition(frame.count == DeviceAudioFormat.samplesPerFrame * channels, "frame size")
    updateFrameParameters()
    let rate = Double(DeviceAudioFormat.sampleRate)
    let harmonicCount = min(amplitudes.count, Int(7000 / max(pitch, 1)))
    let startPitch = pitch
    pitch += (pitchTarget - pitch) * 0.15
    for index in 0..<DeviceAudioFormat.samplesPerFrame {
      let instantaneous =
        startPitch + (pitch - startPitch) * Double(index)
        / Double(DeviceAudioFormat.samplesPerFrame)
      phase += 2 * Double.pi * instantaneous / rate
      if phase > 2 * Double.pi { phase -= 2 * Double.pi }
      var sample = 0.0
      let envelope = currentEnvelope()
      if voiced && envelope > 0 {
        // sin(kφ) by the Chebyshev recurrence: one sin and one cos per sample.
        let twoCos = 2 * cos(phase)
        var previous = 0.0
        var current = sin(phase)
        for harmonic in 0..<harmonicCount {
          sample += amplitudes[harmonic] * current
          let next = twoCos * current - previous
          previous = current
          current = next
        }
        sample *= envelope
      }
      if fricativeSamples > 0 {
        fricativeSamples -= 1
        let white = random.nextSigned()
        sample += 0.10 * (white - lowpassNoise)
        lowpassNoise = 0.6 * lowpassNoise + 0.4 * white
      }
      sample += 0.002 * random.nextSigned()
      segmentLeft -= 1
      let left = clamp(sample * 16_000)
      if channels == 1 {
        frame[index] = left
      } else {
        frame[2 * index] = left
        frame[2 * index + 1] = clamp(sample * 11_000 + 30 * random.nextSigned())
      }
    }
  }

  /// Picks the next syllable or pause when the current one ends, glides pitch and formants,
  /// and recomputes the harmonic amplitudes for this frame.
  private mutating func updateFrameParameters() {
    if segmentLeft <= 0 { startSegment() }
    formants.0 += (formantTargets.0 - formants.0) * 0.25
    formants.1 += (formantTargets.1 - formants.1) * 0.25
    formants.2 += (formantTargets.2 - formants.2) * 0.25
    if random.nextUnit() < 0.1 {
      pitchTarget = min(255, max(85, pitchTarget + 30 * random.nextSigned()))
    }
    let resonances = [(formants.0, 90.0, 1.0), (formants.1, 120.0, 0.55), (formants.2, 180.0, 0.3)]
    var total = 0.0
    for harmonic in 0..<amplitudes.count {
      let frequency = Double(harmonic + 1) * pitch
      var gain = 0.0
      for (center, width, weight) in resonances {
        let distance = (frequency - center) / width
        gain += weight / (1 + distance * distance)
      }
      amplitudes[harmonic] = gain / sqrt(Double(harmonic + 1))
      total += amplitudes[harmonic]
    }
    let scale = total > 0 ? 0.5 / total * 4 : 0
    for harmonic in 0..<amplitudes.count {
      amplitudes[harmonic] = min(amplitudes[harmonic] * scale, 0.5)
    }
  }

  private mutating func startSegment() {
    let rate = Double(DeviceAudioFormat.sampleRate)
    if voiced == false || syllablesLeftInPhrase > 0 {
      if syllablesLeftInPhrase <= 0 { syllablesLeftInPhrase = 2 + Int(random.nextUnit() * 9) }
      syllablesLeftInPhrase -= 1
      voiced = true
      segmentLength = Int(rate * (0.12 + 0.20 * random.nextUnit()))
      let vowel = Self.vowels[
        Int(random.nextUnit() * Double(Self.vowels.count)) % Self.vowels.count]
      formantTargets = vowel
      fricativeSamples = random.nextUnit() < 0.3 ? Int(rate * 0.04) : 0
      if random.nextUnit() < 0.3 { pitchTarget = 85 + 170 * random.nextUnit() }
    } else {
      voiced = false
      segmentLength = Int(rate * (0.15 + 0.55 * random.nextUnit()))
    }
    segmentLeft = segmentLength
  }

  /// A raised-cosine syllable envelope: 0 at both ends, 1 in the middle.
  private func currentEnvelope() -> Double {
    guard voiced, segmentLength > 0 else { return 0 }
    let position = Double(segmentLength - segmentLeft) / Double(segmentLength)
    let shape = sin(Double.pi * min(max(position, 0), 1))
    return shape * shape
  }

  /// (F1, F2, F3) in Hz of a few vowels.
  private static let vowels: [(Double, Double, Double)] = [
    (730, 1090, 2440), (270, 2290, 3010), (300, 870, 2240), (530, 1840, 2480),
    (660, 1720, 2410), (570, 840, 2410), (440, 1020, 2240), (490, 1350, 1690),
  ]
}

private func clamp(_ value: Double) -> Int16 {
  Int16(max(-32_768, min(32_767, value.rounded())))
}

extension SplitMix64 {
  /// Uniform in `[-1, 1)`.
  fileprivate mutating func nextSigned() -> Double { nextUnit() * 2 - 1 }
}
