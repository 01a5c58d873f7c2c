/// An RSA private key: the user's key of Mode B (PROTOCOL.md §9), which unwraps the session
/// key and E2EE file keys.
///
/// Held as PKCS#1 DER. Its `description` never shows key material, so logging the value or
/// an error that carries it leaks nothing (DESIGN.md invariant 7).
public struct RSAPrivateKey: Sendable, Equatable, CustomStringConvertible,
  CustomDebugStringConvertible
{
  /// PKCS#1 `RSAPrivateKey` DER. Secret: never log it.
  public let pkcs1DER: [UInt8]

  /// A key from PKCS#1 DER bytes (checked).
  /// - Throws: ``CryptoError/invalidKey`` when the bytes are not an RSA private key.
  public init(pkcs1DER: [UInt8]) throws(CryptoError) {
    _ = try CryptoEngines.current.rsaPublicKey(ofPrivateKey: pkcs1DER)
    self.pkcs1DER = pkcs1DER
  }

  /// A key from PEM text: `RSA PRIVATE KEY` (PKCS#1) or `PRIVATE KEY` (PKCS#8), unencrypted.
  /// A key encrypted under a pass phrase is refused at once: no pass phrase is ever asked for.
  /// - Throws: ``CryptoError/encryptedKey`` for an encrypted key, ``CryptoError/invalidKey``,
  ///   ``CryptoError/notRSA``.
  public init(pem: String) throws(CryptoError) {
    pkcs1DER = try CryptoEngines.current.rsaPrivateKey(pem: pem)
  }

  /// A fresh key of `bits` (2048 unless said: the E2EE header's `keyCipher` is 256 bytes).
  public static func generate(bits: Int = 2048) throws(CryptoError) -> RSAPrivateKey {
    RSAPrivateKey(trusted: try CryptoEngines.current.generateRSAPrivateKey(bits: bits))
  }

  private init(trusted der: [UInt8]) { pkcs1DER = der }

  /// The public half.
  public func publicKey() throws(CryptoError) -> RSAPublicKey {
    RSAPublicKey(trusted: try CryptoEngines.current.rsaPublicKey(ofPrivateKey: pkcs1DER))
  }

  /// The key as PEM text. Secret: never log it.
  public func pem(_ format: RSAPrivateKeyFormat = .pkcs8) throws(CryptoError) -> String {
    try CryptoEngines.current.pem(privateKey: pkcs1DER, format: format)
  }

  /// Decrypts `ciphertext` (PKCS#1 v1.5 unless said).
  /// - Throws: ``CryptoError/decryptionFailed`` for a wrong key or damaged ciphertext.
  public func decrypt(_ ciphertext: [UInt8], padding: RSAPadding = .pkcs1v15)
    throws(CryptoError) -> [UInt8]
  {
    try CryptoEngines.current.rsaDecrypt(ciphertext, privateKey: pkcs1DER, padding: padding)
  }

  public var description: String { "RSAPrivateKey(redacted)" }
  public var debugDescription: String { description }
}

/// An RSA public key (SubjectPublicKeyInfo): what the phone gives the device (`FE12`) and
/// the cloud (gen-key), and what wraps a session or file key.
public struct RSAPublicKey: Sendable, Equatable, Hashable, CustomStringConvertible {
  /// SubjectPublicKeyInfo DER.
  public let spkiDER: [UInt8]

  /// A key from SubjectPublicKeyInfo DER (checked).
  /// - Throws: ``CryptoError/invalidKey``, ``CryptoError/notRSA``.
  public init(spkiDER: [UInt8]) throws(CryptoError) {
    _ = try CryptoEngines.current.rsaModulusLength(publicKey: spkiDER)
    self.spkiDER = spkiDER
  }

  /// A key from PEM text (`-----BEGIN PUBLIC KEY-----`).
  /// - Throws: ``CryptoError/invalidKey``, ``CryptoError/notRSA``.
  public init(pem: String) throws(CryptoError) {
    spkiDER = try CryptoEngines.current.rsaPublicKey(pem: pem)
  }

  init(trusted der: [UInt8]) { spkiDER = der }

  /// The key as PEM text (`PUBLIC KEY`), the form Mode B sends in `FE12` [project].
  public func pem() throws(CryptoError) -> String {
    try CryptoEngines.current.pem(publicKey: spkiDER)
  }

  /// Modulus bytes: the length of every ciphertext under this key.
  public func modulusLength() throws(CryptoError) -> Int {
    try CryptoEngines.current.rsaModulusLength(publicKey: spkiDER)
  }

  /// Encrypts `message` (PKCS#1 v1.5 unless said); randomized, so two calls differ.
  /// - Throws: ``CryptoError/messageTooLong(length:maximum:)``.
  public func encrypt(_ message: [UInt8], padding: RSAPadding = .pkcs1v15)
    throws(CryptoError) -> [UInt8]
  {
    try CryptoEngines.current.rsaEncrypt(message, publicKey: spkiDER, padding: padding)
  }

  /// A short fingerprint (first 8 bytes of the DER's SHA-256, hex): safe to log.
  public var fingerprint: String { Digest.sha256(spkiDER).prefix(8).hexDigits() }

  public var description: String { "RSAPublicKey(\(fingerprint))" }
}
