import Foundation
import Testing

/// Issue 28 item 8 at the process level: `recorder unbind --device` (DEPAIR, the vendor's
/// `depair(clear: false)`) and `--clear-all-connections` (`depair(clear: true)`, "clear all
/// connections") against a device whose DEPAIR clear byte erases every recording and one
/// where it only forgets connections (`recorder emulate --depair-clear`). Recordings survive
/// every path.
extension ProcessTests {
  @Test(
    "unbind never erases recordings, whatever DEPAIR's clear byte means to the device",
    arguments: ["erases-recordings", "connections"])
  func depairNeverErases(_ meaning: String) throws {
    let directory = try TemporaryDirectory("depair")
    let tokenFile = directory.file("user-token")
    let emulator = try EmulatorProcess(
      in: directory, token: "partneruser1", minutes: [0.1, 0.05], timeScale: 20,
      extra: ["--cloud", "--cloud-token-file", tokenFile, "--depair-clear", meaning])
    defer { emulator.stop() }
    let cloud = ["--cloud", try emulator.cloud(), "--user-token-file", tokenFile]
    let device = ["--device", emulator.url]
    func listed() throws -> Int {
      let result = try RecorderProcess.run(
        ["ls", "--json"] + emulator.device, in: directory, label: "ls")
      #expect(result.status == 0, "\(result.stderr)")
      return try jsonArray(result.stdout).count
    }

    // Clearing all connections while the device holds recordings: refused, nothing sent.
    let refused = try RecorderProcess.run(
      ["unbind", "--clear-all-connections"] + device + cloud, in: directory, label: "refused")
    #expect(refused.status == 75, "\(refused.stderr)")
    #expect(refused.stderr.contains("still holds 2 recordings"), "\(refused.stderr)")
    #expect(try listed() == 2)

    // A plain DEPAIR: the recordings stay.
    let plain = try RecorderProcess.run(["unbind"] + device + cloud, in: directory, label: "plain")
    #expect(plain.status == 0, "\(plain.stderr)")
    #expect(try listed() == 2)
    // The manifest follows the device's counters (written when they change): its first
    // DEPAIR is the plain one, so the refused call sent none.
    #expect(waitUntil(timeout: .seconds(30)) { (try? emulator.manifest().depairs) ?? 0 >= 1 })
    #expect(try emulator.manifest().depairs == 1)
    #expect(try emulator.manifest().depairsClearing == 0)

    // Synced off the device, then cleared: the clear byte goes out.
    let out = directory.file("out")
    let sync = try RecorderProcess.run(
      ["sync", "--out", out, "--format", "wav"] + emulator.device, in: directory, label: "sync")
    #expect(sync.status == 0, "\(sync.stderr)")
    let cleared = try RecorderProcess.run(
      ["unbind", "--clear-all-connections"] + device + cloud, in: directory, label: "cleared")
    #expect(cleared.status == 0, "\(cleared.stderr)")
    #expect(
      waitUntil(timeout: .seconds(30)) { (try? emulator.manifest().depairsClearing) == 1 })
    #expect(try emulator.manifest().depairs == 2)
    #expect(try listed() == 0)
  }
}
