import Foundation
import Testing

@testable import PlaudBleSDK

@Suite("PlaudBleSDK's WAV chunk walker on hostile bytes")
struct WAVChunksTests {
  /// A 44-byte canonical header for `dataBytes` of 16-bit mono 16 kHz.
  static func header(dataBytes: UInt32) -> [UInt8] {
    func le32(_ value: UInt32) -> [UInt8] {
      (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
    return Array("RIFF".utf8) + le32(36 + dataBytes) + Array("WAVEfmt ".utf8) + le32(16)
      + [1, 0, 1, 0] + le32(16_000) + le32(32_000) + [2, 0, 16, 0] + Array("data".utf8)
      + le32(dataBytes)
  }

  @Test("a canonical header parses; the data size is capped by the file")
  func canonical() throws {
    let wav = try #require(WAVChunks(head: Self.header(dataBytes: 1000), fileSize: 1044))
    #expect(wav.channels == 1 && wav.sampleRate == 16_000 && wav.bitsPerSample == 16)
    #expect(wav.dataOffset == 44 && wav.dataSize == 1000)
    #expect(WAVChunks(head: Self.header(dataBytes: 1000), fileSize: 100)?.dataSize == 56)
  }

  @Test("cut, foreign, data-before-fmt and huge-length headers are nil, never a trap")
  func malformed() {
    let good = Self.header(dataBytes: 10)
    for cut in 0..<good.count - 8 {
      #expect(WAVChunks(head: Array(good.prefix(cut)), fileSize: 54) == nil)
    }
    #expect(WAVChunks(head: Array("RIFX".utf8) + good.dropFirst(4), fileSize: 54) == nil)
    let dataFirst = Array(good.prefix(12)) + Array("data".utf8) + [0, 0, 0, 0]
    #expect(WAVChunks(head: dataFirst, fileSize: 20) == nil)
    var huge = Array(good.prefix(12)) + Array("junk".utf8) + [0xFF, 0xFF, 0xFF, 0xFF]
    huge += good.dropFirst(12)
    #expect(WAVChunks(head: huge, fileSize: Int.max) == nil)
    var seed: UInt64 = 20_261_205
    print("WAVChunks random seed \(seed)")
    for _ in 0..<2000 {
      var bytes = good
      for _ in 0..<4 {
        seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        bytes[Int(seed >> 33) % bytes.count] = UInt8(truncatingIfNeeded: seed >> 56)
      }
      if let wav = WAVChunks(head: bytes, fileSize: bytes.count) {
        #expect(wav.dataOffset <= bytes.count && wav.dataSize <= bytes.count - wav.dataOffset)
      }
    }
  }
}
