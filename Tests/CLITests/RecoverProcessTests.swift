import Foundation
import TestSupport
import Testing

/// The vendor's recovery of a Mode B recorder still locked to an earlier account (PROTOCOL.md
/// §4): `recorder recover` tries the cloud's earlier accounts with force-clear handshakes,
/// DEPAIRs on the first accepted, and connects as this user; `recorder sync` then works.
@Suite(
  "recorder recover against a recorder locked to an earlier account", .serialized, .blockingWaits)
struct RecoverProcessTests {
  /// The earlier account's handshake token (its user id `old-user-1`, `-` dropped).
  static let earlierToken = "olduser1"

  private func emulator(_ directory: TemporaryDirectory, history: String) throws
    -> EmulatorProcess
  {
    try EmulatorProcess(
      in: directory, token: Self.earlierToken, minutes: [0.25], portVersion: 20,
      extra: [
        "--cloud", "--cloud-token-file", directory.file("user-token"), "--cloud-user",
        "new-user-2", "--cloud-bind-history", history, "--mode-b-bound-elsewhere",
      ])
  }

  @Test(
    "locked: sync exits 77; recover tries the newest earlier account, then the next; sync works")
  func recoverFreesTheRecorder() throws {
    let directory = try TemporaryDirectory("recover")
    // Oldest first: the lock is old-user-1's; other-user-9 (newest) is tried first and fails.
    let emulator = try emulator(directory, history: "old-user-1,other-user-9,other-user-9")
    defer { emulator.stop() }
    let manifest = try emulator.manifest()
    let cloud = [
      "--cloud", try emulator.cloud(), "--user-token-file", directory.file("user-token"),
    ]
    let device = ["--device", emulator.url] + emulator.keyOptions
    let out = directory.file("out")

    let locked = try RecorderProcess.run(
      ["sync", "--out", out, "--format", "wav"] + cloud + device, in: directory, label: "locked")
    #expect(locked.status == 77, "stdout: \(locked.stdout) stderr: \(locked.stderr)")
    #expect(locked.stderr.contains("bound to another account"), "\(locked.stderr)")

    let recovered = try RecorderProcess.run(
      ["recover", "--serial", manifest.serial] + cloud + device, in: directory,
      label: "recover")
    #expect(recovered.status == 0, "stdout: \(recovered.stdout) stderr: \(recovered.stderr)")
    #expect(recovered.stdout.contains("recovered"), "\(recovered.stdout)")
    #expect(!recovered.stderr.contains(Self.earlierToken), "no token in the output")
    #expect(!recovered.stdout.contains(Self.earlierToken), "no token in the output")

    let synced = try RecorderProcess.run(
      ["sync", "--out", out, "--format", "wav", "--json"] + cloud + device, in: directory,
      label: "sync")
    #expect(synced.status == 0, "stdout: \(synced.stdout) stderr: \(synced.stderr)")
    let after = try emulatorManifest(emulator) { $0.deletes.count == 1 }
    #expect(after.depairs == 1, "one DEPAIR, after the accepted earlier account")
    // The locked sync, the newest earlier account (refused), the next (accepted), this user
    // again, and the sync.
    #expect(after.connections == 5)
    #expect(Set(after.deletes.map(\.sessionId)) == Set(manifest.recordings.map(\.sessionId)))
  }

  @Test("no earlier account matches the lock: exit 77 after at most 5 distinct accounts, no DEPAIR")
  func noAccountMatches() throws {
    let directory = try TemporaryDirectory("recover-none")
    let history = (1...7).map { "stranger-\($0)" }.joined(separator: ",")
    let emulator = try emulator(directory, history: history)
    defer { emulator.stop() }
    let result = try RecorderProcess.run(
      [
        "recover", "--serial", try emulator.manifest().serial, "--cloud", try emulator.cloud(),
        "--user-token-file", directory.file("user-token"), "--device", emulator.url,
      ] + emulator.keyOptions, in: directory, label: "recover")
    #expect(result.status == 77, "stdout: \(result.stdout) stderr: \(result.stderr)")
    #expect(result.stderr.contains("none of the 5 earlier accounts"), "\(result.stderr)")
    let after = try emulatorManifest(emulator) { $0.connections >= 5 }
    #expect(after.connections == 5)
    #expect(after.depairs == 0)
  }

  /// The manifest once `condition` holds (it is written a moment after what it reports).
  private func emulatorManifest(_ emulator: EmulatorProcess, when condition: (Manifest) -> Bool)
    throws -> Manifest
  {
    _ = waitUntil(timeout: .seconds(30)) { (try? emulator.manifest()).map(condition) ?? false }
    return try emulator.manifest()
  }
}
