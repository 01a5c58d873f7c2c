import Foundation
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderStore

/// An emulated recorder on a manual clock (not yet advancing) in a temporary folder, with
/// what the platform tests need around it: a connect over the in-process central and a sync
/// engine over a journal of its own.
package struct RecorderBench {
  package let clock = ManualClock()
  package let directory: String
  package let device: EmulatedDevice
  package let central: EmulatorCentral

  /// - Parameters:
  ///   - name: the folder's prefix.
  ///   - seed: the device's seed (its serial, token and recordings' bytes).
  ///   - configure: changes to the device's configuration.
  package init(
    _ name: String, seed: UInt64, configure: (inout DeviceConfiguration) -> Void = { _ in }
  ) throws {
    directory = NSTemporaryDirectory() + "\(name)-\(UUID().uuidString)"
    var configuration = DeviceConfiguration(seed: seed)
    configure(&configuration)
    device = try EmulatedDevice(
      configuration: configuration, flashDirectory: directory + "/flash",
      time: .manual(clock))
    central = EmulatorCentral(device: device)
  }

  package var anyClock: AnyClock { AnyClock(clock) }
  /// The sync engine's root.
  package var root: String { directory + "/root" }

  package func cleanUp() {
    clock.stopAutoAdvance()
    try? FileManager.default.removeItem(atPath: directory)
  }

  /// Finds the device by serial and connects with its token.
  package func connect() async throws -> DeviceSession {
    var session = DeviceSession.Configuration(token: device.configuration.token)
    session.clock = anyClock
    let found = try await RecorderScanner(central: central, clock: anyClock).find(
      serial: device.serial, timeout: .seconds(30))
    return try await DeviceSession.connect(to: found, using: central, configuration: session)
  }

  /// The front door over the in-process central, with the device's token.
  package var recorders: Recorders {
    var session = DeviceSession.Configuration(token: device.configuration.token)
    session.clock = anyClock
    return Recorders(
      radio: .shared(central), configuration: .init(session: session, findTimeout: .seconds(30)))
  }

  /// A sync engine keeping Opus exports under ``root``.
  package func makeEngine() throws -> SyncEngine {
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    var options = SyncEngine.Options()
    options.format = .opus
    return SyncEngine(
      journal: try Journal(path: root + "/journal.sqlite"), root: root, options: options,
      clock: anyClock)
  }
}
