import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Issue 12 ("nothing lost to a hostile device, a hostile network or a confused disk") at the
/// process level: `recorder sync` against `recorder emulate` in another process.
extension ProcessTests {
  // MARK: - Exports per format

  @Test("a wav sync after an mp3 sync of kept recordings writes the wav exports too")
  func anotherFormatIsExported() throws {
    let directory = try TemporaryDirectory("formats")
    let emulator = try EmulatorProcess(in: directory, token: Self.token, minutes: [0.25, 0.25])
    defer { emulator.stop() }
    let manifest = try emulator.manifest()
    let out = directory.file("out")
    let sync = ["sync", "--out", out, "--keep-on-device", "--json"] + emulator.device

    let mp3 = try RecorderProcess.run(
      sync + ["--format", "mp3"], in: directory, label: "sync-mp3")
    #expect(mp3.status == 0, "\(mp3.stderr)")
    let wav = try RecorderProcess.run(
      sync + ["--format", "wav"], in: directory, label: "sync-wav")
    #expect(wav.status == 0, "\(wav.stderr)")
    let files = try jsonArray(wav.stdout)
    #expect(files.count == 2)
    #expect(files.allSatisfy { ($0["exportPath"] as? String)?.hasSuffix(".wav") == true })

    let names = manifest.recordings.flatMap { recording in
      ["mp3", "wav"].map { "\(manifest.serial)-\(recording.sessionId).\($0)" }
    }
    let exports = try FileManager.default.contentsOfDirectory(atPath: out + "/exports")
    #expect(exports.sorted() == names.sorted())
    for name in names {
      let size =
        (try? FileManager.default.attributesOfItem(atPath: out + "/exports/" + name)[.size]
        as? NSNumber)?.intValue ?? 0
      #expect(size > 0, "\(name) is empty")
    }
  }

  // MARK: - Journal paths

  @Test("the same --out, relative from one directory and absolute from another, syncs on")
  func outFromTwoWorkingDirectories() throws {
    let directory = try TemporaryDirectory("cwd")
    let emulator = try EmulatorProcess(in: directory, token: Self.token, minutes: [0.25, 0.25])
    defer { emulator.stop() }
    let manifest = try emulator.manifest()
    let elsewhere = directory.file("elsewhere")
    try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)

    // Raw copies only, kept on the device: the journal now holds their paths.
    let first = try RecorderProcess.run(
      ["sync", "--out", "out", "--format", "raw", "--keep-on-device"] + emulator.device,
      in: directory, label: "sync-relative", workingDirectory: directory.path)
    #expect(first.status == 0, "\(first.stderr)")
    // From another directory, the same folder by its absolute path: export from the journal's
    // raw copies, then delete.
    let second = try RecorderProcess.run(
      ["sync", "--out", directory.file("out"), "--format", "wav", "--attempts", "1"]
        + emulator.device, in: directory, label: "sync-absolute", workingDirectory: elsewhere)
    #expect(second.status == 0, "\(second.stderr)")
    try expectSynced(manifest, out: directory.file("out"), format: "wav")
    let rawPaths = try journalColumn(directory.file("out/journal.sqlite"), "raw_path")
    for recording in manifest.recordings {
      #expect(rawPaths[recording.sessionId] == "\(manifest.serial)/\(recording.sessionId).opus-raw")
    }
  }
}
