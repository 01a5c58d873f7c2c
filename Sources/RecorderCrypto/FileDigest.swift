#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Digests of whole files, streamed (memory independent of the file's size): the one file
/// hasher of the SDK (its journal's SHA-256 of each raw copy) and the emulator (the digests
/// of its flash).
public enum FileDigest {
  /// Why a file could not be hashed: the system call that failed and its `errno`.
  public struct ReadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file.
    public let path: String
    /// `open` or `read`.
    public let operation: String
    /// The system's error number.
    public let code: Int32

    public var description: String {
      "\(operation) \(path): \(String(cString: strerror(code)))"
    }
  }

  /// Lower-case hex SHA-256 of the file at `path`, read in 1 MiB chunks.
  public static func sha256Hex(ofFile path: String) throws(ReadError) -> String {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw ReadError(path: path, operation: "open", code: errno) }
    defer { close(descriptor) }
    let hasher = SHA256Hasher()
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        throw ReadError(path: path, operation: "read", code: errno)
      }
      if count == 0 { return hasher.finalizeHex() }
      buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
    }
  }
}
