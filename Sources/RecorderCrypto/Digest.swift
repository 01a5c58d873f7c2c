#if canImport(CryptoKit)
  import CryptoKit
#else
  import CCrypto
#endif

/// One-shot message digests: the project's one home for SHA-1, MD5 and SHA-256.
///
/// On Linux they run through libcrypto's EVP interface; on Apple platforms through CryptoKit.
/// Neither SHA-1 nor MD5 is used for security here: SHA-1 is what RFC 6455 §4.2.2 mandates
/// for the WebSocket accept value, and MD5 is what the device's Wi-Fi HELLO and the vendor's
/// firmware check use (PROTOCOL.md §6, §8).
public enum Digest {
  /// The 20-byte SHA-1 of `bytes`.
  public static func sha1(_ bytes: some Collection<UInt8>) -> [UInt8] {
    #if canImport(CryptoKit)
      Array(Insecure.SHA1.hash(data: Array(bytes)))
    #else
      evp(Array(bytes), EVP_sha1(), length: 20)
    #endif
  }

  /// The 16-byte MD5 of `bytes`.
  public static func md5(_ bytes: some Collection<UInt8>) -> [UInt8] {
    #if canImport(CryptoKit)
      Array(Insecure.MD5.hash(data: Array(bytes)))
    #else
      evp(Array(bytes), EVP_md5(), length: 16)
    #endif
  }

  /// The 32-byte SHA-256 of `bytes`.
  public static func sha256(_ bytes: some Collection<UInt8>) -> [UInt8] {
    let hasher = SHA256Hasher()
    hasher.update(Array(bytes))
    return hasher.finalize()
  }

  #if !canImport(CryptoKit)
    private static func evp(_ bytes: [UInt8], _ type: OpaquePointer?, length expected: Int)
      -> [UInt8]
    {
      var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
      var length: UInt32 = 0
      let ok = bytes.withUnsafeBytes { input in
        EVP_Digest(input.baseAddress, input.count, &digest, &length, type, nil)
      }
      // EVP_Digest fails only when allocation fails: not an input the caller can fix.
      precondition(ok == 1 && Int(length) == expected, "EVP_Digest failed")
      return Array(digest.prefix(expected))
    }
  #endif
}

extension Collection<UInt8> {
  /// The bytes as hex digits, two per byte, lower case (`uppercase: true` for upper).
  public func hexDigits(uppercase: Bool = false) -> String {
    let digits = Array(uppercase ? "0123456789ABCDEF" : "0123456789abcdef")
    var text = ""
    text.reserveCapacity(count * 2)
    for byte in self {
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 0x0F)])
    }
    return text
  }
}
