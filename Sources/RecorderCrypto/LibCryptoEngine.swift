#if !canImport(CryptoKit)
  import CCrypto

  /// ``CryptoEngine`` over libcrypto's EVP interface (OpenSSL 3). Every context is created
  /// and freed inside one call, except a ``ChaCha20Keystream``'s, which lives as long as its
  /// owner; so the engine itself holds nothing and is `Sendable`.
  struct LibCryptoEngine: CryptoEngine {
    // MARK: AEADs

    func aeadSeal(
      _ plaintext: [UInt8], algorithm: AEADAlgorithm, key: [UInt8], nonce: [UInt8],
      authenticating: [UInt8]
    ) throws(CryptoError) -> [UInt8] {
      let context = try CipherContext()
      var length: Int32 = 0
      var output = [UInt8](repeating: 0, count: plaintext.count + AEADAlgorithm.tagLength)
      guard EVP_EncryptInit_ex(context.pointer, Self.cipher(algorithm), nil, nil, nil) == 1,
        EVP_CIPHER_CTX_ctrl(context.pointer, EVP_CTRL_AEAD_SET_IVLEN, Int32(nonce.count), nil)
          == 1,
        EVP_EncryptInit_ex(context.pointer, nil, nil, key, nonce) == 1,
        EVP_EncryptUpdate(
          context.pointer, nil, &length, authenticating, Int32(authenticating.count)) == 1
      else { throw Self.failure("\(algorithm) init") }
      var written = 0
      let ok = output.withUnsafeMutableBufferPointer { out -> Bool in
        guard let base = out.baseAddress else { return false }
        guard
          EVP_EncryptUpdate(context.pointer, base, &length, plaintext, Int32(plaintext.count))
            == 1
        else { return false }
        written = Int(length)
        guard EVP_EncryptFinal_ex(context.pointer, base + written, &length) == 1 else {
          return false
        }
        written += Int(length)
        return EVP_CIPHER_CTX_ctrl(
          context.pointer, EVP_CTRL_AEAD_GET_TAG, Int32(AEADAlgorithm.tagLength), base + written)
          == 1
      }
      guard ok, written == plaintext.count else { throw Self.failure("\(algorithm) seal") }
      return output
    }

    func aeadOpen(
      _ box: [UInt8], algorithm: AEADAlgorithm, key: [UInt8], nonce: [UInt8],
      authenticating: [UInt8]
    ) throws(CryptoError) -> [UInt8] {
      guard box.count >= AEADAlgorithm.tagLength else { throw .authenticationFailed }
      let ciphertext = Array(box.dropLast(AEADAlgorithm.tagLength))
      var tag = Array(box.suffix(AEADAlgorithm.tagLength))
      let context = try CipherContext()
      var length: Int32 = 0
      guard EVP_DecryptInit_ex(context.pointer, Self.cipher(algorithm), nil, nil, nil) == 1,
        EVP_CIPHER_CTX_ctrl(context.pointer, EVP_CTRL_AEAD_SET_IVLEN, Int32(nonce.count), nil)
          == 1,
        EVP_DecryptInit_ex(context.pointer, nil, nil, key, nonce) == 1,
        EVP_DecryptUpdate(
          context.pointer, nil, &length, authenticating, Int32(authenticating.count)) == 1
      else { throw Self.failure("\(algorithm) init") }
      var output = [UInt8](repeating: 0, count: ciphertext.count + 1)
      var written = 0
      let ok = output.withUnsafeMutableBufferPointer { out -> Bool in
        guard let base = out.baseAddress else { return false }
        guard
          EVP_DecryptUpdate(context.pointer, base, &length, ciphertext, Int32(ciphertext.count))
            == 1
        else { return false }
        written = Int(length)
        guard
          EVP_CIPHER_CTX_ctrl(
            context.pointer, EVP_CTRL_AEAD_SET_TAG, Int32(AEADAlgorithm.tagLength), &tag) == 1
        else { return false }
        guard EVP_DecryptFinal_ex(context.pointer, base + written, &length) == 1 else {
          return false
        }
        written += Int(length)
        return true
      }
      ERR_clear_error()
      guard ok else { throw .authenticationFailed }
      return Array(output.prefix(written))
    }

    /// libcrypto's cipher for `algorithm` (both take the generic AEAD controls).
    private static func cipher(_ algorithm: AEADAlgorithm) -> OpaquePointer? {
      switch algorithm {
      case .chaCha20Poly1305: EVP_chacha20_poly1305()
      case .aes256GCM: EVP_aes_256_gcm()
      }
    }

    func makeChaCha20(key: [UInt8], nonce: [UInt8], counter: UInt32) throws(CryptoError)
      -> any ChaCha20Keystream
    {
      try AEADAlgorithm.check(key: key, nonce: nonce)
      return try LibCryptoChaCha20(key: key, nonce: nonce, counter: counter)
    }

    // MARK: RSA keys

    func generateRSAPrivateKey(bits: Int) throws(CryptoError) -> [UInt8] {
      guard let context = EVP_PKEY_CTX_new_id(EVP_PKEY_RSA, nil) else {
        throw Self.failure("EVP_PKEY_CTX_new_id")
      }
      defer { EVP_PKEY_CTX_free(context) }
      var key: OpaquePointer?
      guard EVP_PKEY_keygen_init(context) == 1,
        EVP_PKEY_CTX_set_rsa_keygen_bits(context, Int32(bits)) == 1,
        EVP_PKEY_keygen(context, &key) == 1, let key
      else { throw Self.failure("RSA key generation") }
      defer { EVP_PKEY_free(key) }
      return try Self.privateDER(key)
    }

    /// Refuses an encrypted key before libcrypto sees it, and gives libcrypto a pass-phrase
    /// callback that fails: with none, libcrypto would prompt on the terminal (or read stdin)
    /// for a key it finds encrypted, and wait there.
    func rsaPrivateKey(pem: String) throws(CryptoError) -> [UInt8] {
      guard !RSAKeyEncoding.isEncryptedPrivateKey(pem: pem) else { throw .encryptedKey }
      let key = try Self.withMemoryBIO(pem) { bio in
        PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in -1 }, nil)
      }
      defer { EVP_PKEY_free(key) }
      try Self.requireRSA(key)
      return try Self.privateDER(key)
    }

    func rsaPublicKey(pem: String) throws(CryptoError) -> [UInt8] {
      let key = try Self.withMemoryBIO(pem) { bio in
        PEM_read_bio_PUBKEY(bio, nil, { _, _, _, _ in -1 }, nil)
      }
      defer { EVP_PKEY_free(key) }
      try Self.requireRSA(key)
      return try Self.publicDER(key)
    }

    func rsaPublicKey(ofPrivateKey der: [UInt8]) throws(CryptoError) -> [UInt8] {
      let key = try Self.privateKey(der)
      defer { EVP_PKEY_free(key) }
      return try Self.publicDER(key)
    }

    func pem(privateKey der: [UInt8], format: RSAPrivateKeyFormat) throws(CryptoError) -> String {
      let key = try Self.privateKey(der)
      defer { EVP_PKEY_free(key) }
      return try Self.writeBIO { bio in
        switch format {
        case .pkcs1: PEM_write_bio_PrivateKey_traditional(bio, key, nil, nil, 0, nil, nil)
        case .pkcs8: PEM_write_bio_PrivateKey(bio, key, nil, nil, 0, nil, nil)
        }
      }
    }

    func pem(publicKey der: [UInt8]) throws(CryptoError) -> String {
      let key = try Self.publicKey(der)
      defer { EVP_PKEY_free(key) }
      return try Self.writeBIO { bio in PEM_write_bio_PUBKEY(bio, key) }
    }

    func rsaModulusLength(publicKey der: [UInt8]) throws(CryptoError) -> Int {
      let key = try Self.publicKey(der)
      defer { EVP_PKEY_free(key) }
      return Int(EVP_PKEY_get_size(key))
    }

    // MARK: RSA encryption

    func rsaEncrypt(_ message: [UInt8], publicKey der: [UInt8], padding: RSAPadding)
      throws(CryptoError) -> [UInt8]
    {
      let key = try Self.publicKey(der)
      defer { EVP_PKEY_free(key) }
      let maximum = Int(EVP_PKEY_get_size(key)) - padding.overhead
      guard message.count <= maximum else {
        throw .messageTooLong(length: message.count, maximum: maximum)
      }
      guard let context = EVP_PKEY_CTX_new(key, nil) else { throw Self.failure("EVP_PKEY_CTX") }
      defer { EVP_PKEY_CTX_free(context) }
      guard EVP_PKEY_encrypt_init(context) == 1, Self.setPadding(padding, on: context) else {
        throw Self.failure("RSA encrypt init")
      }
      var length = 0
      guard EVP_PKEY_encrypt(context, nil, &length, message, message.count) == 1 else {
        throw Self.failure("RSA encrypt")
      }
      var output = [UInt8](repeating: 0, count: length)
      guard EVP_PKEY_encrypt(context, &output, &length, message, message.count) == 1 else {
        throw Self.failure("RSA encrypt")
      }
      return Array(output.prefix(length))
    }

    func rsaDecrypt(_ ciphertext: [UInt8], privateKey der: [UInt8], padding: RSAPadding)
      throws(CryptoError) -> [UInt8]
    {
      let key = try Self.privateKey(der)
      defer { EVP_PKEY_free(key) }
      guard let context = EVP_PKEY_CTX_new(key, nil) else { throw Self.failure("EVP_PKEY_CTX") }
      defer { EVP_PKEY_CTX_free(context) }
      guard EVP_PKEY_decrypt_init(context) == 1, Self.setPadding(padding, on: context) else {
        throw Self.failure("RSA decrypt init")
      }
      var length = Int(EVP_PKEY_get_size(key))
      var output = [UInt8](repeating: 0, count: length)
      let ok = EVP_PKEY_decrypt(context, &output, &length, ciphertext, ciphertext.count) == 1
      ERR_clear_error()
      guard ok else { throw .decryptionFailed }
      return Array(output.prefix(length))
    }

    func randomBytes(_ count: Int) throws(CryptoError) -> [UInt8] {
      var bytes = [UInt8](repeating: 0, count: count)
      guard count == 0 || RAND_bytes(&bytes, Int32(count)) == 1 else {
        throw Self.failure("RAND_bytes")
      }
      return bytes
    }

    // MARK: Helpers

    private static func setPadding(_ padding: RSAPadding, on context: OpaquePointer) -> Bool {
      switch padding {
      case .pkcs1v15:
        return EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1
      case .oaepSHA1, .oaepSHA256:
        let digest = padding == .oaepSHA1 ? EVP_sha1() : EVP_sha256()
        return EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_OAEP_PADDING) == 1
          && EVP_PKEY_CTX_set_rsa_oaep_md(context, digest) == 1
          && EVP_PKEY_CTX_set_rsa_mgf1_md(context, digest) == 1
      }
    }

    private static func failure(_ operation: String) -> CryptoError {
      ERR_clear_error()
      return .library(operation)
    }

    private static func requireRSA(_ key: OpaquePointer) throws(CryptoError) {
      guard EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA else { throw .notRSA }
    }

    /// Reads a key from `text` through a memory BIO; ``CryptoError/invalidKey`` when `read`
    /// finds none.
    private static func withMemoryBIO(
      _ text: String, _ read: (OpaquePointer) -> OpaquePointer?
    ) throws(CryptoError) -> OpaquePointer {
      let bytes = Array(text.utf8)
      let key: OpaquePointer? = bytes.withUnsafeBytes { buffer in
        guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else {
          return nil
        }
        defer { BIO_free(bio) }
        return read(bio)
      }
      ERR_clear_error()
      guard let key else { throw .invalidKey }
      return key
    }

    private static func writeBIO(_ write: (OpaquePointer) -> Int32) throws(CryptoError) -> String {
      guard let bio = BIO_new(BIO_s_mem()) else { throw failure("BIO_new") }
      defer { BIO_free(bio) }
      guard write(bio) == 1 else { throw failure("PEM write") }
      let pending = Int(BIO_ctrl_pending(bio))
      var bytes = [UInt8](repeating: 0, count: pending)
      guard BIO_read(bio, &bytes, Int32(pending)) == Int32(pending) else {
        throw failure("BIO_read")
      }
      return String(decoding: bytes, as: UTF8.self)
    }

    private static func privateDER(_ key: OpaquePointer) throws(CryptoError) -> [UInt8] {
      let length = i2d_PrivateKey(key, nil)
      guard length > 0 else { throw failure("i2d_PrivateKey") }
      var bytes = [UInt8](repeating: 0, count: Int(length))
      let written = bytes.withUnsafeMutableBufferPointer { buffer -> Int32 in
        var cursor = buffer.baseAddress
        return i2d_PrivateKey(key, &cursor)
      }
      guard written == length else { throw failure("i2d_PrivateKey") }
      return bytes
    }

    private static func publicDER(_ key: OpaquePointer) throws(CryptoError) -> [UInt8] {
      let length = i2d_PUBKEY(key, nil)
      guard length > 0 else { throw failure("i2d_PUBKEY") }
      var bytes = [UInt8](repeating: 0, count: Int(length))
      let written = bytes.withUnsafeMutableBufferPointer { buffer -> Int32 in
        var cursor = buffer.baseAddress
        return i2d_PUBKEY(key, &cursor)
      }
      guard written == length else { throw failure("i2d_PUBKEY") }
      return bytes
    }

    private static func privateKey(_ der: [UInt8]) throws(CryptoError) -> OpaquePointer {
      let key: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
        var cursor = buffer.baseAddress
        return d2i_PrivateKey(EVP_PKEY_RSA, nil, &cursor, buffer.count)
      }
      ERR_clear_error()
      guard let key else { throw .invalidKey }
      return key
    }

    private static func publicKey(_ der: [UInt8]) throws(CryptoError) -> OpaquePointer {
      let key: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
        var cursor = buffer.baseAddress
        return d2i_PUBKEY(nil, &cursor, buffer.count)
      }
      ERR_clear_error()
      guard let key else { throw .invalidKey }
      guard EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA else {
        EVP_PKEY_free(key)
        throw .notRSA
      }
      return key
    }
  }

  /// One `EVP_CIPHER_CTX`, freed with its owner.
  private final class CipherContext {
    let pointer: OpaquePointer

    init() throws(CryptoError) {
      guard let pointer = EVP_CIPHER_CTX_new() else { throw .library("EVP_CIPHER_CTX_new") }
      self.pointer = pointer
    }

    deinit { EVP_CIPHER_CTX_free(pointer) }
  }

  /// Raw ChaCha20 (RFC 7539 §2.4) through `EVP_chacha20`, whose 16-byte IV is the block
  /// counter (little-endian u32) followed by the 12-byte nonce.
  private final class LibCryptoChaCha20: ChaCha20Keystream {
    private let context: CipherContext

    init(key: [UInt8], nonce: [UInt8], counter: UInt32) throws(CryptoError) {
      context = try CipherContext()
      let iv =
        [
          UInt8(truncatingIfNeeded: counter), UInt8(truncatingIfNeeded: counter >> 8),
          UInt8(truncatingIfNeeded: counter >> 16), UInt8(truncatingIfNeeded: counter >> 24),
        ] + nonce
      guard EVP_EncryptInit_ex(context.pointer, EVP_chacha20(), nil, key, iv) == 1 else {
        ERR_clear_error()
        throw .library("ChaCha20 init")
      }
    }

    func apply(_ bytes: inout [UInt8]) throws(CryptoError) {
      guard !bytes.isEmpty else { return }
      let input = bytes
      var length: Int32 = 0
      let ok = bytes.withUnsafeMutableBufferPointer { out in
        EVP_EncryptUpdate(context.pointer, out.baseAddress, &length, input, Int32(input.count))
      }
      guard ok == 1, Int(length) == input.count else {
        ERR_clear_error()
        throw .library("ChaCha20")
      }
    }
  }
#endif
