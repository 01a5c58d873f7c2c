import Foundation
import TestSupport
import Testing

/// A Mode B recorder bound to another account drops the link instead of refusing the token
/// (PROTOCOL.md §3.1, §4): `recorder` says so once, exits 77 and does not retry in a loop.
@Suite("recorder against a recorder bound to another account", .serialized, .blockingWaits)
struct BoundElsewhereProcessTests {
  static let deviceToken = "feedfacecafebeef0123456789abcdef"

  @Test(
    "a Mode B recorder that drops the link before its handshake: exit 77 at once, one connection")
  func boundElsewhereIsReportedOnce() throws {
    let directory = try TemporaryDirectory("bound-elsewhere")
    let emulator = try EmulatorProcess(
      in: directory, token: Self.deviceToken, minutes: [0.25], portVersion: 20,
      extra: ["--mode-b-bound-elsewhere"])
    defer { emulator.stop() }
    // This user's token is not the account's the recorder is bound to.
    let result = try RecorderProcess.run(
      [
        "sync", "--out", directory.file("out"), "--format", "wav", "--attempts", "3",
        "--device", emulator.url,
      ] + emulator.keyOptions, in: directory, label: "sync", timeout: .seconds(120),
      environment: ["RECORDER_TOKEN": "0123456789abcdef0123456789abcdef"])
    #expect(result.status == 77, "stdout: \(result.stdout) stderr: \(result.stderr)")
    #expect(result.stderr.contains("bound to another account"), "\(result.stderr)")
    #expect(!result.stderr.contains("attempt "), "not retried: \(result.stderr)")
    _ = waitUntil(timeout: .seconds(30)) { (try? emulator.manifest().connections) ?? 0 >= 1 }
    #expect(try emulator.manifest().connections == 1)
    #expect(try emulator.manifest().dataBytesSent == 0)
  }

  @Test("the same recorder with the account's own token syncs")
  func theBoundAccountConnects() throws {
    let directory = try TemporaryDirectory("bound-elsewhere-owner")
    let emulator = try EmulatorProcess(
      in: directory, token: Self.deviceToken, minutes: [0.25], portVersion: 20,
      extra: ["--mode-b-bound-elsewhere"])
    defer { emulator.stop() }
    let result = try RecorderProcess.run(
      ["sync", "--out", directory.file("out"), "--format", "wav"] + emulator.device,
      in: directory, label: "sync", timeout: .seconds(120))
    #expect(result.status == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
  }
}
