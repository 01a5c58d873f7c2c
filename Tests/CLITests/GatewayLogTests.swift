import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `recorder sync --watch` as a gateway's log: one stderr line per event with the recorder's
/// serial and the recording's session id; when stderr is the journal (`JOURNAL_STREAM` names
/// stderr's device and inode, as systemd sets it), each line starts with its sd-daemon
/// priority: `<3>` errors, `<4>` warnings, `<6>` information.
@Suite("sync --watch: the gateway's log", .serialized, .blockingWaits)
struct GatewayLogTests {
  static let token = "0123456789abcdef0123456789abcdef"

  /// Runs `recorder ARGS` with stderr to a file; `journal` sets `JOURNAL_STREAM` to that
  /// file's `device:inode` (stderr is then the "journal stream"), `stream` to any other value.
  static func run(
    _ arguments: [String], in directory: TemporaryDirectory, label: String,
    journal: Bool = false, stream: String? = nil, environment: [String: String] = [:]
  ) throws -> (status: Int32?, stdout: String, stderr: String) {
    let stdoutPath = directory.file("\(label).stdout")
    let stderrPath = directory.file("\(label).stderr")
    _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
    _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
    let stderr = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
    var variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    variables["JOURNAL_STREAM"] = nil
    if journal {
      var info = stat()
      guard fstat(stderr.fileDescriptor, &info) == 0 else { throw HarnessError("fstat") }
      variables["JOURNAL_STREAM"] = "\(info.st_dev):\(info.st_ino)"
    } else if let stream {
      variables["JOURNAL_STREAM"] = stream
    }
    let executable = try #require(RecorderTool.executable)
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.environment = variables
    process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutPath))
    process.standardError = stderr
    process.standardInput = FileHandle.nullDevice
    let exited = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in exited.signal() }
    try process.run()
    var status: Int32? = nil
    if exited.wait(timeout: .now() + 120) == .success {
      status = process.terminationStatus
    } else {
      sendSignal(process.processIdentifier, SIGKILL)
      _ = exited.wait(timeout: .now() + 10)
    }
    return (
      status, try String(contentsOfFile: stdoutPath, encoding: .utf8),
      try String(contentsOfFile: stderrPath, encoding: .utf8)
    )
  }

  /// One watch run of two recordings, then its lines.
  static func watch(
    _ label: String, journal: Bool = false, stream: String? = nil, tokenMode: Int = 0o600
  ) throws -> (manifest: Manifest, stderr: String) {
    let directory = try TemporaryDirectory(label)
    let emulator = try EmulatorProcess(in: directory, token: Self.token, minutes: [0.2, 0.15])
    defer { emulator.stop() }
    let manifest = try emulator.manifest()
    let tokenFile = directory.file("token")
    try Data((Self.token + "\n").utf8).write(to: URL(fileURLWithPath: tokenFile))
    try FileManager.default.setAttributes([.posixPermissions: tokenMode], ofItemAtPath: tokenFile)
    let result = try run(
      [
        "sync", "--device", emulator.url, "--token-file", tokenFile, "--out",
        directory.file("out"), "--format", "wav", "--watch", "--watch-pause", "0.2",
        "--watch-runs", "1",
      ], in: directory, label: "watch", journal: journal, stream: stream)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(!result.stderr.contains(Self.token))
    return (manifest, result.stderr)
  }

  /// The lines every recording must have, without any priority prefix.
  static func expectRecordingLines(_ lines: [String], _ manifest: Manifest) {
    for recording in manifest.recordings {
      let head = "serial=\(manifest.serial) session=\(recording.sessionId) "
      for step in ["stored, verified", "exported to ", "deleted from the device"] {
        #expect(lines.contains { $0.hasPrefix(head + step) }, "\(head)\(step): \(lines)")
      }
    }
    #expect(
      lines.contains(
        "serial=\(manifest.serial) watch: sync 1 complete; waiting for the recorder again"),
      "\(lines)")
    // Every line about a recording names the recorder too.
    for line in lines where line.contains("session=") {
      #expect(line.hasPrefix("serial=\(manifest.serial) session="), "\(line)")
    }
  }

  @Test("plain stderr: one line per event with serial and session id, no priority prefix")
  func plainLines() throws {
    let (manifest, stderr) = try Self.watch("gateway-plain")
    let lines = stderr.split(separator: "\n").map(String.init)
    #expect(!lines.isEmpty)
    #expect(!lines.contains { $0.hasPrefix("<") }, "\(stderr)")
    Self.expectRecordingLines(lines, manifest)

    // JOURNAL_STREAM naming another file (stderr redirected away from the journal): plain.
    let (other, redirected) = try Self.watch("gateway-redirected", stream: "1:2")
    let otherLines = redirected.split(separator: "\n").map(String.init)
    #expect(!otherLines.contains { $0.hasPrefix("<") }, "\(redirected)")
    Self.expectRecordingLines(otherLines, other)
  }

  /// Any command's lines follow the rule; an error line is quickest to get (no device).
  @Test("JOURNAL_STREAM: only stderr's own device and inode prefix lines; malformed values do not")
  func journalStreamMatching() throws {
    let directory = try TemporaryDirectory("gateway-stream")
    let failing = ["token", "--user-token-file", directory.file("absent")]
    let matched = try Self.run(failing, in: directory, label: "matched", journal: true)
    #expect(matched.status == 74)
    #expect(matched.stderr.hasPrefix("<3>error: "), "\(matched.stderr)")

    // stderr's own device with another inode, then values that are no DEVICE:INODE at all.
    let stderrPath = directory.file("matched.stderr")
    let attributes = try FileManager.default.attributesOfItem(atPath: stderrPath)
    let device = try #require(attributes[.systemNumber] as? NSNumber)
    let inode = try #require(attributes[.systemFileNumber] as? NSNumber)
    let others = [
      "\(device):\(inode.uint64Value + 1)", "\(device.uint64Value + 1):\(inode)", "", ":", "12",
      "\(device):", ":\(inode)", "\(device):\(inode):0", "-1:-1", "x:y",
      "99999999999999999999999999:1", " \(device):\(inode)",
    ]
    for (index, value) in others.enumerated() {
      let plain = try Self.run(failing, in: directory, label: "other-\(index)", stream: value)
      #expect(plain.status == 74, "\(value)")
      #expect(plain.stderr.hasPrefix("error: "), "JOURNAL_STREAM=\(value): \(plain.stderr)")
    }
  }

  @Test("stderr the journal: <6> information, <4> warnings, <3> the error that ends a watch")
  func journalPriorities() throws {
    // A token file others may read: a warning, the sync goes on.
    let (manifest, stderr) = try Self.watch("gateway-journal", journal: true, tokenMode: 0o644)
    let lines = stderr.split(separator: "\n").map(String.init)
    #expect(!lines.isEmpty)
    for line in lines {
      #expect(["<3>", "<4>", "<6>"].contains(String(line.prefix(3))), "\(line)")
    }
    #expect(lines.contains { $0.hasPrefix("<4>warning: the token file") }, "\(stderr)")
    let info = lines.filter { $0.hasPrefix("<6>") }.map { String($0.dropFirst(3)) }
    Self.expectRecordingLines(info, manifest)

    // A rejected token ends the watch (77) with an error line.
    let directory = try TemporaryDirectory("gateway-journal-error")
    let emulator = try EmulatorProcess(in: directory, token: Self.token, minutes: [0.1])
    defer { emulator.stop() }
    let wrong = "fedcba9876543210fedcba9876543210"
    let result = try Self.run(
      [
        "sync", "--device", emulator.url, "--out", directory.file("out"), "--watch",
        "--watch-pause", "0.2",
      ], in: directory, label: "rejected", journal: true,
      environment: ["RECORDER_TOKEN": wrong])
    #expect(result.status == 77, "\(result.stderr)")
    let errorLines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("<3>error: ") }
    #expect(errorLines.count == 1, "\(result.stderr)")
    #expect(!result.stderr.contains(wrong))
  }
}
