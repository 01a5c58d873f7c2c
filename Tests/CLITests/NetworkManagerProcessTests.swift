#if os(Linux)
  import Foundation
  import Glibc
  import Testing
  import TestSupport

  /// `recorder sync --wifi` joining the device's hotspot through NetworkManager: a mock
  /// NetworkManager (python3-dbusmock and Tests/BlueZMock/recorder_nm.py on a private bus,
  /// given to `recorder` as its system bus) whose radio association of the emulated hotspot
  /// is the verdict of `recorder emulate`'s join port. Serialized: each test runs four
  /// processes.
  @Suite("recorder sync --wifi through a mock NetworkManager", .serialized, .blockingWaits)
  struct NetworkManagerProcessTests {
    static let token = ProcessTests.token

    /// An emulator, the hotspot it raises on request, and a free port for our server.
    struct Rig {
      let directory: TemporaryDirectory
      let emulator: EmulatorProcess
      let manifest: Manifest
      let serverPort: UInt16
      let joinPort: String

      init(_ label: String) throws {
        directory = try TemporaryDirectory(label)
        emulator = try EmulatorProcess(
          in: directory, token: NetworkManagerProcessTests.token, minutes: [1, 0.5],
          timeScale: 50, extra: ["--hotspot-startup", "0"])
        manifest = try emulator.manifest()
        serverPort = try freePort()
        joinPort = String(try emulator.hotspot().dropFirst("tcp://".count))
      }

      /// The device's SSID (a Note: `PLAUD` + the serial's last four, PROTOCOL.md §6).
      var ssid: String { "PLAUD" + manifest.serial.suffix(4) }
      var out: String { directory.file("out") }

      /// The emulated hotspot on the mock's radio: associations go to the join port.
      var emulatedHotspot: [String: any Sendable] {
        ["ssid": ssid, "join": joinPort, "server_port": Int(serverPort)]
      }

      /// `recorder sync --wifi` without --hotspot, so through NetworkManager.
      func syncArguments(_ extra: [String] = []) -> [String] {
        [
          "sync", "--out", out, "--format", "opus", "--json", "--wifi", "--wifi-min-backlog", "0",
          "--wifi-listen", "127.0.0.1", "--wifi-port", "\(serverPort)",
        ] + extra + emulator.device
      }
    }

    /// A port nobody listens on now (bound, read, released).
    static func freePort() throws -> UInt16 {
      let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      guard fd >= 0 else { throw HarnessError("socket failed") }
      defer { close(fd) }
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_addr.s_addr = inet_addr("127.0.0.1")
      address.sin_port = 0
      var length = socklen_t(MemoryLayout<sockaddr_in>.size)
      let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
          bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
        }
      }
      guard bound else { throw HarnessError("bind failed") }
      return UInt16(bigEndian: address.sin_port)
    }

    /// Nothing of ours is left in NetworkManager; the user's connection is there and active.
    static func expectCleanAndUserUntouched(_ mock: MockNetworkManager) throws {
      let snapshot = try mock.snapshot()
      #expect(
        !snapshot.connections.contains { $0.id.hasPrefix("recorder-") }, "\(snapshot.connections)")
      #expect(snapshot.connections.contains { $0.uuid == MockNetworkManager.userConnectionUUID })
      #expect(
        snapshot.active.contains {
          $0.uuid == MockNetworkManager.userConnectionUUID && $0.state == 2
        }, "\(snapshot.active)")
      #expect(
        snapshot.active.allSatisfy { $0.uuid == MockNetworkManager.userConnectionUUID },
        "\(snapshot.active)")
    }

    /// The run ended well with every recording over BLE, synced exactly.
    static func expectBLECarriedEverything(
      _ result: (status: Int32?, stdout: String, stderr: String), _ rig: Rig
    ) throws {
      #expect(result.status == 0, "\(result.stderr)")
      #expect(result.stderr.contains("over BLE: Wi-Fi unavailable"), "\(result.stderr)")
      let files = try jsonArray(result.stdout)
      #expect(files.count == rig.manifest.recordings.count)
      #expect(files.allSatisfy { $0["transport"] as? String == "ble" }, "\(result.stdout)")
      try ProcessTests().expectSynced(rig.manifest, out: rig.out, format: "opus")
    }

    @Test(
      "sync --wifi through NetworkManager: byte-exact, our connection deleted, the user's untouched"
    )
    func syncThroughNetworkManager() throws {
      let rig = try Rig("nm-wifi")
      defer { rig.emulator.stop() }
      let mock = try MockNetworkManager(["hotspots": [rig.emulatedHotspot]])
      defer { mock.stop() }
      let result = try RecorderProcess.run(
        rig.syncArguments(), in: rig.directory, label: "sync-nm", environment: mock.environment)
      #expect(result.status == 0, "\(result.stderr)\n\(mock.log)")
      let files = try jsonArray(result.stdout)
      #expect(files.count == rig.manifest.recordings.count)
      #expect(
        files.allSatisfy { $0["transport"] as? String == "wifi" },
        "\(result.stdout)\n\(result.stderr)")
      try ProcessTests().expectSynced(rig.manifest, out: rig.out, format: "opus")
      #expect(result.stderr.contains("Wi-Fi: joined \(rig.ssid) through NetworkManager"))
      #expect(result.stderr.contains("Wi-Fi: left \(rig.ssid)"), "\(result.stderr)")
      #expect(try rig.emulator.manifest().deletes.count == rig.manifest.recordings.count)
      try Self.expectCleanAndUserUntouched(mock)
      #expect(try mock.snapshot().calls["AddAndActivateConnection2"] ?? 0 >= 1)
    }

    @Test(
      "sync --wifi without --hotspot and without NetworkManager on the bus: exit 69, saying what is missing"
    )
    func noNetworkManager() throws {
      let directory = try TemporaryDirectory("nm-absent")
      let bus = try MockNetworkManager(nil)
      defer { bus.stop() }
      let result = try RecorderProcess.run(
        [
          "sync", "--out", directory.file("out"), "--wifi", "--device", "tcp://127.0.0.1:1",
          "--token", Self.token,
        ], in: directory, label: "sync-nm-absent", environment: bus.environment)
      #expect(result.status == 69, "\(result.stderr)")
      #expect(
        result.stderr.contains("--wifi needs NetworkManager on the system bus"), "\(result.stderr)")
      #expect(result.stderr.contains("--hotspot tcp://HOST:PORT"))
    }

    @Test("a hotspot that refuses the password: a clear error line, BLE carries everything")
    func wrongPassword() throws {
      let rig = try Rig("nm-wrong-password")
      defer { rig.emulator.stop() }
      // The access point's real PSK is not the one the device announced.
      let mock = try MockNetworkManager([
        "hotspots": [["ssid": rig.ssid, "psk": "notTheOne"] as [String: any Sendable]]
      ])
      defer { mock.stop() }
      let result = try RecorderProcess.run(
        rig.syncArguments(["--wifi-join-timeout", "4"]), in: rig.directory, label: "sync-nm-psk",
        environment: mock.environment)
      #expect(
        result.stderr.contains("Wi-Fi: the device refused the password for \(rig.ssid)"),
        "\(result.stderr)")
      try Self.expectBLECarriedEverything(result, rig)
      try Self.expectCleanAndUserUntouched(mock)
      #expect(try mock.snapshot().calls["AddAndActivateConnection2"] ?? 0 >= 1)
    }

    @Test("an SSID that never appears: a clear error line, BLE carries everything")
    func ssidNeverAppears() throws {
      let rig = try Rig("nm-no-ssid")
      defer { rig.emulator.stop() }
      let mock = try MockNetworkManager(["hotspots": [[String: any Sendable]]()])
      defer { mock.stop() }
      let result = try RecorderProcess.run(
        rig.syncArguments(["--wifi-join-timeout", "3"]), in: rig.directory,
        label: "sync-nm-no-ssid", environment: mock.environment)
      #expect(
        result.stderr.contains("Wi-Fi: no access point \(rig.ssid) appeared"), "\(result.stderr)")
      try Self.expectBLECarriedEverything(result, rig)
      try Self.expectCleanAndUserUntouched(mock)
      let calls = try mock.snapshot().calls
      #expect(calls["AddAndActivateConnection2"] == nil)
      #expect(calls["RequestScan"] ?? 0 >= 1)
    }

    @Test(
      "NetworkManager restarting mid-join: a clear error line, our connection removed, BLE carries everything"
    )
    func restartMidJoin() throws {
      let rig = try Rig("nm-restart")
      defer { rig.emulator.stop() }
      let state = rig.directory.file("nm-state.json")
      let mock = try MockNetworkManager([
        "hotspots": [rig.emulatedHotspot], "hold_activating": true, "state_file": state,
      ])
      defer { mock.stop() }
      let child = try RecorderProcess(
        rig.syncArguments(["--wifi-join-timeout", "3"]), in: rig.directory,
        label: "sync-nm-restart", environment: mock.environment)
      #expect(mock.waitForLog("ACTIVATING", timeout: .seconds(60)), "\(child.stderr)")
      #expect(try mock.snapshot().connections.contains { $0.id.hasPrefix("recorder-") })
      mock.kill()
      // It comes back with the connections it kept in memory (ours among them).
      try mock.start(["hotspots": [rig.emulatedHotspot], "state_file": state])
      let status = child.wait(timeout: .seconds(120))
      let result = (status, child.stdout, child.stderr)
      #expect(
        result.2.contains(
          "Wi-Fi: NetworkManager stopped or restarted while joining \(rig.ssid); "
            + "the connection we had added was removed"), "\(result.2)\n\(mock.log)")
      try Self.expectBLECarriedEverything(result, rig)
      try Self.expectCleanAndUserUntouched(mock)
    }
  }
#endif
