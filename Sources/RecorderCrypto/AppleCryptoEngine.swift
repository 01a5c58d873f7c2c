#if canImport(CryptoKit)
  import CryptoKit

  /// The Apple side of ``CryptoEngine``, kept thin: ChaCha20-Poly1305 and AES-256-GCM through
  /// CryptoKit.
  /// Raw ChaCha20 (no CryptoKit API) and RSA (Security's `SecKeyCreateEncryptedData` with
  /// `.rsaEncryptionPKCS1` / `.rsaEncryptionOAEPSHA1`, `SecKeyCreateRandomKey`) are not
  /// written yet: this package is only built on Linux here, and an untested Apple binding
  /// would be worse than an honest ``CryptoError/unsupported(_:)``.
  struct AppleCryptoEngine: CryptoEngine {
    func aeadSeal(
      _ plaintext: [UInt8], algorithm: AEADAlgorithm, key: [UInt8], nonce: [UInt8],
      authenticating: [UInt8]
    ) throws(CryptoError) -> [UInt8] {
      let symmetric = SymmetricKey(data: key)
      do {
        switch algorithm {
        case .chaCha20Poly1305:
          let box = try CryptoKit.ChaChaPoly.seal(
            plaintext, using: symmetric, nonce: CryptoKit.ChaChaPoly.Nonce(data: nonce),
            authenticating: authenticating)
          return Array(box.ciphertext) + Array(box.tag)
        case .aes256GCM:
          let box = try AES.GCM.seal(
            plaintext, using: symmetric, nonce: AES.GCM.Nonce(data: nonce),
            authenticating: authenticating)
          return Array(box.ciphertext) + Array(box.tag)
        }
      } catch {
        throw .library("\(algorithm) seal")
      }
    }

    func aeadOpen(
      _ box: [UInt8], algorithm: AEADAlgorithm, key: [UInt8], nonce: [UInt8],
      authenticating: [UInt8]
    ) throws(CryptoError) -> [UInt8] {
      let symmetric = SymmetricKey(data: key)
      let ciphertext = box.dropLast(AEADAlgorithm.tagLength)
      let tag = box.suffix(AEADAlgorithm.tagLength)
      do {
        switch algorithm {
        case .chaCha20Poly1305:
          let sealed = try CryptoKit.ChaChaPoly.SealedBox(
            nonce: CryptoKit.ChaChaPoly.Nonce(data: nonce), ciphertext: ciphertext, tag: tag)
          return Array(
            try CryptoKit.ChaChaPoly.open(sealed, using: symmetric, authenticating: authenticating))
        case .aes256GCM:
          let sealed = try AES.GCM.SealedBox(
            nonce: AES.GCM.Nonce(data: nonce), ciphertext: ciphertext, tag: tag)
          return Array(try AES.GCM.open(sealed, using: symmetric, authenticating: authenticating))
        }
      } catch {
        throw .authenticationFailed
      }
    }

    func makeChaCha20(key: [UInt8], nonce: [UInt8], counter: UInt32) throws(CryptoError)
      -> any ChaCha20Keystream
    { throw .unsupported("raw ChaCha20") }

    func generateRSAPrivateKey(bits: Int) throws(CryptoError) -> [UInt8] {
      throw .unsupported("RSA key generation")
    }

    func rsaPrivateKey(pem: String) throws(CryptoError) -> [UInt8] { throw .unsupported("RSA") }
    func rsaPublicKey(pem: String) throws(CryptoError) -> [UInt8] { throw .unsupported("RSA") }
    func rsaPublicKey(ofPrivateKey der: [UInt8]) throws(CryptoError) -> [UInt8] {
      throw .unsupported("RSA")
    }
    func pem(privateKey der: [UInt8], format: RSAPrivateKeyFormat) throws(CryptoError) -> String {
      throw .unsupported("RSA")
    }
    func pem(publicKey der: [UInt8]) throws(CryptoError) -> String { throw .unsupported("RSA") }
    func rsaModulusLength(publicKey der: [UInt8]) throws(CryptoError) -> Int {
      throw .unsupported("RSA")
    }
    func rsaEncrypt(_ message: [UInt8], publicKey der: [UInt8], padding: RSAPadding)
      throws(CryptoError) -> [UInt8]
    { throw .unsupported("RSA") }
    func rsaDecrypt(_ ciphertext: [UInt8], privateKey der: [UInt8], padding: RSAPadding)
      throws(CryptoError) -> [UInt8]
    { throw .unsupported("RSA") }

    func randomBytes(_ count: Int) throws(CryptoError) -> [UInt8] {
      var generator = SystemRandomNumberGenerator()
      return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }
  }
#endif
