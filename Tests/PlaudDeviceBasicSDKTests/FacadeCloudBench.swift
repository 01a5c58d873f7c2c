import Foundation
import PlaudDeviceBasicSDK
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import RecorderTesting
import TestSupport
import Testing

/// An emulated recorder on a manual clock, the cloud emulator on a loopback port, and a
/// facade agent of its own (its own ``PlaudDomainManager``, so parallel suites never share a
/// domain) wired to both in process. The cloud issues ``userToken``, whose `sub` derives the
/// device's handshake token.
struct FacadeCloudBench {
  let clock = ManualClock()
  let device: EmulatedDevice
  let central: EmulatorCentral
  let cloud: CloudEmulator
  let directory: String
  let agent: PlaudDeviceAgent
  let domains = PlaudDomainManager()
  let deviceToken: String
  /// The user of the device's token.
  static let userID = "01234567-89ab-cdef-0123-456789abcdef"
  let userToken: String

  /// `portVersion` 20 or more: a Mode B device; with `requireSignature` it answers `FE10`
  /// only with the cloud's serial signature (`--mode-b-require-signature`); with
  /// `boundElsewhere` it drops the link on another account's handshake token.
  init(
    seed: UInt64 = 1, portVersion: UInt16 = 10, requireSignature: Bool = false,
    boundElsewhere: Bool = false
  ) throws {
    directory = NSTemporaryDirectory() + "plaud-facade-cloud-\(UUID().uuidString)"
    cloud = try CloudEmulator()
    var deviceConfiguration = DeviceConfiguration(seed: seed)
    deviceConfiguration.portVersion = portVersion
    deviceConfiguration.modeB.boundToAnotherAccount = boundElsewhere
    if requireSignature {
      deviceConfiguration.modeB.requiredSerialSignature = cloud.serialSignature(
        for: deviceConfiguration.serial)
    }
    deviceToken = deviceConfiguration.token.revealed
    device = try EmulatedDevice(
      configuration: deviceConfiguration, flashDirectory: directory + "/flash",
      time: .manual(clock))
    central = EmulatorCentral(device: device)
    var configuration = PlaudSDKConfiguration(
      central: central, storageRoot: directory + "/store", clock: AnyClock(clock))
    configuration.unixTime = { 1_775_395_281 }
    configuration.timeZoneSeconds = { 3 * 3600 }
    configuration.scanTimeout = .seconds(5)
    configuration.domainManager = domains
    configuration.cloud.retry = RetryPolicy(maximumAttempts: 2, jitter: RetryPolicy.seeded(26))
    agent = PlaudDeviceAgent(configuration: configuration)
    userToken = cloud.issueToken(userID: Self.userID)
    clock.startAutoAdvance()
  }

  /// The cloud as an app gives it to `initSDK`: no scheme, a loopback host with a port.
  var domain: String { "127.0.0.1:\(cloud.port)" }
  var serial: String { device.serial }
  var keyStore: FileKeyStore { FileKeyStore(directory: directory + "/store/keys") }

  /// `initSDK` with the cloud's token and domain, then connect by serial; waits for the end
  /// of the documented sequence.
  func connect(_ log: CallbackLog) async throws {
    agent.delegate = log
    agent.initSDK(userAccessToken: userToken, customDomain: domain)
    let before = log.count("bleStorage")
    agent.connectBySN(serial)
    try await eventually("connected") { log.count("bleStorage") == before + 1 }
  }

  func check() async -> PlaudFirmwareCheckResult {
    await withCheckedContinuation { continuation in
      agent.checkFirmwareUpdate { continuation.resume(returning: $0) }
    }
  }

  /// `startFirmwareUpdate` (or, with `file`, `pushFirmwareFile`): the result and every
  /// progress step, in order.
  func update(file: (path: String, version: String)? = nil) async
    -> (PlaudFirmwareUpdateResult, [(PlaudFirmwarePhase, Float)])
  {
    let steps = Locked<[(PlaudFirmwarePhase, Float)]>([])
    let result = await withCheckedContinuation { continuation in
      let progress: (PlaudFirmwarePhase, Float) -> Void = { phase, fraction in
        steps.withLock { $0.append((phase, fraction)) }
      }
      if let file {
        agent.pushFirmwareFile(
          filePath: file.path, toVersion: file.version, progress: progress,
          completion: { continuation.resume(returning: $0) })
      } else {
        agent.startFirmwareUpdate(
          progress: progress, completion: { continuation.resume(returning: $0) })
      }
    }
    return (result, steps.withLock { $0 })
  }

  /// Writes `bytes` to a file in the bench's directory.
  func write(_ bytes: [UInt8], name: String) throws -> String {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let path = directory + "/" + name
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return path
  }

  func cleanUp() {
    cloud.stop()
    clock.stopAutoAdvance()
    try? FileManager.default.removeItem(atPath: directory)
  }
}
