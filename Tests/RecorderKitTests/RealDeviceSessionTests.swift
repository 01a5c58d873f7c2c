import Foundation
import RecorderBluetooth
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import Testing

/// Issue 19: the SDK against what a real V0095 Note does (PROTOCOL.md §1, §3), each behaviour
/// reproduced by an emulator option.
@Suite("DeviceSession against real-device behaviour")
struct RealDeviceSessionTests {
  /// PROTOCOL.md §1: the captured manufacturer data, company id `59 00` first.
  static let capturedManufacturerData: [UInt8] =
    [0x59, 0x00]
    + [UInt8](
      hex: "027803" + "04565f0000" + "09888317442836358884" + "0a00" + "04da6da7ce" + "0101")!

  @Test("the captured advertisement is recognised with its serial")
  func capturedAdvertisement() throws {
    let advertisement = Advertisement(
      peripheral: PeripheralID("C0:11:22:33:44:55"), localName: "PLAUD_NOTE",
      manufacturerData: Self.capturedManufacturerData, serviceUUIDs: [], rssi: -60)
    let device = try #require(RecorderScanner.recognise(advertisement))
    #expect(device.serial == "888317442836358884")
    #expect(device.model == .note)
    #expect(device.portVersion == 10)
    #expect(device.firmware?.description == "V0095")
  }

  @Test("a payload that does not parse falls back to the PLAUD* name; others are ignored")
  func nameFallback() throws {
    let garbage = Advertisement(
      peripheral: PeripheralID("C0:11:22:33:44:56"), localName: "PLAUD_NOTE",
      manufacturerData: [0x59, 0x00, 0xFF], serviceUUIDs: [], rssi: -60)
    let device = try #require(RecorderScanner.recognise(garbage))
    #expect(device.serial == nil)
    #expect(device.portVersion == nil)
    let nameOnly = Advertisement(
      peripheral: PeripheralID("C0:11:22:33:44:57"), localName: "PLAUD_NOTE", manufacturerData: nil,
      serviceUUIDs: [], rssi: -60)
    #expect(RecorderScanner.recognise(nameOnly)?.serial == nil)
    #expect(RecorderScanner.recognise(nameOnly) != nil)
    let other = Advertisement(
      peripheral: PeripheralID("C0:11:22:33:44:58"), localName: "Headphones",
      manufacturerData: [0x59, 0x00, 0xFF], serviceUUIDs: [], rssi: -60)
    #expect(RecorderScanner.recognise(other) == nil)
  }

  /// Two name-only recorders: the scanner connects to each in turn until the serial the
  /// device reports matches (GET_SERIAL), disconnecting from the wrong one.
  @Test("a name-only recorder is found by serial and confirmed after connecting")
  func nameOnlyConfirmed() async throws {
    let clock = ManualClock()
    let directory = NSTemporaryDirectory() + "recorderkit-nameonly-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let devices = try ["8881000000000001", "8881000000000002"].enumerated().map {
      index, serial in
      try EmulatedDevice(
        configuration: DeviceConfiguration(
          serial: serial, seed: UInt64(index + 1), advertising: .nameOnly),
        flashDirectory: directory + "/\(index)", time: .manual(clock))
    }
    clock.startAutoAdvance()
    defer { clock.stopAutoAdvance() }
    let central = EmulatorCentral(devices: devices)
    var configuration = DeviceSession.Configuration(token: DeviceConfiguration.exampleToken)
    configuration.clock = AnyClock(clock)
    for wanted in devices {
      let session = try await RecorderScanner(central: central, clock: configuration.clock).connect(
        serial: wanted.serial, findTimeout: .seconds(30), configuration: configuration
      ).session
      #expect(await session.info.serial == wanted.serial)
      #expect(await wanted.isConnected)
      await session.close()
    }
    // Each was connected at most twice: once when it was the wrong one, once when wanted.
    for device in devices { #expect(await device.counters.connections <= 2) }
  }

  @Test("no recorder with that serial: deviceNotFound once the timeout ran out")
  func nameOnlyNotFound() async throws {
    let bench = try EmulatorBench(
      configuration: DeviceConfiguration(advertising: .nameOnly))
    defer { bench.cleanUp() }
    await #expect(throws: DeviceError.deviceNotFound(serial: "0000")) {
      _ = try await RecorderScanner(central: bench.central, clock: bench.configuration().clock)
        .connect(
          serial: "0000", findTimeout: .seconds(10), configuration: bench.configuration()
        ).session
    }
    #expect(await bench.device.isConnected == false, "the wrong device was let go")
    #expect(await bench.device.counters.connections == 1)
  }

  @Test("find-by-serial takes the advertised serial as it is")
  func advertisedSerialFirst() async throws {
    let bench = try EmulatorBench()
    defer { bench.cleanUp() }
    let session = try await RecorderScanner(
      central: bench.central, clock: bench.configuration().clock
    ).connect(
      serial: bench.device.serial, findTimeout: .seconds(10), configuration: bench.configuration()
    ).session
    #expect(await session.info.serial == bench.device.serial)
    await session.close()
  }

  @Test("DELETE answered `001E` + session + status completes (no timeout)")
  func deleteReply001E() async throws {
    let bench = try EmulatorBench(
      configuration: DeviceConfiguration(deleteReply: .syncStopOpcode))
    defer { bench.cleanUp() }
    let file = try await bench.device.addRecording(duration: .seconds(2))
    let session = try await bench.connect()
    try await session.deleteRecording(file.sessionId)
    #expect(try await bench.device.recordings().isEmpty)
    await session.close()
  }

  @Test("the one-byte BATTERY reply leaves charging unknown")
  func oneByteBattery() async throws {
    let bench = try EmulatorBench(
      configuration: DeviceConfiguration(batteryReplyIncludesCharging: false))
    defer { bench.cleanUp() }
    let session = try await bench.connect()
    let info = await session.info
    #expect(info.battery.level == 100)
    #expect(info.battery.charging == nil)
    #expect(info.handshake?.audioChannels == 1)
    await session.close()
  }

  @Test(
    "TIME_SYNC: negative half-hour zones reach the device intact (docs/time-sync.md)",
    arguments: [-12_600, -34_200, -1_800, 19_800, 20_700])
  func timeZone(offset: Int) async throws {
    let bench = try EmulatorBench()
    defer { bench.cleanUp() }
    var configuration = bench.configuration()
    configuration.timeZoneSeconds = { offset }
    let found = try await RecorderScanner(central: bench.central, clock: AnyClock(bench.clock))
      .find(
        serial: bench.device.serial, timeout: .seconds(10))
    let session = try await DeviceSession.connect(
      to: found, using: bench.central, configuration: configuration)
    #expect(await bench.device.utcOffsetSeconds == offset)
    await session.close()
  }
}
