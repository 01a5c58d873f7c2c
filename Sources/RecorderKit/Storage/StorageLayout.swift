import RecorderProtocol

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where everything under one storage root goes: the one place a path of the sync is spelt.
///
/// ```
/// <root>/journal.sqlite                       the journal (recordings, exports, outboxes)
/// <root>/sync.lock                            held by whoever syncs this root
/// <root>/<serial>/<session id>.part           device bytes being received
/// <root>/<serial>/<session id>.opus-raw       complete, verified device bytes
/// <root>/<serial>/<session id>-<n>.opus-raw   a later recording under the same id (n ≥ 2)
/// <root>/exports/<name>.<mp3|wav|opus|pcm>    exports, unless the caller names a folder
/// <root>/keys/                                the file key store, where one is used
/// <root>/wifi-close-owed                      WIFI_CLOSEs owed to recorders
/// <root>/known-recorders.json                 recorders met before (the vendor facade)
/// <root>/.converting-<export name>            a deferred conversion's claim
/// <folder>/.partial-<token>-<export name>     an export being written (+ `.plain`: its
///                                             decrypted audio)
/// <export>.json                               a recording's sidecar description
/// ```
///
/// The journal writes paths relative to the root, so the same root reached by another
/// spelling (`out` from one directory, `/home/me/out` from another) still finds its raw
/// copies and exports. A path outside the root (an export folder elsewhere) is written
/// absolute, resolved against the working directory at the time it is recorded.
///
/// A serial becomes a folder name only after `DeviceFolderName` checked it.
public struct StorageLayout: Sendable, Hashable {
  /// The root as the caller spelled it (absolute, or relative to the working directory).
  public let root: String

  /// - Parameter root: the storage root.
  public init(root: String) { self.root = root }

  /// `<root>/journal.sqlite`.
  public var journal: String { path("journal.sqlite") }
  /// `<root>/sync.lock`.
  public var lock: String { path(Self.lockFileName) }
  /// The lock file's name.
  static let lockFileName = "sync.lock"
  /// `<root>/exports`: the default export folder.
  public var exports: String { path("exports") }
  /// `<root>/keys`: the file key store's folder.
  public var keys: String { path("keys") }
  /// `<root>/wifi-close-owed`: the WIFI_CLOSEs owed to recorders whose BLE was down when a
  /// Wi-Fi sync ended.
  public var owedWiFiCloses: String { path("wifi-close-owed") }
  /// `<root>/known-recorders.json`: the recorders met before, and which a pending connect is
  /// owed to.
  public var knownRecorders: String { path("known-recorders.json") }
  /// `<root>/.converting-<name>`: the claim of the deferred conversion whose export is
  /// `name`.
  func conversionClaim(exportName name: String) -> String {
    path(Self.conversionClaimPrefix + name)
  }
  /// What a conversion's claim file name starts with.
  static let conversionClaimPrefix = ".converting-"
  /// What an export's temporary file name starts with (then a token, `-`, the final name).
  static let exportTemporaryPrefix = ".partial-"
  /// The decrypted audio of an E2EE recording being exported: `<temporary>.plain`.
  static func scratch(of temporary: String) -> String { temporary + scratchSuffix }
  /// The suffix of ``scratch(of:)``.
  static let scratchSuffix = ".plain"
  /// The temporary a companion file or a sidecar is written to before its rename:
  /// `<final>.partial`.
  public static func temporary(of final: String) -> String { final + ".partial" }
  /// A file kept beside a raw copy (`<root>/<serial>/<session id>.opus-raw`) under the same
  /// stem: `<root>/<serial>/<session id>.<fileExtension>` (a USB volume's WAV).
  static func besideRaw(_ raw: String, fileExtension: String) -> String {
    let stem = raw.hasSuffix(rawSuffix) ? String(raw.dropLast(rawSuffix.count)) : raw
    return stem + "." + fileExtension
  }
  private static let rawSuffix = ".opus-raw"
  /// A recording's description beside its export (or raw copy): `<path>.json`.
  public static func sidecar(of path: String) -> String { path + ".json" }

  /// `<root>/<serial>`: one device's raw copies.
  public func deviceDirectory(serial: String) -> String { path(serial) }
  /// `<root>/<serial>/<session id>.part`: device bytes being received; a later generation
  /// of the id (``RecordingRecord/generation``) is `<session id>-<generation + 1>.part`.
  public func partial(serial: String, sessionId: SessionID, generation: Int = 0) -> String {
    deviceDirectory(serial: serial) + "/\(Self.stem(sessionId, generation)).part"
  }
  /// `<root>/<serial>/<session id>.opus-raw`: complete, verified device bytes (with the
  /// generation's suffix, as ``partial(serial:sessionId:generation:)``).
  public func raw(serial: String, sessionId: SessionID, generation: Int = 0) -> String {
    deviceDirectory(serial: serial) + "/" + Self.stem(sessionId, generation) + Self.rawSuffix
  }
  /// The export's file name: `<serial>-<session id>.<ext>`, or for a later generation of the
  /// id `<serial>-<session id>-<generation + 1>.<ext>`, so an earlier recording's export
  /// under the same id is never overwritten.
  public static func exportName(
    serial: String, sessionId: some CustomStringConvertible, generation: Int = 0,
    fileExtension: String
  ) -> String {
    "\(serial)-\(stem(sessionId, generation)).\(fileExtension)"
  }

  private static func stem(_ sessionId: some CustomStringConvertible, _ generation: Int) -> String {
    generation == 0 ? "\(sessionId)" : "\(sessionId)-\(generation + 1)"
  }

  private func path(_ name: String) -> String {
    root.hasSuffix("/") ? root + name : root + "/" + name
  }

  /// `path` (under the root as spelled, or anywhere) as the journal keeps it.
  func stored(_ path: String) -> String {
    let prefix = root.hasSuffix("/") ? root : root + "/"
    if path.hasPrefix(prefix) { return String(path.dropFirst(prefix.count)) }
    if path.hasPrefix("/") { return path }
    return Self.workingDirectory().map { $0 + "/" + path } ?? path
  }

  /// A path from the journal, ready to open: relative ones are under the root.
  func resolved(_ stored: String) -> String {
    stored.hasPrefix("/") ? stored : path(stored)
  }

  private static func workingDirectory() -> String? {
    guard let pointer = getcwd(nil, 0) else { return nil }
    defer { free(pointer) }
    return String(cString: pointer)
  }
}
