import Foundation
import PlaudDeviceBasicSDK
import RecorderConcurrency
import RecorderCoreBluetooth
import RecorderEmulator
import RecorderKit
import TestSupport
import Testing

/// The vendor guide's auto-sync trigger: a recording stop asks for the file list.
final class StopListener: PlaudDeviceAgentProtocol, Sendable {
  let events: AsyncStream<String>
  private let continuation: AsyncStream<String>.Continuation
  let agent: PlaudDeviceAgent

  init(agent: PlaudDeviceAgent) {
    self.agent = agent
    (events, continuation) = AsyncStream.makeStream()
  }

  func blePenState(
    state: Int, privacy: Int, keyState: Int, uDisk: Int, findMyToken: Int, hasSndpKey: Int,
    deviceAccessToken: Int
  ) {}

  /// Only failures (a negative state) are news here.
  func bleConnectState(state: Int) {
    if state < 0 { continuation.yield("bleConnectState \(state)") }
  }

  func bleBind(sn: String?, status: Int, protVersion: Int, timezone: Int) {
    continuation.yield("bleBind \(status)")
  }

  func bleRecordStop(sessionId: Int, reason: Int, fileExist: Bool, fileSize: Int) {
    continuation.yield("bleRecordStop \(sessionId)")
    agent.getFileList(startSessionId: 0)
  }

  func bleFileList(bleFiles: [BleFile]) {
    continuation.yield(
      "bleFileList " + bleFiles.map { String($0.sessionId) }.joined(separator: ","))
  }
}

@Suite("The facade on CoreBluetoothCentral (the emulator playing iOS)", .timeLimit(.minutes(2)))
struct FacadeOverCoreBluetoothTests {
  @Test("connect by serial on a fresh (unknown) manager, bind, and a stop on the device lists it")
  func connectAndStopTrigger() async throws {
    let clock = ManualClock()
    let directory = NSTemporaryDirectory() + "facade-corebt-\(UUID().uuidString)"
    defer {
      clock.stopAutoAdvance()
      try? FileManager.default.removeItem(atPath: directory)
    }
    let device = try EmulatedDevice(
      configuration: DeviceConfiguration(seed: 9), flashDirectory: directory + "/flash",
      time: .manual(clock))
    let emulator = EmulatorCentral(device: device)
    let system = CoreBluetoothCentral(
      configuration: CoreBluetoothCentral.Configuration(
        restoreIdentifier: PlaudSDKConfiguration.centralRestoreIdentifierForTests,
        clock: AnyClock(clock))
    ) { _, sink in
      EmulatedSystemBluetooth(
        central: emulator, clock: clock, powerOnAfter: .seconds(1), sink: sink)
    }
    var configuration = PlaudSDKConfiguration(
      central: UnconsumedHoldCentral(system, clock: clock), storageRoot: directory + "/store",
      clock: AnyClock(clock))
    // Its own domain manager: `.shared` is one per process, and tests run in parallel.
    configuration.domainManager = PlaudDomainManager()
    configuration.unixTime = { 1_775_395_281 }
    configuration.timeZoneSeconds = { 3 * 3600 }
    let agent = PlaudDeviceAgent(configuration: configuration)
    let app = StopListener(agent: agent)
    agent.delegate = app
    clock.startAutoAdvance()
    agent.initSDK(
      userAccessToken: FacadeBackgroundFlowTests.userToken, customDomain: "127.0.0.1:9")
    #expect(system.state == .unknown)
    agent.connectBySN(device.serial)
    var events = app.events.makeAsyncIterator()
    #expect(await events.next() == "bleBind 0")

    let sessionId = try #require(await device.startRecordingOnDevice())
    try await AnyClock(clock).sleep(for: .seconds(5))  // virtual time: five seconds recorded
    await device.stopRecordingOnDevice()
    #expect(await events.next() == "bleRecordStop \(sessionId)")
    #expect(await events.next() == "bleFileList \(sessionId)")
  }
}

extension PlaudSDKConfiguration {
  /// Any identifier: the emulated system has no restoration of its own.
  static let centralRestoreIdentifierForTests = "ai.recorderkit.tests.central"
}
