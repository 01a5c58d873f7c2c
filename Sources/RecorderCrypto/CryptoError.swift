/// Why a cryptographic operation failed. Cases carry no key material, plaintext or
/// ciphertext: a description of one can be logged as it is.
public enum CryptoError: Error, Equatable, Sendable, CustomStringConvertible {
  /// A key, nonce or tag had the wrong length for the algorithm.
  case invalidLength(what: String, expected: Int, actual: Int)
  /// An AEAD box did not open: the key, nonce or associated data differ from the sealer's,
  /// or the box was changed on the way.
  case authenticationFailed
  /// An RSA decryption failed (wrong key, wrong padding, damaged ciphertext).
  case decryptionFailed
  /// An input too long for the RSA key and padding.
  case messageTooLong(length: Int, maximum: Int)
  /// Text or bytes that are not a key this library reads (PEM, PKCS#1 or PKCS#8, DER).
  case invalidKey
  /// The key is not an RSA key.
  case notRSA
  /// A private key encrypted under a pass phrase (PEM `ENCRYPTED PRIVATE KEY`, a PKCS#8
  /// `EncryptedPrivateKeyInfo`, or a PKCS#1 block with `Proc-Type: 4,ENCRYPTED`). This
  /// library reads no pass phrase and never asks for one.
  case encryptedKey
  /// The platform's crypto library failed for a reason an input cannot explain.
  case library(String)
  /// The operation goes past what the algorithm allows: a ChaCha20 keystream past its 32-bit
  /// block counter (256 GiB under one key and nonce). No more output exists for that key and
  /// nonce; a new nonce is needed.
  case unsupported(String)

  public var description: String {
    switch self {
    case .invalidLength(let what, let expected, let actual):
      "\(what) must be \(expected) bytes, not \(actual)"
    case .authenticationFailed: "the sealed box did not authenticate"
    case .decryptionFailed: "RSA decryption failed (wrong key or damaged ciphertext)"
    case .messageTooLong(let length, let maximum):
      "\(length) bytes is more than the \(maximum) this RSA key and padding can encrypt"
    case .invalidKey: "not a readable RSA key (PEM PKCS#1, PKCS#8 or SubjectPublicKeyInfo)"
    case .notRSA: "the key is not an RSA key"
    case .encryptedKey:
      "the private key is encrypted with a pass phrase; give it decrypted (no pass phrase is read)"
    case .library(let operation): "the crypto library failed in \(operation)"
    case .unsupported(let operation): "\(operation) is beyond what the algorithm allows"
    }
  }
}
