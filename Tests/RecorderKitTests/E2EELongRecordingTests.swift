import Foundation
import RecorderAudio
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import TestSupport
import Testing

/// Issue 43 item 1: an E2EE recording's keystream restarts every `segment` bytes
/// (PROTOCOL.md §9). A recording from a device that writes it that way (the emulator's
/// default, a NotePin S: portVersion 20, 4 KiB segments) syncs and exports, over its whole
/// length, to exactly what libopus makes of the frames the device recorded: the exported
/// WAV is compared sample for sample with a decode of the plaintext frames, streaming in
/// chunks (memory does not grow with the length).
@Suite("E2EE recordings over their whole length", .timeLimit(.minutes(10)))
struct E2EELongRecordingTests {
  /// Twenty minutes in `make test` (1 172 segments of 4 KiB, compared over the whole length:
  /// about 7 s alone); two hours under `RECORDER_TEST_SCALE=full` (32 s alone on two cores,
  /// but about 3 min inside the full suite, hence not the default); two minutes under
  /// `make tsan` (`small`), where every step is tens of times slower.
  static let seconds =
    switch ProcessInfo.processInfo.environment["RECORDER_TEST_SCALE"] {
    case "full": 7_200
    case "small": 120
    default: 1_200
    }

  @Test(
    "a long E2EE recording from a NotePin S-default device exports to the libopus decode of its frames"
  )
  func longRecordingMatchesPlaintextDecode() async throws {
    let key = try TestUserKey.key()
    var modeB = ModeBParameters(e2eeUserKey: try key.publicKey())
    modeB.e2eeCounterField = 0
    let bench = try SyncBench(seed: 0xE2E4_3, portVersion: 20, modeB: modeB)
    defer { bench.cleanUp() }
    let recording = try await bench.device.addRecording(duration: .seconds(Self.seconds))
    let frames = Self.seconds * 50
    #expect(recording.size == 512 + frames * 80)
    var options = SyncEngine.Options.fast
    options.format = .wav
    options.userKey = ModeBCredentials(userKey: key)
    let started = ContinuousClock.now
    let report = try await bench.syncOnce(try bench.makeEngine(options: options))
    let synced = ContinuousClock.now - started
    let file = try #require(report.files.first { $0.sessionId == recording.sessionId })
    #expect(file.durationMs == Self.seconds * 1000)
    let wav = try #require(file.exportPath)

    let compared = ContinuousClock.now
    let mismatch = try await Self.firstMismatch(
      wav: wav, frames: frames, device: bench.device, sessionId: recording.sessionId)
    #expect(mismatch == nil, "first differing sample: \(mismatch ?? -1)")
    print(
      "E2EE \(Self.seconds) s recording: sync + export \(synced), compare \(ContinuousClock.now - compared), "
        + "peak RSS \(Self.peakResidentMiB()) MiB")
  }

  /// The index of the first sample where the WAV at `wav` differs from libopus's decode of
  /// the device's plaintext frames (or where one of them ends early), nil when equal.
  static func firstMismatch(
    wav: String, frames: Int, device: EmulatedDevice, sessionId: SessionID
  ) async throws -> Int? {
    let handle = try #require(FileHandle(forReadingAtPath: wav))
    defer { try? handle.close() }
    let header = try #require(try handle.read(upToCount: 44))
    #expect(header.count == 44)
    let decoder = try DeviceOpusDecoder(channels: 1)
    let batch = 5_000
    var sample = 0
    var first = 0
    while first < frames {
      let count = min(batch, frames - first)
      let plain = try await device.plainFrames(of: sessionId, first: first, count: count)
      var expected: [Int16] = []
      expected.reserveCapacity(count * decoder.samplesPerFrame)
      for index in 0..<count {
        expected += try decoder.decode(Array(plain[index * 80..<(index + 1) * 80]))
      }
      let data = try handle.read(upToCount: expected.count * 2) ?? Data()
      let got = data.withUnsafeBytes { raw in
        (0..<data.count / 2).map {
          Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self))
        }
      }
      if got != expected {
        let index =
          zip(got, expected).enumerated().first { $1.0 != $1.1 }?.offset
          ?? min(got.count, expected.count)
        return sample + index
      }
      sample += expected.count
      first += count
    }
    let rest = try handle.read(upToCount: 1) ?? Data()
    return rest.isEmpty ? nil : sample
  }

  /// The process's peak resident set so far, MiB.
  static func peakResidentMiB() -> Int {
    var usage = rusage()
    #if os(Linux)
      getrusage(RUSAGE_SELF.rawValue, &usage)
      return usage.ru_maxrss / 1024  // KiB on Linux
    #else
      getrusage(RUSAGE_SELF, &usage)
      return usage.ru_maxrss / 1024 / 1024  // bytes on Apple platforms
    #endif
  }
}
