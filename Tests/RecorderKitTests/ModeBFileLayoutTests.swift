import Foundation
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import TestSupport
import Testing

/// Issue 43 item 2: a Mode B recording's layout (PROTOCOL.md §5, §9). The file begins with
/// the 512-byte `PLAUD.AI` header and the LIST size includes it; the body is raw 80-byte
/// Opus frames, or Ogg pages (a Note Pro's container is unknown). The format is judged from
/// the content, never from the HANDSHAKE's `oggAudio` flag; durations leave the header out.
@Suite("Mode B file layout")
struct ModeBFileLayoutTests {
  /// (Ogg content, the flag the HANDSHAKE reply shows, E2EE): every pairing of content and
  /// flag, plain and encrypted.
  static let layouts: [(ogg: Bool, flag: Bool, e2ee: Bool)] = [
    (false, false, true), (false, true, true), (true, false, true), (true, true, true),
    (false, true, false), (true, false, false),
  ]

  @Test("LIST durations of an E2EE device leave the 512-byte header out")
  func listDurationLeavesHeaderOut() async throws {
    let key = try TestUserKey.key()
    let bench = try SyncBench(
      seed: 0x4302, portVersion: 20, modeB: ModeBParameters(e2eeUserKey: try key.publicKey()))
    defer { bench.cleanUp() }
    let made = try await bench.device.addRecording(duration: .seconds(30))
    #expect(made.size == 512 + 30 * 4_000)
    let session = try await bench.connect()
    let listed = try await session.listRecordings()
    await session.close()
    #expect(listed.map(\.durationMs) == [30_000])
  }

  @Test(
    "the container is judged from the content, not the oggAudio flag; the export is whole",
    arguments: layouts.indices)
  func containerFromContent(_ index: Int) async throws {
    let layout = Self.layouts[index]
    let key = try TestUserKey.key()
    let bench = try SyncBench(
      seed: 0x4303 + UInt64(index), portVersion: 20,
      modeB: ModeBParameters(e2eeUserKey: layout.e2ee ? try key.publicKey() : nil)
    ) { configuration in
      configuration.oggAudio = layout.ogg
      configuration.oggAudioFlag = layout.flag
    }
    defer { bench.cleanUp() }
    let made = try await bench.device.addRecording(duration: .seconds(12))
    var options = SyncEngine.Options.fast
    options.format = .wav
    options.userKey = ModeBCredentials(userKey: key)
    let report = try await bench.syncOnce(try bench.makeEngine(options: options))
    #expect(report.givenUp.isEmpty, "\(layout): \(report.givenUp)")
    let file = try #require(report.files.first { $0.sessionId == made.sessionId }, "\(layout)")
    #expect(file.verified, "\(layout)")
    #expect(file.durationMs == 12_000, "\(layout)")
    let wav = try #require(file.exportPath, "\(layout)")
    let mismatch = try await E2EELongRecordingTests.firstMismatch(
      wav: wav, frames: 600, device: bench.device, sessionId: made.sessionId)
    #expect(mismatch == nil, "\(layout): first differing sample \(mismatch ?? -1)")
  }
}
