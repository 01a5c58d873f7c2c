import Foundation
import TestSupport
import Testing

@testable import RecorderCrypto

/// The Swift ChaCha20 the Apple engine uses for E2EE files, against RFC 8439's vectors and,
/// on seeded random inputs, against libcrypto's ChaCha20 (this machine's engine).
@Suite struct PortableChaCha20Tests {
  /// RFC 8439 §2.4.2: the sunscreen text at block counter 1, fed in uneven chunks.
  @Test func rfc8439EncryptionVector() throws {
    let stream = try PortableChaCha20(
      key: Array(0...31), nonce: hex("000000000000004a00000000"), counter: 1)
    var output: [UInt8] = []
    var rest = ChaChaPolyTests.sunscreen[...]
    for size in [1, 63, 7, 64, 200] where !rest.isEmpty {
      var chunk = Array(rest.prefix(size))
      try stream.apply(&chunk)
      output += chunk
      rest = rest.dropFirst(size)
    }
    #expect(
      output
        == hex(
          "6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0b"
            + "f91b65c5524733ab8f593dabcd62b3571639d624e65152ab8f530c359f0861d8"
            + "07ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab7793736"
            + "5af90bbf74a35be6b40b8eedf2785e42874d"))
  }

  /// RFC 8439 §A.1 test vector #1: zero key and nonce at block counter 0, where an E2EE
  /// file body starts (PROTOCOL.md §9), and the block after it (vector #2).
  @Test func rfc8439KeystreamBlocksZeroAndOne() throws {
    let stream = try PortableChaCha20(
      key: [UInt8](repeating: 0, count: 32), nonce: [UInt8](repeating: 0, count: 12),
      counter: 0)
    var blocks = [UInt8](repeating: 0, count: 128)
    try stream.apply(&blocks)
    #expect(
      blocks
        == hex(
          "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7"
            + "da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586"
            + "9f07e7be5551387a98ba977c732d080dcb0f29a048e3656912c6533e32ee7aed"
            + "29b721769ce64e43d57133b074d839d531ed1f28510afb45ace10a1f4b794d6f"))
  }

  #if !canImport(CryptoKit)
    /// Seeded random keys, nonces, counters, lengths and chunkings: the same bytes as
    /// libcrypto's ChaCha20 (`RECORDER_TEST_SEED` replays a failure). Only where libcrypto is
    /// the engine: on Apple platforms `ChaCha20Stream` is this very code.
    @Test func matchesLibcryptoOnRandomInput() throws {
      let seed = TestSeed.current
      var random = SplitMix64(seed: seed)
      for trial in 0..<300 {
        let key = (0..<32).map { _ in UInt8.random(in: 0...255, using: &random) }
        let nonce = (0..<12).map { _ in UInt8.random(in: 0...255, using: &random) }
        let counter: UInt32 =
          trial % 10 == 0
          ? UInt32.max - UInt32.random(in: 1...60, using: &random)
          : UInt32.random(in: 0...1_000_000, using: &random)
        let length = Int.random(in: 0...3_000, using: &random)
        let plain = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
        // Never past the counter's end: libcrypto carries into the nonce there, we stop.
        let blocks = UInt64(length + 63) / 64
        guard UInt64(counter) + blocks <= UInt64(UInt32.max) + 1 else { continue }
        let reference = try ChaCha20Stream(key: key, nonce: nonce, counter: counter)
          .applied(to: plain)
        let ours = try PortableChaCha20(key: key, nonce: nonce, counter: counter)
        var output: [UInt8] = []
        var rest = plain[...]
        while !rest.isEmpty {
          var chunk = Array(rest.prefix(Int.random(in: 1...200, using: &random)))
          try ours.apply(&chunk)
          output += chunk
          rest = rest.dropFirst(chunk.count)
        }
        #expect(output == reference, "trial \(trial), seed \(seed)")
        if output != reference { return }
      }
    }
  #endif

  @Test func badLengthsAndTheCounterEndAreTypedErrors() throws {
    #expect(throws: CryptoError.invalidLength(what: "ChaCha20 key", expected: 32, actual: 16)) {
      try PortableChaCha20(
        key: [UInt8](repeating: 0, count: 16), nonce: [UInt8](repeating: 0, count: 12), counter: 0)
    }
    #expect(throws: CryptoError.invalidLength(what: "ChaCha20 nonce", expected: 12, actual: 8)) {
      try PortableChaCha20(
        key: [UInt8](repeating: 0, count: 32), nonce: [UInt8](repeating: 0, count: 8), counter: 0)
    }
    // The last block is there; a byte past it is refused, not a repeated keystream.
    let last = try PortableChaCha20(
      key: [UInt8](repeating: 1, count: 32), nonce: [UInt8](repeating: 2, count: 12),
      counter: .max)
    var block = [UInt8](repeating: 0, count: 64)
    try last.apply(&block)
    var more: [UInt8] = [0]
    #expect(throws: CryptoError.unsupported("ChaCha20 past its 32-bit block counter")) {
      try last.apply(&more)
    }
  }
}
