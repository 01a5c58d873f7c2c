import Foundation
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import RecorderRemoteLink
import RecorderTesting
import TestSupport
import Testing

@Suite("WiFiSession: connect retry, one engine run per batch, stop keeps the session")
struct WiFiSessionTests {
  /// Raises the hotspot over BLE and joins it through the emulator's join port.
  static func open(
    _ bench: SyncBench, _ join: HotspotJoinServer, password: String? = nil,
    timeout: Duration = .seconds(30)
  ) async throws -> (DeviceSession, WiFiSession) {
    let ble = try await bench.connect()
    let hotspot = try await ble.openWiFi(password: DeviceHotspot.makePassword())
    let wifi = try await WiFiSession.connect(
      to: DeviceHotspot(ssid: hotspot.ssid, password: password ?? hotspot.password),
      joiner: TCPHotspotJoiner(port: join.port), session: await ble.wifiSessionConfiguration(),
      timeout: timeout,
      configuration: .init(
        link: .init(host: "127.0.0.1", port: 0, connectTimeout: .seconds(20)),
        retryInterval: .milliseconds(100)))
    return (ble, wifi)
  }

  /// The device's hotspot is up at once: these tests join on real time while the device
  /// runs on a manual clock, so its start-up delay would never pass.
  static var readyHotspot: WiFiParameters {
    var parameters = WiFiParameters()
    parameters.hotspotStartupDelay = .zero
    return parameters
  }

  @Test("a batch is one LIST and one SYNC per file; every file exported as asked")
  func batchInOneRun() async throws {
    let bench = try SyncBench(seed: 61, wifi: Self.readyHotspot)
    defer { bench.cleanUp() }
    var made: [SessionID] = []
    for seconds in [6.0, 9, 4] {
      made.append(try await bench.device.addRecording(duration: .seconds(seconds)).sessionId)
    }
    made.sort()
    let join = try bench.joinPort()
    defer { join.stop() }
    let (ble, wifi) = try await Self.open(bench, join)
    let workspace = try SyncWorkspace(root: bench.root)
    let before = await bench.device.counters.wifiMessagesReceived
    var events: [WiFiBatch.Event] = []
    for await event in await wifi.downloadAll(.init(format: .wav), into: workspace) {
      events.append(event)
    }
    let messages = await bench.device.counters.wifiMessagesReceived - before
    #expect(messages == 1 + made.count, "LIST + one SYNC per file, got \(messages) messages")
    guard case .finished(let report) = events.last else {
      Issue.record("no report: \(events)")
      return
    }
    #expect(report.failure == nil && report.notExported == 0)
    #expect(report.exported.map(\.sessionId) == made)
    #expect(report.exported.allSatisfy { $0.path.hasSuffix(".wav") })
    let starts = events.compactMap { event -> Int? in
      guard case .progress(let progress) = event, progress.fileBytes == 0 else { return nil }
      return progress.index
    }
    #expect(starts == [0, 1, 2])
    #expect(try await bench.device.recordings().count == made.count)
    await wifi.close()
    try? await ble.closeWiFi()
    await ble.close()
  }

  @Test("stopTransfer stops a read at once; the same session reads again")
  func stopKeepsSession() async throws {
    let bench = try SyncBench(seed: 62, wifi: Self.readyHotspot)
    defer { bench.cleanUp() }
    let long = try await bench.device.addRecording(duration: .seconds(900))
    let join = try bench.joinPort()
    defer { join.stop() }
    let (ble, wifi) = try await Self.open(bench, join)
    var received = 0
    var ending: WiFiSession.ReadEnd?
    for await event in await wifi.read(sessionId: long.sessionId, from: 0) {
      switch event {
      case .data(_, _, let bytes):
        if received == 0 { wifi.stopTransfer() }
        received += bytes.count
      case .finished(let end): ending = end
      }
    }
    #expect(ending == .stopped && received < long.size)
    #expect(!wifi.isClosed)
    var rest = 0
    for await event in await wifi.read(sessionId: long.sessionId, from: UInt32(received)) {
      if case .data(_, _, let bytes) = event { rest += bytes.count }
      if case .finished(let end) = event { ending = end }
    }
    #expect(ending == .complete, "the second read ended \(String(describing: ending))")
    #expect(received + rest == long.size)
    await wifi.close()
    try? await ble.closeWiFi()
    await ble.close()
  }

  @Test("a wrong password is retried until the timeout, then the last error")
  func retriesUntilTimeout() async throws {
    let bench = try SyncBench(seed: 63)
    defer { bench.cleanUp() }
    let join = try bench.joinPort()
    defer { join.stop() }
    let started = ContinuousClock.now
    await #expect(throws: DeviceError.self) {
      _ = try await Self.open(bench, join, password: "Wrong123", timeout: .seconds(2))
    }
    #expect(ContinuousClock.now - started >= .seconds(2))
    #expect(await bench.device.counters.wifiJoinsRefused >= 2)
  }
}
