import Foundation
import Testing

/// Issue 28 item 7 at the process level: the E2EE header's `counter` field (PROTOCOL.md §9,
/// role unknown) read both ways. The emulator stores the recordings with the field set and
/// the audio encrypted from block counter 0 or from the field (`--e2ee-counter-field`,
/// `--e2ee-counter-role`); `recorder sync --private-key` exports each decrypted.
extension ModeBProcessTests {
  @Test(
    "E2EE recordings whose counter field is 0, set but unused, or the starting block counter",
    arguments: [("0", "zero"), ("7", "zero"), ("7", "field")])
  func e2eeCounterReadings(_ field: String, _ role: String) throws {
    let directory = try TemporaryDirectory("e2ee-counter")
    let user = try Self.keyPair(in: directory, name: "user")
    let emulator = try EmulatorProcess(
      in: directory, token: Self.token, minutes: [0.25, 0.1], portVersion: 20,
      extra: [
        "--e2ee-public-key", user.publicKey, "--e2ee-counter-field", field,
        "--e2ee-counter-role", role,
      ])
    defer { emulator.stop() }
    let manifest = try emulator.manifest()
    let out = directory.file("out")
    let sync = try RecorderProcess.run(
      [
        "sync", "--out", out, "--format", "wav", "--json", "--device", emulator.url, "--token",
        Self.token, "--private-key", user.privateKey,
      ], in: directory, label: "sync")
    #expect(sync.status == 0, "\(sync.stderr)")
    try Self.expectDecryptedExports(sync.stdout, count: manifest.recordings.count)
  }
}
