import Foundation
import RecorderBluetooth
import RecorderEmulator
import RecorderProtocol
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(5)))
struct HandshakeTests {
  @Test func advertisesPerSection1() async throws {
    let bench = try TestBench()
    defer { bench.cleanUp() }
    let advertisement = try #require(await bench.firstAdvertisement())
    #expect(advertisement.localName == "PLAUD_NOTE")
    #expect(advertisement.serviceUUIDs == [RecorderGATT.service, RecorderGATT.batteryService])
    let data = try #require(advertisement.manufacturerData)
    #expect(Array(data.prefix(2)) == [0x59, 0x00])
    let payload = try ManufacturerPayload(manufacturerData: data)
    #expect(payload.projectCode == 888)
    #expect(payload.serial == bench.device.serial)
    #expect(payload.portVersion == 10)
    #expect(payload.firmware.description == "V0095")
  }

  @Test("a connect needs the vendor service only; another service asked for is optional")
  func otherServicesOptional() async throws {
    let bench = try TestBench()
    defer { bench.cleanUp() }
    let peripheral = try #require(await bench.firstAdvertisement()).peripheral
    let deviceInformation = BluetoothUUID(0x180A)
    let link = try await bench.central.connect(
      peripheral, services: [RecorderGATT.service, deviceInformation], timeout: .seconds(10))
    try await link.setNotifications(true, for: RecorderGATT.notifyCharacteristic)
    await link.disconnect()
    await #expect(throws: LinkError.serviceNotFound(deviceInformation)) {
      _ = try await bench.central.connect(
        peripheral, services: [deviceInformation], timeout: .seconds(10))
    }
  }

  @Test func rightTokenGetsVector2() async throws {
    let bench = try TestBench()
    defer { bench.cleanUp() }
    let phone = try await bench.connectPhone()
    try await phone.send(.handshake(HandshakeRequest(token: bench.device.configuration.token)))
    let reply = try #require(await phone.nextValue())
    #expect(
      reply == [
        0x01, 0x01, 0x00, 0x00, 0x0a, 0x00, 0x03, 0x00, 0x01, 0x01, 0x00, 0x00, 0x56, 0x5f, 0x00,
        0x00,
      ])
    #expect(await bench.device.isAuthenticated)
  }

  @Test func wrongTokenGetsStatus1ThenSilenceWhileBatteryStaysReadable() async throws {
    let bench = try TestBench()
    defer { bench.cleanUp() }
    let phone = try await bench.connectPhone()
    let wrong = try #require(DeviceToken("ffffffffffffffffffffffffffffffff"))
    try await phone.send(.handshake(HandshakeRequest(token: wrong)))
    let reply = try #require(await phone.nextValue())
    #expect(
      reply == [
        0x01, 0x01, 0x00, 0x01, 0x0a, 0x00, 0x03, 0x00, 0x01, 0x01, 0x00, 0x00, 0x56, 0x5f, 0x00,
        0x00,
      ])
    for message in [
      PhoneMessage.getState, .battery, .list(ListRequest(requestTag: 1)),
      .handshake(HandshakeRequest(token: bench.device.configuration.token)),
    ] {
      try await phone.send(message)
    }
    try await bench.sleep(for: .seconds(5))
    #expect(await bench.device.isConnected)
    #expect(try await phone.link.read(RecorderGATT.batteryLevel) == [100])
    #expect(await bench.device.counters.ignoredRequests == 4)
    let rest = await phone.disconnectAndDrain()
    #expect(rest == [.disconnected(.localRequest)])
  }

  @Test(arguments: [1, 3])
  func unauthenticatedCentralIsDroppedAfterTheTimeout(seconds: Int) async throws {
    let configuration = DeviceConfiguration(authenticationTimeout: .seconds(seconds))
    let bench = try TestBench(configuration: configuration)
    defer { bench.cleanUp() }
    guard let advertisement = await bench.firstAdvertisement() else { return }
    let start = bench.clock.elapsed
    let link = try await bench.central.connect(advertisement.peripheral, timeout: .seconds(10))
    var iterator = link.events.makeAsyncIterator()
    let event = await bench.letTimePass { await iterator.next() }
    #expect(event == .disconnected(.remoteTerminated))
    let elapsed = bench.clock.elapsed - start
    #expect(elapsed >= .seconds(seconds) && elapsed < .seconds(seconds) + .milliseconds(100))
    await #expect(throws: LinkError.self) {
      try await link.read(RecorderGATT.batteryLevel)
    }
  }

  @Test func handshakeNeedsTheMTUExchangeFirst() async throws {
    let bench = try TestBench()
    defer { bench.cleanUp() }
    let phone = try await bench.connectPhone(mtu: 23)
    await #expect(throws: LinkError.valueTooLong(length: 38, maximum: 20)) {
      try await phone.send(.handshake(HandshakeRequest(token: bench.device.configuration.token)))
    }
  }
}
