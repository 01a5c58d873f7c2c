import CCrypto

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// SHA-256 of a file, streamed through OpenSSL in 1 MiB chunks (memory independent of the
/// file's size).
enum FileDigest {
  /// Lower-case hex SHA-256 of the file at `path`.
  static func sha256Hex(ofFileAt path: String) throws(EmulatorError) -> String {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { throw .flashIO(path: path, operation: "open", errno: errno) }
    defer { close(fd) }
    guard let context = EVP_MD_CTX_new() else {
      throw .flashIO(path: path, operation: "sha256 init", errno: 0)
    }
    defer { EVP_MD_CTX_free(context) }
    guard EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
      throw .flashIO(path: path, operation: "sha256 init", errno: 0)
    }
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
      guard count >= 0 else { throw .flashIO(path: path, operation: "read", errno: errno) }
      if count == 0 { break }
      _ = buffer.withUnsafeBytes { EVP_DigestUpdate(context, $0.baseAddress!, count) }
    }
    var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
    var length: UInt32 = 0
    guard EVP_DigestFinal_ex(context, &digest, &length) == 1 else {
      throw .flashIO(path: path, operation: "sha256 final", errno: 0)
    }
    return digest.prefix(Int(length)).map { byte in
      let text = String(byte, radix: 16)
      return text.count == 1 ? "0" + text : text
    }.joined()
  }
}
