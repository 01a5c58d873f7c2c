import Foundation
import Testing

/// Issue 28 item 2 at the process level: a device whose HANDSHAKE says `oggAudio = 1` and
/// whose recordings are Ogg-wrapped (`recorder emulate --ogg-audio`), beside the raw one.
extension ProcessTests {
  @Test(
    "ls, sync over BLE and sync over Wi-Fi against raw and Ogg-wrapped recordings",
    arguments: [false, true])
  func syncOggAudio(_ ogg: Bool) throws {
    for wifi in [false, true] {
      let directory = try TemporaryDirectory(ogg ? "ogg-audio" : "raw-audio")
      let emulator = try EmulatorProcess(
        in: directory, token: Self.token, minutes: [0.5, 0.25, 0.1], timeScale: 50,
        extra: ogg ? ["--ogg-audio"] : [])
      defer { emulator.stop() }
      let manifest = try emulator.manifest()

      let listed = try RecorderProcess.run(
        ["ls", "--json"] + emulator.device, in: directory, label: "ls")
      #expect(listed.status == 0, "\(listed.stderr)")
      let durations = try jsonArray(listed.stdout).map { int64($0["durationMs"]) ?? 0 }
      // 30 s, 15 s, 6 s: exact for raw audio, an estimate within 1 % for Ogg.
      #expect(durations.count == 3)
      for (duration, expected) in zip(durations, [30_000, 15_000, 6_000] as [Int64]) {
        #expect(abs(duration - expected) <= expected / 100, "\(durations)")
      }

      let out = directory.file("out")
      let result =
        wifi
        ? try syncWiFiToTheEnd(emulator, out: out, in: directory, label: "sync-wifi")
        : try RecorderProcess.run(
          ["sync", "--out", out, "--format", "opus", "--json"] + emulator.device,
          in: directory, label: "sync")
      #expect(result.status == 0, "\(result.stderr)")
      let files = try jsonArray(result.stdout)
      #expect(files.map { int64($0["sessionId"]) } == manifest.recordings.map(\.sessionId))
      for file in files {
        #expect(file["verified"] as? Bool == true, "\(file)")
        #expect(file["deletedFromDevice"] as? Bool == true, "\(file)")
        #expect(file["transport"] as? String == (wifi ? "wifi" : "ble"), "\(file)")
      }
      // Exact durations, from the synced files' pages for Ogg.
      #expect(files.map { int64($0["durationMs"]) } == [30_000, 15_000, 6_000], "\(files)")
      try expectSynced(manifest, out: out, format: "opus")
      for recording in manifest.recordings {
        let raw = out + "/\(manifest.serial)/\(recording.sessionId).opus-raw"
        let magic = try Data(contentsOf: URL(fileURLWithPath: raw)).prefix(4)
        #expect((magic == Data("OggS".utf8)) == ogg, "the device's own bytes are kept")
      }
    }
  }
}

extension ProcessTests {
  @Test("an Ogg transfer cut mid-page resumes from the last whole page and completes")
  func oggResumesAtAPageBoundary() throws {
    let directory = try TemporaryDirectory("ogg-drop")
    // 6 s of audio is six pages of about 4 KiB after the two header pages: 10 000 bytes cut
    // inside the third audio page.
    let emulator = try EmulatorProcess(
      in: directory, token: Self.token, minutes: [0.1], timeScale: 50,
      extra: ["--ogg-audio", "--drop-at-byte", "10000"])
    defer { emulator.stop() }
    let manifest = try emulator.manifest()
    let out = directory.file("out")
    let result = try RecorderProcess.run(
      ["sync", "--out", out, "--format", "opus", "--json"] + emulator.device, in: directory,
      label: "sync-ogg-drop")
    #expect(result.status == 0, "\(result.stderr)")
    let files = try jsonArray(result.stdout)
    #expect(files.first?["verified"] as? Bool == true, "\(files)")
    #expect(files.map { int64($0["durationMs"]) } == [6_000], "\(files)")
    try expectSynced(manifest, out: out, format: "opus")
    #expect(try emulator.manifest().connections >= 2, "the link was dropped and reconnected")
  }
}
