import TestSupport
import Testing

@testable import RecorderProtocol

/// PROTOCOL.md §10: CRC-16/CCITT-FALSE check values.
@Suite("CRC-16/CCITT-FALSE")
struct CRC16Tests {
  @Test("\"123456789\" → 0x29B1 (the catalogue check value)")
  func catalogueCheck() {
    #expect(CRC16.checksum(Array("123456789".utf8)) == 0x29B1)
  }

  @Test("empty → 0xFFFF (the seed, no final XOR)")
  func empty() {
    #expect(CRC16.checksum([UInt8]()) == 0xFFFF)
    #expect(CRC16().value == 0xFFFF)
  }

  @Test("80 × 0xab (one data frame) → 0x146C")
  func oneDataFrame() {
    #expect(CRC16.checksum([UInt8](repeating: 0xAB, count: 80)) == 0x146C)
  }

  @Test("\"PLAUD.AI\" → 0xB2B2")
  func plaud() {
    #expect(CRC16.checksum(Array("PLAUD.AI".utf8)) == 0xB2B2)
  }

  @Test("incremental updates equal one call, at every split point")
  func incremental() {
    var gen = Gen(seed: TestSeed.current)
    let bytes = gen.bytes(300...300)
    let whole = CRC16.checksum(bytes)
    for split in [0, 1, 80, 150, 299, 300] {
      var crc = CRC16()
      crc.update(bytes[..<split])
      crc.update(bytes[split...])
      #expect(crc.value == whole, "split at \(split), seed \(TestSeed.current)")
    }
    var byteByByte = CRC16()
    for byte in bytes { byteByByte.update(CollectionOfOne(byte)) }
    #expect(byteByByte.value == whole)
    var frames = CRC16()
    for _ in 0..<3 { frames.update([UInt8](repeating: 0xAB, count: 80)) }
    #expect(frames.value == CRC16.checksum([UInt8](repeating: 0xAB, count: 240)))
  }

  /// The eight-bytes-per-step path agrees with byte at a time at every length and alignment.
  @Test("slicing-by-8 equals byte at a time")
  func slicing() {
    var gen = Gen(seed: TestSeed.current ^ 0x5EED)
    for _ in 0..<50 {
      let bytes = gen.bytes(0...2000)
      var byteByByte = CRC16()
      for byte in bytes { byteByByte.update(CollectionOfOne(byte)) }
      #expect(CRC16.checksum(bytes) == byteByByte.value, "seed \(TestSeed.current)")
      let split = bytes.count / 3
      var twoParts = CRC16()
      twoParts.update(bytes[..<split])
      twoParts.update(bytes[split...])
      #expect(twoParts.value == byteByByte.value, "seed \(TestSeed.current)")
    }
  }

  /// The table-driven CRC agrees with the bitwise definition (poly 0x1021, MSB first).
  @Test("table matches the bitwise definition")
  func bitwise() {
    var gen = Gen(seed: TestSeed.current ^ 0xC2C)
    for _ in 0..<50 {
      let bytes = gen.bytes(0...64)
      var crc: UInt16 = 0xFFFF
      for byte in bytes {
        crc ^= UInt16(byte) << 8
        for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1 }
      }
      #expect(CRC16.checksum(bytes) == crc, "seed \(TestSeed.current)")
    }
  }
}
