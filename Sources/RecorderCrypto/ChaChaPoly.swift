/// The AEADs of the device's channels (PROTOCOL.md §9): ChaCha20-Poly1305 for BLE, and for
/// Wi-Fi PDUs ChaCha20-Poly1305 or AES-256-GCM "chosen by a flag" [sdk]. Both take a 32-byte
/// key and a 12-byte nonce and append a 16-byte tag.
public enum AEADAlgorithm: String, Sendable, CaseIterable, CustomStringConvertible {
  /// ChaCha20-Poly1305 (RFC 8439 §2.8).
  case chaCha20Poly1305 = "chacha20-poly1305"
  /// AES-256 in Galois/Counter Mode (NIST SP 800-38D), 96-bit nonce, 128-bit tag.
  case aes256GCM = "aes-256-gcm"

  /// Key bytes.
  public static let keyLength = 32
  /// Nonce bytes.
  public static let nonceLength = 12
  /// Tag bytes, appended to the ciphertext.
  public static let tagLength = 16

  public var description: String { rawValue }

  /// Seals `plaintext`: the ciphertext with the 16-byte tag appended.
  /// - Throws: ``CryptoError/invalidLength(what:expected:actual:)`` for a bad key or nonce.
  public func seal(
    _ plaintext: [UInt8], key: [UInt8], nonce: [UInt8], authenticating: [UInt8] = []
  ) throws(CryptoError) -> [UInt8] {
    try Self.check(key: key, nonce: nonce)
    return try CryptoEngines.current.aeadSeal(
      plaintext, algorithm: self, key: key, nonce: nonce, authenticating: authenticating)
  }

  /// Opens `box` (ciphertext ‖ tag).
  /// - Throws: ``CryptoError/authenticationFailed`` when it does not authenticate under
  ///   this key, nonce and associated data (tampered, or sealed with something else).
  public func open(
    _ box: [UInt8], key: [UInt8], nonce: [UInt8], authenticating: [UInt8] = []
  ) throws(CryptoError) -> [UInt8] {
    try Self.check(key: key, nonce: nonce)
    guard box.count >= Self.tagLength else { throw .authenticationFailed }
    return try CryptoEngines.current.aeadOpen(
      box, algorithm: self, key: key, nonce: nonce, authenticating: authenticating)
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

/// ChaCha20-Poly1305 (RFC 8439 §2.8): the AEAD of Mode B's channel (PROTOCOL.md §9).
public enum ChaChaPoly {
  /// Key bytes.
  public static let keyLength = AEADAlgorithm.keyLength
  /// Nonce bytes (the IETF variant).
  public static let nonceLength = AEADAlgorithm.nonceLength
  /// Tag bytes, appended to the ciphertext.
  public static let tagLength = AEADAlgorithm.tagLength

  /// Seals `plaintext`: the ciphertext with the 16-byte tag appended.
  /// - Throws: ``CryptoError/invalidLength(what:expected:actual:)`` for a bad key or nonce.
  public static func seal(
    _ plaintext: [UInt8], key: [UInt8], nonce: [UInt8], authenticating: [UInt8] = []
  ) throws(CryptoError) -> [UInt8] {
    try AEADAlgorithm.chaCha20Poly1305.seal(
      plaintext, key: key, nonce: nonce, authenticating: authenticating)
  }

  /// Opens `box` (ciphertext ‖ tag).
  /// - Throws: ``CryptoError/authenticationFailed`` when it does not authenticate under
  ///   this key, nonce and associated data (tampered, or sealed with something else).
  public static func open(
    _ box: [UInt8], key: [UInt8], nonce: [UInt8], authenticating: [UInt8] = []
  ) throws(CryptoError) -> [UInt8] {
    try AEADAlgorithm.chaCha20Poly1305.open(
      box, key: key, nonce: nonce, authenticating: authenticating)
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
