import Foundation
import RecorderConcurrency
import RecorderCrypto
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import RecorderWebSocket
import TestSupport
import Testing

/// Issue 29 items 5 and 10: the updater installs only newer firmware unless a downgrade is
/// allowed, and its progress finishes on every path (the emulated device in process; the
/// cloud on loopback).
@Suite("Firmware version policy and progress", .serialized)
struct FirmwareVersionPolicyTests {
  static let v95 = FirmwareVersion(type: 0x56, code: 95)
  static let v01 = FirmwareVersion(type: 0x56, code: 1)

  /// A device on V0095, an image file for `version`, an updater with `allowDowngrade`.
  struct Bench {
    let bench: EmulatorBench
    let directory: String
    let image: [UInt8]
    let file: FirmwareFile

    init(version: FirmwareVersion, seed: UInt64) throws {
      var configuration = DeviceConfiguration(seed: seed)
      configuration.link.writeQueueCapacity = 16
      bench = try EmulatorBench(seed: seed, configuration: configuration)
      directory = NSTemporaryDirectory() + "ota-policy-\(UUID().uuidString)"
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      image = EmulatedFirmwareImage.make(version: version, size: 8192, seed: seed)
      let path = directory + "/fw.bin"
      try Data(image).write(to: URL(fileURLWithPath: path))
      file = try FirmwareFile(path: path, version: version.description)
    }

    func updater(allowDowngrade: Bool = false) -> FirmwareUpdater {
      var configuration = FirmwareUpdater.Configuration()
      configuration.allowDowngrade = allowDowngrade
      return FirmwareUpdater(
        central: bench.central, serial: bench.device.serial,
        sessionConfiguration: bench.configuration(), configuration: configuration)
    }

    func cleanUp() {
      bench.cleanUp()
      try? FileManager.default.removeItem(atPath: directory)
    }
  }

  /// Drains `updater.progress`; the guard fails the test if it never finishes.
  static func drain(_ updater: FirmwareUpdater) -> Task<[FirmwareProgress], any Error> {
    Task {
      try await withTimeout(60) {
        var seen: [FirmwareProgress] = []
        for await step in updater.progress { seen.append(step) }
        return seen
      }
    }
  }

  @Test("an older file is refused (typed) before anything is pushed; allowed, it installs")
  func olderFile() async throws {
    let ota = try Bench(version: Self.v01, seed: 0x29_0010)
    defer { ota.cleanUp() }
    let refused = ota.updater()
    let progress = Self.drain(refused)
    await #expect(throws: FirmwareUpdateError.downgradeRefused(current: "V0095", offered: "V0001"))
    {
      try await refused.install(ota.file, to: Self.v01)
    }
    _ = try await progress.value
    #expect(await ota.bench.device.counters.firmwareBytesReceived == 0)
    #expect(await ota.bench.device.firmwareUpdates.isEmpty)
    #expect(await ota.bench.device.runningFirmware == Self.v95)

    let allowed = ota.updater(allowDowngrade: true)
    let result = try await allowed.install(ota.file, to: Self.v01)
    #expect(result.previousVersion == "V0095")
    #expect(result.version == "V0001")
    await result.session.close()
    #expect(await ota.bench.device.runningFirmware == Self.v01)
  }

  @Test("the device's own version is never pushed again, even with downgrades allowed")
  func sameVersionFile() async throws {
    let ota = try Bench(version: Self.v95, seed: 0x29_0011)
    defer { ota.cleanUp() }
    for allow in [false, true] {
      await #expect(throws: FirmwareUpdateError.noUpdate(current: "V0095")) {
        try await ota.updater(allowDowngrade: allow).install(ota.file, to: Self.v95)
      }
    }
    #expect(await ota.bench.device.counters.firmwareBytesReceived == 0)
    #expect(await ota.bench.device.firmwareUpdates.isEmpty)
  }

  @Test("the cloud offers an older release: refused (typed); allowed, it installs")
  func olderCloudRelease() async throws {
    let ota = try Bench(version: Self.v01, seed: 0x29_0012)
    defer { ota.cleanUp() }
    let cloud = try CloudEmulator()
    defer { cloud.stop() }
    cloud.publishFirmware(type: "note", version: Self.v01, image: ota.image)
    let client = try CloudClient(
      domain: cloud.url, userToken: try UserToken(jwt: cloud.issueToken(userID: "u-1")))
    let refused = ota.updater()
    let progress = Self.drain(refused)
    await #expect(throws: FirmwareUpdateError.downgradeRefused(current: "V0095", offered: "V0001"))
    {
      try await refused.update(using: client, downloadingInto: ota.directory)
    }
    _ = try await progress.value
    #expect(!cloud.requestLog.contains { $0.path.hasPrefix("/firmware/") }, "nothing downloaded")
    #expect(await ota.bench.device.runningFirmware == Self.v95)

    let allowed = ota.updater(allowDowngrade: true)
    let result = try await allowed.update(using: client, downloadingInto: ota.directory)
    #expect(result.version == "V0001")
    await result.session.close()
    #expect(await ota.bench.device.runningFirmware == Self.v01)
  }

  @Test("the version offered is version_type + version_code; version_number is not read (§8)")
  func versionFromCode() throws {
    // The real cloud sent version_number empty [client]; a stale one changes nothing.
    let json = JSONValue.object([
      ("code", .int(0)),
      (
        "data",
        .object([
          ("version_number", .string("V0001")), ("version_code", .int(96)),
          ("download_url", .string("/firmware/fw.bin")),
        ])
      ),
    ])
    let release = try FirmwareRelease.parse(json, current: Self.v95)
    #expect(release.latestVersion == "V0096" && release.versionNumber == "V0001")
    #expect(release.hasUpdate)
  }

  @Test("progress finishes when the cloud has nothing newer and after each cloud failure")
  func progressFinishesOnEveryCloudPath() async throws {
    let ota = try Bench(version: FirmwareVersion(type: 0x56, code: 96), seed: 0x29_0014)
    defer { ota.cleanUp() }
    let cloud = try CloudEmulator()
    defer { cloud.stop() }
    let user = try UserToken(jwt: cloud.issueToken(userID: "u-2"))
    var retry = CloudClient.Configuration()
    retry.retry = RetryPolicy(maximumAttempts: 1, jitter: RetryPolicy.seeded(3))
    let client = try CloudClient(domain: cloud.url, userToken: user, configuration: retry)

    // Nothing published.
    let upToDate = ota.updater()
    let upToDateProgress = Self.drain(upToDate)
    await #expect(throws: FirmwareUpdateError.noUpdate(current: "V0095")) {
      try await upToDate.update(using: client, downloadingInto: ota.directory)
    }
    #expect(try await upToDateProgress.value.isEmpty)

    // A check that fails (503 once, one attempt allowed).
    cloud.setFaults(CloudFaults(serverErrors: 1))
    let failedCheck = ota.updater()
    let failedCheckProgress = Self.drain(failedCheck)
    await #expect(throws: FirmwareUpdateError.cloud(.unavailable(status: 503, attempts: 1))) {
      try await failedCheck.update(using: client, downloadingInto: ota.directory)
    }
    _ = try await failedCheckProgress.value

    // A download that does not match its MD5.
    cloud.publishFirmware(
      type: "note", version: FirmwareVersion(type: 0x56, code: 96), image: ota.image,
      md5: String(repeating: "ab", count: 16))
    let mismatch = ota.updater()
    let mismatchProgress = Self.drain(mismatch)
    await #expect(throws: FirmwareUpdateError.cloud(.checksumMismatch(algorithm: "MD5"))) {
      try await mismatch.update(using: client, downloadingInto: ota.directory)
    }
    let steps = try await mismatchProgress.value
    #expect(steps.allSatisfy { $0.phase == .downloading })
    #expect(await ota.bench.device.firmwareUpdates.isEmpty)
  }
}
