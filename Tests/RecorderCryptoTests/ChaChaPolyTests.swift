import RecorderCrypto
import Testing

/// ChaCha20-Poly1305 and raw ChaCha20 against the RFC 8439 / RFC 7539 test vectors.
@Suite struct ChaChaPolyTests {
  static let sunscreen = Array(
    ("Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the "
      + "future, sunscreen would be it.").utf8)

  /// RFC 8439 §2.8.2: the AEAD example.
  @Test func rfc8439AEADVector() throws {
    let key = Array(UInt8(0x80)...UInt8(0x9F))
    let nonce = hex("070000004041424344454647")
    let aad = hex("50515253c0c1c2c3c4c5c6c7")
    let expected = hex(
      "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d6"
        + "3dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b36"
        + "92ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc"
        + "3ff4def08e4b7a9de576d26586cec64b6116" + "1ae10b594f09e26a7e902ecbd0600691")
    let sealed = try ChaChaPoly.seal(Self.sunscreen, key: key, nonce: nonce, authenticating: aad)
    #expect(sealed == expected)
    #expect(
      try ChaChaPoly.open(expected, key: key, nonce: nonce, authenticating: aad)
        == Self.sunscreen)
  }

  /// A flipped bit anywhere (ciphertext, tag), other AD or another key: authenticationFailed.
  @Test func tamperingIsAuthenticationFailed() throws {
    let key = [UInt8](repeating: 7, count: 32)
    let nonce = [UInt8](repeating: 9, count: 12)
    let box = try ChaChaPoly.seal(Array("PLAUD.AI".utf8), key: key, nonce: nonce)
    for index in [0, box.count - 1] {
      var changed = box
      changed[index] ^= 0x01
      #expect(throws: CryptoError.authenticationFailed) {
        try ChaChaPoly.open(changed, key: key, nonce: nonce)
      }
    }
    #expect(throws: CryptoError.authenticationFailed) {
      try ChaChaPoly.open(box, key: key, nonce: nonce, authenticating: [1])
    }
    var otherKey = key
    otherKey[0] ^= 1
    #expect(throws: CryptoError.authenticationFailed) {
      try ChaChaPoly.open(box, key: otherKey, nonce: nonce)
    }
    #expect(throws: CryptoError.authenticationFailed) {
      try ChaChaPoly.open(Array(box.prefix(15)), key: key, nonce: nonce)
    }
    #expect(throws: CryptoError.invalidLength(what: "key", expected: 32, actual: 31)) {
      try ChaChaPoly.seal([], key: Array(key.prefix(31)), nonce: nonce)
    }
  }

  /// RFC 7539 §2.4.2: the encryption example, block counter 1.
  @Test func rfc7539ChaCha20Vector() throws {
    let stream = try ChaCha20Stream(
      key: Array(0...31), nonce: hex("000000000000004a00000000"), counter: 1)
    let expected = hex(
      "6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0b"
        + "f91b65c5524733ab8f593dabcd62b3571639d624e65152ab8f530c359f0861d8"
        + "07ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab7793736"
        + "5af90bbf74a35be6b40b8eedf2785e42874d")
    // Fed in uneven chunks: the position carries over between calls.
    var output: [UInt8] = []
    var rest = Self.sunscreen[...]
    for size in [1, 63, 7, 64, 200] where !rest.isEmpty {
      output += try stream.applied(to: Array(rest.prefix(size)))
      rest = rest.dropFirst(size)
    }
    #expect(output == expected)
  }

  /// RFC 7539 §A.1 test vector #1: all-zero key and nonce, block counter 0 (the E2EE file
  /// body's counter, PROTOCOL.md §9).
  @Test func rfc7539KeystreamAtCounterZero() throws {
    let stream = try ChaCha20Stream(
      key: [UInt8](repeating: 0, count: 32),
      nonce: [UInt8](
        repeating: 0, count: 12))
    #expect(
      try stream.applied(to: [UInt8](repeating: 0, count: 64))
        == hex(
          "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7"
            + "da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586"))
  }
}
