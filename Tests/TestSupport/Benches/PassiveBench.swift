import Foundation
import HealthProfiles
import RecorderBluetooth
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderStore

/// Emulated health peripherals on a manual clock (auto-advancing: virtual time), their
/// in-process central, and a journal in a temporary directory: what the passive tests start
/// from.
package final class PassiveBench: Sendable {
  package let clock = ManualClock()
  package let peripherals: [EmulatedHealthPeripheral]
  package let central: HealthCentral
  package let directory: String
  package var journalPath: String { directory + "/journal.sqlite" }
  package var anyClock: AnyClock { AnyClock(clock) }

  package init(
    _ kinds: [HealthPeripheralKind],
    configure: (inout EmulatedHealthPeripheral.Configuration) -> Void = { _ in }
  ) throws {
    directory = NSTemporaryDirectory() + "recorder-passive-tests-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let clock = self.clock
    peripherals = kinds.map { kind in
      var configuration = EmulatedHealthPeripheral.Configuration(kind: kind)
      configure(&configuration)
      return EmulatedHealthPeripheral(configuration: configuration, time: .manual(clock))
    }
    central = HealthCentral(peripherals: peripherals)
    clock.startAutoAdvance()
  }

  deinit {
    clock.stopAutoAdvance()
    try? FileManager.default.removeItem(atPath: directory)
  }

  package func journal() throws -> Journal { try Journal(path: journalPath) }

  /// The registration of peripheral `index` as the app would make it.
  package func registration(_ index: Int = 0) async -> PassivePeripheral {
    let peripheral = peripherals[index]
    return PassivePeripheral(
      identifier: await peripheral.address.rawValue, kind: .health(await peripheral.kind))
  }

  /// Sleeps `duration` of virtual time (the auto-advance moves it).
  package func pass(_ duration: Duration) async throws { try await clock.sleep(for: duration) }

  /// Waits up to `limit` of virtual time, a second at a time, for `condition`.
  package func within(_ limit: Duration, _ condition: () async throws -> Bool) async throws -> Bool
  {
    var waited = Duration.zero
    while waited < limit {
      if try await condition() { return true }
      try await pass(.seconds(1))
      waited += .seconds(1)
    }
    return try await condition()
  }

  /// Outbox entries not yet delivered (nothing uploads in these tests unless they say so).
  package func pendingOutbox() throws -> [OutboxEntry] {
    try journal().read { try $0.pendingOutbox() }
  }
}

/// An ``HTTPPoster`` playing the endpoint: keeps one record per idempotency key and counts
/// every request; can be told to take a request in and never answer (the crash window).
package final class EndpointModel: HTTPPoster {
  package struct State {
    package var requests: [String] = []
    package var records: [String: [UInt8]] = [:]
    package var hangNext = false
  }
  package let state = Locked(State())
  /// Never yields; finished when the hanging request's task is cancelled.
  package let never = AsyncStream.makeStream(of: Void.self)

  package init() {}

  package func post(_ body: [UInt8], to url: URL, headers: [String: String], timeout: Duration)
    async throws(UploadError) -> Int
  {
    let key = headers[RecordUploader.idempotencyHeader] ?? ""
    let hang = state.withLock { state -> Bool in
      state.requests.append(key)
      if state.records[key] == nil { state.records[key] = body }
      defer { state.hangNext = false }
      return state.hangNext
    }
    if hang {
      // Received and kept; the answer never comes before the uploader is killed.
      await withTaskCancellationHandler {
        for await _ in never.stream {}
      } onCancel: {
        never.continuation.finish()
      }
      throw .transport("killed")
    }
    return 201
  }
}
