#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads a file front to back in chunks (hashing, verifying, resuming): memory stays at one
/// chunk whatever the file's size.
package final class FileReader {
  private var descriptor: Int32
  public let path: String

  public init(path: String) throws(StorageError) {
    descriptor = open(path, O_RDONLY)
    self.path = path
    guard descriptor >= 0 else { throw .from(errno: errno, path: path) }
  }

  deinit { if descriptor >= 0 { _ = close(descriptor) } }

  /// Moves the read position `count` bytes ahead (past the end reads nothing).
  public func skip(_ count: Int64) throws(StorageError) {
    guard count > 0 else { return }
    guard lseek(descriptor, off_t(count), SEEK_CUR) >= 0 else {
      throw .from(errno: errno, path: path)
    }
  }

  /// Up to `count` bytes; empty at end of file.
  public func read(upTo count: Int) throws(StorageError) -> [UInt8] {
    var buffer = [UInt8](repeating: 0, count: count)
    while true {
      let got = buffer.withUnsafeMutableBytes { readDescriptor(descriptor, $0.baseAddress, count) }
      if got < 0 {
        if errno == EINTR { continue }
        throw .from(errno: errno, path: path)
      }
      buffer.removeLast(count - got)
      return buffer
    }
  }
}

/// File-scope wrapper: inside `FileReader`, `read` names the method.
private func readDescriptor(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int)
  -> Int
{
  read(descriptor, buffer, count)
}
