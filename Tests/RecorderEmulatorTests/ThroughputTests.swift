import Foundation
import RecorderEmulator
import RecorderProtocol
import TestSupport
import Testing

/// The link model: throughput emerges from MTU, interval, packets per event and PHY.
/// The 1-hour stream takes ~6 s alone but a minute or more while the rest of the suite runs
/// in parallel on two cores: hence the generous limit (a guard against hangs, not a figure).
@Suite(.timeLimit(.minutes(5)))
struct ThroughputTests {
  @Test func defaultsCarryFiveFramesPerEvent() {
    let link = LinkParameters()
    #expect(link.packetsPerEvent(valueLength: 90) == 5)
    #expect(abs(link.syncThroughput(bytesPerFrame: 80) - 26_666.7) < 1)
    var coded = link
    coded.phy = .leCodedS8
    #expect(coded.packetsPerEvent(valueLength: 90) == 1)
    coded.phy = .le1M
    #expect(coded.packetsPerEvent(valueLength: 90) == 5)
  }

  /// One hour normally; six minutes under `make tsan` (RECORDER_TEST_SCALE=small), where
  /// every step is tens of times slower and the point is races, not figures.
  static let seconds =
    ProcessInfo.processInfo.environment["RECORDER_TEST_SCALE"] == "small" ? 360 : 3600

  @Test func oneHourSyncTakesTheRadiosTime() async throws {
    let bench = try TestBench()
    defer { bench.cleanUp() }
    let info = try await bench.device.addRecording(duration: .seconds(Self.seconds))
    #expect(info.size == Self.seconds * 4_000)
    let phone = try await bench.authenticatedPhone()
    let realStart = ContinuousClock.now
    let virtualStart = bench.clock.elapsed
    try await phone.send(.syncStart(SyncStartRequest(sessionId: info.sessionId)))
    var crc = CRC16()
    var bytes = 0
    var expectedOffset: UInt32 = 0
    var tail: SyncTail?
    var terminal = false
    while tail == nil {
      switch try await phone.nextFrame() {
      case .bulk(let frame) where frame.isTerminal: terminal = true
      case .bulk(let frame):
        #expect(frame.offset == expectedOffset)
        expectedOffset = frame.offset + UInt32(frame.data.count)
        crc.update(frame.data)
        bytes += frame.data.count
      case .control(let control):
        if case .syncTail(let value) = try DeviceMessage(control) { tail = value }
      default: break
      }
    }
    let virtual = bench.clock.elapsed - virtualStart
    let real = ContinuousClock.now - realStart
    let capacity = Double(info.size) / LinkParameters().syncThroughput(bytesPerFrame: 80)
    print(
      "1-hour SYNC_START: \(bytes) bytes in \(virtual) virtual (capacity \(capacity) s), \(real) real"
    )
    #expect(terminal && bytes == info.size)
    #expect(abs(virtual.seconds - capacity) / capacity < 0.01)
    #expect(tail?.crc == crc.value)
    let counters = await bench.device.counters
    #expect(counters.dataFramesSent == Self.seconds * 50)
  }
}
