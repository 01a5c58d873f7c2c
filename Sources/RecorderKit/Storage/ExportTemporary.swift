import Foundation
import RecorderAudio
import RecorderConcurrency

/// A temporary file an export writes before renaming it into place, held by its writer:
/// `.partial-<token>-<final name>`, created empty and locked (`flock`, exclusive) until
/// ``release()``, which also removes it if the export did not rename it into place. The token (64 random bits) keeps two exports from ever sharing one, and
/// the lock tells a live temporary from one a crash left, in this process or any other on
/// the same machine (a container too), without trusting process ids. The decrypted audio
/// of an end-to-end encrypted recording (`<temporary>.plain`) lives and dies with it.
///
/// The same held file, under a fixed name, is a deferred converter's claim on one
/// conversion (``claim(_:in:)``): `<root>/.converting-<final name>`, so a second converter,
/// in this process or another, skips what the first is encoding.
final class ExportTemporary: Sendable {
  static let prefix = StorageLayout.exportTemporaryPrefix
  /// The name of a conversion's claim: this, then the final name.
  static let claimPrefix = StorageLayout.conversionClaimPrefix

  /// Where the export writes.
  let path: String
  private let descriptor: Locked<Int32?>

  private init(path: String, descriptor: Int32) {
    self.path = path
    self.descriptor = Locked(descriptor)
  }

  /// Creates and locks a fresh temporary for `name` in `directory` (which must exist).
  /// - Throws: ``StorageError`` when it cannot be created.
  convenience init(_ name: String, in directory: String) throws(StorageError) {
    var random = SystemRandomNumberGenerator()
    let token = String(random.next() as UInt64, radix: 16)
    let path =
      directory + "/" + Self.prefix + String(repeating: "0", count: 16 - token.count)
      + token + "-" + name
    // 0644, what the encoder would create: the file keeps its mode through the rename.
    let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw .from(errno: errno, path: path) }
    guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
      let code = errno
      close(fd)
      unlink(path)
      throw .from(errno: code, path: path)
    }
    self.init(path: path, descriptor: fd)
  }

  /// Claims the conversion whose file will be `name`, in `directory` (which must exist):
  /// `.converting-<name>`, opened (created if need be) and locked exclusively until
  /// ``release()`` removes it. Nil when another holder has it: a converter in this process
  /// or another. A file a crashed holder left is not held, and is taken over.
  /// - Throws: ``StorageError`` when the file cannot be opened or locked for another reason.
  static func claim(_ name: String, in directory: String) throws(StorageError) -> ExportTemporary? {
    let path = directory + "/" + claimPrefix + name
    // A holder letting go unlinks the file, then unlocks it: a lock taken in between is on
    // a file no longer at `path`, so look again; a few times at most, then leave it be.
    for _ in 0..<3 {
      let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
      guard fd >= 0 else { throw .from(errno: errno, path: path) }
      guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
        let code = errno
        close(fd)
        if code == EWOULDBLOCK { return nil }
        throw .from(errno: code, path: path)
      }
      var locked = stat()
      var named = stat()
      if fstat(fd, &locked) == 0, lstat(path, &named) == 0, locked.st_dev == named.st_dev,
        locked.st_ino == named.st_ino
      {
        return ExportTemporary(path: path, descriptor: fd)
      }
      close(fd)
    }
    return nil
  }

  /// The export is renamed into place or gave up: whatever is still at ``path`` (an export
  /// that failed part-way) is removed, then the lock goes. No other writer can have this
  /// name, so the removal never touches another export's file. Idempotent.
  func release() {
    let held = descriptor.withLock { fd -> Int32? in
      defer { fd = nil }
      return fd
    }
    guard let held else { return }
    unlink(path)
    close(held)
  }

  deinit { release() }

  /// Removes from `directory` the export temporaries nobody holds: those a crash or a
  /// failed export left, in the current form or the older `.partial-<final name>`, with
  /// their decrypted scratch. Only names of that exact shape are touched (an app's folder
  /// holds other files), and it is best effort: a file that cannot be examined or removed
  /// stays, never failing the export that sweeps.
  static func removeStale(in directory: String, fileSystem: any DurableFileSystem) {
    for name in fileSystem.contents(of: directory) where isExportTemporary(name) {
      let scratch = StorageLayout.scratchSuffix
      let base = name.hasSuffix(scratch) ? String(name.dropLast(scratch.count)) : name
      if isHeld(directory + "/" + base) { continue }
      try? fileSystem.remove(directory + "/" + name)
    }
  }

  /// Whether `name` is an export temporary: the prefix, an optional 16-hex-digit token,
  /// `<serial>-<session id>.<format>`, an optional `.plain`.
  static func isExportTemporary(_ name: String) -> Bool {
    guard name.hasPrefix(prefix) else { return false }
    var rest = Substring(name.dropFirst(prefix.count))
    if rest.hasSuffix(StorageLayout.scratchSuffix) {
      rest = rest.dropLast(StorageLayout.scratchSuffix.count)
    }
    let formats = ExportFormat.allCases.map { "." + $0.fileExtension }
    guard let format = formats.first(where: { rest.hasSuffix($0) }) else { return false }
    rest = rest.dropLast(format.count)
    let parts = rest.split(separator: "-", omittingEmptySubsequences: false)
    let alphanumeric: (Substring) -> Bool = {
      !$0.isEmpty && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
    }
    let decimal: (Substring) -> Bool = {
      !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber }
    }
    let token: (Substring) -> Bool = {
      $0.count == 16 && $0.allSatisfy { $0.isASCII && $0.isHexDigit }
    }
    switch parts.count {
    case 2: return alphanumeric(parts[0]) && decimal(parts[1])
    case 3: return token(parts[0]) && alphanumeric(parts[1]) && decimal(parts[2])
    default: return false
    }
  }

  /// Whether a writer holds the lock on `path` (a file that cannot be opened is not held).
  private static func isHeld(_ path: String) -> Bool {
    let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    return flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK
  }
}
