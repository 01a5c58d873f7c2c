/// The primitives RecorderKit needs beyond digests, as one small protocol a platform
/// implements: libcrypto's EVP interface on Linux (`LibCryptoEngine`), CryptoKit and
/// Security on Apple platforms. Keys cross it as DER bytes (RSA private keys PKCS#1,
/// public keys SubjectPublicKeyInfo) so it holds no state and is trivially `Sendable`.
///
/// Callers use the typed front ends (``ChaChaPoly``, ``ChaCha20Stream``, ``RSAPrivateKey``,
/// ``RSAPublicKey``), which go through ``CryptoEngines/current``; nothing here is a
/// hand-written cipher.
public protocol CryptoEngine: Sendable {
  /// Seals `plaintext` with `algorithm`: the ciphertext with the 16-byte tag appended.
  func aeadSeal(
    _ plaintext: [UInt8], algorithm: AEADAlgorithm, key: [UInt8], nonce: [UInt8],
    authenticating: [UInt8]
  ) throws(CryptoError) -> [UInt8]

  /// Opens a `box` (ciphertext ‖ tag) sealed with `algorithm`;
  /// ``CryptoError/authenticationFailed`` when it does not authenticate.
  func aeadOpen(
    _ box: [UInt8], algorithm: AEADAlgorithm, key: [UInt8], nonce: [UInt8],
    authenticating: [UInt8]
  ) throws(CryptoError) -> [UInt8]

  /// A raw ChaCha20 keystream (RFC 7539 §2.4) starting at block `counter`.
  func makeChaCha20(key: [UInt8], nonce: [UInt8], counter: UInt32) throws(CryptoError)
    -> any ChaCha20Keystream

  /// A fresh RSA private key of `bits`, as PKCS#1 DER.
  func generateRSAPrivateKey(bits: Int) throws(CryptoError) -> [UInt8]

  /// The PKCS#1 DER of a PEM private key (`RSA PRIVATE KEY` or PKCS#8 `PRIVATE KEY`). An
  /// encrypted key is ``CryptoError/encryptedKey``, found without asking for a pass phrase.
  func rsaPrivateKey(pem: String) throws(CryptoError) -> [UInt8]

  /// The SubjectPublicKeyInfo DER of a PEM public key (`PUBLIC KEY`).
  func rsaPublicKey(pem: String) throws(CryptoError) -> [UInt8]

  /// The SubjectPublicKeyInfo DER of a private key's public half.
  func rsaPublicKey(ofPrivateKey der: [UInt8]) throws(CryptoError) -> [UInt8]

  /// A private key as PEM text in `format`.
  func pem(privateKey der: [UInt8], format: RSAPrivateKeyFormat) throws(CryptoError) -> String

  /// A public key as PEM text (`PUBLIC KEY`, SubjectPublicKeyInfo).
  func pem(publicKey der: [UInt8]) throws(CryptoError) -> String

  /// The modulus length in bytes (256 for RSA-2048).
  func rsaModulusLength(publicKey der: [UInt8]) throws(CryptoError) -> Int

  /// RSA encryption with `padding` under a SubjectPublicKeyInfo key.
  func rsaEncrypt(_ message: [UInt8], publicKey der: [UInt8], padding: RSAPadding)
    throws(CryptoError) -> [UInt8]

  /// RSA decryption with `padding` under a PKCS#1 private key.
  func rsaDecrypt(_ ciphertext: [UInt8], privateKey der: [UInt8], padding: RSAPadding)
    throws(CryptoError) -> [UInt8]

  /// `count` bytes from the platform's cryptographic random generator.
  func randomBytes(_ count: Int) throws(CryptoError) -> [UInt8]
}

/// A ChaCha20 keystream being applied chunk by chunk: the position carries over from one
/// call to the next, so a file of any length is processed in constant memory.
///
/// Not thread-safe: one owner applies it.
public protocol ChaCha20Keystream: AnyObject {
  /// XORs the next `bytes.count` keystream bytes into `bytes`.
  func apply(_ bytes: inout [UInt8]) throws(CryptoError)
}

/// RSA encryption paddings.
public enum RSAPadding: Sendable, Equatable {
  /// PKCS#1 v1.5 (RFC 8017 §7.2): what Mode B's session key and the E2EE file key use
  /// (PROTOCOL.md §9) [sdk].
  case pkcs1v15
  /// OAEP with SHA-1 for both the label hash and MGF1 (RFC 8017 §7.1).
  case oaepSHA1
  /// OAEP with SHA-256 for both the label hash and MGF1.
  case oaepSHA256

  /// Bytes of overhead the padding adds (the largest message is modulus − overhead).
  public var overhead: Int {
    switch self {
    case .pkcs1v15: 11
    case .oaepSHA1: 2 * 20 + 2
    case .oaepSHA256: 2 * 32 + 2
    }
  }
}

/// How a private key is written as PEM.
public enum RSAPrivateKeyFormat: Sendable, Equatable {
  /// `-----BEGIN RSA PRIVATE KEY-----` (RFC 8017 RSAPrivateKey).
  case pkcs1
  /// `-----BEGIN PRIVATE KEY-----` (RFC 5208 PrivateKeyInfo).
  case pkcs8
}

/// The engine this platform uses.
public enum CryptoEngines {
  /// libcrypto on Linux; on Apple platforms CryptoKit and Security (AppleCryptoEngine.swift),
  /// with raw ChaCha20 from `PortableChaCha20` (CryptoKit has none).
  public static var current: any CryptoEngine {
    #if canImport(CryptoKit)
      AppleCryptoEngine()
    #else
      LibCryptoEngine()
    #endif
  }
}
