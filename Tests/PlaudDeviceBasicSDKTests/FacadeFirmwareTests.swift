import Foundation
import PlaudDeviceBasicSDK
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import TestSupport
import Testing

@testable import PlaudDeviceBasicSDK

/// Issue 26: the seed's OTA flow (002: check → startFirmwareUpdate → the device restarts on
/// the new version) through the facade, over RecorderKit's cloud client and firmware
/// updater, against the emulated device and the cloud emulator on loopback.
@Suite("Facade firmware update against the emulator and the cloud emulator")
struct FacadeFirmwareTests {
  static let v95 = FirmwareVersion(type: 0x56, code: 95)
  static let v96 = FirmwareVersion(type: 0x56, code: 96)

  /// Phases in order, each fraction in 0…1 and never going back within a phase.
  static func expectOrdered(_ steps: [(PlaudFirmwarePhase, Float)]) {
    for (previous, next) in zip(steps, steps.dropFirst()) {
      #expect(previous.0.rawValue <= next.0.rawValue, "phases out of order")
      if previous.0 == next.0 { #expect(previous.1 <= next.1, "\(next.0) went back") }
    }
    #expect(steps.allSatisfy { (0...1).contains($0.1) })
  }

  @Test("check → hasUpdate V0096 → startFirmwareUpdate phases in order → the device reports V0096")
  func otaFromTheCloud() async throws {
    let bench = try FacadeCloudBench(seed: 0x26_0001)
    defer { bench.cleanUp() }
    let image = EmulatedFirmwareImage.make(version: Self.v96, size: 8192, seed: 26)
    bench.cloud.publishFirmware(type: "note", version: Self.v96, image: image, notes: "fixes")
    let log = CallbackLog()
    try await bench.connect(log)

    let check = await bench.check()
    #expect(check.errorMessage == nil)
    #expect(check.hasUpdate)
    #expect(check.currentVersion == "V0095" && check.latestVersion == "V0096")
    #expect(check.versionCode == 96 && check.releaseNotes == "fixes")
    let published = try FirmwareFile(
      path: try bench.write(image, name: "published.bin"), version: "V0096")
    #expect(check.md5 == published.md5 && !check.downloadUrl.isEmpty)

    let (result, steps) = await bench.update()
    #expect(result.success, "\(result.errorMessage ?? "")")
    #expect(result.version == "V0096" && result.errorMessage == nil)
    Self.expectOrdered(steps)
    #expect(
      steps.map(\.0).reduce(into: [PlaudFirmwarePhase]()) { if $0.last != $1 { $0.append($1) } }
        == [.downloading, .installing, .restarting, .complete])
    #expect(steps.first.map { $0.0 == .downloading && $0.1 == 0 } == true)
    #expect(steps.last.map { $0.0 == .complete && $0.1 == 1 } == true)
    #expect(steps.contains { $0.0 == .downloading && $0.1 == 1 })
    #expect(steps.contains { $0.0 == .installing && $0.1 == 1 })
    #expect(await bench.device.runningFirmware == Self.v96)
    try await eventually("bleFotaResult") { log.has("bleFotaResult 0") }
    // The device's PACK_REQ and FOTA_DONE, as the vendor's callbacks, before the result.
    let fota = log.all.filter { $0.hasPrefix("bleFota") }
    #expect(fota.first?.hasPrefix("bleFotaPackReq 0 ") == true, "\(fota)")
    #expect(fota.suffix(2) == ["bleFotaPackFin 2", "bleFotaResult 0"], "\(fota)")

    // Reconnected after the restart (the documented sequence again), and the facade now
    // reads the version the device reports.
    #expect(log.count("bleConnectState 1") == 2)
    #expect(await bench.device.isConnected)
    let after = await bench.check()
    #expect(after.currentVersion == "V0096" && !after.hasUpdate && after.errorMessage == nil)
    let paths = bench.cloud.requestLog.map(\.path)
    #expect(paths.filter { $0 == CloudClient.firmwareCheckPath.apiPath }.count == 3)
    #expect(paths.contains("/firmware/note-V0096.bin"))
  }

  @Test("pushFirmwareFile from a local file: installing → restarting → complete, V0096 after")
  func pushLocalFile() async throws {
    let bench = try FacadeCloudBench(seed: 0x26_0002)
    defer { bench.cleanUp() }
    let path = try bench.write(
      EmulatedFirmwareImage.make(version: Self.v96, size: 4096, seed: 27), name: "fw.bin")
    let log = CallbackLog()
    try await bench.connect(log)
    let (result, steps) = await bench.update(file: (path, "V0096"))
    #expect(result.success && result.version == "V0096", "\(result.errorMessage ?? "")")
    Self.expectOrdered(steps)
    #expect(!steps.contains { $0.0 == .downloading })
    #expect(Set(steps.map(\.0)) == [.installing, .restarting, .complete])
    #expect(await bench.device.runningFirmware == Self.v96)
    #expect(bench.cloud.requestLog.isEmpty, "a local file needs no cloud")
    try await eventually("bleFotaResult") { log.has("bleFotaResult 0") }
  }

  @Test("a published MD5 that does not match: failed with the reason, nothing pushed, link kept")
  func badMD5() async throws {
    let bench = try FacadeCloudBench(seed: 0x26_0003)
    defer { bench.cleanUp() }
    let image = EmulatedFirmwareImage.make(version: Self.v96, size: 4096, seed: 28)
    bench.cloud.publishFirmware(
      type: "note", version: Self.v96, image: image, md5: String(repeating: "ab", count: 16))
    let log = CallbackLog()
    try await bench.connect(log)
    let (result, steps) = await bench.update()
    #expect(!result.success && result.version == "V0095")
    #expect(result.errorMessage?.contains("MD5") == true, "\(result.errorMessage ?? "")")
    #expect(!steps.contains { $0.0 != .downloading })
    #expect(await bench.device.counters.firmwareBytesReceived == 0)
    #expect(await bench.device.runningFirmware == Self.v95)
    #expect(await bench.device.isConnected && log.count("bleConnectState 1") == 1)
    try await eventually("bleFotaResult") { log.has("bleFotaResult -1") }
    #expect(!log.has("bleFotaResult 0"))
  }

  @Test("an image the device rejects: failed with the device's status, old firmware kept")
  func deviceRefusal() async throws {
    let bench = try FacadeCloudBench(seed: 0x26_0004)
    defer { bench.cleanUp() }
    var garbage = EmulatedFirmwareImage.make(version: Self.v96, size: 4096, seed: 29)
    garbage[garbage.count / 2] ^= 0xFF
    let path = try bench.write(garbage, name: "broken.bin")
    let log = CallbackLog()
    try await bench.connect(log)
    let (result, steps) = await bench.update(file: (path, "V0096"))
    #expect(!result.success && result.version == "V0095")
    #expect(result.errorMessage?.isEmpty == false)
    #expect(!steps.contains { $0.0 == .complete })
    #expect(await bench.device.runningFirmware == Self.v95)
    try await eventually("bleFotaResult") {
      log.entries.withLock { $0 }.contains { entry in
        entry.hasPrefix("bleFotaResult") && entry != "bleFotaResult 0"
          && entry != "bleFotaResult -1"
      }
    }
    // The facade reconnected after the device kept its firmware.
    try await eventually("reconnected") { log.count("bleConnectState 1") == 2 }
  }

  @Test("no token, a dotted version, not connected: failed with a reason, never success")
  func failuresWithReasons() async throws {
    let bench = try FacadeCloudBench(seed: 0x26_0005)
    defer { bench.cleanUp() }
    bench.cloud.publishFirmware(
      type: "note", version: Self.v96,
      image: EmulatedFirmwareImage.make(version: Self.v96, size: 4096, seed: 30))
    let log = CallbackLog()
    bench.agent.delegate = log

    let unconnected = await bench.update()
    #expect(!unconnected.0.success && unconnected.0.errorMessage == "\(PlaudSDKError.notConnected)")

    // Connected with the device's token given directly: no user access token.
    bench.agent.connectBleDevice(
      bleDevice: BleDevice(serialNumber: bench.serial), deviceToken: bench.deviceToken)
    try await eventually("connected") { log.count("bleStorage") == 1 }
    let check = await bench.check()
    #expect(!check.hasUpdate && check.errorMessage == "\(PlaudSDKError.noUserToken)")
    let (noToken, steps) = await bench.update()
    #expect(!noToken.success && noToken.errorMessage == "\(PlaudSDKError.noUserToken)")
    #expect(steps.isEmpty)

    let path = try bench.write([1, 2, 3], name: "fw.bin")
    let dotted = await bench.update(file: (path, "V1.2.256"))
    #expect(!dotted.0.success && dotted.0.errorMessage?.contains("no device encoding") == true)
    let malformed = await bench.update(file: (path, "V00\u{7}96"))
    #expect(!malformed.0.success && malformed.0.errorMessage?.contains("byte 3") == true)
    let missing = await bench.update(file: (bench.directory + "/absent.bin", "V0096"))
    #expect(!missing.0.success && missing.0.errorMessage?.isEmpty == false)
    #expect(await bench.device.runningFirmware == Self.v95)
    #expect(await bench.device.counters.firmwareBytesReceived == 0)
    try await eventually("fota results") { log.count("bleFotaResult -1") == 5 }
  }

  @Test("versions in both forms parse and compare; malformed text is a typed error, never a crash")
  func versions() throws {
    let agent = PlaudDeviceAgent(configuration: PlaudSDKConfiguration())
    #expect(agent.compareVersions("V0096", "V0095") == 1)
    #expect(agent.compareVersions("V0095", "V0096") == -1)
    #expect(agent.compareVersions("v0096", "V96") == 0)
    #expect(agent.compareVersions("V1.2.8", "V1.10.0") == -1)
    #expect(agent.compareVersions("V1.2.10", "V1.2.9") == 1)
    #expect(agent.compareVersions("V1.2.8", "V1.2.8") == 0)
    #expect(agent.shouldUpdate(currentVersion: "V0095", latestVersion: "V0096"))
    #expect(agent.shouldUpdate(currentVersion: "V1.2.8", latestVersion: "V1.3.0"))
    #expect(!agent.shouldUpdate(currentVersion: "V0096", latestVersion: "V0096"))
    // One of each form by device code (PROTOCOL.md §1); none between type letters or for a
    // dotted part above 255.
    #expect(agent.shouldUpdate(currentVersion: "V0095", latestVersion: "V1.2.8"))
    #expect(agent.compareVersions("V66055", "V1.2.7") == 0)
    #expect(!agent.shouldUpdate(currentVersion: "V0095", latestVersion: "X0096"))
    #expect(try PlaudFirmwareBridge.order("V1.2.8", relativeTo: "V0096") == .newer)
    #expect(try PlaudFirmwareBridge.order("V1.2.256", relativeTo: "V0096") == nil)
    let malformed: [(String, FirmwareVersionError)] = [
      ("", .empty), ("0096", .noTypeLetter), ("V", .emptyPart(offset: 1)),
      ("V1.2", .partCount(2)), ("V-1", .notADigit(offset: 1)), ("V0096 ", .notADigit(offset: 5)),
      ("V\u{FF11}", .notADigit(offset: 1)), ("V123456789", .tooManyDigits(limit: 8)),
      ("V16777216", .outOfRange), ("V1.2.", .emptyPart(offset: 5)),
      (String(repeating: "V", count: 40), .tooLong(bytes: 40, limit: 16)),
    ]
    for (text, error) in malformed {
      #expect(throws: error) { try PlaudFirmwareBridge.order(text, relativeTo: "V0096") }
      #expect(agent.compareVersions(text, "V0096") == 0)
      #expect(!agent.shouldUpdate(currentVersion: "V0095", latestVersion: text))
    }
    #expect(throws: FirmwareVersionError.noDeviceEncoding) {
      try PlaudFirmwareBridge.version("V1.2.256")
    }
    #expect(try PlaudFirmwareBridge.version("V1.2.8").code == 66056)
    #expect(try PlaudFirmwareBridge.version("V0096") == Self.v96)
    #expect(agent.formatFileSize(512) == "512 B" && agent.formatFileSize(-3) == "0 B")
    #expect(agent.formatFileSize(1536) == "1.5 KB" && agent.formatFileSize(3 << 20) == "3.0 MB")
  }
}

extension String {
  /// The path the cloud emulator logs for an API path (`/developer/api` + self).
  fileprivate var apiPath: String { "/developer/api" + self }
}
