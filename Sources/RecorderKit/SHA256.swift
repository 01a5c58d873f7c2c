import CCrypto

/// Streaming SHA-256 (libcrypto's EVP interface): feed chunks, read the digest once.
public final class SHA256Hasher {
  private let context: OpaquePointer

  public init() {
    // EVP_MD_CTX_new returns NULL only when malloc fails: treat as a programmer-visible crash.
    guard let context = EVP_MD_CTX_new() else {
      fatalError("out of memory creating a SHA-256 context")
    }
    self.context = context
    EVP_DigestInit_ex(context, EVP_sha256(), nil)
  }

  deinit { EVP_MD_CTX_free(context) }

  public func update(_ bytes: [UInt8]) {
    bytes.withUnsafeBytes { _ = EVP_DigestUpdate(context, $0.baseAddress, $0.count) }
  }

  /// The digest as lower-case hex. Call once.
  public func finalizeHex() -> String {
    var digest = [UInt8](repeating: 0, count: 32)
    var length: UInt32 = 0
    EVP_DigestFinal_ex(context, &digest, &length)
    return digest.prefix(Int(length)).map { byte in
      let text = String(byte, radix: 16)
      return text.count == 1 ? "0" + text : text
    }.joined()
  }

  /// SHA-256 of a file, read in 64 KiB chunks.
  public static func hexDigest(ofFile path: String) throws(StorageError) -> String {
    let reader = try FileReader(path: path)
    let hasher = SHA256Hasher()
    while true {
      let chunk = try reader.read(upTo: 1 << 16)
      if chunk.isEmpty { return hasher.finalizeHex() }
      hasher.update(chunk)
    }
  }
}
