import Foundation
import RecorderAudio
import RecorderEmulator
import Testing

/// `recorder export` end to end: a generated device recording through the real binary.
@Suite("recorder export", .blockingWaits)
struct ExportCommandTests {
  static func folder() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "recorder-export-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  static func recording(in folder: URL, frames: Int = 100, channels: Int = 1) throws -> URL {
    let url = folder.appendingPathComponent("1775393534.opus-raw")
    try DeviceRecordingWriter.writeSpeech(
      toPath: url.path, format: try DeviceAudioFormat(channels: channels), frameCount: frames,
      seed: 9)
    return url
  }

  @Test("export --format wav writes FILE.wav next to the input")
  func wavNextToInput() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let input = try Self.recording(in: folder)
    let result = try RecorderTool.run(["export", input.path, "--format", "wav"])
    #expect(result.status == 0, "\(result.stderr)")
    let output = folder.appendingPathComponent("1775393534.wav")
    let size = try FileManager.default.attributesOfItem(atPath: output.path)[.size] as? Int
    #expect(size == 44 + 100 * 320 * 2)
    #expect(result.stdout.contains("1775393534.wav"))
  }

  @Test("--json --channels 2 --out reports the export")
  func jsonStereoOut() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let input = try Self.recording(in: folder, frames: 50)
    let out = folder.appendingPathComponent("x.mp3").path
    let result = try RecorderTool.run(
      ["export", input.path, "--format", "mp3", "--channels", "2", "--out", out, "--json"])
    #expect(result.status == 0, "\(result.stderr)")
    let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
    #expect(object?["channels"] as? Int == 2)
    #expect(object?["frames"] as? Int == 50)
    #expect(object?["durationMs"] as? Int == 1_000)
    #expect(FileManager.default.fileExists(atPath: out))
  }

  @Test("a frame with a foreign TOC exits 65 naming its offset, leaving no output")
  func malformedExits65() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let input = try Self.recording(in: folder, frames: 20)
    var bytes = try Data(contentsOf: input)
    bytes[7 * 80] = 0x78
    try bytes.write(to: input)
    let out = folder.appendingPathComponent("bad.opus").path
    let result = try RecorderTool.run(["export", input.path, "--format", "opus", "--out", out])
    #expect(result.status == 65)
    #expect(result.stderr.contains("byte 560"), "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: out))
  }

  @Test("missing input exits 74; a bad --format or --channels exits 64")
  func exitCodes() throws {
    #expect(try RecorderTool.run(["export", "/nonexistent/r.raw", "--format", "wav"]).status == 74)
    #expect(try RecorderTool.run(["export", "/tmp/r.raw", "--format", "flac"]).status == 64)
    #expect(
      try RecorderTool.run(["export", "/tmp/r.raw", "--format", "wav", "--channels", "3"]).status
        == 64)
    #expect(try RecorderTool.run(["export", "--format", "wav"]).status == 64)
  }
}
