import Foundation
import PlaudDeviceBasicSDK
import RecorderConcurrency
import RecorderRemoteLink
import TestSupport
import Testing

/// The seed's OTA flow through the vendor facade against a `recorder emulate --cloud
/// --new-firmware` process: the facade's central is the emulator's TCP link, its cloud the
/// emulator's (a loopback domain with a port is plain http).
extension ProcessTests {
  /// The facade's answers, as text, in order.
  final class OTAApp: PlaudDeviceAgentProtocol, Sendable {
    let log = Locked<[String]>([])
    let events: AsyncStream<String>
    private let continuation: AsyncStream<String>.Continuation
    init() { (events, continuation) = AsyncStream.makeStream() }
    func note(_ entry: String) {
      log.withLock { $0.append(entry) }
      continuation.yield(entry)
    }
    func blePenState(
      state: Int, privacy: Int, keyState: Int, uDisk: Int, findMyToken: Int, hasSndpKey: Int,
      deviceAccessToken: Int
    ) { note("blePenState") }
    func bleConnectState(state: Int) { note("bleConnectState \(state)") }
    func bleBind(sn: String?, status: Int, protVersion: Int, timezone: Int) {
      note("bleBind \(status)")
    }
    func bleFotaResult(uid: Int, status: Int, errmsg: String?) { note("bleFotaResult \(status)") }
  }

  @Test("the facade's OTA against recorder emulate --cloud --new-firmware: the device runs it")
  func facadeOTAAgainstTheEmulatorProcess() async throws {
    let directory = try TemporaryDirectory("facade-ota")
    let tokenFile = directory.file("user-token")
    let emulator = try EmulatorProcess(
      in: directory, token: "partneruser1", minutes: [0.1], timeScale: 5,
      extra: [
        "--cloud", "--cloud-token-file", tokenFile, "--new-firmware", "V0096",
        "--firmware-size", "16384",
        // The facade runs inside the test process, whose threads other tests keep busy: the
        // device's 1 s to authenticate (a real device's rule) is not what this test is about.
        "--authentication-timeout", "10",
      ])
    defer { emulator.stop() }
    let cloud = try #require(URL(string: try emulator.cloud()))
    let domain = "\(try #require(cloud.host)):\(try #require(cloud.port))"
    let jwt = try String(contentsOfFile: tokenFile, encoding: .utf8)
      .trimmingCharacters(in: .whitespacesAndNewlines)
    let central = try TCPCentral(url: emulator.url)
    var configuration = PlaudSDKConfiguration(
      central: central, storageRoot: directory.file("store"))
    // Its own domain manager: `.shared` is one per process, and tests run in parallel.
    configuration.domainManager = PlaudDomainManager()
    configuration.findTimeout = .seconds(30)
    let agent = PlaudDeviceAgent(configuration: configuration)
    let app = OTAApp()
    agent.delegate = app
    agent.initSDK(userAccessToken: jwt, customDomain: domain)
    agent.connectBySN("8881234567890123")
    // The connect's answer: bound, or a failed connect state (never a hang).
    let answer = await app.events.first {
      $0 == "bleBind 0" || ($0.hasPrefix("bleConnectState ") && $0 != "bleConnectState 1")
    }
    #expect(
      answer == "bleBind 0",
      "\(app.log.withLock { $0 }), last error: \(agent.lastError.map { "\($0)" } ?? "none")")

    let check = await withCheckedContinuation { done in
      agent.checkFirmwareUpdate { done.resume(returning: $0) }
    }
    #expect(check.hasUpdate, "\(check.errorMessage ?? "")")
    #expect(check.currentVersion == "V0095" && check.latestVersion == "V0096")
    let phases = Locked<[PlaudFirmwarePhase]>([])
    let result = await withCheckedContinuation { done in
      agent.startFirmwareUpdate(
        progress: { phase, _ in phases.withLock { if $0.last != phase { $0.append(phase) } } },
        completion: { done.resume(returning: $0) })
    }
    #expect(result.success, "\(result.errorMessage ?? "")")
    #expect(result.version == "V0096")
    #expect(phases.withLock { $0 } == [.downloading, .installing, .restarting, .complete])
    // Reconnected after the restart: the device reports the new version.
    let after = await withCheckedContinuation { done in
      agent.checkFirmwareUpdate { done.resume(returning: $0) }
    }
    #expect(after.currentVersion == "V0096" && !after.hasUpdate, "\(after.errorMessage ?? "")")
    #expect(app.log.withLock { $0.contains("bleFotaResult 0") })
    #expect(agent.recentConnectDevice?.versionCode == 96)
    agent.disconnect()
  }
}
