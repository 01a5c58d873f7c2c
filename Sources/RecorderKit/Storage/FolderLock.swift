import Foundation
import RecorderConcurrency

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Why a sync root's lock could not be taken, or no longer holds.
package enum FolderLockError: Error, Sendable, Equatable, CustomStringConvertible {
  /// Another process (another `recorder sync`, an app) holds the root's lock.
  case held(lockPath: String)
  /// The lock no longer guards the root (``FolderLock/check()``): the root was moved, removed
  /// or replaced by another directory, or its lock file was replaced by one another process
  /// holds.
  case lost(lockPath: String)
  /// The root or its lock file could not be opened or locked.
  case storage(StorageError)

  package var description: String {
    switch self {
    case .held(let path): "another sync holds the lock \(path)"
    case .lost(let path):
      "the lock \(path) no longer guards its folder (the folder or its lock file was moved, "
        + "removed or replaced): another sync may be using it"
    case .storage(let error): "cannot take the lock: \(error)"
    }
  }
}

/// An exclusive `flock(2)` on a sync root, held for as long as this object lives.
///
/// Two syncs into one root would break each other (one removes the other's temporary
/// exports, both append to the same partial file), so whoever syncs a root holds this first.
///
/// The lock is two locks, taken in this order and held together:
/// - the root directory itself, through a descriptor opened on it: a directory cannot be
///   deleted while it holds the sync's files, so deleting `sync.lock` under a running sync
///   (a tidy-up script, a user) no longer lets a second sync in;
/// - `<root>/sync.lock`, the lock file other tools (and earlier versions) take. After each
///   `flock` succeeds, the path is looked up again and must still name the very file (device
///   and inode) or directory locked; one removed or replaced meanwhile is let go and the
///   lock taken again, so a lock on an orphan never counts.
///
/// The kernel drops both when the descriptors close, including when the process dies: a
/// killed sync never leaves a stale lock behind. The lock file itself stays (removing it
/// would let a third process lock a new file while a second waits on the old one).
/// ``check()`` tells the holder, before an irreversible step, whether the lock still guards
/// the root.
package final class FolderLock: Sendable {
  /// The lock file's name inside the root.
  package static let fileName = StorageLayout.lockFileName
  /// The lock file.
  package let path: String
  /// The root as given.
  package let root: String
  // The root's descriptor and identity: set once in `init`, closed once in `deinit`.
  private let directory: Int32
  private let directoryIdentity: FileIdentity
  // The lock file's descriptor and identity, replaced only by `check()` when the file was
  // removed (under `Locked`'s lock).
  private let file: Locked<LockedFile>

  /// Tries to take a lock again when the path was replaced between its `open` and `flock`.
  private static let attempts = 16

  private init(root: String, path: String, directory: LockedFile, file: LockedFile) {
    self.root = root
    self.path = path
    self.directory = directory.descriptor
    directoryIdentity = directory.identity
    self.file = Locked(file)
  }

  deinit {
    file.withLock { _ = close($0.descriptor) }
    _ = close(directory)
  }

  /// Takes the lock of `root` now, or throws ``FolderLockError/held(lockPath:)``.
  package static func acquire(root: String) throws(FolderLockError) -> FolderLock {
    try take(root: root, wait: false)
  }

  /// Waits until the lock of `root` is free, then takes it. The blocking `flock(2)` runs on
  /// a thread of its own, so no Swift concurrency thread is held while waiting.
  package static func acquireWaiting(root: String) async throws(FolderLockError) -> FolderLock {
    // The lock is made on that thread; it crosses to the caller through a lock, an explicit
    // happens-before edge for everything its initialiser wrote (ThreadSanitizer sees none
    // through the continuation alone, and reported the root's fields read by `check()`).
    let box = Locked<Result<FolderLock, FolderLockError>?>(nil)
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      Thread {
        let result = Result { () throws(FolderLockError) in try take(root: root, wait: true) }
        box.withLock { $0 = result }
        continuation.resume()
      }.start()
    }
    guard let result = box.withLock({ $0 }) else {
      throw .storage(.io(path: root, errno: EINTR, message: "the waiting thread gave no result"))
    }
    return try result.get()
  }

  /// Whether this lock still guards its root: the root's path still names the directory
  /// locked, and `sync.lock` the file locked. A lock file removed meanwhile is made again and
  /// locked (at once, never waiting). Run it before an irreversible step (a device DELETE).
  /// - Throws: ``FolderLockError/lost(lockPath:)`` when the root was moved, removed or
  ///   replaced, or the lock file was replaced by one another process holds;
  ///   ``FolderLockError/storage(_:)`` when the lock file cannot be made again.
  package func check() throws(FolderLockError) {
    guard FileIdentity(path: root, following: true) == directoryIdentity else {
      throw .lost(lockPath: path)
    }
    let failure: FolderLockError? = file.withLock { held in
      if FileIdentity(path: path) == held.identity { return nil }
      do throws(FolderLockError) {
        guard let fresh = try Self.lockFile(path, wait: false) else {
          return .lost(lockPath: path)
        }
        _ = close(held.descriptor)
        held = fresh
        return nil
      } catch .held {
        return .lost(lockPath: path)
      } catch {
        return error
      }
    }
    if let failure { throw failure }
  }

  // MARK: Taking the locks

  private static func take(root: String, wait: Bool) throws(FolderLockError) -> FolderLock {
    let path = StorageLayout(root: root).lock
    for _ in 0..<attempts {
      guard let directory = try lockDirectory(root, lockPath: path, wait: wait) else { continue }
      let file: LockedFile?
      do {
        file = try lockFile(path, wait: wait)
      } catch {
        _ = close(directory.descriptor)
        throw error
      }
      guard let file else {
        _ = close(directory.descriptor)
        continue
      }
      return FolderLock(root: root, path: path, directory: directory, file: file)
    }
    throw .storage(.io(path: path, errno: EAGAIN, message: "replaced each time it was locked"))
  }

  /// `root` opened and locked; nil when `root` no longer names the directory locked.
  private static func lockDirectory(_ root: String, lockPath: String, wait: Bool)
    throws(FolderLockError) -> LockedFile?
  {
    let descriptor = openFile(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)
    guard descriptor >= 0 else { throw .storage(.from(errno: errno, path: root)) }
    // A root that is a symbolic link to a directory is that directory.
    return try lock(descriptor, at: root, following: true, reportedAs: lockPath, wait: wait)
  }

  /// `path` opened (made if missing, never through a symbolic link) and locked; nil when
  /// `path` no longer names the file locked.
  private static func lockFile(_ path: String, wait: Bool) throws(FolderLockError) -> LockedFile? {
    let descriptor = openFile(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
    guard descriptor >= 0 else { throw .storage(.from(errno: errno, path: path)) }
    return try lock(descriptor, at: path, following: false, reportedAs: path, wait: wait)
  }

  /// `flock(2)` on `descriptor` (waiting, or failing at once with
  /// ``FolderLockError/held(lockPath:)``), then the check that `path` still names what was
  /// locked; the descriptor is closed unless it is returned.
  private static func lock(
    _ descriptor: Int32, at path: String, following: Bool, reportedAs lockPath: String,
    wait: Bool
  ) throws(FolderLockError) -> LockedFile? {
    var code: Int32
    repeat {
      code = flock(descriptor, wait ? LOCK_EX : LOCK_EX | LOCK_NB) == 0 ? 0 : errno
    } while code == EINTR
    guard code == 0 else {
      _ = close(descriptor)
      if code == EWOULDBLOCK { throw .held(lockPath: lockPath) }
      throw .storage(.from(errno: code, path: path))
    }
    guard let identity = FileIdentity(descriptor: descriptor),
      FileIdentity(path: path, following: following) == identity
    else {
      _ = close(descriptor)
      return nil
    }
    return LockedFile(descriptor: descriptor, identity: identity)
  }
}

/// A locked descriptor and the identity of what it is open on.
private struct LockedFile: Sendable {
  var descriptor: Int32
  var identity: FileIdentity
}

/// A file's device and inode: what names it, whatever its path.
private struct FileIdentity: Sendable, Equatable {
  let device: UInt64
  let inode: UInt64

  init(_ info: stat) {
    device = UInt64(truncatingIfNeeded: info.st_dev)
    inode = UInt64(truncatingIfNeeded: info.st_ino)
  }

  /// What `descriptor` is open on; nil when fstat fails.
  init?(descriptor: Int32) {
    var info = stat()
    guard fstat(descriptor, &info) == 0 else { return nil }
    self.init(info)
  }

  /// What `path` names now (through a final symbolic link only when `following`); nil when
  /// nothing does.
  init?(path: String, following: Bool = false) {
    var info = stat()
    guard (following ? stat(path, &info) : lstat(path, &info)) == 0 else { return nil }
    self.init(info)
  }
}

/// open(2) (inside ``FolderLock``, `open` names the method).
private func openFile(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
  open(path, flags, mode)
}
