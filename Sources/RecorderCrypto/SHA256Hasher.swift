#if canImport(CryptoKit)
  import CryptoKit
#else
  import CCrypto
#endif

/// Streaming SHA-256: feed chunks of any size, read the digest once. Memory use does not
/// depend on how much was fed, so a 5-hour recording is hashed as it streams.
///
/// Not thread-safe: one owner feeds it (the sync engine's transfer, a file scan).
public final class SHA256Hasher {
  #if canImport(CryptoKit)
    private var state = CryptoKit.SHA256()
  #else
    private let context: OpaquePointer
  #endif

  public init() {
    #if !canImport(CryptoKit)
      // EVP_MD_CTX_new returns NULL only when malloc fails: not recoverable here.
      guard let context = EVP_MD_CTX_new() else {
        fatalError("out of memory creating a SHA-256 context")
      }
      self.context = context
      EVP_DigestInit_ex(context, EVP_sha256(), nil)
    #endif
  }

  #if !canImport(CryptoKit)
    deinit { EVP_MD_CTX_free(context) }
  #endif

  /// Adds `bytes` to the digest.
  public func update(_ bytes: [UInt8]) {
    bytes.withUnsafeBytes { update($0) }
  }

  /// Adds the bytes in `buffer` to the digest.
  public func update(_ buffer: UnsafeRawBufferPointer) {
    #if canImport(CryptoKit)
      state.update(bufferPointer: buffer)
    #else
      _ = EVP_DigestUpdate(context, buffer.baseAddress, buffer.count)
    #endif
  }

  /// The 32-byte digest. Call once: the hasher is spent afterwards.
  public func finalize() -> [UInt8] {
    #if canImport(CryptoKit)
      return Array(state.finalize())
    #else
      var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
      var length: UInt32 = 0
      EVP_DigestFinal_ex(context, &digest, &length)
      return Array(digest.prefix(Int(length)))
    #endif
  }

  /// The digest as lower-case hex. Call once.
  public func finalizeHex() -> String { finalize().hexDigits() }
}
