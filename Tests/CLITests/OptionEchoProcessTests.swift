import Foundation
import Testing

/// Issue 39, item 9b: a value the user (or a script fed hostile input) put on the command
/// line is echoed in an error cut to a readable length, with how long it was.
extension ProcessTests {
  @Test("a 100,000-character option value is echoed cut short, with its length")
  func longOptionValuesAreClipped() throws {
    let directory = try TemporaryDirectory("echo-long")
    let tokenFile = try Self.userTokenFile(in: directory)
    let long = String(repeating: "x", count: 100_000)
    // No device is reached: each run fails while reading its arguments.
    let device = ["--device", "tcp://127.0.0.1:1"]
    let runs: [(label: String, arguments: [String], length: Int)] = [
      (
        "cloud-scheme",
        ["bind", "--cloud", "ftp://" + long, "--user-token-file", tokenFile, "--serial", "1"],
        100_006
      ),
      (
        "cloud-http",
        ["bind", "--cloud", "http://" + long, "--user-token-file", tokenFile, "--serial", "1"],
        100_007
      ),
      ("channels", ["sync", "--out", directory.file("out"), "--channels", long] + device, 100_000),
      ("format", ["sync", "--out", directory.file("out"), "--format", long] + device, 100_000),
      ("unexpected", ["ls", long] + device, 100_000),
      ("command", [long], 100_000),
    ]
    for run in runs {
      let result = try RecorderProcess.run(
        run.arguments, in: directory, label: run.label,
        environment: ["RECORDER_TOKEN": Self.token])
      #expect(result.status == 64, "\(run.label): \(result.stderr.prefix(300))")
      #expect(
        !result.stderr.contains(String(repeating: "x", count: 201)),
        "\(run.label): \(result.stderr.count) characters on stderr")
      #expect(
        result.stderr.contains("(\(run.length) characters)"),
        "\(run.label): \(result.stderr.prefix(600))")
    }
  }
}
