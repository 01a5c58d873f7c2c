import Foundation
import RecorderConcurrency

/// The temporary files an export writes before renaming into place: the encoded file, and
/// for an end-to-end encrypted recording its decrypted audio (`<temporary>.plain`).
///
/// Each is named `.partial-<pid>-<n>-<final name>`: the process that writes it and a number
/// unique in that process, so two exports never share one (two agents exporting the same
/// recording into one folder), and a sweep of temporaries a crash left behind
/// (``removeStale(in:fileSystem:)``) can tell them from live ones: ours while registered,
/// another process's while it runs. Names of the old form (`.partial-<final name>`) are
/// always stale.
enum ExportTemporaries {
  static let prefix = ".partial-"
  /// Numbers of this process's temporaries being written.
  private static let live = Locked<Set<Int>>([])
  private static let next = Locked(0)

  /// A fresh temporary path for `name` in `directory`, live until ``release(_:)``.
  static func claim(_ name: String, in directory: String) -> String {
    let number = next.withLock { next in
      next += 1
      return next
    }
    live.withLock { _ = $0.insert(number) }
    return directory + "/" + prefix + "\(getpid())-\(number)-" + name
  }

  /// The temporary at `path` is renamed or removed: a sweep may take what is left of it.
  static func release(_ path: String) {
    guard let owner = owner(of: (path as NSString).lastPathComponent) else { return }
    live.withLock { _ = $0.remove(owner.number) }
  }

  /// Removes from `directory` the temporaries no running export writes: this process's
  /// not registered, other processes' whose process has ended, and the old form.
  static func removeStale(in directory: String, fileSystem: any DurableFileSystem)
    throws(StorageError)
  {
    let me = getpid()
    for name in fileSystem.contents(of: directory) where name.hasPrefix(prefix) {
      if let owner = owner(of: name) {
        if owner.pid == me, live.withLock({ $0.contains(owner.number) }) { continue }
        if owner.pid != me, isRunning(owner.pid) { continue }
      }
      try fileSystem.remove(directory + "/" + name)
    }
  }

  /// The writer of a temporary named `.partial-<pid>-<n>-…`; nil for any other name.
  static func owner(of name: String) -> (pid: pid_t, number: Int)? {
    guard name.hasPrefix(prefix) else { return nil }
    let parts = name.dropFirst(prefix.count).split(
      separator: "-", maxSplits: 2, omittingEmptySubsequences: false)
    guard parts.count == 3, let pid = pid_t(parts[0]), pid > 0, let number = Int(parts[1])
    else { return nil }
    return (pid, number)
  }

  /// Whether process `pid` exists (one we may not signal still counts: it exists).
  private static func isRunning(_ pid: pid_t) -> Bool {
    kill(pid, 0) == 0 || errno == EPERM
  }
}
