import RecorderConcurrency
import Testing

/// The one seeded generator: the published SplitMix64 sequence, and its derived draws.
struct SplitMix64Tests {
  @Test("seed 0 gives the reference SplitMix64 sequence")
  func referenceSequence() {
    var random = SplitMix64(seed: 0)
    #expect(random.next() == 0xE220_A839_7B1D_CDAF)
    #expect(random.next() == 0x6E78_9E6A_A1B9_65F4)
    #expect(random.next() == 0x06C4_5D18_8009_454F)
  }

  @Test("unit draws stay in [0, 1) and ranged draws in their range, for a fixed seed")
  func derivedDraws() {
    var random = SplitMix64(seed: 0x5EED)
    for _ in 0..<10_000 {
      let unit = random.nextUnit()
      #expect(unit >= 0 && unit < 1)
      let die = random.next(in: 1...6)
      #expect((1...6).contains(die))
    }
    var again = SplitMix64(seed: 0x5EED)
    var first = SplitMix64(seed: 0x5EED)
    #expect(again.next() == first.next())
  }
}
