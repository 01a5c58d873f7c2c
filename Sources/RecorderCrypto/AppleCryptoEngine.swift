#if canImport(CryptoKit)
  import CryptoKit
  import Foundation
  import Security

  /// The Apple side of ``CryptoEngine``, kept thin: ChaCha20-Poly1305 and AES-256-GCM through
  /// CryptoKit; RSA (PKCS#1 v1.5 and OAEP, keys, generation) and random bytes through
  /// Security. It cannot be built on the Linux machines this package is developed on: it is
  /// type-checked there against stand-ins (ApplePlatformTests), and its DER and PEM handling
  /// (RSAKeyEncoding) is tested against libcrypto.
  ///
  /// Raw ChaCha20 (the E2EE file body) has no CryptoKit or Security API, and CryptoKit's
  /// AEAD never hands out keystream block 0, where the file starts: it is
  /// ``PortableChaCha20``, checked on Linux against RFC 8439 and against libcrypto's ChaCha20.
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
    { try PortableChaCha20(key: key, nonce: nonce, counter: counter) }

    // MARK: RSA, through Security (which reads and writes PKCS#1 only: the PEM, PKCS#8 and
    // SubjectPublicKeyInfo wrapping is RSAKeyEncoding's, tested on Linux against libcrypto)

    func generateRSAPrivateKey(bits: Int) throws(CryptoError) -> [UInt8] {
      let attributes: [CFString: Any] = [
        kSecAttrKeyType: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits: bits,
      ]
      var error: Unmanaged<CFError>?
      guard let key = SecKeyCreateRandomKey(attributes as CFDictionary, &error) else {
        throw .library("SecKeyCreateRandomKey")
      }
      return try Self.external(key)
    }

    func rsaPrivateKey(pem: String) throws(CryptoError) -> [UInt8] {
      guard !RSAKeyEncoding.isEncryptedPrivateKey(pem: pem) else { throw .encryptedKey }
      let (label, der) = try RSAKeyEncoding.der(fromPEM: pem)
      let pkcs1: [UInt8]
      switch label {
      case "RSA PRIVATE KEY": pkcs1 = der
      case "PRIVATE KEY": pkcs1 = try RSAKeyEncoding.pkcs1(fromPKCS8: der)
      default: throw .invalidKey
      }
      _ = try Self.key(pkcs1, private: true)
      return pkcs1
    }

    func rsaPublicKey(pem: String) throws(CryptoError) -> [UInt8] {
      let (label, der) = try RSAKeyEncoding.der(fromPEM: pem)
      guard label == "PUBLIC KEY" else { throw .invalidKey }
      _ = try Self.key(RSAKeyEncoding.pkcs1Public(fromSPKI: der), private: false)
      return der
    }

    func rsaPublicKey(ofPrivateKey der: [UInt8]) throws(CryptoError) -> [UInt8] {
      guard let publicKey = SecKeyCopyPublicKey(try Self.key(der, private: true)) else {
        throw .invalidKey
      }
      return RSAKeyEncoding.spki(fromPKCS1Public: try Self.external(publicKey))
    }

    func pem(privateKey der: [UInt8], format: RSAPrivateKeyFormat) throws(CryptoError) -> String {
      switch format {
      case .pkcs1: RSAKeyEncoding.pem(der, label: "RSA PRIVATE KEY")
      case .pkcs8: RSAKeyEncoding.pem(RSAKeyEncoding.pkcs8(fromPKCS1: der), label: "PRIVATE KEY")
      }
    }

    func pem(publicKey der: [UInt8]) throws(CryptoError) -> String {
      RSAKeyEncoding.pem(der, label: "PUBLIC KEY")
    }

    func rsaModulusLength(publicKey der: [UInt8]) throws(CryptoError) -> Int {
      SecKeyGetBlockSize(try Self.key(RSAKeyEncoding.pkcs1Public(fromSPKI: der), private: false))
    }

    func rsaEncrypt(_ message: [UInt8], publicKey der: [UInt8], padding: RSAPadding)
      throws(CryptoError) -> [UInt8]
    {
      let key = try Self.key(RSAKeyEncoding.pkcs1Public(fromSPKI: der), private: false)
      let maximum = SecKeyGetBlockSize(key) - padding.overhead
      guard message.count <= maximum else {
        throw .messageTooLong(length: message.count, maximum: maximum)
      }
      var error: Unmanaged<CFError>?
      guard
        let sealed = SecKeyCreateEncryptedData(
          key, Self.algorithm(padding), Data(message) as CFData, &error)
      else { throw .library("SecKeyCreateEncryptedData") }
      return Array(sealed as Data)
    }

    func rsaDecrypt(_ ciphertext: [UInt8], privateKey der: [UInt8], padding: RSAPadding)
      throws(CryptoError) -> [UInt8]
    {
      let key = try Self.key(der, private: true)
      var error: Unmanaged<CFError>?
      guard
        let plain = SecKeyCreateDecryptedData(
          key, Self.algorithm(padding), Data(ciphertext) as CFData, &error)
      else { throw .decryptionFailed }
      return Array(plain as Data)
    }

    /// A Security key from PKCS#1 DER.
    private static func key(_ pkcs1: [UInt8], private isPrivate: Bool) throws(CryptoError)
      -> SecKey
    {
      let attributes: [CFString: Any] = [
        kSecAttrKeyType: kSecAttrKeyTypeRSA,
        kSecAttrKeyClass: isPrivate ? kSecAttrKeyClassPrivate : kSecAttrKeyClassPublic,
      ]
      var error: Unmanaged<CFError>?
      guard
        let key = SecKeyCreateWithData(Data(pkcs1) as CFData, attributes as CFDictionary, &error)
      else { throw .invalidKey }
      return key
    }

    /// A key's PKCS#1 DER.
    private static func external(_ key: SecKey) throws(CryptoError) -> [UInt8] {
      var error: Unmanaged<CFError>?
      guard let data = SecKeyCopyExternalRepresentation(key, &error) else {
        throw .library("SecKeyCopyExternalRepresentation")
      }
      return Array(data as Data)
    }

    private static func algorithm(_ padding: RSAPadding) -> SecKeyAlgorithm {
      switch padding {
      case .pkcs1v15: .rsaEncryptionPKCS1
      case .oaepSHA1: .rsaEncryptionOAEPSHA1
      case .oaepSHA256: .rsaEncryptionOAEPSHA256
      }
    }

    func randomBytes(_ count: Int) throws(CryptoError) -> [UInt8] {
      var bytes = [UInt8](repeating: 0, count: count)
      guard SecRandomCopyBytes(kSecRandomDefault, count, &bytes) == errSecSuccess else {
        throw .library("SecRandomCopyBytes")
      }
      return bytes
    }
  }
#endif
