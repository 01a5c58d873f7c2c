import RecorderBluetooth
import RecorderConcurrency
import RecorderCoreBluetooth
import RecorderEmulator
import Testing

typealias Command = ScriptedCentralManager.Command

@Suite("CoreBluetoothCentral against a scripted CoreBluetooth", .timeLimit(.minutes(1)))
struct CoreBluetoothCentralTests {
  let recorder = ScriptedBench.recorder

  @Test("a fresh manager is unknown; a connect waits for power-on instead of failing")
  func powerOnDelay() async throws {
    let bench = ScriptedBench()
    #expect(bench.central.state == .unknown)
    var states = bench.central.stateUpdates().makeAsyncIterator()
    #expect(await states.next() == .unknown)
    bench.manager.settings.withLock { $0.retrievable = [recorder] }
    var commands = bench.manager.commands.makeAsyncIterator()
    let connect = Task { try await bench.central.connect(recorder, timeout: .seconds(30)) }
    await bench.sleepers(1)
    bench.clock.advance(by: .seconds(9))
    bench.manager.fire(.didUpdateState(.poweredOn))
    #expect(await states.next() == .poweredOn)
    await bench.acceptConnect(&commands)
    let link = try await connect.value
    #expect(link.peripheral == recorder)
  }

  @Test("a radio that stays off fails a command after the bound; unauthorized fails at once")
  func powerOnBound() async throws {
    let bench = ScriptedBench()
    bench.manager.fire(.didUpdateState(.poweredOff))
    let connect = Task { try await bench.central.connect(recorder, timeout: .seconds(30)) }
    await bench.sleepers(1)
    bench.clock.advance(by: .seconds(10))
    await #expect(throws: LinkError.notPoweredOn(.poweredOff)) { try await connect.value }

    bench.manager.fire(.didUpdateState(.unauthorized))
    await #expect(throws: LinkError.notPoweredOn(.unauthorized)) {
      try await bench.central.connect(recorder, timeout: .seconds(30))
    }
    #expect(bench.clock.sleeperCount == 0)
  }

  @Test("scanning passes the service filter; one scan at a time; stopping the consumer stops it")
  func scanning() async throws {
    let bench = ScriptedBench()
    bench.manager.fire(.didUpdateState(.poweredOn))
    var commands = bench.manager.commands.makeAsyncIterator()
    let heard = Advertisement(
      peripheral: recorder, localName: "PLAUD_NOTE", manufacturerData: [0x5D, 0x00],
      serviceUUIDs: [RecorderGATT.service], rssi: -60)
    var first = bench.central.scan(services: [RecorderGATT.service]).makeAsyncIterator()
    #expect(await commands.next() == .scan([RecorderGATT.service]))
    bench.manager.fire(.didDiscover(heard))
    #expect(await first.next() == heard)

    let second = Task {
      var count = 0
      for await _ in bench.central.scan(services: nil) {
        count += 1
        if count == 1 { break }
      }
      return count
    }
    #expect(await commands.next() == .scan(nil))
    // The first scan's stream has ended: a radio runs one scan.
    #expect(await first.next() == nil)
    bench.manager.fire(.didDiscover(heard))
    #expect(await second.value == 1)
    #expect(await commands.next() == .stopScan)
    // A heard peripheral can be connected without retrieving it.
    let connect = Task { try await bench.central.connect(recorder, timeout: .seconds(5)) }
    await bench.acceptConnect(&commands)
    _ = try await connect.value
  }

  @Test("a foreground connect is cancelled at its timeout; an unknown peripheral fails at once")
  func connectTimeout() async throws {
    let bench = ScriptedBench()
    bench.manager.fire(.didUpdateState(.poweredOn))
    await #expect(throws: LinkError.unknownPeripheral(recorder)) {
      try await bench.central.connect(recorder, timeout: .seconds(5))
    }
    bench.manager.settings.withLock { $0.retrievable = [recorder] }
    var commands = bench.manager.commands.makeAsyncIterator()
    let connect = Task { try await bench.central.connect(recorder, timeout: .seconds(5)) }
    #expect(await commands.next() == .connect(recorder))
    await bench.sleepers(1)
    bench.clock.advance(by: .seconds(5))
    await #expect(throws: LinkError.connectTimeout) { try await connect.value }
    #expect(await commands.next() == .cancel(recorder))
  }

  @Test("a background connect has no timeout: it completes whenever the device appears")
  func connectWithoutTimeout() async throws {
    let bench = ScriptedBench()
    bench.manager.fire(.didUpdateState(.poweredOn))
    bench.manager.settings.withLock { $0.retrievable = [recorder] }
    var commands = bench.manager.commands.makeAsyncIterator()
    let connect = Task {
      try await bench.central.connect(recorder, services: RecorderGATT.services, timeout: nil)
    }
    #expect(await commands.next() == .connect(recorder))
    #expect(bench.clock.sleeperCount == 0)
    bench.clock.advance(by: .seconds(6 * 3600))
    bench.manager.fire(.didConnect(recorder))
    await bench.acceptDiscovery(&commands)
    _ = try await connect.value
  }

  @Test("a peripheral without the recorder's own service fails the connect and is let go")
  func serviceMissing() async throws {
    let bench = ScriptedBench()
    bench.manager.fire(.didUpdateState(.poweredOn))
    bench.manager.settings.withLock { $0.retrievable = [recorder] }
    var commands = bench.manager.commands.makeAsyncIterator()
    let connect = Task { try await bench.central.connect(recorder, timeout: .seconds(5)) }
    #expect(await commands.next() == .connect(recorder))
    bench.manager.fire(.didConnect(recorder))
    #expect(await commands.next() == .discoverServices(recorder, RecorderGATT.services))
    bench.manager.fire(.didDiscoverServices(recorder, [RecorderGATT.batteryService], nil))
    await #expect(throws: LinkError.serviceNotFound(RecorderGATT.service)) {
      try await connect.value
    }
    #expect(await commands.next() == .cancel(recorder))
  }

  @Test("a recorder without the Battery Service connects: only its own service is required")
  func batteryServiceOptional() async throws {
    let bench = ScriptedBench()
    bench.manager.fire(.didUpdateState(.poweredOn))
    bench.manager.settings.withLock { $0.retrievable = [recorder] }
    var commands = bench.manager.commands.makeAsyncIterator()
    let connect = Task { try await bench.central.connect(recorder, timeout: .seconds(5)) }
    #expect(await commands.next() == .connect(recorder))
    bench.manager.fire(.didConnect(recorder))
    #expect(await commands.next() == .discoverServices(recorder, RecorderGATT.services))
    bench.manager.fire(.didDiscoverServices(recorder, [RecorderGATT.service], nil))
    // Characteristics of the offered service only; nothing is asked of the missing one.
    #expect(await commands.next() == .discoverCharacteristics(recorder, RecorderGATT.service))
    bench.manager.fire(
      .didDiscoverCharacteristics(
        recorder, service: RecorderGATT.service,
        [RecorderGATT.writeCharacteristic, RecorderGATT.notifyCharacteristic], nil))
    let link = try await connect.value
    await #expect(throws: LinkError.characteristicNotFound(RecorderGATT.batteryLevel)) {
      try await link.read(RecorderGATT.batteryLevel)
    }
  }

  /// A bench with a connected recorder.
  func connected() async throws -> (
    ScriptedBench, any PeripheralLink, AsyncStream<Command>.Iterator
  ) {
    let bench = ScriptedBench()
    bench.manager.fire(.didUpdateState(.poweredOn))
    bench.manager.settings.withLock { $0.retrievable = [recorder] }
    var commands = bench.manager.commands.makeAsyncIterator()
    let connect = Task { try await bench.central.connect(recorder, timeout: .seconds(5)) }
    await bench.acceptConnect(&commands)
    return (bench, try await connect.value, commands)
  }

  @Test("the MTU is maximumWriteValueLength(for: .withoutResponse) + 3; it cannot be asked for")
  func mtu() async throws {
    let (bench, link, _) = try await connected()
    bench.manager.settings.withLock { $0.maximumWriteLength = 182 }
    #expect(try await link.requestMTU(255) == 185)
    #expect(await link.maximumWriteLength(for: .withoutResponse) == 182)
    await #expect(throws: LinkError.valueTooLong(length: 183, maximum: 182)) {
      try await link.write(
        [UInt8](repeating: 0, count: 183), to: RecorderGATT.writeCharacteristic,
        type: .withoutResponse)
    }
  }

  @Test("writes without response wait while canSendWriteWithoutResponse is false")
  func backPressure() async throws {
    let (bench, link, commands) = try await connected()
    var iterator = commands
    var events = link.events.makeAsyncIterator()
    try await link.write([1], to: RecorderGATT.writeCharacteristic, type: .withoutResponse)
    #expect(await iterator.next() == .write(recorder, ScriptedBench.write, [1], .withoutResponse))

    bench.manager.settings.withLock { $0.canSendWriteWithoutResponse = false }
    let written = Locked(false)
    let second = Task {
      try await link.write([2], to: RecorderGATT.writeCharacteristic, type: .withoutResponse)
      written.withLock { $0 = true }
    }
    // A readiness signal while the queue is still full does not let the write through.
    await Task.yield()
    bench.manager.fire(.isReadyToSendWriteWithoutResponse(recorder))
    #expect(await events.next() == .readyToSendWriteWithoutResponse)
    for _ in 0..<100 { await Task.yield() }
    #expect(written.withLock { $0 } == false)

    bench.manager.settings.withLock { $0.canSendWriteWithoutResponse = true }
    bench.manager.fire(.isReadyToSendWriteWithoutResponse(recorder))
    try await second.value
    #expect(await iterator.next() == .write(recorder, ScriptedBench.write, [2], .withoutResponse))
    #expect(await events.next() == .readyToSendWriteWithoutResponse)
  }

  @Test("a read result and a notification on the same characteristic are routed apart")
  func readAndNotify() async throws {
    let (bench, link, commands) = try await connected()
    var iterator = commands
    var events = link.events.makeAsyncIterator()
    let level = RecorderGATT.batteryLevel
    // Before subscribing, an unasked-for value is noise.
    bench.manager.fire(.didUpdateValue(recorder, ScriptedBench.battery, [1], nil))

    let subscribe = Task { try await link.setNotifications(true, for: level) }
    #expect(await iterator.next() == .setNotify(recorder, ScriptedBench.battery, true))
    bench.manager.fire(.didUpdateNotificationState(recorder, ScriptedBench.battery, nil))
    try await subscribe.value
    bench.manager.fire(.didUpdateValue(recorder, ScriptedBench.battery, [80], nil))
    #expect(await events.next() == .notification(characteristic: level, value: [80]))

    let read = Task { try await link.read(level) }
    #expect(await iterator.next() == .read(recorder, ScriptedBench.battery))
    bench.manager.fire(.didUpdateValue(recorder, ScriptedBench.battery, [79], nil))
    #expect(try await read.value == [79])
    bench.manager.fire(.didUpdateValue(recorder, ScriptedBench.battery, [78], nil))
    // The read's value did not become a notification: the next event is the 78.
    #expect(await events.next() == .notification(characteristic: level, value: [78]))

    let failing = Task { try await link.read(level) }
    #expect(await iterator.next() == .read(recorder, ScriptedBench.battery))
    bench.manager.fire(.didUpdateValue(recorder, ScriptedBench.battery, [], .att(0x02)))
    await #expect(throws: LinkError.attError(0x02)) { try await failing.value }
  }

  @Test(
    "disconnect reasons come from the CBError codes",
    arguments: [
      (nil, DisconnectReason.localRequest),
      (CoreBluetoothFailure.central(6), .linkLoss),
      (.central(7), .remoteTerminated),
      (.central(14), .pairingFailed),
      (.central(15), .pairingFailed),
      (.central(10), .other("CBError 10: connection failed")),
      (.central(0), .other("CBError 0")),
    ] as [(CoreBluetoothFailure?, DisconnectReason)])
  func disconnectReasons(failure: CoreBluetoothFailure?, reason: DisconnectReason) async throws {
    let (bench, link, _) = try await connected()
    var events = link.events.makeAsyncIterator()
    bench.manager.fire(.didDisconnect(recorder, failure))
    #expect(await events.next() == .disconnected(reason))
    #expect(await events.next() == nil)
    await #expect(throws: LinkError.disconnected(reason)) {
      try await link.write([1], to: RecorderGATT.writeCharacteristic, type: .withoutResponse)
    }
  }

  @Test("a failed connect carries its reason; Bluetooth switched off ends every link")
  func failedConnectAndPowerOff() async throws {
    let (bench, link, commands) = try await connected()
    var iterator = commands
    let other = PeripheralID("6F0C1A2B-0000-4000-8000-000000000002")
    bench.manager.settings.withLock { $0.retrievable.insert(other) }
    let connect = Task { try await bench.central.connect(other, timeout: .seconds(5)) }
    #expect(await iterator.next() == .connect(other))
    bench.manager.fire(.didFailToConnect(other, .central(15)))
    await #expect(throws: LinkError.disconnected(.pairingFailed)) { try await connect.value }

    var events = link.events.makeAsyncIterator()
    bench.manager.fire(.didUpdateState(.poweredOff))
    #expect(await events.next() == .disconnected(.other("Bluetooth is poweredOff")))
  }

  @Test("disconnect() asks the system and ends the events by request")
  func localDisconnect() async throws {
    let (bench, link, commands) = try await connected()
    var iterator = commands
    var events = link.events.makeAsyncIterator()
    let done = Task { await link.disconnect() }
    #expect(await iterator.next() == .cancel(recorder))
    bench.manager.fire(.didDisconnect(recorder, nil))
    await done.value
    #expect(await events.next() == .disconnected(.localRequest))
  }
}
