#if os(Linux)
  import Foundation
  import Glibc
  import RecorderBlueZ
  import RecorderBluetooth
  import RecorderConcurrency
  import RecorderEmulator
  import RecorderRemoteLink
  import TestSupport

  /// Issue 13's figures: notifications per second and CPU per MB through BlueZ's D-Bus API,
  /// on each notification path (AcquireNotify's descriptor; `Value` PropertiesChanged), beside
  /// the emulator's radio rate. The sender is a flood peripheral in a child process
  /// (`RecorderBench bluez-flood-server`, served over the TCP link) that outruns any radio;
  /// between it and us, the mock bluetoothd (python3-dbusmock) on a private dbus-daemon. The
  /// CPU of each of our process, the mock and the bus daemon says which side limited a figure.
  enum BlueZBenchmarks {
    /// The recorder's bulk notification: 80 data bytes in a frame of about 90 (measured
    /// through the emulator: 10 206 478 bytes in 113 436 notifications).
    static let size = 90
    static let count: UInt32 = 40_000

    static func run() throws {
      let link = LinkParameters()
      let radio = Double(link.packetsPerConnectionEvent) * 80 / link.connectionInterval.seconds
      print(
        "== bluez: \(count) notifications of \(size) bytes through BlueZ's D-Bus API (mock "
          + "bluetoothd on a private dbus-daemon), flood sender in a child process; the "
          + "emulator's radio carries \(format(radio / 1000)) kB/s")
      let server = try FloodServer()
      defer { server.stop() }
      let port = server.port
      for (label, mock, path) in [
        (
          "descriptor (AcquireNotify)", MockBlueZ.NotificationPath.descriptor,
          BlueZCentral.NotificationPath.automatic
        ),
        ("PropertiesChanged", .properties, .automatic),
      ] {
        let pid = server.process.processIdentifier
        let figures = try blocking {
          try await measure(port: port, sender: pid, mock: mock, path: path)
        }
        let bytesPerSecond = Double(figures.bytes) / figures.wall
        let megabytes = Double(figures.bytes) / 1_000_000
        // Share of one core spent per 27 kB/s (the radio's rate) of notifications.
        let perRadio = { (cpu: Double) in cpu / figures.wall / (bytesPerSecond / radio) * 100 }
        print(
          "\(label.padding(toLength: 27, withPad: " ", startingAt: 0)) "
            + "\(format(Double(count) / figures.wall, 0)) notifications/s  "
            + "\(format(bytesPerSecond / 1000)) kB/s (\(format(bytesPerSecond / radio)) × radio)  "
            + "CPU per MB: ours \(format(figures.ours / megabytes, 3)) s, "
            + "mock \(format(figures.mock / megabytes, 3)) s, "
            + "dbus-daemon \(format(figures.daemon / megabytes, 3)) s  "
            + "ours \(format(perRadio(figures.ours), 2)) % of a core per \(format(radio / 1000)) kB/s  "
            + "busy: ours \(format(figures.ours / figures.wall * 100, 0)) %, "
            + "mock \(format(figures.mock / figures.wall * 100, 0)) %, "
            + "daemon \(format(figures.daemon / figures.wall * 100, 0)) %, "
            + "sender \(format(figures.sender / figures.wall * 100, 0)) % of a core")
      }
    }

    struct Figures: Sendable {
      var bytes: Int
      var wall: Double
      var ours: Double
      var mock: Double
      var daemon: Double
      var sender: Double
    }

    static func measure(
      port: UInt16, sender: Int32, mock: MockBlueZ.NotificationPath,
      path: BlueZCentral.NotificationPath
    ) async throws -> Figures {
      let bluez = try MockBlueZ(.bluez(emulator: "127.0.0.1:\(port)", notify: mock))
      defer { bluez.stop() }
      let central = BlueZCentral(
        options: .init(busAddress: bluez.busAddress, notificationPath: path))
      defer { central.close() }
      try await central.open()
      guard
        let advertisement = await firstElement(
          of: central.scan(services: nil), within: .seconds(20), on: .continuous)
      else { throw MockBlueZError("no advertisement") }
      let link = try await central.connect(advertisement.peripheral, timeout: .seconds(10))
      try await link.setNotifications(true, for: RecorderGATT.notifyCharacteristic)
      let before = (
        CPUTime.process(), bluez.cpuSeconds(), ContinuousClock.now,
        MockBlueZ.cpuSeconds(pid: sender)
      )
      try await link.write(
        FloodCentral.flood(count: count, size: UInt16(size), seed: 1),
        to: RecorderGATT.writeCharacteristic, type: .withoutResponse)
      var received = 0
      var bytes = 0
      for await event in link.events {
        guard case .notification(_, let value) = event else { continue }
        received += 1
        bytes += value.count
        if received == Int(count) { break }
      }
      let after = (
        CPUTime.process(), bluez.cpuSeconds(), ContinuousClock.now,
        MockBlueZ.cpuSeconds(pid: sender)
      )
      await link.disconnect()
      return Figures(
        bytes: bytes, wall: (after.2 - before.2).seconds, ours: after.0 - before.0,
        mock: after.1.mock - before.1.mock, daemon: after.1.daemon - before.1.daemon,
        sender: after.3 - before.3)
    }

    /// `RecorderBench bluez-flood-server`: serves a ``FloodCentral`` over the TCP link,
    /// prints its port, runs until killed.
    static func handleHelper(_ arguments: [String]) -> Bool {
      guard arguments.first == "bluez-flood-server" else { return false }
      let server = TCPCentralServer(central: FloodCentral())
      guard let port = try? blocking({ try await server.start() }) else { return false }
      print(port)
      fflush(nil)
      while true { pause() }
    }

    /// The helper as a child process.
    final class FloodServer {
      let process = Process()
      let port: UInt16

      init() throws {
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["bluez-flood-server"]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let line = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        guard let port = UInt16(line.trimmingCharacters(in: .whitespacesAndNewlines)) else {
          process.terminate()
          throw MockBlueZError("the flood server printed no port: \(line)")
        }
        self.port = port
      }

      func stop() {
        process.terminate()
        process.waitUntilExit()
      }
    }

    static func format(_ value: Double, _ digits: Int = 1) -> String {
      String(format: "%.\(digits)f", value)
    }
  }
#endif
