import Foundation
import Testing

@testable import RecorderCrypto

/// The DER and PEM handling the Apple engine uses (Security speaks PKCS#1 only), checked here
/// against libcrypto's own encodings of the same keys.
@Suite struct RSAKeyEncodingTests {
  static let key = Result { try RSAPrivateKey.generate() }

  @Test func pkcs8AndPKCS1MatchLibcrypto() throws {
    let key = try Self.key.get()
    let pkcs8PEM = try key.pem(.pkcs8)
    let (label, der) = try RSAKeyEncoding.der(fromPEM: pkcs8PEM)
    #expect(label == "PRIVATE KEY")
    #expect(try RSAKeyEncoding.pkcs1(fromPKCS8: der) == key.pkcs1DER)
    #expect(RSAKeyEncoding.pkcs8(fromPKCS1: key.pkcs1DER) == der)
    // Byte for byte the PEM text libcrypto writes, in both formats.
    #expect(RSAKeyEncoding.pem(der, label: "PRIVATE KEY") == pkcs8PEM)
    #expect(RSAKeyEncoding.pem(key.pkcs1DER, label: "RSA PRIVATE KEY") == (try key.pem(.pkcs1)))
  }

  @Test func subjectPublicKeyInfoMatchesLibcrypto() throws {
    let publicKey = try Self.key.get().publicKey()
    let pkcs1 = try RSAKeyEncoding.pkcs1Public(fromSPKI: publicKey.spkiDER)
    #expect(pkcs1.first == 0x30)
    #expect(RSAKeyEncoding.spki(fromPKCS1Public: pkcs1) == publicKey.spkiDER)
    #expect(RSAKeyEncoding.pem(publicKey.spkiDER, label: "PUBLIC KEY") == (try publicKey.pem()))
  }

  /// PEM as people paste it: CR LF line ends, indented lines, text around the block.
  @Test func pemWithCRLFIndentsAndSurroundingText() throws {
    let publicKey = try Self.key.get().publicKey()
    let pem = try publicKey.pem()
    let messy =
      "a key follows\r\n"
      + pem.split(separator: "\n").map { "  \t" + $0 + " " }.joined(separator: "\r\n")
      + "\r\nthanks"
    let (label, der) = try RSAKeyEncoding.der(fromPEM: messy)
    #expect(label == "PUBLIC KEY")
    #expect(der == publicKey.spkiDER)
  }

  @Test func base64MatchesFoundation() {
    var random = SystemRandomNumberGenerator()
    for length in [0, 1, 2, 3, 4, 5, 63, 64, 65, 300] {
      let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
      let encoded = Base64.encode(bytes)
      #expect(encoded == Data(bytes).base64EncodedString(), "\(length) bytes")
      #expect(Base64.decode(encoded) == bytes, "\(length) bytes")
    }
    for bad in ["A", "AB=", "A===", "AB=C", "ab$d", "AA==AA=="] {
      #expect(Base64.decode(bad) == nil, "\(bad)")
    }
  }

  /// Malformed input: each is a typed error, never a crash or an out-of-bounds read.
  @Test func malformedInputIsATypedError() throws {
    let key = try Self.key.get()
    let pkcs8 = RSAKeyEncoding.pkcs8(fromPKCS1: key.pkcs1DER)
    for cut in [0, 1, 2, 5, 20, pkcs8.count - 1] {
      #expect(throws: CryptoError.invalidKey) {
        try RSAKeyEncoding.pkcs1(fromPKCS8: Array(pkcs8.prefix(cut)))
      }
    }
    // A length that claims more than there is, a five-byte length, trailing bytes.
    for bytes: [UInt8] in [
      [0x30, 0x84, 0x7F, 0xFF, 0xFF, 0xFF, 0x02], [0x30, 0x85, 1, 1, 1, 1, 1],
      pkcs8 + [0x00], [0x04, 0x00],
    ] {
      #expect(throws: CryptoError.invalidKey) { try RSAKeyEncoding.pkcs1(fromPKCS8: bytes) }
    }
    // An EC public key (id-ecPublicKey, P-256) is not RSA.
    let ecAlgorithm: [UInt8] = [
      0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08, 0x2A, 0x86,
      0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07,
    ]
    let ec = DERWriter.element(0x30, ecAlgorithm + DERWriter.element(0x03, [0x00, 0x04, 1, 2]))
    #expect(throws: CryptoError.notRSA) { try RSAKeyEncoding.pkcs1Public(fromSPKI: ec) }
    for text in [
      "", "-----BEGIN PUBLIC KEY-----\nAAAA\n",
      "-----BEGIN PUBLIC KEY-----\n-----END PUBLIC KEY-----",
      "-----BEGIN PUBLIC KEY-----\n!!!!\n-----END PUBLIC KEY-----",
    ] {
      #expect(throws: CryptoError.invalidKey) { try RSAKeyEncoding.der(fromPEM: text) }
    }
  }

  /// The encrypted-key detector both engines run before reading a private key: every form
  /// OpenSSL writes is found, and no plain key, public key or junk is taken for one.
  @Test func encryptedPrivateKeysAreRecognised() throws {
    let mislabelled = RSAFixture.encryptedPKCS8PEM.replacingOccurrences(
      of: "ENCRYPTED PRIVATE KEY", with: "PRIVATE KEY")
    for pem in [RSAFixture.encryptedPKCS8PEM, RSAFixture.encryptedPKCS1PEM, mislabelled] {
      #expect(RSAKeyEncoding.isEncryptedPrivateKey(pem: pem))
    }
    let plain = [
      RSAFixture.pkcs1PEM, RSAFixture.pkcs8PEM, RSAFixture.publicPEM, "", "not a key",
      "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----",
    ]
    for pem in plain { #expect(!RSAKeyEncoding.isEncryptedPrivateKey(pem: pem)) }
  }
}
