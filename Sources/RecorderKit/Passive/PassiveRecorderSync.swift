import RecorderBluetooth
import RecorderConcurrency

/// What ``PassiveReader`` does when a registered recorder appears: sync its new recordings.
/// The reader has already heard it (it owns the one scan), so this connects straight to
/// `device` without scanning.
public protocol PassiveRecorderSync: Sendable {
  /// Syncs `device`; returns how many recordings the run stored.
  func syncRecorder(_ device: DiscoveredDevice) async throws -> Int
}

/// The existing sync, wired for passive use: an authenticated ``DeviceSession`` to the
/// recorder heard, then one run of the ``SyncEngine`` over BLE, then the session closes.
public struct SessionRecorderSync: PassiveRecorderSync {
  public let central: any Central
  public let configuration: DeviceSession.Configuration
  public let engine: SyncEngine

  public init(central: any Central, configuration: DeviceSession.Configuration, engine: SyncEngine)
  {
    self.central = central
    self.configuration = configuration
    self.engine = engine
  }

  public func syncRecorder(_ device: DiscoveredDevice) async throws -> Int {
    let session = try await DeviceSession.connect(
      to: device, using: central, configuration: configuration)
    do {
      let report = try await engine.sync(using: BLETransport(session: session))
      await session.close()
      return report.files.count
    } catch {
      await session.close()
      throw error
    }
  }
}
