/// SplitMix64: a tiny deterministic generator, identical on every platform, so a seed means
/// the same sequence everywhere: the emulator's addresses, recordings and firmware images,
/// the cloud client's retry jitter under test, the tests' generated inputs. Not for secrets.
public struct SplitMix64: RandomNumberGenerator, Sendable {
  private var state: UInt64

  /// A generator whose sequence is fixed by `seed`.
  public init(seed: UInt64) { state = seed }

  /// The next 64 random bits.
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var value = state
    value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
    value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
    return value ^ (value >> 31)
  }

  /// Uniform in `[0, 1)`, from the top 53 bits of ``next()``.
  public mutating func nextUnit() -> Double { Double(next() >> 11) / Double(1 << 53) }

  /// Uniform in `range` (by modulo: the bias is negligible for the small ranges it serves).
  public mutating func next(in range: ClosedRange<Int>) -> Int {
    let width = UInt64(range.upperBound - range.lowerBound + 1)
    return range.lowerBound + Int(next() % width)
  }
}
