import RecorderCrypto

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Why a file operation of the sync failed. Carries paths (never contents).
public enum StorageError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The disk is full (ENOSPC / EDQUOT).
  case noSpace(path: String)
  case notFound(path: String)
  /// Any other failure, with errno and the system's words.
  case io(path: String, errno: Int32, message: String)
  /// A simulated power loss (test double): every later operation fails the same way.
  case powerLost

  public var description: String {
    switch self {
    case .noSpace(let path): "no space left on the device writing \(path)"
    case .notFound(let path): "\(path) does not exist"
    case .io(let path, let code, let message): "\(path): \(message) (errno \(code))"
    case .powerLost: "power lost (simulated)"
    }
  }

  static func from(errno code: Int32, path: String) -> StorageError {
    switch code {
    case ENOSPC, EDQUOT: .noSpace(path: path)
    case ENOENT: .notFound(path: path)
    default: .io(path: path, errno: code, message: String(cString: strerror(code)))
    }
  }
}

/// Every file operation of a sync goes through this (DESIGN.md invariant 1): writes, fsync
/// of a file, atomic rename, fsync of a directory. Production uses `PosixFileSystem`;
/// tests use `PowerLossFileSystem`, which forgets whatever no fsync covered.
///
/// Paths are absolute or relative to the process's working directory.
package protocol DurableFileSystem: Sendable {
  /// Creates `path` and its parents if missing, and makes the new entries durable.
  func createDirectory(_ path: String) throws(StorageError)
  /// Opens `path` for appending after truncating it to `length` bytes (creating it empty
  /// when missing): a resumed transfer continues from its last durable byte.
  func openForAppend(_ path: String, truncatingTo length: Int64) throws(StorageError)
    -> any DurableFile
  /// Makes a file written outside this interface (an exporter's output) durable: fsync.
  func syncFile(_ path: String) throws(StorageError)
  /// Atomically replaces `destination` with `source` (rename(2)); durable only after
  /// ``syncDirectory(_:)`` of the destination's directory.
  func rename(_ source: String, to destination: String) throws(StorageError)
  /// fsync of a directory: makes renames, creations and removals in it durable.
  func syncDirectory(_ path: String) throws(StorageError)
  /// Removes a file if present.
  func remove(_ path: String) throws(StorageError)
  /// Size of a file, nil if missing.
  func size(of path: String) -> Int64?
  /// Names in a directory (empty if missing).
  func contents(of directory: String) -> [String]
  /// The SHA-256 of a file's bytes, lowercase hex, read in bounded chunks.
  func sha256Hex(of path: String) throws(StorageError) -> String
}

extension DurableFileSystem {
  /// Reads the file from the disk (``FileDigest/sha256Hex(ofFile:)``).
  package func sha256Hex(of path: String) throws(StorageError) -> String {
    do throws(FileDigest.ReadError) {
      return try FileDigest.sha256Hex(ofFile: path)
    } catch {
      throw .from(errno: error.code, path: error.path)
    }
  }
}

/// An open file being appended to.
package protocol DurableFile: AnyObject {
  /// Appends all of `bytes`.
  func write(_ bytes: [UInt8]) throws(StorageError)
  /// fsync: everything written so far survives a power loss.
  func sync() throws(StorageError)
  /// Closes without syncing.
  func close()
}

/// The real file system, via POSIX calls.
package struct PosixFileSystem: DurableFileSystem {
  public init() {}

  public func createDirectory(_ path: String) throws(StorageError) {
    var missing: [String] = []
    var current = path
    while !current.isEmpty, current != "/", current != ".", !isDirectory(current) {
      missing.append(current)
      current = parent(of: current)
    }
    for directory in missing.reversed() {
      if mkdir(directory, 0o755) != 0, errno != EEXIST {
        throw .from(errno: errno, path: directory)
      }
      try syncDirectory(parent(of: directory))
    }
  }

  public func openForAppend(_ path: String, truncatingTo length: Int64) throws(StorageError)
    -> any DurableFile
  {
    let descriptor = open(path, O_WRONLY | O_CREAT, 0o644)
    guard descriptor >= 0 else { throw .from(errno: errno, path: path) }
    guard ftruncate(descriptor, off_t(length)) == 0, lseek(descriptor, 0, SEEK_END) >= 0 else {
      let code = errno
      closeDescriptor(descriptor)
      throw .from(errno: code, path: path)
    }
    return PosixFile(descriptor: descriptor, path: path)
  }

  public func syncFile(_ path: String) throws(StorageError) {
    let descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else { throw .from(errno: errno, path: path) }
    defer { closeDescriptor(descriptor) }
    guard flushToDrive(descriptor) == 0 else { throw .from(errno: errno, path: path) }
  }

  public func rename(_ source: String, to destination: String) throws(StorageError) {
    guard renamePath(source, destination) == 0 else { throw .from(errno: errno, path: destination) }
  }

  public func syncDirectory(_ path: String) throws(StorageError) {
    let descriptor = open(path.isEmpty ? "." : path, O_RDONLY | O_DIRECTORY)
    guard descriptor >= 0 else { throw .from(errno: errno, path: path) }
    defer { closeDescriptor(descriptor) }
    guard flushToDrive(descriptor) == 0 else { throw .from(errno: errno, path: path) }
  }

  public func remove(_ path: String) throws(StorageError) {
    guard unlink(path) == 0 || errno == ENOENT else { throw .from(errno: errno, path: path) }
  }

  public func size(of path: String) -> Int64? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return Int64(info.st_size)
  }

  public func contents(of directory: String) -> [String] {
    guard let handle = opendir(directory) else { return [] }
    defer { closedir(handle) }
    var names: [String] = []
    while let entry = readdir(handle) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      if name != ".", name != ".." { names.append(name) }
    }
    return names.sorted()
  }

  private func isDirectory(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
  }
}

// File-scope wrappers: inside types with methods of the same names, these reach libc.
private func closeDescriptor(_ descriptor: Int32) { _ = close(descriptor) }
private func renamePath(_ source: String, _ destination: String) -> Int32 {
  rename(source, destination)
}
private func writeDescriptor(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
  write(descriptor, buffer, count)
}

/// fsync, made to mean "on the drive" everywhere. On Apple platforms fsync(2) only hands the
/// data to the drive, whose cache may still lose it on power loss; `F_FULLFSYNC` asks the
/// drive to flush that cache too (macOS fsync(2) and fcntl(2) man pages). Some
/// file systems do not support it (it then fails, e.g. ENOTSUP): fall back to fsync.
/// Returns 0 or -1 with errno set, like fsync.
private func flushToDrive(_ descriptor: Int32) -> Int32 {
  #if canImport(Darwin)
    if fcntl(descriptor, F_FULLFSYNC) == 0 { return 0 }
  #endif
  return fsync(descriptor)
}

/// The directory part of `path` ("" for a bare name).
func parent(of path: String) -> String {
  guard let slash = path.lastIndex(of: "/") else { return "." }
  let head = String(path[..<slash])
  return head.isEmpty ? "/" : head
}

final class PosixFile: DurableFile {
  private var descriptor: Int32
  private let path: String

  init(descriptor: Int32, path: String) {
    self.descriptor = descriptor
    self.path = path
  }

  deinit { close() }

  func write(_ bytes: [UInt8]) throws(StorageError) {
    var sent = 0
    while sent < bytes.count {
      let result = bytes.withUnsafeBytes {
        writeDescriptor(descriptor, $0.baseAddress! + sent, $0.count - sent)
      }
      if result < 0 {
        if errno == EINTR { continue }
        throw .from(errno: errno, path: path)
      }
      sent += result
    }
  }

  func sync() throws(StorageError) {
    guard flushToDrive(descriptor) == 0 else { throw .from(errno: errno, path: path) }
  }

  func close() {
    guard descriptor >= 0 else { return }
    closeDescriptor(descriptor)
    descriptor = -1
  }
}
