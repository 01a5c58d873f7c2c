import Foundation
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import TestSupport

/// Issue 15's figure: link utilization of a firmware push of a 1 MB image on the in-process
/// emulator, in virtual time: image bytes ÷ (capacity × virtual time from FOTA_PUSH to the
/// device's result), capacity = 160 data bytes per `03` frame × frames per connection event
/// ÷ the interval. The phone's write queue holds 16 writes (more than one event carries).
/// The time includes the device's 0.5 s image check between FOTA_DONE and the result.
enum OTABenchmarks {
  static func run() throws {
    var configured = LinkParameters()
    configured.writeQueueCapacity = 16
    let link = configured
    let capacity =
      Double(OTADataFrame.standardData * link.packetsPerEvent(valueLength: 166))
      / link.connectionInterval.seconds
    print(
      "== ota: in-process emulator, virtual-time link (\(link.packetsPerConnectionEvent) packets/event, "
        + String(format: "%.0f", link.connectionInterval.seconds * 1000)
        + " ms interval), capacity \(String(format: "%.1f", capacity)) B/s, 160 data bytes per 03 frame"
    )
    for size in [1_048_576] {
      let (duration, real) = try blocking { try await push(size: size, link: link) }
      let utilization = Double(size) / (capacity * duration.seconds)
      print(
        "ota push \(size) bytes: FOTA_PUSH → result \(String(format: "%.2f", duration.seconds)) s virtual, "
          + "utilization \(String(format: "%.4f", utilization)) (real time \(String(format: "%.2f", real.seconds)) s)"
      )
    }
  }

  static func push(size: Int, link: LinkParameters) async throws -> (Duration, Duration) {
    let clock = ManualClock()
    let directory = NSTemporaryDirectory() + "ota-bench-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer {
      clock.stopAutoAdvance()
      try? FileManager.default.removeItem(atPath: directory)
    }
    let device = try EmulatedDevice(
      configuration: DeviceConfiguration(link: link), flashDirectory: directory + "/flash",
      time: .manual(clock))
    let central = EmulatorCentral(device: device)
    clock.startAutoAdvance()
    let target = FirmwareVersion(type: 0x56, code: 96)
    let path = directory + "/fw.bin"
    try Data(EmulatedFirmwareImage.make(version: target, size: size, seed: 15)).write(
      to: URL(fileURLWithPath: path))
    let file = try FirmwareFile(path: path, version: target.description)
    var session = DeviceSession.Configuration(token: DeviceConfiguration.exampleToken)
    session.clock = AnyClock(clock)
    let updater = FirmwareUpdater(
      central: central, serial: device.serial, sessionConfiguration: session)
    let started = ContinuousClock.now
    let result = try await updater.install(file, to: target)
    let real = ContinuousClock.now - started
    await result.session.close()
    return (result.pushDuration, real)
  }
}

extension OTADataFrame {
  /// Data bytes per `03` frame (PROTOCOL.md §7).
  static let standardData = 160
}
