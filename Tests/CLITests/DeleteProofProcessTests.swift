import Foundation
import TestSupport
import Testing

/// `recorder sync` against `recorder emulate`: a DELETE only for bytes the run proved to be
/// the device's copy, a recording the journal cannot account for synced as a new one, and a
/// damaged recording given up for the run while the rest are synced.
@Suite(
  "recorder sync: proof before delete, reused ids, damaged recordings", .serialized, .blockingWaits)
struct DeleteProofProcessTests {
  static let token = "feedfacecafebeef0123456789abcdef"
  /// Two recordings at fixed ids, so two emulators with other seeds list the same ids and
  /// sizes with other audio.
  static let ids = ["--session-ids", "1775000000,1775000100"]
  static let minutes: [Double] = [0.25, 0.2]

  /// An emulator with the two fixed recordings, its audio from `seed`, in its own folder.
  private func emulator(seed: UInt64, _ name: String, extra: [String] = []) throws
    -> (EmulatorProcess, TemporaryDirectory)
  {
    let directory = try TemporaryDirectory(name)
    let emulator = try EmulatorProcess(
      in: directory, token: Self.token, minutes: Self.minutes, seed: seed, extra: Self.ids + extra)
    return (emulator, directory)
  }

  /// The emulator's manifest once `condition` holds of it (it is written a moment after
  /// what it reports), or as it is after 30 s.
  private func manifest(_ emulator: EmulatorProcess, when condition: (Manifest) -> Bool) throws
    -> Manifest
  {
    _ = waitUntil(timeout: .seconds(30)) { (try? emulator.manifest()).map(condition) ?? false }
    return try emulator.manifest()
  }

  private func sync(
    _ out: String, _ emulator: EmulatorProcess, in directory: TemporaryDirectory,
    _ extra: [String] = [], label: String
  ) throws -> (status: Int32?, stdout: String, stderr: String) {
    try RecorderProcess.run(
      ["sync", "--out", out, "--format", "wav", "--json"] + extra + emulator.device,
      in: directory, label: label, timeout: .seconds(120))
  }

  @Test(
    "same id and size, other audio after --keep-on-device: transferred, both kept, DELETE only after"
  )
  func collisionAfterKeepIsTransferred() throws {
    let work = try TemporaryDirectory("collision")
    let out = work.file("out")
    let (first, firstDirectory) = try emulator(seed: 1, "collision-a")
    let kept = try sync(out, first, in: firstDirectory, ["--keep-on-device"], label: "keep")
    let firstRecordings = try first.manifest().recordings
    first.stop()
    #expect(kept.status == 0, "\(kept.stderr)")

    let (second, secondDirectory) = try emulator(seed: 2, "collision-b")
    defer { second.stop() }
    let manifest = try second.manifest()
    let firstDigests = firstRecordings.map(\.sha256)
    #expect(manifest.recordings.map(\.size) == firstRecordings.map(\.size))
    #expect(
      manifest.recordings.map(\.sha256) != firstDigests, "the second device holds other audio")

    let result = try sync(out, second, in: secondDirectory, label: "sync")
    #expect(result.status == 0, "\(result.stderr)")
    let after = try self.manifest(second) { $0.deletes.count == 2 }
    // Every byte of the new audio crossed the link before its DELETE.
    #expect(after.dataBytesSent >= manifest.recordings.reduce(0) { $0 + $1.size })
    #expect(Set(after.deletes.map(\.sessionId)) == Set(manifest.recordings.map(\.sessionId)))
    // Both recordings of each id are kept: the raw copies hold both devices' bytes.
    let raws = try FileManager.default.contentsOfDirectory(atPath: out + "/" + manifest.serial)
      .filter { $0.hasSuffix(".opus-raw") }
    let digests = try Set(raws.map { try sha256(ofFile: out + "/" + manifest.serial + "/" + $0) })
    #expect(digests == Set(firstDigests + manifest.recordings.map(\.sha256)))
    let exports = try FileManager.default.contentsOfDirectory(atPath: out + "/exports").sorted()
    #expect(exports.count == 4, "\(exports)")
    let files = try jsonArray(result.stdout)
    #expect(files.count == 4, "both generations of both ids are reported: \(result.stdout)")
  }

  @Test("the same audio held from an earlier run is proven by re-reading windows, then deleted")
  func sameAudioHeldIsProvenThenDeleted() throws {
    let work = try TemporaryDirectory("proven")
    let out = work.file("out")
    let (device, directory) = try emulator(seed: 1, "proven-a")
    defer { device.stop() }
    let kept = try sync(out, device, in: directory, ["--keep-on-device"], label: "keep")
    #expect(kept.status == 0, "\(kept.stderr)")
    // The manifest's counters are written as a connection starts: a listing makes one.
    let listing = try RecorderProcess.run(["ls"] + device.device, in: directory, label: "ls")
    #expect(listing.status == 0, "\(listing.stderr)")
    let sentBefore = try manifest(device) { $0.connections >= 2 }.dataBytesSent
    #expect(sentBefore >= 108_000, "the first sync's bytes are counted")
    let result = try sync(out, device, in: directory, label: "sync")
    #expect(result.status == 0, "\(result.stderr)")
    let after = try manifest(device) { $0.deletes.count == 2 }
    #expect(after.deletes.count == 2)
    // Windows, not the recordings again: at most three 1,280-byte windows each.
    #expect(after.dataBytesSent - sentBefore <= 2 * 3 * 1_280 + 2 * 90)
    #expect(after.dataBytesSent - sentBefore > 0, "the held copies were checked against the device")
    #expect(try FileManager.default.contentsOfDirectory(atPath: out + "/exports").count == 2)
  }

  @Test(
    "an id deleted earlier and listed again with other audio is a new recording: synced under its own name"
  )
  func relistedAfterDeleteIsNew() throws {
    let work = try TemporaryDirectory("relisted")
    let out = work.file("out")
    let (first, firstDirectory) = try emulator(seed: 1, "relisted-a")
    let synced = try sync(out, first, in: firstDirectory, label: "first")
    #expect(synced.status == 0, "\(synced.stderr)")
    #expect(try manifest(first) { $0.deletes.count == 2 }.deletes.count == 2)
    first.stop()

    let (second, secondDirectory) = try emulator(seed: 3, "relisted-b")
    defer { second.stop() }
    let result = try sync(out, second, in: secondDirectory, label: "second")
    #expect(result.status == 0, "\(result.stderr)")
    let manifest = try self.manifest(second) { $0.deletes.count == 2 }
    #expect(manifest.dataBytesSent >= manifest.recordings.reduce(0) { $0 + $1.size })
    #expect(manifest.deletes.count == 2)
    let files = try jsonArray(result.stdout)
    let newOnes = files.filter { int64($0["generation"]) == 1 }
    #expect(newOnes.count == 2, "\(result.stdout)")
    #expect(newOnes.allSatisfy { ($0["exportPath"] as? String)?.hasSuffix("-2.wav") == true })
    #expect(files.filter { int64($0["generation"]) == 0 }.count == 2, "the old ones are reported")
    #expect(try FileManager.default.contentsOfDirectory(atPath: out + "/exports").count == 4)
  }

  // MARK: - One damaged recording does not stop the device

  @Test(
    "one damaged recording among five: the other four are synced, exit 3, --json says why",
    arguments: [
      (kind: "bad-frame", ogg: false), (kind: "zeros-4g", ogg: false),
      (kind: "ogg-page-crc", ogg: true), (kind: "ogg-lacing-64k", ogg: true),
      (kind: "ogg-page-cut", ogg: true),
    ])
  func damagedRecordingIsGivenUp(kind: String, ogg: Bool) throws {
    let directory = try TemporaryDirectory("damaged-\(kind)")
    let emulator = try EmulatorProcess(
      in: directory, token: Self.token, minutes: [0.25, 0.2, 0.2, 0.15, 0.1],
      extra: ["--damage", "0:\(kind)"] + (ogg ? ["--ogg-audio"] : []))
    defer { emulator.stop() }
    let manifest = try emulator.manifest()
    let bad = manifest.recordings[0].sessionId
    let result = try RecorderProcess.run(
      ["sync", "--out", directory.file("out"), "--format", "wav", "--json"] + emulator.device,
      in: directory, label: "sync", timeout: .seconds(120))
    #expect(result.status == 3, "stdout: \(result.stdout) stderr: \(result.stderr)")
    let files = try jsonArray(result.stdout)
    let synced = files.filter { $0["givenUp"] is NSNull }
    #expect(
      Set(synced.compactMap { int64($0["sessionId"]) })
        == Set(manifest.recordings.dropFirst().map(\.sessionId)))
    #expect(synced.allSatisfy { $0["deletedFromDevice"] as? Bool == true })
    let givenUp = files.filter { $0["givenUp"] is String }
    #expect(givenUp.compactMap { int64($0["sessionId"]) } == [bad], "\(result.stdout)")
    let deletes = try self.manifest(emulator) { $0.deletes.count >= 4 }.deletes.map(\.sessionId)
    #expect(!deletes.contains(bad), "the damaged recording stays on the device")
    #expect(Set(deletes) == Set(manifest.recordings.dropFirst().map(\.sessionId)))
    let reasons = try journalColumn(directory.file("out/journal.sqlite"), "give_up_reason")
    #expect(reasons[bad]?.isEmpty == false, "the reason is journalled")
  }

  @Test("--watch syncs around a damaged recording every round and tries it in 3 runs at most")
  func watchGivesUpTheDamagedOneThreeTimes() throws {
    let directory = try TemporaryDirectory("damaged-watch")
    let emulator = try EmulatorProcess(
      in: directory, token: Self.token, minutes: [0.2, 0.15, 0.1],
      extra: ["--damage", "1:bad-frame"])
    defer { emulator.stop() }
    let manifest = try emulator.manifest()
    let bad = manifest.recordings[1].sessionId
    let out = directory.file("out")
    let result = try RecorderProcess.run(
      [
        "sync", "--out", out, "--format", "wav", "--json", "--watch", "--watch-pause", "0",
        "--watch-runs", "5",
      ] + emulator.device, in: directory, label: "watch", timeout: .seconds(240))
    #expect(result.status == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
    let rounds = result.stdout.split(separator: "\n").map(String.init)
    #expect(rounds.count == 5, "\(result.stdout)")
    // Every round reports it given up; the first three tried it, the last two did not.
    let tried = try rounds.map { round in
      try jsonArray(round).first { int64($0["sessionId"]) == bad }?["tried"] as? Bool
    }
    #expect(tried == [true, true, true, false, false], "\(result.stdout)")
    #expect(try journalColumn(out + "/journal.sqlite", "give_ups")[bad] == "3")
    let deletes = try self.manifest(emulator) { $0.deletes.count >= 2 }.deletes.map(\.sessionId)
    #expect(Set(deletes) == Set(manifest.recordings.map(\.sessionId)).subtracting([bad]))
  }
}
