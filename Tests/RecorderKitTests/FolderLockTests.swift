import Foundation
import RecorderEmulator
import RecorderKit
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The sync root's lock (``FolderLock``): one holder at a time, whatever happens to
/// `sync.lock` under it, and a holder that can tell when its lock no longer guards the root.
/// `flock(2)` locks belong to open file descriptions, so two locks taken in one process
/// exclude each other as two processes' would.
@Suite("FolderLock")
struct FolderLockTests {
  /// A fresh root directory, removed at the end of the test.
  static func root() throws -> String {
    let root = NSTemporaryDirectory() + "folder-lock-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    return root
  }

  @Test("a second lock on a held root is refused, and taken once the first is released")
  func secondLockRefused() throws {
    let root = try Self.root()
    defer { try? FileManager.default.removeItem(atPath: root) }
    var first: FolderLock? = try FolderLock.acquire(root: root)
    #expect(throws: FolderLockError.held(lockPath: root + "/sync.lock")) {
      try FolderLock.acquire(root: root)
    }
    #expect(first != nil)
    first = nil
    #expect(try FolderLock.acquire(root: root).path == root + "/sync.lock")
  }

  @Test("sync.lock deleted under the holder: a second lock is still refused")
  func deletedLockFileStillExcludes() throws {
    let root = try Self.root()
    defer { try? FileManager.default.removeItem(atPath: root) }
    let first = try FolderLock.acquire(root: root)
    try FileManager.default.removeItem(atPath: first.path)
    #expect(throws: FolderLockError.held(lockPath: first.path)) {
      try FolderLock.acquire(root: root)
    }
    // Replaced by another file: refused too.
    _ = FileManager.default.createFile(atPath: first.path, contents: Data("x".utf8))
    #expect(throws: FolderLockError.held(lockPath: first.path)) {
      try FolderLock.acquire(root: root)
    }
    withExtendedLifetime(first) {}
  }

  @Test("the holder's check: a removed lock file is made and locked again; a replaced root is lost")
  func holderNoticesWhatChanged() throws {
    let root = try Self.root()
    defer { try? FileManager.default.removeItem(atPath: root) }
    let lock = try FolderLock.acquire(root: root)
    try lock.check()
    try FileManager.default.removeItem(atPath: lock.path)
    try lock.check()
    #expect(FileManager.default.fileExists(atPath: lock.path), "made again")
    // Another tool flocking sync.lock (as earlier versions do) finds it held again.
    let other = open(lock.path, O_RDWR)
    defer { close(other) }
    #expect(other >= 0)
    #expect(flock(other, LOCK_EX | LOCK_NB) != 0)

    // The lock file replaced by one another process holds: lost.
    try FileManager.default.removeItem(atPath: lock.path)
    let intruder = open(lock.path, O_RDWR | O_CREAT, 0o644)
    defer { close(intruder) }
    #expect(flock(intruder, LOCK_EX | LOCK_NB) == 0)
    #expect(throws: FolderLockError.lost(lockPath: lock.path)) { try lock.check() }

    // The root moved away and another directory put in its place: lost.
    let moved = root + "-moved"
    defer { try? FileManager.default.removeItem(atPath: moved) }
    try FileManager.default.moveItem(atPath: root, toPath: moved)
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false)
    #expect(throws: FolderLockError.lost(lockPath: lock.path)) { try lock.check() }
  }

  @Test("a missing root, or a symbolic link planted at sync.lock, is a storage error")
  func unusableRoots() throws {
    let root = try Self.root()
    defer { try? FileManager.default.removeItem(atPath: root) }
    let missing = root + "/missing"
    #expect(throws: FolderLockError.storage(.notFound(path: missing))) {
      try FolderLock.acquire(root: missing)
    }
    let target = root + "/elsewhere"
    _ = FileManager.default.createFile(atPath: target, contents: Data("keep".utf8))
    try FileManager.default.createSymbolicLink(
      atPath: root + "/sync.lock", withDestinationPath: target)
    do {
      _ = try FolderLock.acquire(root: root)
      Issue.record("a symbolic link at sync.lock was followed")
    } catch {
      guard case .storage(.io(let path, _, _)) = error else {
        Issue.record("\(error)")
        return
      }
      #expect(path == root + "/sync.lock")
    }
    #expect(FileManager.default.contents(atPath: target) == Data("keep".utf8))
  }

  @Test("a root that is a symbolic link to a directory locks that directory")
  func symlinkedRoot() throws {
    let root = try Self.root()
    defer { try? FileManager.default.removeItem(atPath: root) }
    let link = root + "-link"
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: root)
    defer { try? FileManager.default.removeItem(atPath: link) }
    let lock = try FolderLock.acquire(root: link)
    try lock.check()
    #expect(throws: FolderLockError.held(lockPath: root + "/sync.lock")) {
      try FolderLock.acquire(root: root)
    }
  }

  @Test("acquireWaiting on a held root (sync.lock deleted) takes the lock once the holder lets go")
  func waitingOnAHeldRoot() async throws {
    let root = try Self.root()
    defer { try? FileManager.default.removeItem(atPath: root) }
    var first: FolderLock? = try FolderLock.acquire(root: root)
    try FileManager.default.removeItem(atPath: root + "/sync.lock")
    let waiting = Task { try await FolderLock.acquireWaiting(root: root) }
    #expect(first != nil)
    first = nil
    let second = try await waiting.value
    try second.check()
    #expect(throws: FolderLockError.held(lockPath: second.path)) {
      try FolderLock.acquire(root: root)
    }
  }

  @Test("acquireWaiting takes the lock of a free root")
  func waitingOnAFreeRoot() async throws {
    let root = try Self.root()
    defer { try? FileManager.default.removeItem(atPath: root) }
    let lock = try await FolderLock.acquireWaiting(root: root)
    try lock.check()
    #expect(throws: FolderLockError.held(lockPath: lock.path)) {
      try FolderLock.acquire(root: root)
    }
  }

  @Test("a sync whose folder lock was taken over deletes nothing from the device and stops")
  func engineChecksTheLockBeforeDeleting() async throws {
    let bench = try SyncBench(seed: 29_14)
    defer { bench.cleanUp() }
    try await bench.device.addRecording(duration: .seconds(5))
    try await bench.device.addRecording(duration: .seconds(4))
    try FileManager.default.createDirectory(atPath: bench.root, withIntermediateDirectories: true)
    let lock = try FolderLock.acquire(root: bench.root)
    var options = SyncEngine.Options.fast
    options.folderLock = lock
    let engine = try bench.makeEngine(options: options)

    // Another tool removes sync.lock and locks a new one, as an earlier version would.
    try FileManager.default.removeItem(atPath: lock.path)
    var intruder = open(lock.path, O_RDWR | O_CREAT, 0o644)
    defer { if intruder >= 0 { close(intruder) } }
    #expect(flock(intruder, LOCK_EX | LOCK_NB) == 0)
    await #expect(throws: SyncError.folderLockLost("\(FolderLockError.lost(lockPath: lock.path))"))
    {
      try await bench.syncOnce(engine)
    }
    #expect(try await bench.device.recordings().count == 2, "nothing deleted")
    #expect(!SyncError.folderLockLost("x").isRetryable)

    // Once the intruder lets go, the holder's check locks the file now at sync.lock and the
    // next run deletes.
    close(intruder)
    intruder = -1
    let report = try await bench.syncOnce(engine)
    #expect(report.files.count == 2)
    #expect(try await bench.device.recordings().isEmpty)
  }
}
