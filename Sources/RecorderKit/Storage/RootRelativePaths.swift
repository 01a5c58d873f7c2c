#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// How the journal writes paths: relative to the sync root, so the same root reached by
/// another spelling (`out` from one directory, `/home/me/out` from another) still finds its
/// raw copies and exports. A path outside the root (an export folder elsewhere) is written
/// absolute, resolved against the working directory at the time it is recorded.
struct RootRelativePaths: Sendable {
  /// The root as the caller spelled it (absolute, or relative to the working directory).
  let root: String

  /// `path` (under the root as spelled, or anywhere) as the journal keeps it.
  func stored(_ path: String) -> String {
    let prefix = root.hasSuffix("/") ? root : root + "/"
    if path.hasPrefix(prefix) { return String(path.dropFirst(prefix.count)) }
    if path.hasPrefix("/") { return path }
    return Self.workingDirectory().map { $0 + "/" + path } ?? path
  }

  /// A path from the journal, ready to open: relative ones are under the root.
  func resolved(_ stored: String) -> String {
    if stored.hasPrefix("/") { return stored }
    return root.hasSuffix("/") ? root + stored : root + "/" + stored
  }

  private static func workingDirectory() -> String? {
    guard let pointer = getcwd(nil, 0) else { return nil }
    defer { free(pointer) }
    return String(cString: pointer)
  }
}
