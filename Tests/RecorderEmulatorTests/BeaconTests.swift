import Foundation
import RecorderBluetooth
import RecorderEmulator
import RecorderProtocol
import TestSupport
import Testing

/// The device's iBeacon wake-up: heard only with setting 49 on, while in range, and while
/// connected or not as the option says.
@Suite(.timeLimit(.minutes(1)))
struct BeaconTests {
  static let beacon = IBeacon(
    uuid: BluetoothUUID(0xB1E0), major: 7, minor: 9)

  @Test("the beacon follows setting 49, the range and the link", arguments: [true, false])
  func beaconFollowsTheDevice(whileConnected: Bool) async throws {
    var configuration = DeviceConfiguration(seed: 4)
    configuration.beacon = Self.beacon
    configuration.beaconWhileConnected = whileConnected
    let bench = try TestBench(seed: 4, configuration: configuration)
    defer { bench.cleanUp() }
    var heard = await bench.device.observeBeacon().makeAsyncIterator()
    #expect(await heard.next() == .some(nil), "off until the app turns it on")
    let phone = try await bench.authenticatedPhone()
    if !whileConnected { #expect(await bench.device.currentBeacon == nil) }
    _ = try await phone.request(.settings(.write(setting: 49, value: 1)))
    if whileConnected { #expect(await heard.next() == Self.beacon) }
    _ = await phone.disconnectAndDrain()
    if !whileConnected { #expect(await heard.next() == Self.beacon) }
    await bench.device.goOutOfRange()
    #expect(await heard.next() == .some(nil))
    await bench.device.comeBackInRange()
    #expect(await heard.next() == Self.beacon)
  }

  @Test("a device without a beacon never broadcasts one")
  func noBeacon() async throws {
    let bench = try TestBench(seed: 5)
    defer { bench.cleanUp() }
    let phone = try await bench.authenticatedPhone()
    _ = try await phone.request(.settings(.write(setting: 49, value: 1)))
    _ = await phone.disconnectAndDrain()
    #expect(await bench.device.currentBeacon == nil)
  }
}
