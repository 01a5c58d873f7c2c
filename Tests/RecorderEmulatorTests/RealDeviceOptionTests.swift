import Foundation
import RecorderBluetooth
import RecorderConcurrency
import RecorderKit
import RecorderProtocol
import RecorderRemoteLink
import RecorderWebSocket
import Testing

@testable import RecorderEmulator

/// Issue 19: the emulator options that reproduce what a real V0095 Note does.
@Suite("Emulator: real-device options")
struct RealDeviceOptionTests {
  @Test("the default advertisement is the captured §1 layout (04 before the 4-byte field)")
  func defaultAdvertisementLayout() async throws {
    let bench = try WiFiBench()
    defer { bench.cleanUp() }
    let data = try #require(await bench.device.currentAdvertisement?.manufacturerData)
    let payload = Array(data.dropFirst(2))
    // 02 78 03 | 04 56 5f 00 00 | 08 <8 packed bytes> | 0a 00 | 04 da 6d a7 ce | 01 01
    #expect(Array(payload.suffix(9)) == [0x0A, 0x00, 0x04, 0xDA, 0x6D, 0xA7, 0xCE, 0x01, 0x01])
    #expect(try ManufacturerPayload(decoding: payload).serial == bench.device.serial)
  }

  @Test("--advertising: any bytes, or none at all (name only)")
  func advertisingModes() async throws {
    let custom: [UInt8] = [0xDE, 0xAD]
    for (mode, expected) in [
      (AdvertisingData.custom(custom), Optional([0x59, 0x00] + custom)),
      (.nameOnly, nil),
    ] {
      let directory = NSTemporaryDirectory() + "emulator-adv-\(UUID().uuidString)"
      defer { try? FileManager.default.removeItem(atPath: directory) }
      let device = try EmulatedDevice(
        configuration: DeviceConfiguration(advertising: mode), flashDirectory: directory,
        time: .manual(ManualClock()))
      let advertisement = try #require(await device.currentAdvertisement)
      #expect(advertisement.manufacturerData == expected)
      #expect(advertisement.localName == "PLAUD_NOTE")
    }
  }

  @Test("joins before the hotspot's start-up delay are refused as not ready, then accepted")
  func hotspotStartupDelay() async throws {
    let bench = try WiFiBench(hotspotStartupDelay: .seconds(3))
    defer { bench.cleanUp() }
    let session = try await bench.bleSession()
    let hotspot = try await session.openWiFi()
    let server = try WebSocketServer(host: "127.0.0.1", port: 0)
    defer { Task { await server.stop() } }
    await #expect(throws: HotspotJoinError.refused(EmulatedDevice.hotspotNotReady)) {
      try await HotspotJoinClient.join(
        host: "127.0.0.1", port: bench.joinServer.port, ssid: hotspot.ssid,
        password: hotspot.password, serverPort: server.port)
    }
    bench.clock.advance(by: .seconds(3))
    try await HotspotJoinClient.join(
      host: "127.0.0.1", port: bench.joinServer.port, ssid: hotspot.ssid,
      password: hotspot.password, serverPort: server.port)
    #expect(await bench.device.counters.wifiJoinsRefused == 1)
    #expect(await bench.device.counters.wifiSessions == 1)
    await session.close()
  }

  @Test("a Wi-Fi STOP without {session, scene} is refused (ERR 15/1); with them it is taken")
  func stopNeedsSession() async throws {
    let bench = try WiFiBench()
    defer { bench.cleanUp() }
    let session = try await bench.bleSession()
    let phone = try await RawWiFiPhone.join(bench, hotspot: try await session.openWiFi())
    defer { Task { await phone.stop() } }
    try await phone.send(.stop(session: nil, scene: nil))
    #expect(try await phone.next() == .error(cmd: 15, status: 1))
    #expect(await bench.device.counters.wifiStopsRejected == 1)
    try await phone.send(.stop(session: 1, scene: 1))
    #expect(try await phone.next() == .stopResult(status: 0))
    await session.close()
  }

  @Test("DELETE answered as 001E + session + status when asked to")
  func deleteReplyStyle() async throws {
    let directory = NSTemporaryDirectory() + "emulator-del-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let clock = ManualClock()
    let device = try EmulatedDevice(
      configuration: DeviceConfiguration(deleteReply: .syncStopOpcode),
      flashDirectory: directory, time: .manual(clock))
    let file = try await device.addRecording(duration: .seconds(2), sessionId: 1_775_000_000)
    clock.startAutoAdvance()
    defer { clock.stopAutoAdvance() }
    let central = EmulatorCentral(device: device)
    var configuration = DeviceSession.Configuration(token: DeviceConfiguration.exampleToken)
    configuration.clock = AnyClock(clock)
    let found = try await RecorderScanner(central: central, clock: AnyClock(clock)).find(
      serial: device.serial, timeout: .seconds(10))
    let session = try await DeviceSession.connect(
      to: found, using: central, configuration: configuration)
    try await session.deleteRecording(file.sessionId)
    #expect(try await device.recordings().isEmpty)
    await session.close()
  }

  @Test("TIME_SYNC's zone is read per the configured encoding: −03:30 under each")
  func timeZoneEncodings() async throws {
    for encoding in TimeZoneEncoding.allCases {
      let directory = NSTemporaryDirectory() + "emulator-tz-\(UUID().uuidString)"
      defer { try? FileManager.default.removeItem(atPath: directory) }
      let clock = ManualClock()
      let device = try EmulatedDevice(
        configuration: DeviceConfiguration(timeZoneEncoding: encoding),
        flashDirectory: directory, time: .manual(clock))
      clock.startAutoAdvance()
      defer { clock.stopAutoAdvance() }
      let central = EmulatorCentral(device: device)
      var configuration = DeviceSession.Configuration(token: DeviceConfiguration.exampleToken)
      configuration.clock = AnyClock(clock)
      configuration.timeZoneSeconds = { -12_600 }
      configuration.timeZoneEncoding = encoding
      let found = try await RecorderScanner(central: central, clock: AnyClock(clock)).find(
        serial: device.serial, timeout: .seconds(10))
      let session = try await DeviceSession.connect(
        to: found, using: central, configuration: configuration)
      #expect(await device.utcOffsetSeconds == -12_600, "\(encoding)")
      await session.close()
    }
  }
}
