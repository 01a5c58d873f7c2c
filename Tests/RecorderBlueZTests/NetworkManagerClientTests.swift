#if os(Linux)
  import Foundation
  @testable import RecorderBlueZ
  import RecorderConcurrency
  import Testing
  import TestSupport

  /// `NetworkManagerClient` against a mock NetworkManager (python3-dbusmock's template and
  /// Tests/BlueZMock/recorder_nm.py on a private dbus-daemon): the access points exist only
  /// when a test raised them, and activations end as NetworkManager's rules say.
  /// Serialized: each test runs a bus daemon and a Python process.
  @Suite("NetworkManagerClient against a mock NetworkManager", .serialized, .blockingWaits)
  struct NetworkManagerClientTests {
    static let ssid = "PLAUD1234"
    static let password = "s3cretPW"

    /// A clock whose sleeps return at once, moving its time on: bounds that only time can
    /// end (an SSID that never appears, an activation that never ends) end at once, and the
    /// same way every run.
    final class InstantClock: Sendable {
      private let now = Locked(Duration.zero)
      var clock: AnyClock {
        AnyClock(
          sleep: { [now] duration in
            try Task.checkCancellation()
            now.withLock { $0 += duration }
            await Task.yield()
          },
          elapsed: { [now] in now.withLock { $0 } })
      }
    }

    /// Generous real-time bounds for the waits that end by the mock's doing.
    static func client(
      _ mock: MockNetworkManager, clock: AnyClock = .continuous, grace: Duration = .seconds(30)
    )
      -> NetworkManagerClient
    {
      NetworkManagerClient(
        options: .init(
          busAddress: mock.busAddress, callTimeout: .seconds(20), scanTimeout: .seconds(30),
          rescanInterval: .seconds(10), activationTimeout: .seconds(30), restartGrace: grace),
        clock: clock)
    }

    static func ours(_ snapshot: MockNetworkManager.Snapshot) -> [MockNetworkManager.Snapshot
      .Connection]
    {
      snapshot.connections.filter { $0.id.hasPrefix("recorder-") }
    }

    /// The user's connection is there and still active.
    static func expectUserUntouched(_ snapshot: MockNetworkManager.Snapshot) {
      #expect(
        snapshot.connections.contains { $0.uuid == MockNetworkManager.userConnectionUUID },
        "\(snapshot.connections)")
      #expect(
        snapshot.active.contains {
          $0.uuid == MockNetworkManager.userConnectionUUID && $0.state == 2
        }, "\(snapshot.active)")
    }

    @Test("join adds a volatile connection of its own, activates it; leave deletes exactly it")
    func joinAndLeave() async throws {
      let mock = try MockNetworkManager([
        "hotspots": [["ssid": Self.ssid, "psk": Self.password]]
      ])
      defer { mock.stop() }
      let client = Self.client(mock)
      defer { client.close() }
      #expect(await client.isRunning())

      let joined = try await client.join(ssid: Self.ssid, password: Self.password)
      #expect(joined.interface == "wlan0")
      #expect(joined.id.hasPrefix("recorder-\(Self.ssid)-"))
      #expect(!joined.description.contains(Self.password))
      let during = try mock.snapshot()
      let mine = Self.ours(during)
      #expect(mine.count == 1)
      #expect(mine.first?.uuid == joined.uuid)
      #expect(mine.first?.autoconnect == false)
      #expect(mine.first?.unsaved == true)
      #expect(mine.first?.volatile == true)
      #expect(during.active.contains { $0.uuid == joined.uuid && $0.state == 2 })
      Self.expectUserUntouched(during)
      // The mock has no IP configuration: nothing to report, nothing made up.
      #expect(await client.ipv4(of: joined) == nil)

      #expect(await client.leave(joined) == nil)
      let after = try mock.snapshot()
      #expect(Self.ours(after).isEmpty, "\(after.connections)")
      #expect(!after.active.contains { $0.uuid == joined.uuid })
      #expect(after.calls["DeactivateConnection"] == 1)
      Self.expectUserUntouched(after)
      #expect(!mock.log.contains(Self.password))
    }

    @Test("once activated: this host's address, netmask and the gateway from the IP4Config")
    func ipv4() async throws {
      let mock = try MockNetworkManager([
        "hotspots": [["ssid": Self.ssid, "psk": Self.password]],
        "ip4": ["address": "192.168.4.2", "prefix": 24, "gateway": "192.168.4.1"]
          as [String: any Sendable],
      ])
      defer { mock.stop() }
      let client = Self.client(mock)
      defer { client.close() }
      let joined = try await client.join(ssid: Self.ssid, password: Self.password)
      #expect(
        await client.ipv4(of: joined)
          == .init(address: "192.168.4.2", netmask: "255.255.255.0", gateway: "192.168.4.1"))
      #expect(await client.leave(joined) == nil)
      #expect(await client.ipv4(of: joined) == nil)
    }

    @Test("a wrong password: NO_SECRETS, \"the device refused the password\", nothing left behind")
    func wrongPassword() async throws {
      let mock = try MockNetworkManager([
        "hotspots": [["ssid": Self.ssid, "psk": "theRealOne"]]
      ])
      defer { mock.stop() }
      let client = Self.client(mock)
      defer { client.close() }
      do {
        _ = try await client.join(ssid: Self.ssid, password: Self.password)
        Issue.record("joined with a wrong password")
      } catch {
        guard case .passwordRefused(let ssid, let reason) = error else {
          Issue.record("not a password refusal: \(error)")
          return
        }
        #expect(ssid == Self.ssid)
        #expect(reason == "no secrets")
        #expect(error.description.contains("the device refused the password"))
        #expect(!error.description.contains(Self.password))
      }
      let after = try mock.snapshot()
      #expect(Self.ours(after).isEmpty, "\(after.connections)")
      #expect(after.calls["AddAndActivateConnection2"] == 1)
      Self.expectUserUntouched(after)
    }

    @Test("an SSID that never appears: scans are asked again, then ssidNotFound after the bound")
    func ssidNeverAppears() async throws {
      let mock = try MockNetworkManager(["hotspots": [["ssid": "SOMEONEELSE", "psk": "x"]]])
      defer { mock.stop() }
      let client = Self.client(mock, clock: InstantClock().clock)
      defer { client.close() }
      do {
        _ = try await client.join(ssid: Self.ssid, password: Self.password)
        Issue.record("joined an SSID that is not on air")
      } catch {
        #expect(error == .ssidNotFound(ssid: Self.ssid, after: .seconds(30)))
      }
      let after = try mock.snapshot()
      // 30 s of scans every 10 s: at 0, 10, 20 and 30.
      #expect(after.calls["RequestScan"] == 4, "\(after.calls)")
      #expect(after.calls["AddAndActivateConnection2"] == nil)
      #expect(Self.ours(after).isEmpty)
      Self.expectUserUntouched(after)
    }

    @Test("an activation that never ends times out and is deactivated and deleted")
    func activationTimesOut() async throws {
      let mock = try MockNetworkManager([
        "hotspots": [["ssid": Self.ssid, "psk": Self.password]], "hold_activating": true,
        "scanned_at_start": true,
      ])
      defer { mock.stop() }
      // The radio scanned at start-up, so the bound below is the activation's alone.
      let client = Self.client(mock, clock: InstantClock().clock)
      defer { client.close() }
      do {
        _ = try await client.join(ssid: Self.ssid, password: Self.password)
        Issue.record("an activation held in ACTIVATING joined")
      } catch {
        guard case .timedOut(let operation) = error else {
          Issue.record("not a timeout: \(error)")
          return
        }
        #expect(operation.hasPrefix("the activation of recorder-\(Self.ssid)-"))
      }
      let after = try mock.snapshot()
      #expect(Self.ours(after).isEmpty, "\(after.connections)")
      #expect(after.active.allSatisfy { $0.uuid == MockNetworkManager.userConnectionUUID })
      #expect(after.calls["DeactivateConnection"] == 1)
      Self.expectUserUntouched(after)
    }

    @Test("no Wi-Fi device, NetworkManager absent: typed errors, no call made")
    func noDeviceNoManager() async throws {
      let noWiFi = try MockNetworkManager(["wifi": false])
      defer { noWiFi.stop() }
      let client = Self.client(noWiFi)
      defer { client.close() }
      await #expect(throws: NetworkManagerError.noWiFiDevice) {
        try await client.join(ssid: Self.ssid, password: Self.password)
      }

      let absent = try MockNetworkManager(nil)
      defer { absent.stop() }
      let nobody = Self.client(absent)
      defer { nobody.close() }
      #expect(await nobody.isRunning() == false)
      await #expect(throws: NetworkManagerError.notRunning) {
        try await nobody.join(ssid: Self.ssid, password: Self.password)
      }

      let unreachable = NetworkManagerClient(
        options: .init(busAddress: "unix:path=/nonexistent/bus"))
      do {
        _ = try await unreachable.join(ssid: Self.ssid, password: Self.password)
        Issue.record("joined without a bus")
      } catch {
        guard case .busUnavailable = error else {
          Issue.record("not busUnavailable: \(error)")
          return
        }
      }
    }

    @Test("NetworkManager restarting mid-join: stopped, and our connection deleted once it is back")
    func restartMidJoin() async throws {
      let directory =
        NSTemporaryDirectory() + "nm-restart-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      defer { try? FileManager.default.removeItem(atPath: directory) }
      let state = directory + "/state.json"
      let hotspots: [[String: String]] = [["ssid": Self.ssid, "psk": Self.password]]
      let mock = try MockNetworkManager([
        "hotspots": hotspots, "hold_activating": true, "state_file": state,
      ])
      defer { mock.stop() }
      let client = Self.client(mock)
      defer { client.close() }
      let joining = Task { () -> Result<NetworkManagerClient.Joined, NetworkManagerError> in
        do throws(NetworkManagerError) {
          return .success(try await client.join(ssid: Self.ssid, password: Self.password))
        } catch {
          return .failure(error)
        }
      }
      #expect(mock.waitForLog("ACTIVATING", timeout: .seconds(30)), "\(mock.log)")
      #expect(Self.ours(try mock.snapshot()).count == 1)
      mock.kill()
      // NetworkManager comes back with the connections it kept (in memory, under /run).
      try mock.start(["hotspots": hotspots, "state_file": state])
      let outcome = await joining.value
      #expect(outcome == .failure(.stopped(ssid: Self.ssid, cleanedUp: true)), "\(mock.log)")
      let after = try mock.snapshot()
      #expect(Self.ours(after).isEmpty, "\(after.connections)")
      Self.expectUserUntouched(after)
    }
  }
#endif
