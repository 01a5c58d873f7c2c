import RecorderConcurrency
import RecorderKit

/// A `DurableFileSystem` over a real directory that can simulate a power loss: after a
/// chosen number of operations every call fails with `StorageError/powerLost`, and
/// ``recoverFromPowerLoss()`` then undoes everything no fsync covered — file bytes written
/// after a file's last sync, and creations, renames and removals after their directory's
/// last sync — as a journaling file system would after a real power cut. SIGKILL cannot test
/// this: the page cache survives it.
///
/// Also injects a full disk (`failWritesWithNoSpace`) for the disk-full tests.
///
/// Thread-safe: all bookkeeping sits in one `Locked`.
package final class PowerLossFileSystem: DurableFileSystem {
  private let base = PosixFileSystem()
  private let state: Locked<State>
  /// Tells this instance's backups from another's left in the same directory.
  private let instance = UInt64.random(in: 1...UInt64.max)

  private struct State {
    var operations = 0
    var crashAfter: Int?
    var crashed = false
    var noSpace = false
    /// Bytes of each file known durable (fsync'd).
    var durableLength: [String: Int64] = [:]
    /// Namespace changes not yet covered by a directory fsync, oldest first.
    var pending: [NamespaceChange] = []
    var backups = 0
  }

  private enum NamespaceChange {
    case created(path: String)
    /// `backup` holds the replaced destination's bytes (nil if there was none).
    case renamed(from: String, to: String, backup: String?)
    case removed(path: String, backup: String)

    var directories: [String] {
      switch self {
      case .created(let path), .removed(let path, _): [parent(of: path)]
      case .renamed(let from, let to, _): [parent(of: from), parent(of: to)]
      }
    }
  }

  /// Called once, at the operation the power goes at (before it throws): a process-level
  /// harness rolls the disk back there and ends the process.
  private let onPowerLoss: (@Sendable (PowerLossFileSystem) -> Void)?

  /// - Parameters:
  ///   - crashAfter: operations that succeed before the power goes (nil = never).
  ///   - onPowerLoss: run once at the cut, outside the bookkeeping's lock.
  public init(
    crashAfter: Int? = nil, onPowerLoss: (@Sendable (PowerLossFileSystem) -> Void)? = nil
  ) {
    state = Locked(State(crashAfter: crashAfter))
    self.onPowerLoss = onPowerLoss
  }

  /// Operations performed so far (to choose crash points).
  public var operationCount: Int { state.withLock { $0.operations } }
  /// True once the simulated power loss happened.
  public var hasCrashed: Bool { state.withLock { $0.crashed } }

  /// Makes every later write fail with ENOSPC (or stop doing so).
  public func failWritesWithNoSpace(_ on: Bool) { state.withLock { $0.noSpace = on } }

  /// Counts an operation; throws once the power is gone.
  private func tick() throws(StorageError) {
    let (crashed, justNow) = state.withLock { state -> (Bool, Bool) in
      if state.crashed { return (true, false) }
      if let limit = state.crashAfter, state.operations >= limit {
        state.crashed = true
        return (true, true)
      }
      state.operations += 1
      return (false, false)
    }
    if justNow { onPowerLoss?(self) }
    if crashed { throw .powerLost }
  }

  public func createDirectory(_ path: String) throws(StorageError) {
    try tick()
    try base.createDirectory(path)
  }

  public func openForAppend(_ path: String, truncatingTo length: Int64) throws(StorageError)
    -> any DurableFile
  {
    try tick()
    let existed = base.size(of: path) != nil
    let file = try base.openForAppend(path, truncatingTo: length)
    state.withLock { state in
      if !existed { state.pending.append(.created(path: path)) }
      let durable = state.durableLength[path] ?? (existed ? length : 0)
      state.durableLength[path] = min(durable, length)
    }
    return TrackedFile(file: file, path: path, length: length, owner: self)
  }

  public func syncFile(_ path: String) throws(StorageError) {
    try tick()
    try base.syncFile(path)
    let size = base.size(of: path) ?? 0
    state.withLock { $0.durableLength[path] = size }
  }

  public func rename(_ source: String, to destination: String) throws(StorageError) {
    try tick()
    var backup: String?
    if base.size(of: destination) != nil {
      let copy = backupPath(for: destination)
      try copyFile(destination, to: copy)
      backup = copy
    }
    try base.rename(source, to: destination)
    state.withLock { state in
      state.pending.append(.renamed(from: source, to: destination, backup: backup))
      state.durableLength[destination] = state.durableLength.removeValue(forKey: source) ?? 0
    }
  }

  public func syncDirectory(_ path: String) throws(StorageError) {
    try tick()
    try base.syncDirectory(path)
    let covered = state.withLock { state -> [NamespaceChange] in
      let covered = state.pending.filter { change in change.directories.allSatisfy { $0 == path } }
      state.pending.removeAll { change in change.directories.allSatisfy { $0 == path } }
      return covered
    }
    // A durable change can no longer be undone: its backup would only litter the directory.
    for change in covered {
      switch change {
      case .renamed(_, _, let backup?): try? base.remove(backup)
      case .removed(_, let backup): try? base.remove(backup)
      case .created, .renamed: break
      }
    }
  }

  public func remove(_ path: String) throws(StorageError) {
    try tick()
    guard base.size(of: path) != nil else { return }
    let copy = backupPath(for: path)
    try copyFile(path, to: copy)
    try base.remove(path)
    state.withLock { $0.pending.append(.removed(path: path, backup: copy)) }
  }

  public func size(of path: String) -> Int64? { base.size(of: path) }
  public func contents(of directory: String) -> [String] {
    base.contents(of: directory).filter { !$0.hasPrefix(".powerloss-backup-") }
  }

  /// Undoes what no fsync covered, newest change first, as the disk would look after the
  /// power came back. Call after the crash, before a new engine starts on the directory.
  public func recoverFromPowerLoss() throws(StorageError) {
    let (pending, synced) = state.withLock { state in
      let snapshot = (state.pending, state.durableLength)
      state.pending = []
      return snapshot
    }
    var durable = synced
    for change in pending.reversed() {
      switch change {
      case .created(let path):
        try base.remove(path)
        durable[path] = nil
      case .renamed(let from, let to, let backup):
        if base.size(of: to) != nil { try base.rename(to, to: from) }
        // The file's un-synced bytes went back with it: truncate it under its old name.
        durable[from] = durable.removeValue(forKey: to)
        if let backup { try base.rename(backup, to: to) }
      case .removed(let path, let backup): try base.rename(backup, to: path)
      }
    }
    state.withLock { $0.durableLength = durable }
    for (path, length) in durable {
      guard let size = base.size(of: path), size > length else { continue }
      let file = try base.openForAppend(path, truncatingTo: length)
      file.close()
    }
  }

  fileprivate func written(_ path: String) throws(StorageError) {
    try tick()
    if state.withLock({ $0.noSpace }) { throw .noSpace(path: path) }
  }

  fileprivate func synced(_ path: String, length: Int64) throws(StorageError) {
    try tick()
    state.withLock { $0.durableLength[path] = length }
  }

  private func backupPath(for path: String) -> String {
    let index = state.withLock { state -> Int in
      state.backups += 1
      return state.backups
    }
    return parent(of: path) + "/.powerloss-backup-\(instance)-\(index)"
  }

  private func copyFile(_ source: String, to destination: String) throws(StorageError) {
    let bytes = try readAll(source)
    let file = try base.openForAppend(destination, truncatingTo: 0)
    defer { file.close() }
    try file.write(bytes)
  }

  private func readAll(_ path: String) throws(StorageError) -> [UInt8] {
    guard let reader = try? FileReader(path: path) else { throw .notFound(path: path) }
    var bytes: [UInt8] = []
    while true {
      let chunk = try reader.read(upTo: 1 << 16)
      if chunk.isEmpty { return bytes }
      bytes += chunk
    }
  }
}

/// A file handle whose writes and syncs the power-loss double sees.
private final class TrackedFile: DurableFile {
  private let file: any DurableFile
  private let path: String
  private var length: Int64
  private let owner: PowerLossFileSystem

  init(file: any DurableFile, path: String, length: Int64, owner: PowerLossFileSystem) {
    self.file = file
    self.path = path
    self.length = length
    self.owner = owner
  }

  func write(_ bytes: [UInt8]) throws(StorageError) {
    try owner.written(path)
    try file.write(bytes)
    length += Int64(bytes.count)
  }

  func sync() throws(StorageError) {
    try owner.synced(path, length: length)
    try file.sync()
  }

  func close() { file.close() }
}

/// The directory part of `path`, as the durable file system names it.
private func parent(of path: String) -> String {
  guard let slash = path.lastIndex(of: "/") else { return "." }
  let head = String(path[..<slash])
  return head.isEmpty ? "/" : head
}
