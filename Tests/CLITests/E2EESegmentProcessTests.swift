import Foundation
import RecorderAudio
import RecorderEmulator
import RecorderProtocol
import Testing

/// Issue 43 item 1 at the process level: `recorder sync --private-key` against
/// `recorder emulate --port-version 20 --e2ee-public-key` (a NotePin S: E2EE files whose
/// ChaCha20 keystream restarts every `segment` bytes, PROTOCOL.md §9). Each exported WAV is
/// compared, sample for sample over its whole length, with libopus's decode of the frames
/// the emulator recorded (made here by an in-process emulator of the same seed, which
/// writes the same audio for the same session id).
@Suite("E2EE segments at process level", .serialized, .blockingWaits)
struct E2EESegmentProcessTests {
  static let token = ModeBProcessTests.token

  /// The plaintext decode of `sessionId`'s `frames` frames, as `recorder emulate --seed 1`
  /// records them, compared with the WAV at `wav`: the first differing sample, nil if equal.
  static func firstMismatch(wav: String, sessionId: Int64, frames: Int) async throws -> Int? {
    let flash = FileManager.default.temporaryDirectory.appendingPathComponent(
      "e2ee-plain-\(UUID().uuidString)"
    ).path
    defer { try? FileManager.default.removeItem(atPath: flash) }
    let device = try EmulatedDevice(
      configuration: DeviceConfiguration(seed: 1), flashDirectory: flash,
      time: .manual(ManualClock()))
    let handle = try #require(FileHandle(forReadingAtPath: wav))
    defer { try? handle.close() }
    #expect(try handle.read(upToCount: 44)?.count == 44)
    let decoder = try DeviceOpusDecoder(channels: 1)
    let plain = try await device.plainFrames(
      of: SessionID(UInt32(sessionId)), first: 0, count: frames)
    var sample = 0
    for frame in 0..<frames {
      let expected = try decoder.decode(Array(plain[frame * 80..<(frame + 1) * 80]))
      let data = try handle.read(upToCount: expected.count * 2) ?? Data()
      let got = data.withUnsafeBytes { raw in
        (0..<data.count / 2).map {
          Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self))
        }
      }
      if got != expected { return sample }
      sample += expected.count
    }
    return (try handle.read(upToCount: 1) ?? Data()).isEmpty ? nil : sample
  }

  @Test(
    "sync exports each E2EE recording equal to the decode of its plaintext, whatever the layout",
    arguments: [
      [String](),  // the NotePin S default: 4 KiB segments, counter 0
      ["--e2ee-segment", "0"],  // one continuous stream
      ["--e2ee-counter-field", "7", "--e2ee-counter-role", "field"],
      ["--e2ee-counter-field", "7", "--e2ee-counter-role", "zero", "--e2ee-segment", "1000"],
    ])
  func segmentedRecordingsExport(_ layout: [String]) async throws {
    let directory = try TemporaryDirectory("e2ee-segment")
    let user = try ModeBProcessTests.keyPair(in: directory, name: "user")
    // 2 minutes: 480 000 bytes of audio, 117 segments of 4 KiB.
    let emulator = try EmulatorProcess(
      in: directory, token: Self.token, minutes: [2, 0.3], portVersion: 20,
      extra: ["--e2ee-public-key", user.publicKey] + layout)
    defer { emulator.stop() }
    let manifest = try emulator.manifest()
    let sync = try RecorderProcess.run(
      [
        "sync", "--out", directory.file("out"), "--format", "wav", "--json", "--device",
        emulator.url, "--token", Self.token, "--private-key", user.privateKey,
      ], in: directory, label: "sync")
    #expect(sync.status == 0, "\(layout): \(sync.stderr)")
    let files = try jsonArray(sync.stdout)
    #expect(files.count == manifest.recordings.count)
    for file in files {
      let sessionId = try #require(int64(file["sessionId"]))
      let size = try #require(int64(file["size"]))
      let frames = Int(size - 512) / 80
      #expect(int64(file["durationMs"]) == Int64(frames * 20))
      let wav = try #require(file["exportPath"] as? String, "\(layout): \(file)")
      let mismatch = try await Self.firstMismatch(wav: wav, sessionId: sessionId, frames: frames)
      #expect(mismatch == nil, "\(layout), \(sessionId): first differing sample \(mismatch ?? -1)")
    }
  }

  /// Issue 43 item 2: Mode B files (PROTOCOL.md §5): `ls` durations leave the 512-byte
  /// header out; the container (raw, or Ogg as a Note Pro's may be) is judged from the
  /// content whatever the HANDSHAKE's `oggAudio` flag says.
  @Test(
    "Mode B layouts: ls leaves the header out; raw or Ogg content syncs whatever the flag says",
    arguments: [
      [],  // raw frames, as a NotePin S's
      ["--ogg-audio-flag", "1"],  // raw frames, the flag says Ogg
      ["--ogg-audio", "--ogg-audio-flag", "0"],  // Ogg pages, the flag says raw
      ["--ogg-audio"],  // Ogg pages, the flag says so
    ])
  func modeBLayouts(_ container: [String]) async throws {
    let directory = try TemporaryDirectory("e2ee-layout")
    let user = try ModeBProcessTests.keyPair(in: directory, name: "user")
    let emulator = try EmulatorProcess(
      in: directory, token: Self.token, minutes: [0.5], portVersion: 20,
      extra: ["--e2ee-public-key", user.publicKey] + container)
    defer { emulator.stop() }
    let device = [
      "--device", emulator.url, "--token", Self.token, "--private-key", user.privateKey,
    ]
    let frames = 1_500
    let ls = try RecorderProcess.run(["ls", "--json"] + device, in: directory, label: "ls")
    #expect(ls.status == 0, "\(container): \(ls.stderr)")
    if container.isEmpty {
      // Raw frames (and a flag that says so: `ls` reads no content, the flag is its only
      // guess of the container): the size gives the duration once the header is left out.
      #expect(try jsonArray(ls.stdout).map { int64($0["durationMs"]) } == [Int64(frames * 20)])
    }
    let sync = try RecorderProcess.run(
      ["sync", "--out", directory.file("out"), "--format", "wav", "--json"] + device,
      in: directory, label: "sync")
    #expect(sync.status == 0, "\(container): \(sync.stderr)")
    let files = try jsonArray(sync.stdout)
    #expect(files.count == 1)
    for file in files {
      #expect(int64(file["durationMs"]) == Int64(frames * 20), "\(container)")
      let wav = try #require(file["exportPath"] as? String, "\(container): \(file)")
      let sessionId = try #require(int64(file["sessionId"]))
      let mismatch = try await Self.firstMismatch(wav: wav, sessionId: sessionId, frames: frames)
      #expect(mismatch == nil, "\(container): first differing sample \(mismatch ?? -1)")
    }
  }

  @Test(
    "an E2EE recording whose key does not unwrap is given up (exit 3, kept); the rest export")
  func unreadableRecordingGivenUp() async throws {
    let directory = try TemporaryDirectory("e2ee-given-up")
    let user = try ModeBProcessTests.keyPair(in: directory, name: "user")
    let emulator = try EmulatorProcess(
      in: directory, token: Self.token, minutes: [0.3, 0.2, 0.25], portVersion: 20,
      extra: ["--e2ee-public-key", user.publicKey, "--damage", "1:e2ee-key-cipher"])
    defer { emulator.stop() }
    let manifest = try emulator.manifest()
    let damaged = manifest.recordings.sorted { $0.sessionId < $1.sessionId }[1].sessionId
    let device = [
      "--device", emulator.url, "--token", Self.token, "--private-key", user.privateKey,
    ]
    let sync = try RecorderProcess.run(
      ["sync", "--out", directory.file("out"), "--format", "wav", "--json"] + device,
      in: directory, label: "sync")
    #expect(sync.status == 3, "\(sync.stderr)")
    let files = try jsonArray(sync.stdout)
    let givenUp = files.filter { $0["givenUp"] is String }
    #expect(givenUp.map { int64($0["sessionId"]) } == [damaged])
    #expect((givenUp.first?["givenUp"] as? String)?.contains("another user") == true)
    let exported = files.filter { !($0["givenUp"] is String) }
    #expect(exported.count == manifest.recordings.count - 1, "\(sync.stdout)")
    for file in exported {
      let sessionId = try #require(int64(file["sessionId"]))
      let frames = Int(try #require(int64(file["size"])) - 512) / 80
      let wav = try #require(file["exportPath"] as? String)
      let mismatch = try await Self.firstMismatch(wav: wav, sessionId: sessionId, frames: frames)
      #expect(mismatch == nil, "\(sessionId): first differing sample \(mismatch ?? -1)")
    }
    // The unreadable one is still on the device; the others were deleted.
    let after = try emulator.manifest()
    #expect(!after.deletes.contains { $0.sessionId == damaged })
    #expect(Set(after.deletes.map(\.sessionId)).count == manifest.recordings.count - 1)

    // A device that encrypts to one user but enrolls another at its first connection (the
    // key store's own key): no recording's key unwraps with the session's; every one is
    // given up, none deleted, exit 3.
    let fresh = try TemporaryDirectory("e2ee-other-user")
    let foreign = try EmulatorProcess(
      in: fresh, token: Self.token, minutes: [0.2, 0.1], portVersion: 20,
      extra: ["--e2ee-public-key", user.publicKey])
    defer { foreign.stop() }
    let other = try RecorderProcess.run(
      ["sync", "--out", fresh.file("out"), "--format", "wav", "--json"] + foreign.device,
      in: fresh, label: "sync-other-key")
    #expect(other.status == 3, "\(other.stderr)")
    let otherFiles = try jsonArray(other.stdout)
    #expect(otherFiles.count == 2 && otherFiles.allSatisfy { $0["givenUp"] is String })
    #expect(try foreign.manifest().deletes.isEmpty)
  }
}
