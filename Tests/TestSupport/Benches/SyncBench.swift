import Foundation
import RecorderAudio
import RecorderConcurrency
import RecorderCrypto
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import RecorderStore

/// One emulated device with recordings, on a manual clock (virtual time), its in-process
/// central, and a sync root: what every sync test starts from.
///
/// The flash can be copied from a template directory made once (``SyncFlashTemplate``), so
/// a test that needs hundreds of fresh devices with the same recordings does not encode
/// audio hundreds of times.
package final class SyncBench: Sendable {
  package let clock: ManualClock
  package let device: EmulatedDevice
  package let central: EmulatorCentral
  /// Temporary directory holding the flash and the sync root.
  package let directory: String
  /// The sync root (journal, raw copies) and where exports go.
  package let root: String
  package let seed: UInt64
  /// The user key sessions present to a Mode B device.
  package let userKey: RSAPrivateKey

  /// A device whose flash is a copy of `template` (or empty when nil); `portVersion` 20 or
  /// more makes it a Mode B device, which the bench's sessions reach with ``TestUserKey``.
  /// `configure` changes the device configuration last (a container, a flag).
  package init(
    seed: UInt64, template: SyncFlashTemplate? = nil, link: LinkParameters = LinkParameters(),
    wifi: WiFiParameters = WiFiParameters(), tailCRCCoverage: TailCRCCoverage = .requestBytes,
    portVersion: UInt16 = ProtocolDefaults.portVersion, modeB: ModeBParameters = ModeBParameters(),
    userKey: RSAPrivateKey? = nil, configure: (inout DeviceConfiguration) -> Void = { _ in }
  ) throws {
    self.seed = seed
    self.userKey = try userKey ?? TestUserKey.key()
    clock = ManualClock()
    directory = NSTemporaryDirectory() + "recorder-sync-tests-\(UUID().uuidString)"
    root = directory + "/root"
    let flash = directory + "/flash"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    if let template {
      try FileManager.default.copyItem(atPath: template.flash, toPath: flash)
    }
    var configuration = DeviceConfiguration(seed: template?.seed ?? seed)
    configuration.link = link
    configuration.wifi = wifi
    configuration.tailCRCCoverage = tailCRCCoverage
    configuration.portVersion = portVersion
    configuration.modeB = modeB
    configure(&configuration)
    device = try EmulatedDevice(
      configuration: configuration, flashDirectory: flash, time: .manual(clock))
    central = EmulatorCentral(device: device)
    clock.startAutoAdvance()
  }

  package var exportDirectory: String { root + "/exports" }
  package var journalPath: String { root + "/journal.sqlite" }
  package var sessionClock: AnyClock { AnyClock(clock) }

  /// Finds the device by serial and opens an authenticated session (as the CLI does), with
  /// `modeB` (default: the bench's user key, no cloud).
  package func connect(modeB: ModeBCredentials? = nil) async throws -> DeviceSession {
    var configuration = DeviceSession.Configuration(token: device.configuration.token)
    configuration.clock = sessionClock
    configuration.modeB = modeB ?? ModeBCredentials(userKey: userKey)
    // Under a loaded machine the auto-advance can run a scan's 10 s out before the first
    // advertisement is handled: scan again (a phone would too).
    var attempt = 0
    while true {
      attempt += 1
      do {
        let found = try await RecorderScanner(central: central, clock: sessionClock).find(
          serial: device.serial, timeout: .seconds(10))
        return try await DeviceSession.connect(
          to: found, using: central, configuration: configuration)
      } catch {
        guard attempt < 3, case .deviceNotFound = error else { throw error }
        continue
      }
    }
  }

  /// Keeps the manual clock from leaping far ahead while the test does real-time work: a
  /// sleeper every 100 ms of virtual time, so an idle auto-advance moves at most that far at
  /// a time. A live recording needs it: otherwise its own length-limit timer (5 hours out) is
  /// the only deadline, an idle moment jumps straight to it, and the recording has stopped
  /// before the sync lists it. Cancel the task when done.
  package func pacing() -> Task<Void, Never> {
    let clock = sessionClock
    return Task {
      while (try? await clock.sleep(for: .milliseconds(100))) != nil {}
    }
  }

  /// A journal on the root (created if missing) and an engine over `fileSystem`.
  package func makeEngine(
    fileSystem: any DurableFileSystem = PosixFileSystem(), options: SyncEngine.Options = .fast
  ) throws -> SyncEngine {
    try fileSystem.createDirectory(root)
    let journal = try Journal(path: journalPath)
    return SyncEngine(
      journal: journal, fileSystem: fileSystem, root: root, options: options, clock: sessionClock)
  }

  /// Connects, syncs once, closes (even when the sync throws).
  package func syncOnce(
    _ engine: SyncEngine, wrap: @Sendable (BLETransport) -> any RecordingTransport = { $0 }
  ) async throws -> SyncReport {
    let session = try await connect()
    do {
      let report = try await engine.sync(using: wrap(BLETransport(session: session)))
      await session.close()
      return report
    } catch {
      await session.close()
      throw error
    }
  }

  /// The journal's records for this device, read through a fresh connection.
  package func journalRecords() throws -> [SessionID: RecordingRecord] {
    let journal = try Journal(path: journalPath)
    let records = try journal.read { try $0.recordings(serial: device.serial) }
    return Dictionary(uniqueKeysWithValues: records.map { (SessionID($0.sessionId), $0) })
  }

  /// Names in the export directory (hidden ones included).
  package func exportNames() -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: exportDirectory)) ?? []).sorted()
  }

  /// Raw copy of a recording, nil when missing.
  package func rawPath(_ sessionId: SessionID) -> String {
    root + "/\(device.serial)/\(sessionId).opus-raw"
  }
  package func partPath(_ sessionId: SessionID) -> String {
    root + "/\(device.serial)/\(sessionId).part"
  }

  package func cleanUp() {
    clock.stopAutoAdvance()
    try? FileManager.default.removeItem(atPath: directory)
  }
}

extension SyncEngine.Options {
  /// Ogg Opus exports (pass-through: cheap) and small checkpoints (many crash points).
  package static var fast: SyncEngine.Options {
    var options = SyncEngine.Options()
    options.format = .opus
    options.checkpointBytes = 8 * 1024
    return options
  }
}

/// A flash directory with recordings, made once and copied into each ``SyncBench``.
package struct SyncFlashTemplate: Sendable {
  package let flash: String
  package let seed: UInt64
  /// The recordings as made, with their SHA-256.
  package let recordings: [RecordingInfo]
  package var totalBytes: Int64 { recordings.reduce(0) { $0 + Int64($1.size) } }
  package var digests: [SessionID: String] {
    Dictionary(uniqueKeysWithValues: recordings.map { ($0.sessionId, $0.sha256 ?? "") })
  }

  package static func make(seed: UInt64, durations: [Duration]) async throws -> SyncFlashTemplate {
    let directory = NSTemporaryDirectory() + "recorder-sync-template-\(UUID().uuidString)"
    let flash = directory + "/flash"
    let clock = ManualClock()
    let device = try EmulatedDevice(
      configuration: DeviceConfiguration(seed: seed), flashDirectory: flash, time: .manual(clock))
    for duration in durations { try await device.addRecording(duration: duration) }
    let recordings = try await device.recordings(includingDigests: true)
    return SyncFlashTemplate(flash: flash, seed: seed, recordings: recordings)
  }

  package func cleanUp() { try? FileManager.default.removeItem(atPath: parentDirectory(flash)) }
}

package func parentDirectory(_ path: String) -> String {
  (path as NSString).deletingLastPathComponent
}

/// SHA-256 (hex) of a local file, nil when missing.
package func sha256(ofFile path: String) -> String? {
  guard FileManager.default.fileExists(atPath: path) else { return nil }
  return try? FileDigest.sha256Hex(ofFile: path)
}

/// A transport that forwards to another and lets a test watch or alter what passes.
package struct WatchedTransport: RecordingTransport {
  package let base: any RecordingTransport
  package var alterTail: @Sendable (SyncTail) -> SyncTail = { $0 }
  package var onStream: @Sendable () -> Void = {}
  package var onDeleted: @Sendable () -> Void = {}
  /// Sees each data frame before the engine does.
  package var onFrame: @Sendable (BulkFrame) -> Void = { _ in }
  /// Changes what LIST reports (a device that lies about sizes or repeats an entry).
  package var alterList: @Sendable ([Recording]) -> [Recording] = { $0 }
  /// Sees each DELETE before the device does.
  package var beforeDelete: @Sendable (SessionID) async -> Void = { _ in }

  package init(
    base: any RecordingTransport, alterTail: @escaping @Sendable (SyncTail) -> SyncTail = { $0 },
    onStream: @escaping @Sendable () -> Void = {}, onDeleted: @escaping @Sendable () -> Void = {},
    onFrame: @escaping @Sendable (BulkFrame) -> Void = { _ in },
    alterList: @escaping @Sendable ([Recording]) -> [Recording] = { $0 }
  ) {
    self.base = base
    self.alterTail = alterTail
    self.onStream = onStream
    self.onDeleted = onDeleted
    self.onFrame = onFrame
    self.alterList = alterList
  }

  package var name: String { base.name }
  package var deletesOnlyAfterBatch: Bool { base.deletesOnlyAfterBatch }
  package var tailCarriesDeviceCRC: Bool { base.tailCarriesDeviceCRC }
  package var serial: String { get async { await base.serial } }
  package var audioChannels: Int { get async { await base.audioChannels } }
  package func listRecordings() async throws(DeviceError) -> [Recording] {
    alterList(try await base.listRecordings())
  }
  package func recordingInProgress() async throws(DeviceError) -> SessionID? {
    try await base.recordingInProgress()
  }
  package func stream(
    sessionId: SessionID, start: UInt32, end: UInt32,
    receive: @Sendable (BulkFrame) async -> StreamDecision
  ) async throws(DeviceError) -> SyncTail? {
    onStream()
    let onFrame = self.onFrame
    let tail = try await base.stream(sessionId: sessionId, start: start, end: end) { frame in
      onFrame(frame)
      return await receive(frame)
    }
    return tail.map(alterTail)
  }
  package func delete(sessionId: SessionID) async throws(DeviceError) {
    await beforeDelete(sessionId)
    try await base.delete(sessionId: sessionId)
    onDeleted()
  }
}
