import Foundation
import RecorderCrypto
import Testing

/// RSA through the engine: the fixed-key vectors, round trips, PEM formats, typed errors.
@Suite struct RSATests {
  /// Ciphertexts made by another implementation decrypt to the message, in each padding.
  @Test func fixedKeyVectorsDecrypt() throws {
    let key = try RSAPrivateKey(pem: RSAFixture.pkcs1PEM)
    #expect(try key.decrypt(RSAFixture.pkcs1v15Ciphertext) == RSAFixture.message)
    #expect(
      try key.decrypt(RSAFixture.oaepSHA1Ciphertext, padding: .oaepSHA1) == RSAFixture.message)
    #expect(
      try key.decrypt(RSAFixture.oaepSHA256Ciphertext, padding: .oaepSHA256)
        == RSAFixture.message)
    // The wrong padding is a typed error, never garbage.
    #expect(throws: CryptoError.decryptionFailed) {
      try key.decrypt(RSAFixture.oaepSHA1Ciphertext, padding: .pkcs1v15)
    }
  }

  /// PKCS#1 and PKCS#8 PEM read to the same key; export and re-import round-trips; the
  /// public key matches the fixture's.
  @Test func pemFormats() throws {
    let pkcs1 = try RSAPrivateKey(pem: RSAFixture.pkcs1PEM)
    let pkcs8 = try RSAPrivateKey(pem: RSAFixture.pkcs8PEM)
    #expect(pkcs1 == pkcs8)
    #expect(try pkcs1.pem(.pkcs1).hasPrefix("-----BEGIN RSA PRIVATE KEY-----"))
    #expect(try pkcs1.pem(.pkcs8).hasPrefix("-----BEGIN PRIVATE KEY-----"))
    #expect(try RSAPrivateKey(pem: pkcs1.pem(.pkcs1)) == pkcs1)
    #expect(try RSAPrivateKey(pem: pkcs1.pem(.pkcs8)) == pkcs1)
    let publicKey = try RSAPublicKey(pem: RSAFixture.publicPEM)
    #expect(try pkcs1.publicKey() == publicKey)
    #expect(try publicKey.pem() == RSAFixture.publicPEM + "\n")
    #expect(try publicKey.modulusLength() == 256)
    #expect(throws: CryptoError.invalidKey) { try RSAPrivateKey(pem: "not a key") }
    #expect(throws: CryptoError.invalidKey) { try RSAPublicKey(pem: RSAFixture.pkcs1PEM) }
  }

  /// A key encrypted under a pass phrase is refused with its own typed error, in each form
  /// OpenSSL writes (PKCS#8 `ENCRYPTED PRIVATE KEY`, traditional PKCS#1 with a `Proc-Type`
  /// header, and an `EncryptedPrivateKeyInfo` mislabelled `PRIVATE KEY`), at once: no pass
  /// phrase is asked for on a terminal or read from stdin. Plain keys are not mistaken for
  /// encrypted ones.
  @Test func encryptedKeysAreRefusedWithoutAPrompt() throws {
    let mislabelled = RSAFixture.encryptedPKCS8PEM.replacingOccurrences(
      of: "ENCRYPTED PRIVATE KEY", with: "PRIVATE KEY")
    let indented = RSAFixture.encryptedPKCS1PEM.split(separator: "\n")
      .map { "  " + $0 }.joined(separator: "\r\n")
    for pem in [RSAFixture.encryptedPKCS8PEM, RSAFixture.encryptedPKCS1PEM, mislabelled, indented] {
      #expect(throws: CryptoError.encryptedKey) { try RSAPrivateKey(pem: pem) }
    }
    #expect(!"\(CryptoError.encryptedKey)".isEmpty)
    #expect(try RSAPrivateKey(pem: RSAFixture.pkcs1PEM) == RSAPrivateKey(pem: RSAFixture.pkcs8PEM))
  }

  /// A generated key encrypts and decrypts in every padding; another key cannot decrypt;
  /// too long a message is a typed error; the description shows no key material.
  @Test func generatedKeyRoundTrip() throws {
    let key = try RSAPrivateKey.generate(bits: 2048)
    let publicKey = try key.publicKey()
    let message = Array(0..<80).map { UInt8($0) }
    for padding in [RSAPadding.pkcs1v15, .oaepSHA1, .oaepSHA256] {
      let ciphertext = try publicKey.encrypt(message, padding: padding)
      #expect(ciphertext.count == 256)
      #expect(try key.decrypt(ciphertext, padding: padding) == message)
    }
    let other = try RSAPrivateKey(pem: RSAFixture.pkcs1PEM)
    #expect(throws: CryptoError.decryptionFailed) {
      try other.decrypt(publicKey.encrypt(message))
    }
    #expect(throws: CryptoError.messageTooLong(length: 246, maximum: 245)) {
      try publicKey.encrypt([UInt8](repeating: 1, count: 246))
    }
    let pem = try key.pem(.pkcs8)
    let body = pem.split(separator: "\n")[1]
    #expect(!"\(key)".contains(body) && "\(key)" == "RSAPrivateKey(redacted)")
  }
}
