import Foundation
import PlaudDeviceBasicSDK
import RecorderEmulator
import TestSupport
import Testing

/// Issue 28 item 8 through the facade: `depair(clear:)` as the vendor's reference names it
/// ("clear all connections"), never erasing, against a device whose clear byte would erase
/// every recording (the emulator's default reading).
@Suite("PlaudDeviceBasicSDK depair(clear:)")
struct FacadeDepairTests {
  @Test(
    "clear: true clears all connections on an empty device, this one only on a device with recordings",
    arguments: [0, 2])
  func clearAllConnections(_ recordings: Int) async throws {
    let bench = try FacadeBench(seed: 23)
    defer { bench.cleanUp() }
    for index in 0..<recordings {
      _ = try await bench.device.addRecording(duration: .seconds(2 + index))
    }
    let log = CallbackLog()
    try await FacadeFixesTests.connect(bench, log)
    bench.agent.depair(clear: true)
    try await eventually("depair") { log.has("bleDepair 0") && log.has("bleConnectState 0") }
    let counters = await bench.device.counters
    #expect(counters.depairs == 1)
    #expect(counters.depairsClearing == (recordings == 0 ? 1 : 0))
    #expect(try await bench.device.recordings().count == recordings)
  }
}
