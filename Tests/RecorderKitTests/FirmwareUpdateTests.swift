import Foundation
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import TestSupport
import Testing

/// Issue 15: OTA end to end against the emulated device, in process, on virtual time.
@Suite("Firmware update (OTA) against the emulator", .serialized)
struct FirmwareUpdateTests {
  static let v95 = FirmwareVersion(type: 0x56, code: 95)
  static let v96 = FirmwareVersion(type: 0x56, code: 96)

  /// An emulator bench whose link queue holds more writes than one connection event carries
  /// (a phone's stack does), and an image file of `size` bytes on disk.
  struct OTABench {
    let bench: EmulatorBench
    let file: FirmwareFile
    let directory: String

    init(size: Int, seed: UInt64, valid: Bool = true, configuration: DeviceConfiguration? = nil)
      throws
    {
      var configuration = configuration ?? DeviceConfiguration(seed: seed)
      configuration.link.writeQueueCapacity = 16
      bench = try EmulatorBench(seed: seed, configuration: configuration)
      directory = NSTemporaryDirectory() + "ota-\(UUID().uuidString)"
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      var image = EmulatedFirmwareImage.make(
        version: FirmwareUpdateTests.v96, size: size, seed: seed)
      if !valid { image[image.count / 2] ^= 0x5A }
      let path = directory + "/fw.bin"
      try Data(image).write(to: URL(fileURLWithPath: path))
      file = try FirmwareFile(path: path, version: "V0096")
    }

    /// An updater of this bench's device. Unpaced by default (as a Note Pro is pushed):
    /// these tests push hundreds of kilobytes, and a paced frame costs the simulation a jump
    /// of its clock each (the pacing has its own test).
    func updater(maximumReconnects: Int = 30, pacing: FirmwareUpdater.FramePacing = .unpaced)
      -> FirmwareUpdater
    {
      var configuration = FirmwareUpdater.Configuration()
      configuration.maximumReconnects = maximumReconnects
      configuration.framePacing = pacing
      return FirmwareUpdater(
        central: bench.central, serial: bench.device.serial,
        sessionConfiguration: bench.configuration(), configuration: configuration)
    }

    func cleanUp() {
      bench.cleanUp()
      try? FileManager.default.removeItem(atPath: directory)
    }
  }

  /// Against a plain device and a Mode B one; the Mode B device's MTU (180) fits a plain
  /// 160-byte `03` frame but not a sealed one, so the push must size its frames for sealing.
  @Test(
    "a push completes, the device restarts into the new version, and the SDK confirms it",
    arguments: PortVersions.plainAndModeB)
  func endToEnd(portVersion: UInt16) async throws {
    var configuration = DeviceConfiguration(seed: 0x15_0001)
    configuration.portVersion = portVersion
    if portVersion >= ProtocolDefaults.modeBPortVersion {
      configuration.link.deviceMaximumMTU = 180
    }
    let ota = try OTABench(size: 200_000, seed: 0x15_0001, configuration: configuration)
    defer { ota.cleanUp() }
    let updater = ota.updater()
    let phases = Task {
      var seen: [FirmwareProgress] = []
      for await progress in updater.progress { seen.append(progress) }
      return seen
    }
    let result = try await updater.install(ota.file, to: Self.v96)
    #expect(result.previousVersion == "V0095")
    #expect(result.version == "V0096")
    #expect(await result.session.info.firmware == Self.v96)
    await result.session.close()
    #expect(await ota.bench.device.runningFirmware == Self.v96)
    #expect(await ota.bench.device.firmwareUpdates.map(\.result) == [0])
    let seen = await phases.value
    #expect(seen.map(\.phase).first == .installing)
    #expect(seen.last == FirmwareProgress(phase: .complete, fraction: 1))
    // Phases never go backwards; fractions never go backwards within a phase.
    for (a, b) in zip(seen, seen.dropFirst()) {
      #expect(
        a.phase.rawValue < b.phase.rawValue
          || (a.phase == b.phase && a.fraction <= b.fraction), "\(a) then \(b)")
    }
  }

  /// PROTOCOL.md §7 [sdk-code]: one 80-byte frame every 18 ms on every model but the Note
  /// Pro. A device that loses a frame arriving sooner than 12 ms after the one before (an
  /// overrun receive buffer: the evidence does not say a device has one, the emulator's
  /// option models it) installs a push paced as the model asks, and not an unpaced one.
  @Test("frames are paced 18 ms apart on a Note by default; a device that needs it installs")
  func pacedFrames() async throws {
    var configuration = DeviceConfiguration(seed: 0x15_0060)
    configuration.ota.minimumFrameInterval = .milliseconds(12)
    let ota = try OTABench(size: 4_000, seed: 0x15_0060, configuration: configuration)
    defer { ota.cleanUp() }
    let clock = AnyClock(ota.bench.clock)
    let started = clock.elapsed
    let result = try await ota.updater(pacing: .model).install(ota.file, to: Self.v96)
    let took = clock.elapsed - started
    #expect(result.version == "V0096")
    await result.session.close()
    #expect(await ota.bench.device.counters.firmwareFramesLost == 0)
    // 50 frames of 80 bytes, 49 gaps of at least 18 ms between them.
    #expect(took >= .milliseconds(18 * 49), "the push took \(took)")

    let unpaced = try OTABench(size: 4_000, seed: 0x15_0061, configuration: configuration)
    defer { unpaced.cleanUp() }
    do {
      let result = try await unpaced.updater(maximumReconnects: 2).install(
        unpaced.file, to: Self.v96)
      await result.session.close()
      Issue.record("an unpaced push installed on a device that loses frames sent too soon")
    } catch {
      #expect(await unpaced.bench.device.counters.firmwareFramesLost > 0)
    }
    #expect(await unpaced.bench.device.runningFirmware == Self.v95)
  }

  @Test("10 seeded link drops during the push: it resumes each time, completes, version confirmed")
  func tenLinkDrops() async throws {
    let size = 300_000
    let ota = try OTABench(size: size, seed: 0x15_0010)
    defer { ota.cleanUp() }
    var random = SplitMix64(seed: 0x15_0010)
    let offsets = (0..<10).map { _ in Int(random.next() % UInt64(size - 1000)) + 500 }.sorted()
    await ota.bench.device.setFaults(FaultPlan(dropLinkAtFirmwareOffsets: offsets))
    let result = try await ota.updater().install(ota.file, to: Self.v96)
    #expect(result.reconnects == 10, "offsets \(offsets)")
    #expect(result.version == "V0096")
    #expect(await result.session.info.firmware == Self.v96)
    await result.session.close()
    #expect(await ota.bench.device.faultPlan.dropLinkAtFirmwareOffsets.isEmpty)
    // Resumed, not restarted: the device received each byte about once.
    let received = await ota.bench.device.counters.firmwareBytesReceived
    #expect(received == size, "received \(received) bytes for a \(size)-byte image")
  }

  @Test("a corrupt image: the device keeps the old version and the SDK reports the rejection")
  func corruptImage() async throws {
    let ota = try OTABench(size: 50_000, seed: 0x15_0020, valid: false)
    defer { ota.cleanUp() }
    await #expect(throws: FirmwareUpdateError.rejectedByDevice(result: 4)) {
      try await ota.updater().install(ota.file, to: Self.v96)
    }
    #expect(await ota.bench.device.runningFirmware == Self.v95)
    #expect(await ota.bench.device.firmwareUpdates.map(\.result) == [4])
    #expect(await ota.bench.device.firmwareUpdates.map(\.runningVersion) == ["V0095"])
    // Still the old firmware after a reconnect: nothing was installed.
    let session = try await ota.bench.connect()
    #expect(await session.info.firmware == Self.v95)
    await session.close()
  }

  @Test("low battery and a recording refuse the update before anything is pushed")
  func refusals() async throws {
    let ota = try OTABench(size: 20_000, seed: 0x15_0030)
    defer { ota.cleanUp() }
    await ota.bench.device.setBattery(level: 12, charging: false)
    await #expect(throws: FirmwareUpdateError.batteryLow(level: 12, minimum: 30)) {
      try await ota.updater().install(ota.file, to: Self.v96)
    }
    await ota.bench.device.setBattery(level: 12, charging: true)
    let session = try await ota.bench.connect()
    try await session.startRecording()
    await #expect(throws: FirmwareUpdateError.recording) {
      try await ota.updater().install(ota.file, to: Self.v96, session: session)
    }
    #expect(await ota.bench.device.counters.firmwareBytesReceived == 0)
    #expect(await ota.bench.device.firmwareUpdates.isEmpty)
    #expect(await ota.bench.device.runningFirmware == Self.v95)
  }

  @Test("a wrong MD5 is refused by FirmwareFile.verify before any connection")
  func wrongMD5() async throws {
    let ota = try OTABench(size: 20_000, seed: 0x15_0040)
    defer { ota.cleanUp() }
    #expect(throws: FirmwareUpdateError.checksumMismatch(algorithm: "MD5")) {
      try ota.file.verify(md5: String(repeating: "0", count: 32))
    }
    try ota.file.verify(md5: ota.file.md5.uppercased(), sha256: ota.file.sha256)
  }

  /// Issue 15, "OTA push link utilization": image bytes ÷ (capacity × virtual time from
  /// FOTA_PUSH to the result), capacity = 80 data bytes per `03` frame (a Note: §7) × frames
  /// per connection event ÷ the interval (2M PHY, 15 ms, 5 packets).
  @Test("a 1 MB push uses at least 90 % of the link's capacity in virtual time")
  func utilization() async throws {
    let size = 1_048_576
    let ota = try OTABench(size: size, seed: 0x15_0050)
    defer { ota.cleanUp() }
    let link = ota.bench.device.configuration.link
    let capacity =
      Double(80 * link.packetsPerEvent(valueLength: 86)) / link.connectionInterval.seconds
    let result = try await ota.updater().install(ota.file, to: Self.v96)
    await result.session.close()
    let utilization = Double(size) / (capacity * result.pushDuration.seconds)
    print(
      "OTA push utilization: \(size) bytes, capacity \(String(format: "%.1f", capacity)) B/s, "
        + "FOTA_PUSH → result \(result.pushDuration): \(String(format: "%.4f", utilization))")
    #expect(utilization >= 0.9, "utilization \(utilization)")
  }
}
