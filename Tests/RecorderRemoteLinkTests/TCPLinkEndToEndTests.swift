import Foundation
import RecorderBluetooth
import RecorderConcurrency
import RecorderProtocol
import RecorderSockets
import TestSupport
import Testing

@testable import RecorderRemoteLink

/// A served ``EchoCentral`` and a client talking to it over real loopback TCP.
private struct Rig {
  let central = EchoCentral()
  let server: TCPCentralServer
  let client: TCPCentral
  let port: UInt16

  init(options: TCPCentral.Options = TCPCentral.Options()) async throws {
    server = TCPCentralServer(central: central, host: "127.0.0.1", port: 0)
    port = try await server.start()
    client = try TCPCentral(url: "tcp://127.0.0.1:\(port)", options: options)
  }

  func connectEcho(_ peripheral: PeripheralID = EchoCentral.echo) async throws -> (
    any PeripheralLink, EchoLink
  ) {
    let link = try await client.connect(peripheral, timeout: .seconds(5))
    let served = try #require(central.links.withLock { $0.last { $0.peripheral == peripheral } })
    return (link, served)
  }

  func tearDown() {
    client.close()
    server.stop()
  }
}

/// The first event of `link` that is not a readiness signal.
private func nextEvent(_ iterator: inout BackpressureStream<LinkEvent>.Iterator) async -> LinkEvent?
{
  while let event = await iterator.next() {
    if event != .readyToSendWriteWithoutResponse { return event }
  }
  return nil
}

@Suite("TCP link end to end (loopback)", .serialized)
struct TCPLinkEndToEndTests {
  @Test func scanConnectMTUReadWriteNotifyDisconnect() async throws {
    try await withTimeout {
      let rig = try await Rig()
      defer { rig.tearDown() }
      #expect(await rig.client.state == .poweredOn)
      #expect(await rig.client.restoredPeripherals() == [EchoCentral.other])

      var heard: [Advertisement] = []
      for await advertisement in rig.client.scan(services: [RecorderGATT.service]) {
        heard.append(advertisement)
        if heard.count == 2 { break }
      }
      #expect(
        heard == [
          EchoCentral.advertisement(EchoCentral.echo, rssi: -40),
          EchoCentral.advertisement(EchoCentral.other, rssi: -70),
        ])

      let (link, served) = try await rig.connectEcho()
      #expect(link.peripheral == EchoCentral.echo)
      #expect(try await link.requestMTU(ModelCapabilities.requestedMTU(for: nil)) == 247)
      #expect(await link.maximumWriteLength(for: .withoutResponse) == 244)
      #expect(try await link.read(RecorderGATT.batteryLevel) == [EchoCentral.batteryLevel])
      await #expect(throws: LinkError.characteristicNotFound(BluetoothUUID(0x1234))) {
        _ = try await link.read(BluetoothUUID(0x1234))
      }
      #expect(await link.bondState == .bonded)

      try await link.setNotifications(true, for: RecorderGATT.notifyCharacteristic)
      try await link.write([1, 2, 3], to: RecorderGATT.writeCharacteristic, type: .withResponse)
      var events = link.events.makeAsyncIterator()
      #expect(
        await nextEvent(&events)
          == .notification(characteristic: RecorderGATT.notifyCharacteristic, value: [1, 2, 3]))
      await #expect(throws: LinkError.valueTooLong(length: 300, maximum: 244)) {
        try await link.write(
          [UInt8](repeating: 0, count: 300), to: RecorderGATT.writeCharacteristic,
          type: .withResponse)
      }

      await link.disconnect()
      #expect(await nextEvent(&events) == .disconnected(.localRequest))
      #expect(await events.next() == nil)
      #expect(await served.waitUntilEnded() == .localRequest)
      await #expect(throws: LinkError.disconnected(.localRequest)) {
        try await link.write([9], to: RecorderGATT.writeCharacteristic, type: .withoutResponse)
      }
    }
  }

  @Test func tenThousandWritesWithoutResponseKeepTheirOrder() async throws {
    try await withTimeout(60) {
      let rig = try await Rig()
      defer { rig.tearDown() }
      let (link, served) = try await rig.connectEcho()
      try await link.setNotifications(true, for: RecorderGATT.notifyCharacteristic)
      // 2,000 under `make tsan` (RECORDER_TEST_SCALE=small), where each write costs ~50×:
      // the order is what is checked, not the rate.
      let count =
        ProcessInfo.processInfo.environment["RECORDER_TEST_SCALE"] == "small" ? 2_000 : 10_000
      let started = ContinuousClock.now
      let consumer = Task {
        var values: [[UInt8]] = []
        for await event in link.events {
          if case .notification(_, let value) = event { values.append(value) }
          if values.count == count { break }
        }
        return values
      }
      for index in 0..<count {
        let value = withUnsafeBytes(of: UInt32(index).littleEndian, Array.init)
        let type: WriteType = index % 1000 == 999 ? .withResponse : .withoutResponse
        try await link.write(value, to: RecorderGATT.writeCharacteristic, type: type)
      }
      let values = await consumer.value
      let elapsed = (ContinuousClock.now - started).seconds
      let expected = (0..<count).map { withUnsafeBytes(of: UInt32($0).littleEndian, Array.init) }
      #expect(values == expected)
      #expect(served.written == expected)
      print(
        "TCP link: \(count) writes echoed as notifications in \(String(format: "%.3f", elapsed)) s"
          + " = \(Int(Double(count) / elapsed)) notifications/s")
    }
  }

  @Test(arguments: [
    (UInt8(1), DisconnectReason.remoteTerminated), (UInt8(7), .other("scripted reason 7")),
  ])
  func remoteDisconnectReasonIsRelayed(code: UInt8, reason: DisconnectReason) async throws {
    try await withTimeout {
      let rig = try await Rig()
      defer { rig.tearDown() }
      let (link, _) = try await rig.connectEcho()
      do {
        try await link.write(
          [EchoCentral.disconnectCommand, code], to: RecorderGATT.writeCharacteristic,
          type: .withResponse)
      } catch {
        // The device may end the link before it answers the write that asked it to (its
        // answer and the end race to the wire): that write fails with the same reason.
        #expect((error as? LinkError) == .disconnected(reason))
      }
      var events = link.events.makeAsyncIterator()
      #expect(await nextEvent(&events) == .disconnected(reason))
      #expect(await events.next() == nil)
      await #expect(throws: LinkError.disconnected(reason)) {
        _ = try await link.read(RecorderGATT.batteryLevel)
      }
    }
  }

  @Test func serverStoppedMidSessionIsLinkLoss() async throws {
    try await withTimeout {
      let rig = try await Rig()
      let (link, served) = try await rig.connectEcho()
      let (other, _) = try await rig.connectEcho(EchoCentral.other)
      #expect(try await link.read(RecorderGATT.batteryLevel) == [EchoCentral.batteryLevel])
      rig.server.stop()
      var events = link.events.makeAsyncIterator()
      #expect(await nextEvent(&events) == .disconnected(.linkLoss))
      var otherEvents = other.events.makeAsyncIterator()
      #expect(await nextEvent(&otherEvents) == .disconnected(.linkLoss))
      await #expect(throws: LinkError.disconnected(.linkLoss)) {
        try await link.write([1], to: RecorderGATT.writeCharacteristic, type: .withoutResponse)
      }
      // The server let go of the served link too.
      #expect(await served.waitUntilEnded() == .localRequest)
      // Nobody listens any more: the next operation cannot reopen.
      await #expect(throws: LinkError.self) {
        _ = try await rig.client.connect(EchoCentral.echo, timeout: .seconds(1))
      }
      rig.client.close()
    }
  }

  @Test func connectTimeoutAndUnknownPeripheralAreRelayed() async throws {
    try await withTimeout {
      let rig = try await Rig()
      defer { rig.tearDown() }
      let clock = ContinuousClock()
      let started = clock.now
      await #expect(throws: LinkError.connectTimeout) {
        _ = try await rig.client.connect(EchoCentral.silent, timeout: .milliseconds(200))
      }
      #expect(clock.now - started >= .milliseconds(200))
      await #expect(throws: LinkError.unknownPeripheral(PeripheralID("nobody"))) {
        _ = try await rig.client.connect(PeripheralID("nobody"), timeout: .seconds(1))
      }
    }
  }

  @Test func requestedServicesCrossTheLinkAndAMissingOneIsRelayed() async throws {
    try await withTimeout {
      let rig = try await Rig()
      defer { rig.tearDown() }
      let thermometer = [BluetoothUUID(0x1809), BluetoothUUID(0x180A)]
      _ = try await rig.client.connect(EchoCentral.echo, timeout: .seconds(5))
      await #expect(throws: LinkError.serviceNotFound(EchoCentral.missingService)) {
        _ = try await rig.client.connect(
          EchoCentral.echo, services: thermometer, timeout: .seconds(5))
      }
      #expect(rig.central.connectServices.withLock { $0 } == [RecorderGATT.services, thermometer])
    }
  }

  @Test func silentServerTimesOutTheHelloAndTheConnect() async throws {
    try await withTimeout {
      // Accepts, reads, never answers.
      let listener = try SocketListener()
      defer { listener.close() }
      let sink = Task {
        let socket = try await listener.accept()
        while try await !socket.read(upTo: 1024).isEmpty {}
      }
      defer { sink.cancel() }
      var options = TCPCentral.Options()
      options.openTimeout = .milliseconds(300)
      let client = TCPCentral(host: "127.0.0.1", port: listener.port, options: options)
      await #expect(throws: LinkError.self) { try await client.open() }
      #expect(await client.state == .unknown)
    }
  }

  @Test func unreachableServerIsATransportError() async throws {
    try await withTimeout {
      let listener = try SocketListener()
      let port = listener.port
      listener.close()
      let client = TCPCentral(host: "127.0.0.1", port: port)
      do throws(LinkError) {
        try await client.open()
        Issue.record("open succeeded with nobody listening")
      } catch {
        guard case .transport = error else {
          Issue.record("expected a transport error, got \(error)")
          return
        }
      }
      var heard = 0
      for await _ in client.scan(services: nil) { heard += 1 }
      #expect(heard == 0)
      #expect(await client.restoredPeripherals() == [])
    }
  }

  @Test func secondConcurrentClientIsServedIndependently() async throws {
    try await withTimeout {
      let rig = try await Rig()
      defer { rig.tearDown() }
      let second = TCPCentral(host: "127.0.0.1", port: rig.port)
      let (first, firstServed) = try await rig.connectEcho()
      let secondLink = try await second.connect(EchoCentral.other, timeout: .seconds(5))
      #expect(rig.server.connectionCount == 2)
      try await secondLink.setNotifications(true, for: RecorderGATT.notifyCharacteristic)
      try await first.setNotifications(true, for: RecorderGATT.notifyCharacteristic)
      try await first.write([1], to: RecorderGATT.writeCharacteristic, type: .withResponse)
      try await secondLink.write([2], to: RecorderGATT.writeCharacteristic, type: .withResponse)
      var firstEvents = first.events.makeAsyncIterator()
      var secondEvents = secondLink.events.makeAsyncIterator()
      let notify = RecorderGATT.notifyCharacteristic
      #expect(await nextEvent(&firstEvents) == .notification(characteristic: notify, value: [1]))
      #expect(await nextEvent(&secondEvents) == .notification(characteristic: notify, value: [2]))
      // The first client goes away: its link is dropped, the second keeps working.
      rig.client.close()
      #expect(await nextEvent(&firstEvents) == .disconnected(.linkLoss))
      #expect(await firstServed.waitUntilEnded() == .localRequest)
      try await secondLink.write([3], to: RecorderGATT.writeCharacteristic, type: .withResponse)
      #expect(await nextEvent(&secondEvents) == .notification(characteristic: notify, value: [3]))
      // And the first central reconnects with a new TCP connection on its next operation.
      let again = try await rig.client.connect(EchoCentral.echo, timeout: .seconds(5))
      #expect(try await again.read(RecorderGATT.batteryLevel) == [EchoCentral.batteryLevel])
      second.close()
    }
  }

  @Test func serverAnswersGarbageWithGoodbyeAndCloses() async throws {
    try await withTimeout {
      let rig = try await Rig()
      defer { rig.tearDown() }
      let socket = try await SocketConnection.connect(host: "127.0.0.1", port: rig.port)
      defer { socket.close() }
      try await socket.write(Array("GET / HTTP/1.1\r\n\r\n".utf8))
      var decoder = TCPLinkMessageDecoder()
      var messages: [TCPLinkMessage] = []
      while true {
        let bytes = try await socket.read(upTo: 4096)
        if bytes.isEmpty { break }
        decoder.append(bytes)
        while let message = try decoder.next() { messages.append(message) }
      }
      #expect(messages.count == 1)
      guard case .goodbye = messages.first else {
        Issue.record("expected goodbye, got \(messages)")
        return
      }
    }
  }
}
