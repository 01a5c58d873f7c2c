import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Why a sync root's lock could not be taken.
public enum FolderLockError: Error, Sendable, Equatable, CustomStringConvertible {
  /// Another process (another `recorder sync`, an app) holds `<root>/sync.lock`.
  case held(lockPath: String)
  /// The lock file could not be opened or locked.
  case storage(StorageError)

  public var description: String {
    switch self {
    case .held(let path): "another sync holds the lock \(path)"
    case .storage(let error): "cannot take the lock: \(error)"
    }
  }
}

/// An exclusive `flock(2)` on `<root>/sync.lock`, held for as long as this object lives.
///
/// Two syncs into one root would break each other (one removes the other's temporary
/// exports, both append to the same partial file), so whoever syncs a root holds this first.
/// The kernel drops the lock when the descriptor closes, including when the process dies:
/// a killed sync never leaves a stale lock behind. The lock file itself stays (removing it
/// would let a third process lock a new file while a second waits on the old one).
public final class FolderLock: Sendable {
  /// The lock file's name inside the root.
  public static let fileName = "sync.lock"
  /// The lock file.
  public let path: String
  // Set once in `init`, closed once in `deinit`: no shared mutable state.
  private let descriptor: Int32

  private init(path: String, descriptor: Int32) {
    self.path = path
    self.descriptor = descriptor
  }

  deinit { _ = close(descriptor) }

  /// Takes the lock of `root` now, or throws ``FolderLockError/held(lockPath:)``.
  public static func acquire(root: String) throws(FolderLockError) -> FolderLock {
    let (path, descriptor) = try open(root: root)
    guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
      let code = errno
      _ = close(descriptor)
      if code == EWOULDBLOCK { throw .held(lockPath: path) }
      throw .storage(.from(errno: code, path: path))
    }
    return FolderLock(path: path, descriptor: descriptor)
  }

  /// Waits until the lock of `root` is free, then takes it. The blocking `flock(2)` runs on
  /// a thread of its own, so no Swift concurrency thread is held while waiting.
  public static func acquireWaiting(root: String) async throws(FolderLockError) -> FolderLock {
    let (path, descriptor) = try open(root: root)
    let code = await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
      Thread {
        var result: Int32 = 0
        repeat {
          result = flock(descriptor, LOCK_EX) == 0 ? 0 : errno
        } while result == EINTR
        continuation.resume(returning: result)
      }.start()
    }
    guard code == 0 else {
      _ = close(descriptor)
      throw .storage(.from(errno: code, path: path))
    }
    return FolderLock(path: path, descriptor: descriptor)
  }

  private static func open(root: String) throws(FolderLockError) -> (String, Int32) {
    let path = StorageLayout(root: root).lock
    let descriptor = openFile(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { throw .storage(.from(errno: errno, path: path)) }
    return (path, descriptor)
  }
}

/// open(2) (inside ``FolderLock``, `open` names the method).
private func openFile(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
  open(path, flags, mode)
}
