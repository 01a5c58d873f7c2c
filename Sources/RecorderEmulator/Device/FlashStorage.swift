import Foundation
import RecorderProtocol

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The device's flash: one file per recording in a host directory, named
/// `<sessionId>-<scene>.raw`, holding the device's own format (concatenated raw 80-byte Opus
/// packets, PROTOCOL.md §5). File-backed so a 5-hour recording costs no RAM: readers take
/// chunks with `pread`.
///
/// Ownership: not `Sendable`; one ``EmulatedDevice`` actor owns it and is the only caller.
final class FlashStorage {
  struct Entry {
    var scene: UInt8
    var size: Int
  }

  let directory: String
  private(set) var entries: [SessionID: Entry] = [:]

  /// Opens (creating if needed) the flash directory and indexes the recordings already in it,
  /// so a flash survives an emulator restart.
  init(directory: String) throws(EmulatorError) {
    self.directory = directory
    do {
      try FileManager.default.createDirectory(
        atPath: directory, withIntermediateDirectories: true)
    } catch {
      throw .flashIO(path: directory, operation: "mkdir", errno: errno)
    }
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    for name in names where name.hasSuffix(".raw") {
      let parts = name.dropLast(4).split(separator: "-")
      guard parts.count == 2, let raw = UInt32(parts[0]), let scene = UInt8(parts[1]) else {
        continue
      }
      let size =
        (try? FileManager.default.attributesOfItem(atPath: directory + "/" + name))?[
          .size] as? Int
      entries[SessionID(raw)] = Entry(scene: scene, size: size ?? 0)
    }
  }

  /// Bytes all recordings occupy.
  var usedBytes: UInt64 { entries.values.reduce(0) { $0 + UInt64($1.size) } }

  /// Session ids, oldest first.
  var sessionIds: [SessionID] { entries.keys.sorted() }

  func path(of sessionId: SessionID) -> String? {
    guard let entry = entries[sessionId] else { return nil }
    return directory + "/\(sessionId)-\(entry.scene).raw"
  }

  /// Creates an empty recording.
  func create(sessionId: SessionID, scene: UInt8) throws(EmulatorError) {
    guard entries[sessionId] == nil else { throw .duplicateSession(sessionId) }
    let path = directory + "/\(sessionId)-\(scene).raw"
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard fd >= 0 else { throw .flashIO(path: path, operation: "create", errno: errno) }
    close(fd)
    entries[sessionId] = Entry(scene: scene, size: 0)
  }

  /// Appends `bytes` to a recording.
  func append(_ bytes: [UInt8], to sessionId: SessionID) throws(EmulatorError) {
    guard !bytes.isEmpty, let path = path(of: sessionId) else { return }
    let fd = open(path, O_WRONLY | O_APPEND)
    guard fd >= 0 else { throw .flashIO(path: path, operation: "open", errno: errno) }
    defer { close(fd) }
    var written = 0
    while written < bytes.count {
      let result = bytes.withUnsafeBytes { buffer in
        write(fd, buffer.baseAddress! + written, bytes.count - written)
      }
      guard result > 0 else { throw .flashIO(path: path, operation: "write", errno: errno) }
      written += result
    }
    entries[sessionId]?.size += bytes.count
  }

  /// Up to `count` bytes of a recording from `offset` (fewer at the end of the file).
  func read(_ sessionId: SessionID, offset: Int, count: Int) throws(EmulatorError) -> [UInt8] {
    guard let path = path(of: sessionId), count > 0 else { return [] }
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { throw .flashIO(path: path, operation: "open", errno: errno) }
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: count)
    var filled = 0
    while filled < count {
      let result = buffer.withUnsafeMutableBytes { raw in
        pread(fd, raw.baseAddress! + filled, count - filled, off_t(offset + filled))
      }
      if result == 0 { break }
      guard result > 0 else { throw .flashIO(path: path, operation: "read", errno: errno) }
      filled += result
    }
    if filled < count { buffer.removeLast(count - filled) }
    return buffer
  }

  /// Writes `bytes` over a recording at `offset` (within its size).
  func overwrite(_ bytes: [UInt8], in sessionId: SessionID, at offset: Int) throws(EmulatorError) {
    guard let path = path(of: sessionId), let size = entries[sessionId]?.size,
      offset >= 0, offset + bytes.count <= size
    else { return }
    let fd = open(path, O_WRONLY)
    guard fd >= 0 else { throw .flashIO(path: path, operation: "open", errno: errno) }
    defer { close(fd) }
    let result = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, bytes.count, off_t(offset)) }
    guard result == bytes.count else {
      throw .flashIO(path: path, operation: "write", errno: errno)
    }
  }

  /// Sets a recording's size: cut, or extended with zeros (a sparse file: no disk used).
  func resize(_ sessionId: SessionID, to size: Int) throws(EmulatorError) {
    guard let path = path(of: sessionId) else { return }
    guard truncate(path, off_t(size)) == 0 else {
      throw .flashIO(path: path, operation: "truncate", errno: errno)
    }
    entries[sessionId]?.size = size
  }

  /// Removes a recording; false when there was none.
  @discardableResult
  func delete(_ sessionId: SessionID) -> Bool {
    guard let path = path(of: sessionId) else { return false }
    unlink(path)
    entries[sessionId] = nil
    return true
  }
}
