/// The ChaCha20 keystream (RFC 8439 §2.3–2.4) in Swift, for the one platform whose crypto
/// library has no raw ChaCha20: CryptoKit offers ChaCha20 only inside its AEAD, which never
/// hands out block 0, and the E2EE file body starts there (PROTOCOL.md §9).
///
/// Where libcrypto is the engine (Linux), this type is not used for files; it is checked
/// here, byte for byte, against RFC 8439's vectors and against libcrypto's ChaCha20 on seeded
/// random keys, nonces, counters and chunk sizes (RecorderCryptoTests). Add/rotate/xor on
/// 32-bit words only: no table lookups and no branches on key or data.
///
/// Not thread-safe: one owner applies it (``ChaCha20Keystream``).
final class PortableChaCha20: ChaCha20Keystream {
  /// The 16-word input block: constants, key, counter, nonce.
  private var input: [UInt32]
  /// The current keystream block, and how many of its bytes are used.
  private var block = [UInt8](repeating: 0, count: 64)
  private var used = 64
  /// The 32-bit block counter wrapped: 256 GiB from counter 0, past what RFC 8439 allows.
  private var exhausted = false

  /// - Throws: ``CryptoError/invalidLength(what:expected:actual:)`` for a key that is not 32
  ///   bytes or a nonce that is not 12.
  init(key: [UInt8], nonce: [UInt8], counter: UInt32) throws(CryptoError) {
    guard key.count == 32 else {
      throw .invalidLength(what: "ChaCha20 key", expected: 32, actual: key.count)
    }
    guard nonce.count == 12 else {
      throw .invalidLength(what: "ChaCha20 nonce", expected: 12, actual: nonce.count)
    }
    // "expand 32-byte k"
    input = [0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574]
    input += (0..<8).map { Self.littleEndianWord(key, at: $0 * 4) }
    input.append(counter)
    input += (0..<3).map { Self.littleEndianWord(nonce, at: $0 * 4) }
  }

  func apply(_ bytes: inout [UInt8]) throws(CryptoError) {
    var index = 0
    while index < bytes.count {
      if used == 64 { try nextBlock() }
      let take = min(64 - used, bytes.count - index)
      for offset in 0..<take { bytes[index + offset] ^= block[used + offset] }
      used += take
      index += take
    }
  }

  /// Computes the block at the current counter and moves the counter on.
  private func nextBlock() throws(CryptoError) {
    guard !exhausted else { throw .unsupported("ChaCha20 past its 32-bit block counter") }
    var state = input
    for _ in 0..<10 {
      // A column round, then a diagonal round (RFC 8439 §2.3).
      Self.quarterRound(&state, 0, 4, 8, 12)
      Self.quarterRound(&state, 1, 5, 9, 13)
      Self.quarterRound(&state, 2, 6, 10, 14)
      Self.quarterRound(&state, 3, 7, 11, 15)
      Self.quarterRound(&state, 0, 5, 10, 15)
      Self.quarterRound(&state, 1, 6, 11, 12)
      Self.quarterRound(&state, 2, 7, 8, 13)
      Self.quarterRound(&state, 3, 4, 9, 14)
    }
    for word in 0..<16 {
      let value = state[word] &+ input[word]
      for byte in 0..<4 { block[word * 4 + byte] = UInt8(truncatingIfNeeded: value >> (8 * byte)) }
    }
    used = 0
    input[12] &+= 1
    if input[12] == 0 { exhausted = true }
  }

  /// RFC 8439 §2.1.
  private static func quarterRound(_ x: inout [UInt32], _ a: Int, _ b: Int, _ c: Int, _ d: Int) {
    x[a] &+= x[b]
    x[d] = (x[d] ^ x[a]).rotatedLeft(16)
    x[c] &+= x[d]
    x[b] = (x[b] ^ x[c]).rotatedLeft(12)
    x[a] &+= x[b]
    x[d] = (x[d] ^ x[a]).rotatedLeft(8)
    x[c] &+= x[d]
    x[b] = (x[b] ^ x[c]).rotatedLeft(7)
  }

  private static func littleEndianWord(_ bytes: [UInt8], at start: Int) -> UInt32 {
    UInt32(bytes[start]) | UInt32(bytes[start + 1]) << 8 | UInt32(bytes[start + 2]) << 16
      | UInt32(bytes[start + 3]) << 24
  }
}

extension UInt32 {
  fileprivate func rotatedLeft(_ count: UInt32) -> UInt32 { self << count | self >> (32 - count) }
}
