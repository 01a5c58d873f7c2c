import RecorderCrypto
import Testing

/// AES-256-GCM, the other AEAD §9 names for Wi-Fi PDUs, against the published test cases of
/// McGrew and Viega's GCM specification (the ones NIST's GCM validation repeats).
@Suite struct AESGCMTests {
  /// Test case 14: a zero key, a zero 96-bit IV, one zero block.
  @Test func zeroKeyOneBlock() throws {
    let sealed = try AEADAlgorithm.aes256GCM.seal(
      [UInt8](repeating: 0, count: 16), key: [UInt8](repeating: 0, count: 32),
      nonce: [UInt8](repeating: 0, count: 12))
    #expect(sealed == hex("cea7403d4d606b6e074ec5d3baf39d18" + "d0d1c8a799996bf0265b98b5d48ab919"))
  }

  /// Test case 16: 60 bytes of plaintext with 20 bytes of associated data.
  @Test func withAssociatedData() throws {
    let key = hex("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308")
    let nonce = hex("cafebabefacedbaddecaf888")
    let aad = hex("feedfacedeadbeeffeedfacedeadbeefabaddad2")
    let plaintext = hex(
      "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
        + "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39")
    let expected = hex(
      "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
        + "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662"
        + "76fc6ece0f4e1768cddf8853bb2d551b")
    #expect(
      try AEADAlgorithm.aes256GCM.seal(plaintext, key: key, nonce: nonce, authenticating: aad)
        == expected)
    #expect(
      try AEADAlgorithm.aes256GCM.open(expected, key: key, nonce: nonce, authenticating: aad)
        == plaintext)
  }

  /// A box sealed with one AEAD never opens under the other, and a flipped bit never opens:
  /// what lets the Wi-Fi channel tell which one the device uses from its first PDU.
  @Test func theTwoAlgorithmsDoNotOpenEachOther() throws {
    let key = [UInt8](repeating: 3, count: 32)
    let nonce = [UInt8](repeating: 5, count: 12)
    for algorithm in AEADAlgorithm.allCases {
      let box = try algorithm.seal(Array("HELLO".utf8), key: key, nonce: nonce)
      for other in AEADAlgorithm.allCases where other != algorithm {
        #expect(throws: CryptoError.authenticationFailed) {
          try other.open(box, key: key, nonce: nonce)
        }
      }
      var changed = box
      changed[0] ^= 0x80
      #expect(throws: CryptoError.authenticationFailed) {
        try algorithm.open(changed, key: key, nonce: nonce)
      }
      #expect(throws: CryptoError.authenticationFailed) {
        try algorithm.open(Array(box.prefix(15)), key: key, nonce: nonce)
      }
    }
  }
}
