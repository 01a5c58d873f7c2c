import Foundation
import Testing

/// Issue 28 item 7 at the process level: a 2-channel device's 160 bytes per 20 ms read both
/// ways (PROTOCOL.md §5, "80 bytes per frame per channel"): two mono packets `B8 … B8 …` or
/// one stereo packet `BC …` (`recorder emulate --channels 2 --stereo-layout`). `recorder ls`
/// and `recorder sync` must take either, verified, deleted, exported with the right sizes.
extension ProcessTests {
  @Test(
    "ls and sync (wav, opus; BLE, Wi-Fi) of a 2-channel device with two mono packets or one stereo packet",
    arguments: ["two-mono", "stereo-packet"])
  func stereoLayouts(_ layout: String) throws {
    for (format, wifi) in [("wav", false), ("opus", false), ("opus", true)] {
      let directory = try TemporaryDirectory("stereo-\(layout)-\(format)\(wifi ? "-wifi" : "")")
      let emulator = try EmulatorProcess(
        in: directory, token: Self.token, minutes: [0.25, 0.1], timeScale: 50,
        extra: ["--channels", "2", "--stereo-layout", layout])
      defer { emulator.stop() }
      let manifest = try emulator.manifest()

      let listed = try RecorderProcess.run(
        ["ls", "--json"] + emulator.device, in: directory, label: "ls")
      #expect(listed.status == 0, "\(listed.stderr)")
      let durations = try jsonArray(listed.stdout).map { int64($0["durationMs"]) ?? 0 }
      // 160 bytes per 20 ms whichever the layout: 15 s and 6 s.
      #expect(durations == [15_000, 6_000], "\(durations)")

      let out = directory.file("out")
      let sync =
        wifi
        ? try syncWiFiToTheEnd(emulator, out: out, in: directory, label: "sync-wifi")
        : try RecorderProcess.run(
          ["sync", "--out", out, "--format", format, "--json"] + emulator.device, in: directory,
          label: "sync-\(format)")
      #expect(sync.status == 0, "\(sync.stderr)")
      let files = try jsonArray(sync.stdout)
      #expect(files.map { int64($0["sessionId"]) } == manifest.recordings.map(\.sessionId))
      for file in files {
        #expect(file["verified"] as? Bool == true, "\(file)")
        #expect(file["deletedFromDevice"] as? Bool == true, "\(file)")
        #expect(file["transport"] as? String == (wifi ? "wifi" : "ble"), "\(file)")
        let export = try #require(file["exportPath"] as? String)
        let frames = Int(int64(file["size"]) ?? 0) / 160
        #expect(frames > 0)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: export)))
        if format == "wav" {
          // 320 samples × 2 channels × 2 bytes per frame.
          #expect(bytes.count == 44 + frames * 1280, "\(export)")
          #expect(bytes[22] == 2, "a 2-channel WAV")
        } else {
          // OpusHead alone in the first page (27-byte header, 1 lacing byte): 2 channels,
          // family 0 for one stereo packet, family 1 (two mono streams) for two packets.
          #expect(bytes[28..<36] == ArraySlice(Array("OpusHead".utf8)), "\(export)")
          #expect(bytes[37] == 2)
          #expect(bytes[46] == (layout == "stereo-packet" ? 0 : 1), "mapping family")
          // The audio is passed through: at least the raw bytes, at most raw + Ogg framing.
          #expect(bytes.count > frames * 160 && bytes.count < frames * 170, "\(bytes.count)")
        }
      }
      try expectSynced(manifest, out: out, format: format)
      for recording in manifest.recordings {
        let raw = out + "/\(manifest.serial)/\(recording.sessionId).opus-raw"
        let first = try Data(contentsOf: URL(fileURLWithPath: raw)).first
        #expect(first == (layout == "stereo-packet" ? 0xBC : 0xB8), "the device's own bytes")
      }
    }
  }
}

extension ProcessTests {
  /// The same two readings on a device that wraps its recordings in Ogg (`--ogg-audio`):
  /// two mono packets in a family-1 stream, one stereo packet in a family-0 stream.
  @Test(
    "sync of an Ogg-wrapped 2-channel device with two mono packets or one stereo packet",
    arguments: ["two-mono", "stereo-packet"])
  func oggStereoLayouts(_ layout: String) throws {
    let directory = try TemporaryDirectory("ogg-stereo-\(layout)")
    let emulator = try EmulatorProcess(
      in: directory, token: Self.token, minutes: [0.1], timeScale: 50,
      extra: ["--channels", "2", "--stereo-layout", layout, "--ogg-audio"])
    defer { emulator.stop() }
    let manifest = try emulator.manifest()
    let out = directory.file("out")
    let sync = try RecorderProcess.run(
      ["sync", "--out", out, "--format", "wav", "--json"] + emulator.device, in: directory,
      label: "sync-ogg")
    #expect(sync.status == 0, "\(sync.stderr)")
    let files = try jsonArray(sync.stdout)
    #expect(files.map { int64($0["durationMs"]) } == [6_000], "\(files)")
    for file in files {
      #expect(file["verified"] as? Bool == true, "\(file)")
      let export = try #require(file["exportPath"] as? String)
      let size = try FileManager.default.attributesOfItem(atPath: export)[.size] as? Int
      #expect(size == 44 + 300 * 1280, "\(export)")
    }
    try expectSynced(manifest, out: out, format: "wav")
    let raw = try [UInt8](
      Data(
        contentsOf: URL(
          fileURLWithPath: out + "/\(manifest.serial)/\(manifest.recordings[0].sessionId).opus-raw")
      ))
    #expect(raw[46] == (layout == "stereo-packet" ? 0 : 1), "the device's OpusHead family")
  }
}
