import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `kill(2)` (a free function: inside a type, `kill` names the type's method).
func sendSignal(_ pid: Int32, _ signal: Int32) { _ = kill(pid, signal) }

/// A directory under the system temporary directory, removed when released.
final class TemporaryDirectory: Sendable {
  let path: String

  init(_ label: String) throws {
    let base =
      NSTemporaryDirectory()
      + "recorder-cli-\(label)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
    path = base
  }

  deinit { try? FileManager.default.removeItem(atPath: path) }

  func file(_ name: String) -> String { path + "/" + name }
}

/// Waits for `condition` to hold, checking every few milliseconds, up to `timeout`.
/// Returns whether it held (never a fixed sleep: it returns as soon as it does).
@discardableResult
func waitUntil(timeout: Duration, _ condition: () -> Bool) -> Bool {
  let deadline = ContinuousClock.now + timeout
  while ContinuousClock.now < deadline {
    if condition() { return true }
    usleep(5_000)
  }
  return condition()
}

/// One `recorder` subprocess (or another tool's, given `executable`) with stdout and stderr
/// captured to files (so a chatty child can never block on a full pipe), killed if it
/// outlives its deadline.
///
/// `@unchecked Sendable`: every stored property is a `let` set in `init`; `Process` is only
/// asked for `isRunning`, `processIdentifier` and `terminationStatus` (read-only once
/// running) and the exit is signalled through a `DispatchSemaphore`, which is thread-safe.
final class RecorderProcess: @unchecked Sendable {
  let process = Process()
  let stdoutPath: String
  let stderrPath: String
  private let exited = DispatchSemaphore(value: 0)

  /// - Parameters:
  ///   - environment: variables to set on top of the test process's own (nil: inherit as is).
  ///   - workingDirectory: the child's current directory (nil: the test process's).
  ///   - standardInput: the child's stdin (nil: /dev/null, which reads as at its end at once).
  ///   - executable: the program to run (nil: the `recorder` binary next to the tests).
  init(
    _ arguments: [String], in directory: TemporaryDirectory, label: String,
    environment: [String: String]? = nil, workingDirectory: String? = nil,
    standardInput: Pipe? = nil, executable: String? = nil
  ) throws {
    let url =
      try executable.map { URL(fileURLWithPath: $0) }
      ?? #require(RecorderTool.executable, "the recorder binary was not found next to the tests")
    stdoutPath = directory.file("\(label).stdout")
    stderrPath = directory.file("\(label).stderr")
    _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
    _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
    process.executableURL = url
    process.arguments = arguments
    let output = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutPath))
    let errors = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
    process.standardOutput = output
    process.standardError = errors
    process.standardInput = standardInput ?? FileHandle.nullDevice
    if let environment {
      process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    if let workingDirectory {
      process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory)
    }
    let exited = self.exited
    process.terminationHandler = { _ in exited.signal() }
    // The child has its own copies of the two files: the test process's are closed at once.
    // Foundation keeps them as long as the `Process` lives, and it outlives the test: a full
    // run held 940 of them, and with that many entries in /proc/self/fd, swift-corelibs-
    // foundation's `Process.run()` can over-read the directory buffer and crash (its
    // `findMaximumOpenFromProcSelfFD`, fixed upstream in PR #5472).
    defer {
      try? output.close()
      try? errors.close()
    }
    try process.run()
  }

  var pid: Int32 { process.processIdentifier }
  var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
  var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

  /// Waits for exit up to `timeout`; nil if it was still running (then it is killed).
  func wait(timeout: Duration) -> Int32? {
    let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
    if exited.wait(timeout: .now() + seconds) == .timedOut {
      kill()
      return nil
    }
    exited.signal()  // later waits return at once
    return process.terminationStatus
  }

  /// SIGKILL and reap; safe to call on an exited process.
  func kill() {
    if process.isRunning { sendSignal(pid, SIGKILL) }
    _ = exited.wait(timeout: .now() + 10)
    exited.signal()
  }

  /// The first line of stdout, once written.
  func firstLine(timeout: Duration) -> String? {
    var line: String?
    waitUntil(timeout: timeout) {
      let text = stdout
      if let newline = text.firstIndex(of: "\n") {
        line = String(text[..<newline])
        return true
      }
      return !process.isRunning
    }
    return line
  }

  /// Runs `recorder ARGS` to its end (or kills it at `timeout`).
  static func run(
    _ arguments: [String], in directory: TemporaryDirectory, label: String,
    timeout: Duration = .seconds(120), environment: [String: String]? = nil,
    workingDirectory: String? = nil, executable: String? = nil
  ) throws -> (status: Int32?, stdout: String, stderr: String) {
    let child = try RecorderProcess(
      arguments, in: directory, label: label, environment: environment,
      workingDirectory: workingDirectory, executable: executable)
    let status = child.wait(timeout: timeout)
    return (status, child.stdout, child.stderr)
  }
}

/// `recorder emulate` in its own process: started, its address read from its first stdout
/// line, and always terminated (`stop()` in a `defer`, and again on release).
///
/// `@unchecked Sendable` for the reason given on ``RecorderProcess``: only `let`s, set in
/// `init`, around a `RecorderProcess`.
final class EmulatorProcess: @unchecked Sendable {
  let child: RecorderProcess
  let url: String
  let token: String
  let manifestPath: String?
  /// Options the commands need besides the token: a Mode B device's key store.
  let keyOptions: [String]

  /// `portVersion` 20 or more: a Mode B device (PROTOCOL.md §9); the commands reach it with
  /// a key store in `directory`, whose key is made on first use.
  init(
    in directory: TemporaryDirectory, token: String = "0123456789abcdef0123456789abcdef",
    recordings: Int = 3, minutes: [Double]? = nil, seed: UInt64 = 1, timeScale: Double = 50,
    manifest: Bool = true, portVersion: UInt16 = 10, extra: [String] = []
  ) throws {
    var arguments = [
      "emulate", "--port", "0", "--token", token, "--seed", "\(seed)", "--time-scale",
      "\(timeScale)",
      "--flash", directory.file("flash"), "--port-version", "\(portVersion)",
    ]
    keyOptions = portVersion >= 20 ? ["--key-store", directory.file("keys")] : []
    if let minutes {
      arguments += ["--minutes", minutes.map { "\($0)" }.joined(separator: ",")]
    } else {
      arguments += ["--recordings", "\(recordings)"]
    }
    let manifestPath = manifest ? directory.file("manifest.json") : nil
    if let manifestPath { arguments += ["--manifest", manifestPath] }
    self.manifestPath = manifestPath
    self.token = token
    child = try RecorderProcess(arguments + extra, in: directory, label: "emulate")
    guard let line = child.firstLine(timeout: .seconds(60)), line.hasPrefix("tcp://127.0.0.1:")
    else {
      let stderr = child.stderr
      child.kill()
      throw HarnessError("recorder emulate printed no address; stderr: \(stderr)")
    }
    url = line
    if let manifestPath {
      let written = waitUntil(timeout: .seconds(30)) {
        FileManager.default.fileExists(atPath: manifestPath)
      }
      guard written else {
        child.kill()
        throw HarnessError("recorder emulate wrote no manifest")
      }
    }
  }

  deinit { child.kill() }

  func stop() { child.kill() }

  /// Device options for `ls`, `info`, `sync`.
  var device: [String] { ["--device", url, "--token", token] + keyOptions }

  /// The Wi-Fi join port from the emulator's second stdout line (`hotspot tcp://…`).
  func hotspot() throws -> String { try announced("hotspot") }

  /// The cloud emulator's URL (`recorder emulate --cloud` prints `cloud http://…`).
  func cloud() throws -> String { try announced("cloud") }

  /// What the emulator printed on its stdout line starting with `name` and a space.
  private func announced(_ name: String) throws -> String {
    var value: String?
    waitUntil(timeout: .seconds(30)) {
      value =
        child.stdout.split(separator: "\n").first { $0.hasPrefix(name + " ") }
        .map { String($0.dropFirst(name.count + 1)) }
      return value != nil || !child.process.isRunning
    }
    guard let value else { throw HarnessError("recorder emulate printed no \(name) line") }
    return value
  }

  func manifest() throws -> Manifest {
    let path = try #require(manifestPath)
    return try Manifest(data: Data(contentsOf: URL(fileURLWithPath: path)))
  }
}

struct HarnessError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

/// The emulator's manifest: what the device held at start, and every DELETE it served.
struct Manifest {
  struct Entry {
    var sessionId: Int64
    var size: Int64
    var sha256: String
  }
  struct Delete {
    var sessionId: Int64
    var virtualSeconds: Double
  }
  var serial: String
  var recordings: [Entry]
  var deletes: [Delete]
  /// Connections the device took and data bytes it sent, as of the last write.
  var connections: Int
  var dataBytesSent: Int64
  /// Recording bytes the device's Wi-Fi server sent, as of the last write.
  var wifiDataBytes: Int64
  /// DEPAIRs the device took, and those with the clear byte set.
  var depairs: Int
  var depairsClearing: Int
  /// Hotspot joins the device refused, and those it took while a Wi-Fi session was active.
  var wifiJoinsRefused: Int
  var wifiJoinsWhileActive: Int
  /// Mode B: plain HANDSHAKEs (a token in clear) the device received before its channel.
  var clearHandshakes: Int

  init(data: Data) throws {
    let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    serial = try #require(object["serial"] as? String)
    let recordings = try #require(object["recordings"] as? [[String: Any]])
    self.recordings = try recordings.map {
      Entry(
        sessionId: try #require(($0["sessionId"] as? NSNumber)?.int64Value),
        size: try #require(($0["size"] as? NSNumber)?.int64Value),
        sha256: try #require($0["sha256"] as? String))
    }
    let deletes = try #require(object["deletes"] as? [[String: Any]])
    self.deletes = try deletes.map {
      Delete(
        sessionId: try #require(($0["sessionId"] as? NSNumber)?.int64Value),
        virtualSeconds: try #require(($0["virtualSeconds"] as? NSNumber)?.doubleValue))
    }
    connections = try #require((object["connections"] as? NSNumber)?.intValue)
    dataBytesSent = try #require((object["dataBytesSent"] as? NSNumber)?.int64Value)
    wifiDataBytes = try #require((object["wifiContentBytesSent"] as? NSNumber)?.int64Value)
    depairs = (object["depairs"] as? NSNumber)?.intValue ?? 0
    depairsClearing = (object["depairsClearing"] as? NSNumber)?.intValue ?? 0
    wifiJoinsRefused = try #require((object["wifiJoinsRefused"] as? NSNumber)?.intValue)
    wifiJoinsWhileActive = try #require((object["wifiJoinsWhileActive"] as? NSNumber)?.intValue)
    clearHandshakes = (object["clearHandshakes"] as? NSNumber)?.intValue ?? 0
  }
}

/// JSON helpers for the CLI's `--json` output.
func jsonArray(_ text: String) throws -> [[String: Any]] {
  let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
  return try #require(object as? [[String: Any]], "not a JSON array: \(text)")
}

func jsonObject(_ text: String) throws -> [String: Any] {
  let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
  return try #require(object as? [String: Any], "not a JSON object: \(text)")
}

func int64(_ value: Any?) -> Int64? { (value as? NSNumber)?.int64Value }

/// SHA-256 of a file (hex), with the system's `sha256sum` (the CLI tests depend only on the
/// `recorder` binary, so no hashing library is linked).
func sha256(ofFile path: String) throws -> String {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  process.arguments = ["sha256sum", path]
  let out = Pipe()
  process.standardOutput = out
  process.standardError = FileHandle.nullDevice
  try process.run()
  let data = out.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  guard process.terminationStatus == 0,
    let digest = String(decoding: data, as: UTF8.self).split(separator: " ").first
  else { throw HarnessError("sha256sum \(path) failed") }
  return String(digest)
}

/// Rows of the sync journal, read with the `sqlite3` command-line tool: session id → stage.
func journalStages(_ path: String) throws -> [Int64: String] {
  try journalColumn(path, "stage")
}

/// Session id → durable bytes of the partial file, as the journal says.
func journalDurableBytes(_ path: String) throws -> [Int64: Int64] {
  try journalColumn(path, "durable_bytes").compactMapValues { Int64($0) }
}

/// Runs `sql` on the database at `path` with the `sqlite3` tool (`options` before the path);
/// its stdout.
@discardableResult
func sqlite(_ path: String, _ sql: String, options: [String] = []) throws -> String {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  process.arguments = ["sqlite3"] + options + [path, sql]
  let out = Pipe()
  let err = Pipe()
  process.standardOutput = out
  process.standardError = err
  try process.run()
  let data = out.fileHandleForReading.readDataToEndOfFile()
  let errors = err.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  guard process.terminationStatus == 0 else {
    throw HarnessError("sqlite3 \(path) failed: \(String(decoding: errors, as: UTF8.self))")
  }
  return String(decoding: data, as: UTF8.self)
}

/// The tables of the journal at `path` (none when there is no file yet).
func journalTables(_ path: String) throws -> Set<String> {
  guard FileManager.default.fileExists(atPath: path) else { return [] }
  let names = try sqlite(
    path, "SELECT name FROM sqlite_master WHERE type = 'table'", options: ["-readonly"])
  return Set(names.split(separator: "\n").map(String.init))
}

/// Session id → one column of the journal's `recordings` table.
func journalColumn(_ path: String, _ column: String) throws -> [Int64: String] {
  let output = try sqlite(
    path, "SELECT session_id, \(column) FROM recordings", options: ["-readonly", "-separator", "|"])
  var stages: [Int64: String] = [:]
  for line in output.split(separator: "\n") {
    let parts = line.split(separator: "|")
    if parts.count == 2, let id = Int64(parts[0]) { stages[id] = String(parts[1]) }
  }
  return stages
}

/// A free TCP port on 127.0.0.1 that nothing listens on (bound, then closed).
func unusedPort() throws -> UInt16 {
  let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  guard fd >= 0 else { throw HarnessError("socket failed") }
  defer { close(fd) }
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_port = 0
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  var length = socklen_t(MemoryLayout<sockaddr_in>.size)
  let bound = withUnsafeMutablePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
      bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
    }
  }
  guard bound else { throw HarnessError("bind failed") }
  return UInt16(bigEndian: address.sin_port)
}
