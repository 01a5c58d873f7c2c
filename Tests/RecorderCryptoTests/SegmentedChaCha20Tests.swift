import RecorderConcurrency
import RecorderCrypto
import TestSupport
import Testing

/// Issue 43: the E2EE body's keystream restarts every `segment` bytes with the same key,
/// nonce and initial counter (PROTOCOL.md §9). Against a reference built from one fresh
/// `ChaCha20Stream` per segment, on seeded random lengths, segments and chunkings
/// (`RECORDER_TEST_SEED` replays a failure).
@Suite struct SegmentedChaCha20Tests {
  @Test func restartsEverySegmentWhateverTheChunking() throws {
    let seed = TestSeed.current
    var random = SplitMix64(seed: seed)
    for trial in 0..<200 {
      let key = (0..<32).map { _ in UInt8.random(in: 0...255, using: &random) }
      let nonce = (0..<12).map { _ in UInt8.random(in: 0...255, using: &random) }
      let counter = trial % 2 == 0 ? 0 : UInt32.random(in: 1...1_000, using: &random)
      let segment = [0, 1, 63, 64, 100, 4096][trial % 6]
      let length = Int.random(in: 0...10_000, using: &random)
      let plain = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
      var reference: [UInt8] = []
      let step = segment == 0 ? max(1, length) : segment
      for start in stride(from: 0, to: length, by: step) {
        reference += try ChaCha20Stream(key: key, nonce: nonce, counter: counter)
          .applied(to: Array(plain[start..<min(length, start + step)]))
      }
      let ours = try SegmentedChaCha20(
        key: key, nonce: nonce, counter: counter, segment: segment)
      var output: [UInt8] = []
      var rest = plain[...]
      while !rest.isEmpty {
        var chunk = Array(rest.prefix(Int.random(in: 1...9_000, using: &random)))
        try ours.apply(&chunk)
        output += chunk
        rest = rest.dropFirst(chunk.count)
      }
      #expect(output == reference, "trial \(trial), segment \(segment), seed \(seed)")
      if output != reference { return }
    }
  }

  /// A keystream positioned at any offset gives the bytes the whole stream has there: what
  /// decrypting an E2EE file's last page alone relies on.
  @Test func positionedAtAnOffsetMatchesTheWholeStream() throws {
    let seed = TestSeed.current
    var random = SplitMix64(seed: seed)
    for trial in 0..<100 {
      let key = (0..<32).map { _ in UInt8.random(in: 0...255, using: &random) }
      let nonce = (0..<12).map { _ in UInt8.random(in: 0...255, using: &random) }
      let counter = trial % 2 == 0 ? 0 : UInt32.random(in: 1...1_000, using: &random)
      let segment = [0, 100, 4096][trial % 3]
      let whole = [UInt8](repeating: 0, count: 12_000)
      var stream = whole
      try SegmentedChaCha20(key: key, nonce: nonce, counter: counter, segment: segment)
        .apply(&stream)
      let offset = Int.random(in: 0..<whole.count, using: &random)
      var piece = [UInt8](repeating: 0, count: whole.count - offset)
      try SegmentedChaCha20(
        key: key, nonce: nonce, counter: counter, segment: segment, offset: offset
      ).apply(&piece)
      #expect(piece == Array(stream[offset...]), "trial \(trial), offset \(offset), seed \(seed)")
      if piece != Array(stream[offset...]) { return }
    }
  }

  @Test func segmentZeroIsOneContinuousStream() throws {
    let key = [UInt8](repeating: 7, count: 32)
    let nonce = [UInt8](repeating: 9, count: 12)
    let plain = [UInt8](repeating: 0, count: 10_000)
    let one = try ChaCha20Stream(key: key, nonce: nonce, counter: 3).applied(to: plain)
    var bytes = plain
    try SegmentedChaCha20(key: key, nonce: nonce, counter: 3, segment: 0).apply(&bytes)
    #expect(bytes == one)
    // Restarted every 4 KiB, the second segment repeats the first one's keystream.
    var segmented = plain
    try SegmentedChaCha20(key: key, nonce: nonce, counter: 3, segment: 4096).apply(&segmented)
    #expect(Array(segmented[4096..<8192]) == Array(one[0..<4096]))
    #expect(Array(segmented[4096..<8192]) != Array(one[4096..<8192]))
  }
}
