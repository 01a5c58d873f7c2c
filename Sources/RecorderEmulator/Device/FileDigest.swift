import RecorderCrypto

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// SHA-256 of a file, streamed in 1 MiB chunks (memory independent of the file's size).
enum FileDigest {
  /// Lower-case hex SHA-256 of the file at `path`.
  static func sha256Hex(ofFileAt path: String) throws(EmulatorError) -> String {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { throw .flashIO(path: path, operation: "open", errno: errno) }
    defer { close(fd) }
    let hasher = SHA256Hasher()
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
      guard count >= 0 else { throw .flashIO(path: path, operation: "read", errno: errno) }
      if count == 0 { return hasher.finalizeHex() }
      buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
    }
  }
}
