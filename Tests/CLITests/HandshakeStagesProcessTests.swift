import Foundation
import Testing

/// Issue 28 item 1 at the process level: `recorder` against a device that takes the V0095's
/// one-stage HANDSHAKE and against one that answers the first stage with GET_SERIAL and waits
/// for the second (`recorder emulate --two-stage-handshake`), advertising its serial or by
/// name only.
extension ProcessTests {
  @Test(
    "ls, info and sync against one-stage and two-stage HANDSHAKE devices",
    arguments: [
      [], ["--two-stage-handshake"], ["--two-stage-handshake", "--advertising", "name-only"],
    ])
  func handshakeStages(_ extra: [String]) throws {
    let directory = try TemporaryDirectory("handshake-stages")
    let emulator = try EmulatorProcess(
      in: directory, token: Self.token, minutes: [0.25, 0.1], timeScale: 50, extra: extra)
    defer { emulator.stop() }
    let manifest = try emulator.manifest()
    let listed = try RecorderProcess.run(
      ["ls", "--json"] + emulator.device, in: directory, label: "ls")
    #expect(listed.status == 0, "\(listed.stderr)")
    #expect(try jsonArray(listed.stdout).count == 2)
    let info = try RecorderProcess.run(
      ["info", "--json"] + emulator.device, in: directory, label: "info")
    #expect(info.status == 0, "\(info.stderr)")
    #expect(try jsonObject(info.stdout)["serial"] as? String == manifest.serial)
    let out = directory.file("out")
    let synced = try RecorderProcess.run(
      ["sync", "--out", out, "--format", "wav", "--json"] + emulator.device, in: directory,
      label: "sync")
    #expect(synced.status == 0, "\(synced.stderr)")
    try expectSynced(manifest, out: out, format: "wav")
  }

  @Test("a second stage whose devToken the device refuses ends with the device's status, typed")
  func secondStageRefused() throws {
    let directory = try TemporaryDirectory("handshake-devtoken")
    let emulator = try EmulatorProcess(
      in: directory, token: Self.token, minutes: [0.1],
      extra: ["--two-stage-handshake", "--second-stage-dev-token", "0102030405060708"])
    defer { emulator.stop() }
    let result = try RecorderProcess.run(
      ["ls"] + emulator.device, in: directory, label: "ls-refused")
    #expect(result.status != 0)
    #expect(result.stderr.contains("status 4"), "\(result.stderr)")
  }
}
