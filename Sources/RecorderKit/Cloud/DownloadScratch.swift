import Foundation

/// Where one download's bytes wait until they are checked: a fresh private directory made
/// with `mkdtemp` (mode 0700, a name nobody can guess) beside the final file, holding `part`,
/// created exclusively (`O_CREAT | O_EXCL | O_NOFOLLOW`, mode 0600). Nothing another user
/// planted (a symlink at a predictable `.part` name, a file to be rewritten) is ever opened,
/// and only this user can put anything inside the directory, so the transport may reopen
/// `part` by path for each retry. The checked file is renamed into place with `rename(2)`,
/// which replaces whatever sits at the final path (a symlink included) without following it.
///
/// The scratch lives for one download call: ``remove()`` deletes what is left of it.
struct DownloadScratch: Sendable {
  /// The private directory.
  let directory: String
  /// The file the body is appended to.
  let part: String

  /// Makes the directory beside `finalPath` and an empty `part` inside it.
  /// - Throws: ``CloudError/io(path:reason:)`` with the system's reason.
  init(beside finalPath: String) throws(CloudError) {
    let parent = (finalPath as NSString).deletingLastPathComponent
    let name = (finalPath as NSString).lastPathComponent
    var template = Array(
      ((parent.isEmpty ? "." : parent) + "/." + name + ".download-XXXXXX").utf8CString)
    let made = template.withUnsafeMutableBufferPointer { buffer in
      mkdtemp(buffer.baseAddress!) != nil
    }
    guard made else {
      throw .io(path: parent, reason: "cannot make a private download directory: \(Self.reason())")
    }
    directory = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    part = directory + "/part"
    let descriptor = open(part, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      let reason = Self.reason()
      rmdir(directory)
      throw .io(path: part, reason: "cannot create the download file: \(reason)")
    }
    close(descriptor)
  }

  /// Renames the checked `part` to `finalPath` (atomically; whatever is there is replaced,
  /// never followed).
  /// - Throws: ``CloudError/io(path:reason:)``.
  static func publish(_ part: String, to finalPath: String) throws(CloudError) {
    guard rename(part, finalPath) == 0 else {
      throw .io(path: finalPath, reason: "cannot rename the download into place: \(reason())")
    }
  }

  /// Deletes `part` (if still there) and the directory. Idempotent.
  func remove() {
    unlink(part)
    rmdir(directory)
  }

  private static func reason() -> String { String(cString: strerror(errno)) }
}
