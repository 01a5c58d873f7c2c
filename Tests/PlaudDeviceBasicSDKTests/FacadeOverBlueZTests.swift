#if os(Linux)
  import Foundation
  @testable import PlaudDeviceBasicSDK
  import RecorderBlueZ
  import RecorderEmulator
  import RecorderKit
  import RecorderRemoteLink
  import Testing
  import TestSupport

  /// The facade on Linux's default radio: `BlueZCentral` against a mock bluetoothd
  /// (python3-dbusmock on a private dbus-daemon) whose recorder is the emulator, relayed over
  /// the TCP link. Real time: the mock is another process.
  @Suite(
    "The facade on BlueZ, Linux's default radio", .serialized, .timeLimit(.minutes(3)),
    .blockingWaits)
  struct FacadeOverBlueZTests {
    @Test("PlaudDeviceAgent.shared's default on Linux is BlueZ on the system bus, stored under XDG")
    func linuxDefault() throws {
      let configuration = PlaudSDKConfiguration.platformDefault
      let central = try #require(configuration.central as? BlueZCentral)
      #expect(central.options.busAddress == nil, "the system bus (DBUS_SYSTEM_BUS_ADDRESS)")
      #expect(configuration.storageRoot.hasSuffix("/PlaudDeviceBasicSDK"))
      #expect(!configuration.storageRoot.hasPrefix(NSTemporaryDirectory()))
      let home = { (environment: [String: String], account: String?) in
        PlaudSDKConfiguration.linuxDataHome(environment) { account }
      }
      #expect(home(["XDG_DATA_HOME": "/data", "HOME": "/home/u"], nil) == "/data")
      #expect(
        home(["XDG_DATA_HOME": "relative", "HOME": "/home/u"], nil) == "/home/u/.local/share")
      #expect(home(["HOME": "/home/u/"], nil) == "/home/u/.local/share")
      // A service without HOME: the account's home, not the temporary directory.
      #expect(home([:], "/var/lib/svc") == "/var/lib/svc/.local/share")
      #expect(home([:], nil).hasPrefix("/") && !home([:], nil).hasSuffix("/"))
      #expect(PlaudSDKConfiguration.accountHome()?.hasPrefix("/") == true)
    }

    @Test("connect by serial, bind, list, export, delete: the vendor's calls through bluetoothd")
    func exportThroughBlueZ() async throws {
      let directory = NSTemporaryDirectory() + "facade-bluez-\(UUID().uuidString)"
      defer { try? FileManager.default.removeItem(atPath: directory) }
      var deviceConfiguration = DeviceConfiguration(seed: 41)
      // Round trips cross two processes on a small, loaded machine: not the device's second.
      deviceConfiguration.authenticationTimeout = .seconds(60)
      let device = try EmulatedDevice(
        configuration: deviceConfiguration, flashDirectory: directory + "/flash",
        time: .real(.continuous))
      let made = try await device.addRecording(duration: .seconds(4))
      let digest = try #require(try await device.recordings(includingDigests: true).first?.sha256)
      let server = TCPCentralServer(central: EmulatorCentral(device: device))
      let port = try await server.start()
      defer { server.stop() }
      let bluez = try MockBlueZ(.bluez(emulator: "127.0.0.1:\(port)"))
      defer { bluez.stop() }
      let central = BlueZCentral(options: .init(busAddress: bluez.busAddress))
      defer { central.close() }
      var configuration = PlaudSDKConfiguration(
        central: central, storageRoot: directory + "/store")
      // Its own domain manager: `.shared` is one per process, and tests run in parallel.
      configuration.domainManager = PlaudDomainManager()
      configuration.findTimeout = .seconds(30)
      let agent = PlaudDeviceAgent(configuration: configuration)
      let log = CallbackLog()
      agent.delegate = log
      agent.initSDK(userAccessToken: FacadeBench.userToken, customDomain: FacadeBench.offlineDomain)

      agent.connectBySN(device.serial)
      try await eventually("bind") { log.count("bleBind") == 1 }
      #expect(
        log.has("bleBind \(device.serial) status=0 port=10 tz=\(Self.timezone)"), "\(log.all)")
      agent.getFileList(startSessionId: 0)
      try await eventually("list") { log.count("bleFileList") == 1 }
      #expect(log.all.contains { $0.hasPrefix("bleFileList [\"\(made.sessionId):\(made.size):0:") })
      let id = Int(made.sessionId.rawValue)
      agent.exportAudio(
        sessionId: id, outputDir: directory + "/exports", format: .opus, callback: log)
      try await eventually("export") { log.count("onComplete") + log.count("onError") == 1 }
      #expect(log.count("onComplete") == 1, "\(log.all.filter { $0.hasPrefix("on") })")
      let raw = directory + "/store/\(device.serial)/\(made.sessionId).opus-raw"
      #expect(try FileDigest.sha256Hex(ofFile: raw) == digest)
      agent.deleteFile(sessionId: id)
      try await eventually("delete") { log.count("bleDeleteFile") == 1 }
      #expect(log.has("bleDeleteFile status=0"))
      #expect(try await device.recordings().isEmpty)
      agent.disconnect()
      try await eventually("disconnected") { log.has("bleConnectState 0") }
    }

    /// `bleBind`'s time zone: whole hours of this machine's offset.
    static var timezone: Int { TimeZone.current.secondsFromGMT() / 3600 }
  }
#endif
