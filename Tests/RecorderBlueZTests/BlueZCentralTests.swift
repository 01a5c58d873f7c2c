#if os(Linux)
  import Foundation
  @testable import RecorderBlueZ
  import RecorderBluetooth
  import RecorderConcurrency
  import RecorderProtocol
  import RecorderRemoteLink
  import Testing
  import TestSupport

  /// `BlueZCentral` against a mock bluetoothd (python3-dbusmock on a private dbus-daemon)
  /// relaying to a ``FloodCentral`` served over the TCP link. Serialized: each test runs a
  /// bus daemon and a Python process, and the machine is small.
  @Suite("BlueZCentral against a mock bluetoothd", .serialized, .blockingWaits)
  struct BlueZCentralTests {
    /// A served flood central, its mock bluetoothd and a central on that bus.
    struct Rig {
      let flood = FloodCentral()
      let server: TCPCentralServer
      let bluez: MockBlueZ
      let central: BlueZCentral

      init(
        notify: MockBlueZ.NotificationPath = .descriptor,
        path: BlueZCentral.NotificationPath = .automatic,
        battery: MockBlueZ.BatteryExposure = .gatt
      ) async throws {
        server = TCPCentralServer(central: flood)
        let port = try await server.start()
        bluez = try MockBlueZ(
          .bluez(emulator: "127.0.0.1:\(port)", notify: notify, battery: battery))
        central = BlueZCentral(
          options: .init(busAddress: bluez.busAddress, notificationPath: path))
      }

      func stop() {
        central.close()
        bluez.stop()
        server.stop()
      }

      /// The recorder's first advertisement.
      func discover() async throws -> Advertisement {
        try await central.open()
        let found = try await withTimeout(20) { [central] () async -> Advertisement? in
          for await advertisement in central.scan(services: nil) { return advertisement }
          return nil
        }
        return try #require(found, "no advertisement")
      }

      func connect() async throws -> any PeripheralLink {
        let advertisement = try await discover()
        // Generous: the whole suite runs in parallel on a small, shared machine.
        return try await central.connect(advertisement.peripheral, timeout: .seconds(30))
      }
    }

    @Test("scan: the advertisement carries ManufacturerData as on air, name and RSSI")
    func scan() async throws {
      let rig = try await Rig()
      defer { rig.stop() }
      #expect(await rig.central.state == .poweredOn)
      let advertisement = try await rig.discover()
      #expect(advertisement.manufacturerData == FloodCentral.manufacturerData)
      #expect(advertisement.localName == "PLAUD_NOTE")
      #expect(advertisement.rssi == -52)
      let payload = try ManufacturerPayload(
        manufacturerData: try #require(advertisement.manufacturerData))
      #expect(payload.serial == "888317442836358884")
      #expect(advertisement.peripheral.rawValue.hasPrefix("C0:"))
    }

    @Test(
      "notifications arrive byte-exact and in order on each path",
      arguments: [
        (MockBlueZ.NotificationPath.descriptor, BlueZCentral.NotificationPath.automatic),
        (.properties, .automatic),
        (.descriptor, .propertiesChanged),
      ])
    func notifications(
      mock: MockBlueZ.NotificationPath, path: BlueZCentral.NotificationPath
    ) async throws {
      let seed = TestSeed.current
      let rig = try await Rig(notify: mock, path: path)
      defer { rig.stop() }
      let link = try await rig.connect()
      #expect(try await link.requestMTU(ModelCapabilities.requestedMTU(for: nil)) == 247)
      try await link.setNotifications(true, for: RecorderGATT.notifyCharacteristic)
      let count: UInt32 = 3000
      let size = 240
      try await link.write(
        FloodCentral.flood(count: count, size: UInt16(size), seed: seed),
        to: RecorderGATT.writeCharacteristic, type: .withoutResponse)
      let received = try await withTimeout(60) { () async -> [[UInt8]] in
        var values: [[UInt8]] = []
        for await event in link.events {
          if case .notification(_, let value) = event { values.append(value) }
          if values.count == Int(count) { break }
        }
        return values
      }
      #expect(received.count == Int(count), "seed \(seed)")
      for (index, value) in received.enumerated()
      where value != FloodCentral.value(UInt32(index), size: size, seed: seed) {
        Issue.record("notification \(index) differs (seed \(seed))")
        break
      }
      await link.disconnect()
    }

    /// The link's last event, within a bound.
    static func ending(_ link: any PeripheralLink) async throws -> DisconnectReason? {
      try await withTimeout(20) { () async -> DisconnectReason? in
        for await event in link.events {
          if case .disconnected(let reason) = event { return reason }
        }
        return nil
      }
    }

    @Test("links end with a reason: our request, a link loss, the adapter off, bluetoothd gone")
    func disconnectReasons() async throws {
      let rig = try await Rig()
      defer { rig.stop() }
      let states = rig.central.stateUpdates()
      var link = try await rig.connect()
      await link.disconnect()
      #expect(try await Self.ending(link) == .localRequest)

      link = try await rig.connect()
      try await rig.bluez.control("DropLinks")
      #expect(try await Self.ending(link) == .linkLoss)

      link = try await rig.connect()
      try await rig.bluez.control("SetPowered", ["boolean:false"])
      #expect(try await Self.ending(link) != nil)
      let off = try await withTimeout(20) { () async -> Bool in
        for await state in states where state == .poweredOff { return true }
        return false
      }
      #expect(off)
      await #expect(throws: LinkError.notPoweredOn(.poweredOff)) {
        try await rig.central.connect(FloodCentral.peripheral, timeout: .seconds(2))
      }
      try await rig.bluez.control("SetPowered", ["boolean:true"])
      // The adapter's Powered change reaches the central as a signal, after the control call
      // returned: wait for it (reading the state at once raced with it).
      let on = try await withTimeout(20) { () async -> Bool in
        for await state in states where state == .poweredOn { return true }
        return false
      }
      #expect(on)
      #expect(await rig.central.state == .poweredOn)

      link = try await rig.connect()
      rig.bluez.stopBluetoothd()
      #expect(try await Self.ending(link) == .other("bluetoothd stopped"))
      #expect(await rig.central.state == .resetting)
      await #expect(throws: LinkError.self) {
        try await rig.central.connect(FloodCentral.peripheral, timeout: .seconds(2))
      }
    }

    @Test("a radio that takes nothing fills AcquireWrite's socket: writes wait, then all arrive")
    func writeBackPressure() async throws {
      let rig = try await Rig()
      defer { rig.stop() }
      let link = try await rig.connect()
      let bluezLink = try #require(link as? BlueZPeripheralLink)
      let flood = try #require(rig.flood.links.withLock { $0.first })
      flood.pause()
      let count = 4000
      let values = (0..<count).map { index in
        withUnsafeBytes(of: UInt32(index).littleEndian, Array.init)
          + Array(repeating: 0xA5, count: 196)
      }
      let returned = Locked(0)
      let writer = Task {
        for value in values {
          try await link.write(value, to: RecorderGATT.writeCharacteristic, type: .withoutResponse)
          returned.withLock { $0 += 1 }
        }
      }
      // The mock (another process) stops reading once 64 writes are outstanding; the socket
      // then fills. Poll with a bound for our writer to meet the full socket.
      let deadline = ContinuousClock.now + .seconds(20)
      while bluezLink.backPressureWaits.withLock({ $0 }) == 0, ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(10))
      }
      let held = returned.withLock { $0 }
      #expect(bluezLink.backPressureWaits.withLock { $0 } > 0, "the socket never filled")
      #expect(held < count, "every write returned while the radio took nothing")
      flood.resume()
      try await writer.value
      let end = ContinuousClock.now + .seconds(20)
      while flood.writes.withLock({ $0.count }) < count, ContinuousClock.now < end {
        try await Task.sleep(for: .milliseconds(10))
      }
      #expect(flood.writes.withLock { $0 } == values)
      print("back pressure: \(held) writes returned before the socket filled")
      await link.disconnect()
    }

    @Test("a device that vanished: connect times out, or is cancelled, within its bound")
    func connectTimeoutAndCancel() async throws {
      let rig = try await Rig()
      defer { rig.stop() }
      let advertisement = try await rig.discover()
      try await rig.bluez.control("Vanish")
      let started = ContinuousClock.now
      await #expect(throws: LinkError.connectTimeout) {
        try await rig.central.connect(advertisement.peripheral, timeout: .seconds(2))
      }
      // Well under the 25 s libdbus would wait by default, with room for a busy machine (it
      // took 13.2 s once with both cores busy).
      #expect(ContinuousClock.now - started < .seconds(20))
      let central = rig.central
      let peripheral = advertisement.peripheral
      let attempt = Task { try await central.connect(peripheral, timeout: .seconds(2)) }
      attempt.cancel()
      await #expect(throws: LinkError.cancelled) { try await attempt.value }
    }

    @Test("writes without response (AcquireWrite socket) and with response keep order and bytes")
    func writes() async throws {
      let seed = TestSeed.current
      var random = SplitMix64(seed: seed)
      let rig = try await Rig()
      defer { rig.stop() }
      let link = try await rig.connect()
      #expect(await link.maximumWriteLength(for: .withoutResponse) == 244)
      let values = (0..<2000).map { index in
        [UInt8(0x10)]
          + (0..<Int.random(in: 1...200, using: &random)).map { _ in
            UInt8.random(in: 0...255, using: &random)
          }
      }
      for value in values {
        try await link.write(value, to: RecorderGATT.writeCharacteristic, type: .withoutResponse)
      }
      // A write with response goes by D-Bus (WriteValue), not the socket: it may overtake
      // commands still in the socket, so order is checked among the commands only.
      let request: [UInt8] = [0x20, 0x01]
      try await link.write(request, to: RecorderGATT.writeCharacteristic, type: .withResponse)
      let flood = try #require(rig.flood.links.withLock { $0.first })
      let deadline = ContinuousClock.now + .seconds(20)
      while flood.writes.withLock({ $0.count }) < values.count + 1, ContinuousClock.now < deadline {
        // The mock (another process) is still relaying: poll with a bound.
        try await Task.sleep(for: .milliseconds(10))
      }
      let written = flood.writes.withLock { $0 }
      let commands = written.filter { $0 != request }
      #expect(commands.count == values.count, "seed \(seed)")
      if let index = commands.indices.first(where: {
        $0 < values.count && commands[$0] != values[$0]
      }) {
        Issue.record("write \(index) differs (seed \(seed))")
      }
      #expect(written.contains(request))
      #expect(try await link.read(RecorderGATT.batteryLevel) == [87])
      await link.disconnect()
    }

    @Test(
      "a battery service claimed by bluetoothd (BlueZ < 5.80): connect, vendor I/O, level from Battery1"
    )
    func batteryClaimedByPlugin() async throws {
      let rig = try await Rig(battery: .plugin)
      defer { rig.stop() }
      let link = try await rig.connect()
      let bluezLink = try #require(link as? BlueZPeripheralLink)
      // No GATT objects for 180F: the level is the device object's org.bluez.Battery1.
      let device = rig.central.objects()[bluezLink.devicePath, BlueZ.battery]
      #expect(device?["Percentage"]?.intValue == 87)
      #expect(try await link.read(RecorderGATT.batteryLevel) == [87])
      try await link.setNotifications(true, for: RecorderGATT.batteryLevel)
      // The vendor service works as ever.
      try await link.setNotifications(true, for: RecorderGATT.notifyCharacteristic)
      try await link.write(
        FloodCentral.flood(count: 3, size: 20, seed: 1), to: RecorderGATT.writeCharacteristic,
        type: .withoutResponse)
      let received = try await withTimeout(20) { () async -> Int in
        var count = 0
        for await event in link.events {
          if case .notification(RecorderGATT.notifyCharacteristic, _) = event { count += 1 }
          if count == 3 { break }
        }
        return count
      }
      #expect(received == 3)
      // A level change: the plugin's PropertiesChanged of Percentage reaches the link as a
      // 2A19 notification.
      let flood = try #require(rig.flood.links.withLock { $0.first })
      flood.notifyBattery(42)
      let level = try await withTimeout(20) { () async -> [UInt8]? in
        for await event in link.events {
          if case .notification(RecorderGATT.batteryLevel, let value) = event { return value }
        }
        return nil
      }
      #expect(level == [42])
      #expect(try await link.read(RecorderGATT.batteryLevel) == [42])
      await link.disconnect()
      // Gone with the connection, as bluetoothd removes it.
      let removed = await rig.central.wait(until: .now + .seconds(20)) { objects in
        objects[bluezLink.devicePath, BlueZ.battery] == nil
      }
      #expect(removed)
    }

    @Test("a battery service neither as GATT nor as Battery1: connect works, the read says so")
    func batteryAbsentEntirely() async throws {
      // The plugin claims 180F, but the device object carries no Battery1 yet: a read of the
      // level is refused by name, never a made-up value.
      let rig = try await Rig(battery: .plugin)
      defer { rig.stop() }
      let advertisement = try await rig.discover()
      let flood = rig.flood
      flood.refuseBatteryReads()
      let link = try await rig.central.connect(advertisement.peripheral, timeout: .seconds(30))
      await #expect(throws: LinkError.characteristicNotFound(RecorderGATT.batteryLevel)) {
        try await link.read(RecorderGATT.batteryLevel)
      }
      await link.disconnect()
    }
  }
#endif
