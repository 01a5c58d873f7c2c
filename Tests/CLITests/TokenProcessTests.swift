import Foundation
import Testing

/// DESIGN.md invariant 7: the token never needs to be typed on a command line (where every
/// user sees it in the process list) and never appears in what the tool prints.
extension ProcessTests {
  static let secretToken = "Sup3rSecretTokenValue0123456789a"

  @Test("RECORDER_TOKEN from the environment authenticates; no --token needed")
  func tokenFromEnvironment() throws {
    let directory = try TemporaryDirectory("token-env")
    let emulator = try EmulatorProcess(in: directory, token: Self.secretToken, minutes: [0.25])
    defer { emulator.stop() }
    let result = try RecorderProcess.run(
      ["ls", "--json", "--device", emulator.url], in: directory, label: "ls-env",
      environment: ["RECORDER_TOKEN": Self.secretToken])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(try jsonArray(result.stdout).count == 1)
    #expect(result.stderr.isEmpty, "\(result.stderr)")
  }

  @Test("--token-file: 0600 authenticates quietly; a file others can read warns, token unprinted")
  func tokenFromFile() throws {
    let directory = try TemporaryDirectory("token-file")
    let emulator = try EmulatorProcess(in: directory, token: Self.secretToken, minutes: [0.25])
    defer { emulator.stop() }
    let path = directory.file("token")
    try Data((Self.secretToken + "\n").utf8).write(to: URL(fileURLWithPath: path))
    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)

    let quiet = try RecorderProcess.run(
      ["ls", "--json", "--device", emulator.url, "--token-file", path], in: directory,
      label: "ls-file-600")
    #expect(quiet.status == 0, "\(quiet.stderr)")
    #expect(try jsonArray(quiet.stdout).count == 1)
    #expect(quiet.stderr.isEmpty, "\(quiet.stderr)")

    try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
    let warned = try RecorderProcess.run(
      ["ls", "--json", "--device", emulator.url, "--token-file", path], in: directory,
      label: "ls-file-644")
    #expect(warned.status == 0, "\(warned.stderr)")
    #expect(try jsonArray(warned.stdout).count == 1)
    #expect(warned.stderr.contains("warning"), "\(warned.stderr)")
    #expect(warned.stderr.contains(path) && warned.stderr.contains("600"), "\(warned.stderr)")
    #expect(!warned.stderr.contains(Self.secretToken))
  }

  @Test("the token never appears in stdout or stderr: env, file, wrong token, sync, --help")
  func tokenNeverPrinted() throws {
    let directory = try TemporaryDirectory("token-hidden")
    let emulator = try EmulatorProcess(in: directory, token: Self.secretToken, minutes: [0.25])
    defer { emulator.stop() }
    let path = directory.file("token")
    try Data(Self.secretToken.utf8).write(to: URL(fileURLWithPath: path))
    try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
    let wrong = "WrongSecretTokenValue0123456789z"
    let environment = ["RECORDER_TOKEN": Self.secretToken]
    let device = ["--device", emulator.url]

    let runs:
      [(label: String, arguments: [String], environment: [String: String]?, status: Int32)] = [
        ("info-env", ["info"] + device, environment, 0),
        ("info-file", ["info", "--token-file", path] + device, nil, 0),
        ("ls-wrong-env", ["ls"] + device, ["RECORDER_TOKEN": wrong], 77),
        ("sync-env", ["sync", "--out", directory.file("out"), "--json"] + device, environment, 0),
        ("help", ["sync", "--help"], environment, 0),
      ]
    for run in runs {
      let result = try RecorderProcess.run(
        run.arguments, in: directory, label: run.label, environment: run.environment)
      #expect(result.status == run.status, "\(run.label): \(result.stderr)")
      for secret in [Self.secretToken, wrong] {
        #expect(!result.stdout.contains(secret), "\(run.label) printed a token on stdout")
        #expect(!result.stderr.contains(secret), "\(run.label) printed a token on stderr")
      }
      if run.label == "help" {
        #expect(result.stdout.contains("RECORDER_TOKEN") && result.stdout.contains("--token-file"))
      }
    }
  }

  @Test("--token on the command line works, with one warning on stderr that never shows the token")
  func tokenOnCommandLineWarns() throws {
    let directory = try TemporaryDirectory("token-argv")
    let emulator = try EmulatorProcess(in: directory, token: Self.secretToken, minutes: [0.25])
    defer { emulator.stop() }
    let device = ["--device", emulator.url, "--token", Self.secretToken]
    let runs: [(label: String, arguments: [String])] = [
      ("ls-argv", ["ls", "--json"] + device),
      (
        "sync-argv",
        ["sync", "--out", directory.file("out"), "--keep-on-device", "--json"] + device
      ),
    ]
    for run in runs {
      let result = try RecorderProcess.run(run.arguments, in: directory, label: run.label)
      #expect(result.status == 0, "\(run.label): \(result.stderr)")
      let warnings = result.stderr.split(separator: "\n").filter { $0.hasPrefix("warning: ") }
      #expect(warnings.count == 1, "\(run.label): \(result.stderr)")
      let warning = String(warnings.first ?? "")
      #expect(warning.contains("--token"), "\(warning)")
      #expect(warning.contains("--token-file") && warning.contains("RECORDER_TOKEN"), "\(warning)")
      #expect(
        !result.stdout.contains(Self.secretToken) && !result.stderr.contains(Self.secretToken))
    }
  }
}
