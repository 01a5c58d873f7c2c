import Foundation
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderStore
import TestSupport
import Testing

/// Issue 19: a real device's access point needs ~3 s after WIFI_OPEN before it can be joined
/// (PROTOCOL.md §6). The sync asks for the hotspot with a password of its own, waits ~3 s on
/// the session's clock, then retries the join with backoff within a bound before falling back
/// to BLE. Virtual time: the device and the sync share one manual clock.
@Suite("Sync over Wi-Fi: joining a hotspot that starts slowly")
struct SyncWiFiJoinTests {
  static let seed: UInt64 = 0x5749_4649_0019
  static let durations: [Duration] = [20, 10].map { .seconds($0) }

  static func bench(startup: Duration) async throws -> (SyncBench, SyncFlashTemplate) {
    let template = try await SyncFlashTemplate.make(seed: seed, durations: durations)
    let bench = try SyncBench(
      seed: seed, template: template, wifi: WiFiParameters(hotspotStartupDelay: startup))
    return (bench, template)
  }

  @Test("a hotspot that needs 3 s to start is used: the sync waits, then joins over Wi-Fi")
  func slowHotspotIsUsed() async throws {
    let (bench, template) = try await Self.bench(startup: .seconds(3))
    defer {
      bench.cleanUp()
      template.cleanUp()
    }
    let join = try bench.joinPort()
    defer { join.stop() }
    let engine = try bench.makeEngine()

    let report = try await bench.syncOnce(engine, wifi: bench.wifiPlan(join))

    #expect(report.wifiFallback == nil, "\(String(describing: report.wifiFallback))")
    #expect(report.files.map(\.transport) == ["wifi", "wifi"])
    let counters = await bench.device.counters
    #expect(counters.wifiSessions == 1)
    #expect(counters.wifiOpens == 1)
    #expect(counters.wifiOpensWithPassword == 1, "WIFI_OPEN carries our own password")
    #expect(counters.wifiStopsRejected == 0, "STOP carried {session, scene}")
  }

  @Test("a hotspot still refusing past the join bound: BLE carries everything")
  func refusalPastTheBoundFallsBack() async throws {
    let (bench, template) = try await Self.bench(startup: .seconds(600))
    defer {
      bench.cleanUp()
      template.cleanUp()
    }
    let join = try bench.joinPort()
    defer { join.stop() }
    let engine = try bench.makeEngine()
    let started = bench.clock.elapsed

    let report = try await bench.syncOnce(engine, wifi: bench.wifiPlan(join))

    guard case .wifiUnavailable = try #require(report.wifiFallback) else {
      Issue.record("expected wifiUnavailable, got \(String(describing: report.wifiFallback))")
      return
    }
    #expect(report.files.map(\.transport) == ["ble", "ble"])
    let counters = await bench.device.counters
    #expect(counters.wifiSessions == 0)
    #expect(counters.wifiJoinsRefused > 3, "joins were retried with backoff")
    // The bound (60 s) passed in virtual time, and not much more.
    let waited = bench.clock.elapsed - started
    #expect(waited >= .seconds(60))
    #expect(await bench.device.hotspotSSID == nil, "WIFI_CLOSE on the way out")
  }

  @Test("the hotspot password is 8 alphanumeric characters from a secure source")
  func hotspotPassword() {
    let passwords = (0..<20).map { _ in DeviceHotspot.randomPassword() }
    for password in passwords {
      #expect(password.count == 8)
      #expect(password.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) })
    }
    #expect(Set(passwords).count > 1)
  }
}
