#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A file opened for streaming writes through a fixed-size buffer, so writing a 5-hour export
/// costs the same memory as writing a 5-second one.
///
/// Ownership: not `Sendable`; one writer at a time. `close()` flushes and reports the last
/// error; `deinit` closes without reporting (an abandoned export is deleted by its owner).
package final class AudioOutputFile {
  package let path: String
  private var descriptor: Int32
  private var buffer: [UInt8] = []
  private let capacity: Int
  /// Bytes handed to `write` so far (buffered or not).
  package private(set) var bytesWritten: UInt64 = 0

  /// Creates or truncates `path`.
  package init(path: String, bufferSize: Int = 256 * 1024) throws(AudioError) {
    self.path = path
    capacity = bufferSize
    descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard descriptor >= 0 else { throw ioError(path, "create") }
    buffer.reserveCapacity(bufferSize)
  }

  deinit {
    if descriptor >= 0 { _ = systemClose(descriptor) }
  }

  package func write(_ bytes: UnsafeRawBufferPointer) throws(AudioError) {
    bytesWritten += UInt64(bytes.count)
    if buffer.count + bytes.count > capacity { try flush() }
    if bytes.count >= capacity {
      guard writeAll(bytes) else { throw ioError(path, "write") }
    } else {
      buffer.append(contentsOf: bytes)
    }
  }

  package func write(_ bytes: [UInt8]) throws(AudioError) {
    let ok = bytes.withUnsafeBytes { raw in Result { () throws(AudioError) in try write(raw) } }
    try ok.get()
  }

  /// Writes `bytes[range]`.
  package func write(_ bytes: [UInt8], _ range: Range<Int>) throws(AudioError) {
    let ok = bytes.withUnsafeBytes { raw in
      Result { () throws(AudioError) in try write(UnsafeRawBufferPointer(rebasing: raw[range])) }
    }
    try ok.get()
  }

  /// Overwrites `bytes` at absolute `offset` (for headers patched at the end), after
  /// flushing; the file position is restored to the end.
  package func patch(_ bytes: [UInt8], at offset: UInt64) throws(AudioError) {
    try flush()
    let done = bytes.withUnsafeBytes { raw in
      pwrite(descriptor, raw.baseAddress, raw.count, off_t(offset))
    }
    guard done == bytes.count else { throw ioError(path, "write") }
  }

  package func flush() throws(AudioError) {
    guard !buffer.isEmpty else { return }
    let ok = buffer.withUnsafeBytes { raw in writeAll(raw) }
    guard ok else { throw ioError(path, "write") }
    buffer.removeAll(keepingCapacity: true)
  }

  /// Flushes and closes; the file is complete when this returns without throwing.
  package func close() throws(AudioError) {
    try flush()
    let result = systemClose(descriptor)
    descriptor = -1
    guard result == 0 else { throw ioError(path, "close") }
  }

  /// Writes everything or returns false with `errno` set.
  private func writeAll(_ bytes: UnsafeRawBufferPointer) -> Bool {
    guard let base = bytes.baseAddress else { return true }
    var done = 0
    while done < bytes.count {
      let result = systemWrite(descriptor, base + done, bytes.count - done)
      if result < 0 {
        if errno == EINTR { continue }
        return false
      }
      done += result
    }
    return true
  }
}

/// A file read sequentially in chunks.
final class AudioInputFile {
  let path: String
  private var descriptor: Int32
  /// The file's size when opened.
  let size: Int

  init(path: String) throws(AudioError) {
    self.path = path
    descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else { throw ioError(path, "open") }
    var info = stat()
    guard fstat(descriptor, &info) == 0 else {
      let error = ioError(path, "stat")
      _ = systemClose(descriptor)
      throw error
    }
    size = Int(info.st_size)
  }

  deinit { _ = systemClose(descriptor) }

  /// Reads up to `buffer.count` bytes into `buffer`, returning how many (0 at end of file).
  func read(into buffer: inout [UInt8]) throws(AudioError) -> Int {
    var total = 0
    while total < buffer.count {
      let result = buffer.withUnsafeMutableBytes { raw in
        systemRead(descriptor, raw.baseAddress.map { $0 + total }, raw.count - total)
      }
      if result < 0 {
        if errno == EINTR { continue }
        throw ioError(path, "read")
      }
      if result == 0 { break }
      total += result
    }
    return total
  }
}

func ioError(_ path: String, _ operation: String) -> AudioError {
  let code = errno
  return .io(
    path: path, operation: operation, errno: code, message: String(cString: strerror(code)))
}

// The libc calls whose names collide with our methods.
private func systemClose(_ descriptor: Int32) -> Int32 { close(descriptor) }
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
  write(descriptor, bytes, count)
}
private func systemRead(_ descriptor: Int32, _ bytes: UnsafeMutableRawPointer?, _ count: Int) -> Int
{
  read(descriptor, bytes, count)
}
