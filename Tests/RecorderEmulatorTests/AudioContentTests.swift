import Foundation
import RecorderAudio
import RecorderEmulator
import RecorderProtocol
import TestSupport
import Testing

/// Every emulator recording is real device audio: it decodes with libopus and lasts what
/// LIST implies.
@Suite(.timeLimit(.minutes(5)))
struct AudioContentTests {
  @Test(arguments: [UInt8(1), 2])
  func everyRecordingDecodesAndHasTheDurationListImplies(channels: UInt8) async throws {
    let seed: UInt64 = 4242 + UInt64(channels)
    let bench = try TestBench(
      seed: seed, configuration: DeviceConfiguration(audioChannels: channels, seed: seed))
    defer { bench.cleanUp() }
    try await bench.device.addRecording(duration: .seconds(12), sessionId: 1_775_000_000)
    try await bench.device.addRecording(duration: .milliseconds(1_020), sessionId: 1_775_001_000)
    let id = try #require(await bench.device.startRecordingOnDevice())
    try await bench.sleep(for: .seconds(3))
    await bench.device.stopRecordingOnDevice()
    let phone = try await bench.authenticatedPhone()
    guard case .listPage(let page) = try await phone.request(.list(ListRequest(requestTag: 1)))
    else {
      Issue.record("no LIST page, seed \(seed)")
      return
    }
    #expect(page.entries.map(\.sessionId).contains(id))
    let bytesPerFrame = 80 * Int(channels)
    for entry in page.entries {
      let result = try await phone.sync(SyncStartRequest(sessionId: entry.sessionId))
      let bytes = result.bytes
      #expect(bytes.count == Int(entry.size), "seed \(seed)")
      let decoder = try DeviceOpusDecoder(channels: Int(channels))
      var decodedMs = 0
      for start in stride(from: 0, to: bytes.count, by: bytesPerFrame) {
        let frame = Array(bytes[start..<start + bytesPerFrame])
        #expect(frame[0] == 0xB8 && frame[bytesPerFrame - 80] == 0xB8)
        let pcm = try decoder.decode(frame, offset: start)
        #expect(pcm.count == 320 * Int(channels))
        decodedMs += 20
      }
      let listedMs = Int(entry.size) / bytesPerFrame * 20
      #expect(decodedMs == listedMs, "seed \(seed)")
    }
  }
}
