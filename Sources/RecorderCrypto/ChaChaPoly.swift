/// ChaCha20-Poly1305 (RFC 8439 §2.8): the AEAD of Mode B's channel (PROTOCOL.md §9).
public enum ChaChaPoly {
  /// Key bytes.
  public static let keyLength = 32
  /// Nonce bytes (the IETF variant).
  public static let nonceLength = 12
  /// Tag bytes, appended to the ciphertext.
  public static let tagLength = 16

  /// Seals `plaintext`: the ciphertext with the 16-byte tag appended.
  /// - Throws: ``CryptoError/invalidLength(what:expected:actual:)`` for a bad key or nonce.
  public static func seal(
    _ plaintext: [UInt8], key: [UInt8], nonce: [UInt8], authenticating: [UInt8] = []
  ) throws(CryptoError) -> [UInt8] {
    try CryptoEngines.current.chaChaPolySeal(
      plaintext, key: key, nonce: nonce, authenticating: authenticating)
  }

  /// Opens `box` (ciphertext ‖ tag).
  /// - Throws: ``CryptoError/authenticationFailed`` when it does not authenticate under
  ///   this key, nonce and associated data (tampered, or sealed with something else).
  public static func open(
    _ box: [UInt8], key: [UInt8], nonce: [UInt8], authenticating: [UInt8] = []
  ) throws(CryptoError) -> [UInt8] {
    try CryptoEngines.current.chaChaPolyOpen(
      box, key: key, nonce: nonce, authenticating: authenticating)
  }

  static func check(key: [UInt8], nonce: [UInt8]) throws(CryptoError) {
    guard key.count == keyLength else {
      throw .invalidLength(what: "key", expected: keyLength, actual: key.count)
    }
    guard nonce.count == nonceLength else {
      throw .invalidLength(what: "nonce", expected: nonceLength, actual: nonce.count)
    }
  }
}

/// Raw ChaCha20 (RFC 7539 §2.4), applied as a stream: the E2EE file body is this keystream
/// from block counter 0 XORed with the audio (PROTOCOL.md §9). Feed chunks of any size in
/// order; memory use does not depend on how much is fed.
///
/// Not thread-safe: one owner applies it (an export reading a file front to back).
public final class ChaCha20Stream {
  private let keystream: any ChaCha20Keystream

  /// A keystream for `key` (32 bytes) and `nonce` (12 bytes) from block `counter`.
  /// - Throws: ``CryptoError/invalidLength(what:expected:actual:)`` for a bad key or nonce.
  public init(key: [UInt8], nonce: [UInt8], counter: UInt32 = 0) throws(CryptoError) {
    keystream = try CryptoEngines.current.makeChaCha20(key: key, nonce: nonce, counter: counter)
  }

  /// XORs the next `bytes.count` keystream bytes into `bytes` (encrypts or decrypts).
  public func apply(_ bytes: inout [UInt8]) throws(CryptoError) {
    try keystream.apply(&bytes)
  }

  /// The next `bytes.count` bytes encrypted (or decrypted).
  public func applied(to bytes: [UInt8]) throws(CryptoError) -> [UInt8] {
    var copy = bytes
    try keystream.apply(&copy)
    return copy
  }
}

/// Cryptographic random bytes from the platform generator.
public enum SecureRandom {
  /// `count` random bytes.
  public static func bytes(_ count: Int) throws(CryptoError) -> [UInt8] {
    try CryptoEngines.current.randomBytes(count)
  }
}
