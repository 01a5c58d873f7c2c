import Foundation
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import RecorderRemoteLink
import RecorderStore
import RecorderTesting
import TestSupport
import Testing

/// Issue 7: the sync engine over Wi-Fi Fast Transfer (PROTOCOL.md §6) against the emulated
/// device's Wi-Fi side, over real loopback TCP: Wi-Fi for a backlog, deletes only after the
/// batch, BLE when Wi-Fi is refused or drops, a file resumed across transports from the same
/// durable offset (both ways), and power loss in the middle of a Wi-Fi sync, each with the
/// exactly-once end state of the main job.
@Suite("Sync over Wi-Fi")
struct SyncWiFiTests {
  static let seed: UInt64 = 0x5749_4649_0007

  /// Four recordings, 107 s of audio, 428 000 bytes.
  static let durations: [Duration] = [30, 12, 45, 20].map { .seconds($0) }

  @Test(
    "a backlog goes over Wi-Fi; deletes wait for the batch; exact end state",
    arguments: WiFiDeviceKind.allCases)
  func backlogOverWiFi(device: WiFiDeviceKind) async throws {
    let (bench, template) = try await Self.bench(device)
    defer { bench.cleanUp() }
    let join = try bench.joinPort()
    defer { join.stop() }
    let engine = try bench.makeEngine()
    let collector = Task {
      var events: [SyncEvent] = []
      var deleted = 0
      for await event in engine.events {
        events.append(event)
        if case .fileDeleted = event { deleted += 1 }
        if deleted == Self.durations.count { break }
      }
      return events
    }

    let report = try await bench.syncOnce(engine, wifi: bench.wifiPlan(join))
    // The stream stays open while the engine lives: stop waiting if the deletes never came.
    if report.files.contains(where: { !$0.deletedFromDevice }) { collector.cancel() }

    #expect(report.wifiFallback == nil)
    #expect(report.files.map(\.transport) == Array(repeating: "wifi", count: 4))
    try await Self.expectExactEndState(bench, template, report)
    let counters = await bench.device.counters
    #expect(counters.hotspotsRaised == 1)
    #expect(counters.wifiSessions == 1)
    #expect(counters.wifiContentBytesSent == Int(template.totalBytes))
    #expect(counters.dataBytesSent == 0, "no recording byte went over BLE")
    #expect(counters.wifiMalformedMessages == 0, "every PDU of the phone opened (\(device))")
    // Every DELETE came after the last download [sdk: a delete in between stalls the device].
    let events = await collector.value
    let lastStored = try #require(
      events.lastIndex { if case .fileStored = $0 { true } else { false } })
    let firstDeleted = try #require(
      events.firstIndex { if case .fileDeleted = $0 { true } else { false } })
    #expect(lastStored < firstDeleted)
    #expect(await bench.device.hasWiFiSession == false, "the Wi-Fi session is closed")
    #expect(await bench.device.hotspotSSID == nil, "WIFI_CLOSE dropped the hotspot")
  }

  @Test("a small backlog stays on BLE: no hotspot is raised")
  func smallBacklogStaysOnBLE() async throws {
    let (bench, template) = try await Self.bench()
    defer { bench.cleanUp() }
    let join = try bench.joinPort()
    defer { join.stop() }
    let engine = try bench.makeEngine()
    var plan = bench.wifiPlan(join)
    plan.minimumBacklogBytes = template.totalBytes + 1

    let report = try await bench.syncOnce(engine, wifi: plan)

    #expect(report.files.map(\.transport) == Array(repeating: "ble", count: 4))
    #expect(report.wifiFallback == nil)
    #expect(await bench.device.counters.hotspotsRaised == 0)
    try await Self.expectExactEndState(bench, template, report)
  }

  @Test(
    "a refused hotspot or a refused join falls back to BLE",
    arguments: [
      FaultPlan(refuseWiFiOpen: true), FaultPlan(refuseHotspotJoins: true),
    ])
  func refusedWiFiFallsBackToBLE(fault: FaultPlan) async throws {
    let (bench, template) = try await Self.bench()
    defer { bench.cleanUp() }
    let join = try bench.joinPort()
    defer { join.stop() }
    await bench.device.setFaults(fault)
    let engine = try bench.makeEngine()

    let report = try await bench.syncOnce(engine, wifi: bench.wifiPlan(join))

    let fallback = try #require(report.wifiFallback)
    guard case .wifiUnavailable = fallback else {
      Issue.record("expected wifiUnavailable, got \(fallback)")
      return
    }
    #expect(report.files.map(\.transport) == Array(repeating: "ble", count: 4))
    try await Self.expectExactEndState(bench, template, report)
    #expect(await bench.device.hotspotSSID == nil, "the phone sent WIFI_CLOSE on the way out")
  }

  @Test(
    "Wi-Fi drops mid-file: BLE finishes that file from its durable offset (wifi+ble)",
    arguments: WiFiDeviceKind.allCases)
  func wifiDropResumesOnBLE(device: WiFiDeviceKind) async throws {
    let (bench, template) = try await Self.bench(device)
    defer { bench.cleanUp() }
    let join = try bench.joinPort()
    defer { join.stop() }
    // Cut inside the third recording (the 45-second one).
    let sizes = template.recordings.sorted { $0.sessionId < $1.sessionId }.map { Int($0.size) }
    let cut = sizes[0] + sizes[1] + sizes[2] / 2 + 123
    await bench.device.setFaults(FaultPlan(dropWiFiAfterContentBytes: cut))
    let engine = try bench.makeEngine()

    let report = try await bench.syncOnce(engine, wifi: bench.wifiPlan(join))

    #expect(report.wifiFallback != nil)
    let byId = Dictionary(uniqueKeysWithValues: report.files.map { ($0.sessionId, $0) })
    let ids = template.recordings.map(\.sessionId).sorted()
    #expect(byId[ids[0]]?.transport == "wifi")
    #expect(byId[ids[1]]?.transport == "wifi")
    #expect(byId[ids[2]]?.transport == "wifi+ble")
    #expect(byId[ids[3]]?.transport == "ble")
    try await Self.expectExactEndState(bench, template, report)
    // Resumed, not restarted: BLE moved the rest of the third file and the fourth, give or
    // take the bytes still in flight when TCP was cut (at most one content PDU).
    let counters = await bench.device.counters
    #expect(counters.wifiContentBytesSent == cut)
    let rest = Int(template.totalBytes) - cut
    #expect(counters.dataBytesSent >= rest)
    #expect(counters.dataBytesSent <= rest + 32 * 1024 + 80)
  }

  @Test("BLE drops mid-file: the next sync finishes it over Wi-Fi (ble+wifi)")
  func bleDropResumesOnWiFi() async throws {
    let (bench, template) = try await Self.bench()
    defer { bench.cleanUp() }
    let join = try bench.joinPort()
    defer { join.stop() }
    let first = template.recordings.map(\.sessionId).min()!
    let firstSize = Int(template.recordings.first { $0.sessionId == first }!.size)
    // The link goes down halfway through the first file, on a BLE-only run.
    await bench.device.setFaults(FaultPlan(dropLinkAfterNotifiedBytes: firstSize / 2))
    let engine = try bench.makeEngine()
    await #expect(throws: SyncError.self) { _ = try await bench.syncOnce(engine, wifi: nil) }
    let durable = try #require(try bench.journalRecords()[first]).durableBytes
    #expect(durable > 0)
    await bench.device.setFaults(.none)

    let report = try await bench.syncOnce(engine, wifi: bench.wifiPlan(join))

    #expect(report.wifiFallback == nil)
    #expect(report.files.first { $0.sessionId == first }?.transport == "ble+wifi")
    try await Self.expectExactEndState(bench, template, report)
    // The Wi-Fi side moved the rest, not the whole first file again.
    let counters = await bench.device.counters
    #expect(counters.wifiContentBytesSent == Int(template.totalBytes - durable))
  }

  @Test("a recording still in progress is left on the device over Wi-Fi too")
  func recordingInProgressStaysOverWiFi() async throws {
    let (bench, template) = try await Self.bench()
    defer { bench.cleanUp() }
    let join = try bench.joinPort()
    defer { join.stop() }
    let pacing = bench.pacing()
    defer { pacing.cancel() }
    let live = try #require(await bench.device.startRecordingOnDevice())
    let engine = try bench.makeEngine()

    let report = try await bench.syncOnce(engine, wifi: bench.wifiPlan(join))

    #expect(report.wifiFallback == nil)
    #expect(report.skippedInProgress == [live])
    #expect(report.files.map(\.sessionId).sorted() == template.digests.keys.sorted())
    #expect(report.files.allSatisfy { $0.transport == "wifi" && $0.deletedFromDevice })
    #expect(try await bench.device.recordings().map(\.sessionId) == [live])
    #expect(try bench.journalRecords()[live] == nil, "the live one was journalled")
  }

  @Test("a Wi-Fi sync cancelled mid-file closes Wi-Fi on both sides; the next run resumes")
  func cancelledWiFiSyncClosesAndResumes() async throws {
    let template = try await SyncFlashTemplate.make(
      seed: Self.seed, durations: [600, 20].map { .seconds($0) })
    defer { template.cleanUp() }
    let bench = try SyncBench(seed: Self.seed, template: template)
    defer { bench.cleanUp() }
    let join = try bench.joinPort()
    defer { join.stop() }
    // Cancelled from inside, at the fourth write to a partial file (256 KiB into the long
    // one): the receive path runs on the sync's task.
    let writes = Locked(0)
    let fileSystem = WriteHookFileSystem { path in
      guard path.hasSuffix(".part") else { return }
      let count = writes.withLock { count -> Int in
        count += 1
        return count
      }
      if count == 4 { withUnsafeCurrentTask { $0?.cancel() } }
    }
    let plan = bench.wifiPlan(join)
    let first = try bench.makeEngine(fileSystem: fileSystem)
    await #expect(throws: SyncError.cancelled) {
      _ = try await Task { try await bench.syncOnce(first, wifi: plan) }.value
    }
    #expect(await bench.device.hasWiFiSession == false, "the WebSocket was closed")
    #expect(await bench.device.hotspotSSID == nil, "WIFI_CLOSE went out over BLE")
    let partial = try #require(
      try bench.journalRecords().values.first { $0.stage == .transferring })
    #expect(partial.durableBytes > 0)
    let sent = await bench.device.counters.wifiContentBytesSent

    let report = try await bench.syncOnce(try bench.makeEngine(), wifi: plan)

    #expect(report.files.allSatisfy { $0.transport == "wifi" })
    try await Self.expectExactEndState(bench, template, report)
    // Resumed: the second session sent the rest of the long file, not all of it again, and
    // (a new engine is a new run) three 1,280-byte windows proving the bytes held before.
    let resent = await bench.device.counters.wifiContentBytesSent - sent
    #expect(resent <= Int(template.totalBytes - partial.durableBytes) + 3 * 1_280)
  }

  @Test(
    "power lost at 24 seeded moments of a Wi-Fi sync: exactly once, never deleted early",
    arguments: [WiFiDeviceKind.plain, .modeBAESGCM])
  func powerLossDuringWiFiSync(device: WiFiDeviceKind) async throws {
    let seed = Self.seed
    let template = try await SyncFlashTemplate.make(
      seed: seed, durations: [8, 3, 10, 5].map { .seconds($0) })
    defer { template.cleanUp() }
    var options = SyncEngine.Options.fast
    options.checkpointBytes = 4 * 1024

    // How many file operations an uninterrupted Wi-Fi sync takes.
    let reference = try device.bench(seed: seed, template: template)
    defer { reference.cleanUp() }
    let referenceJoin = try reference.joinPort()
    defer { referenceJoin.stop() }
    let counting = PowerLossFileSystem()
    _ = try await reference.syncOnce(
      try reference.makeEngine(fileSystem: counting, options: options),
      wifi: reference.wifiPlan(referenceJoin))
    let operations = counting.operationCount
    let digests = template.digests

    var random = SplitMix64(seed: seed)
    let points = (0..<24).map { index in
      random.next(in: (operations * index / 24)...max(0, operations * (index + 1) / 24 - 1))
    }
    var cut = 0
    for point in points {
      let context = "seed \(seed), \(device), power lost after \(point) operations"
      let bench = try device.bench(seed: seed, template: template)
      defer { bench.cleanUp() }
      let join = try bench.joinPort()
      defer { join.stop() }
      let fileSystem = PowerLossFileSystem(crashAfter: point)
      do {
        _ = try await bench.syncOnce(
          try bench.makeEngine(fileSystem: fileSystem, options: options),
          wifi: bench.wifiPlan(join))
      } catch let error as SyncError {
        cut += 1
        #expect(error == .storage(.powerLost), "\(context)")
      } catch let error as StorageError {
        cut += 1
        #expect(error == .powerLost, "\(context)")  // creating the root
      }
      try fileSystem.recoverFromPowerLoss()
      // Every device copy deleted before the cut has its raw copy and a journal that says so.
      let records =
        FileManager.default.fileExists(atPath: bench.journalPath) ? try bench.journalRecords() : [:]
      for id in await bench.device.deleteLog.map(\.sessionId) {
        #expect(records[id].map { $0.stage >= .stored } == true, "\(context)")
        #expect(sha256(ofFile: bench.rawPath(id)) == digests[id], "\(context)")
      }
      // Power back: a new engine finishes over Wi-Fi.
      let report = try await bench.syncOnce(
        try bench.makeEngine(fileSystem: PowerLossFileSystem(), options: options),
        wifi: bench.wifiPlan(join))
      try await Self.expectExactEndState(bench, template, nil, context: context)
      #expect(report.files.allSatisfy { $0.verified }, "\(context)")
      #expect(await bench.device.deleteLog.count == template.recordings.count, "\(context)")
    }
    print(
      "power loss over Wi-Fi (\(device)): \(points.count) cuts over \(operations) operations, \(cut) mid-sync (seed \(seed))"
    )
    #expect(cut >= points.count * 3 / 4)
  }

  // MARK: - Helpers

  static func bench(_ device: WiFiDeviceKind = .plain) async throws -> (
    SyncBench, SyncFlashTemplate
  ) {
    let template = try await SyncFlashTemplate.make(seed: seed, durations: durations)
    let bench = try device.bench(seed: seed, template: template)
    return (bench, template)
  }

  /// Every recording exactly once in the exports, raw copies byte-identical, the device
  /// empty, no partial files left.
  static func expectExactEndState(
    _ bench: SyncBench, _ template: SyncFlashTemplate, _ report: SyncReport?,
    context: String = ""
  ) async throws {
    for recording in template.recordings {
      #expect(sha256(ofFile: bench.rawPath(recording.sessionId)) == recording.sha256, "\(context)")
      #expect(
        !FileManager.default.fileExists(atPath: bench.partPath(recording.sessionId)), "\(context)")
    }
    let exports = bench.exportNames()
    #expect(exports.count == template.recordings.count, "\(context) \(exports)")
    #expect(!exports.contains { $0.hasPrefix(".partial-") }, "\(context)")
    #expect(
      try await bench.device.recordings().isEmpty, "\(context) the device still holds recordings")
    let records = try bench.journalRecords()
    #expect(records.values.allSatisfy { $0.stage == .deletedFromDevice }, "\(context)")
    if let report {
      #expect(report.files.count == template.recordings.count, "\(context)")
      #expect(report.files.allSatisfy { $0.verified && $0.deletedFromDevice }, "\(context)")
    }
  }
}

/// The devices a Wi-Fi sync runs against: a plain one, and a Mode B one sealing its PDUs with
/// each AEAD §9 names (the phone learns which from the HELLO).
enum WiFiDeviceKind: String, CaseIterable, CustomTestStringConvertible {
  case plain
  case modeBChaCha = "Mode B, ChaCha20-Poly1305"
  case modeBAESGCM = "Mode B, AES-256-GCM"

  var testDescription: String { rawValue }

  func bench(seed: UInt64, template: SyncFlashTemplate) throws -> SyncBench {
    switch self {
    case .plain: return try SyncBench(seed: seed, template: template)
    case .modeBChaCha, .modeBAESGCM:
      var modeB = ModeBParameters()
      modeB.wifiCipher = self == .modeBChaCha ? .chaCha20Poly1305 : .aes256GCM
      return try SyncBench(
        seed: seed, template: template, portVersion: ProtocolDefaults.modeBPortVersion,
        modeB: modeB)
    }
  }
}

extension SyncBench {
  /// The emulator host's hotspot join port for this device (what `recorder emulate` runs).
  func joinPort() throws -> HotspotJoinServer {
    let device = self.device
    return try HotspotJoinServer { request in await device.joinHotspot(request) }
  }

  /// Wi-Fi for any backlog, on loopback, through `join`. The Wi-Fi session runs on the
  /// bench's clock, as the BLE session does (the emulated device holds it while TCP moves).
  func wifiPlan(_ join: HotspotJoinServer) -> WiFiSyncPlan {
    WiFiSyncPlan(
      joiner: TCPHotspotJoiner(port: join.port),
      link: WiFiLink.Configuration(host: "127.0.0.1", port: 0, connectTimeout: .seconds(20)),
      minimumBacklogBytes: 0, responseTimeout: .seconds(20))
  }

  /// Connects, syncs once (Wi-Fi per `wifi`), closes (even when the sync throws).
  func syncOnce(_ engine: SyncEngine, wifi: WiFiSyncPlan?) async throws -> SyncReport {
    let session = try await connect()
    do {
      let report = try await Recorders.sync(engine, over: session, wifi: wifi)
      await session.close()
      return report
    } catch {
      await session.close()
      throw error
    }
  }
}

/// The real file system, telling `onWrite` of every write to an open file (on the writer's
/// task), so a test can act at an exact point of a transfer.
struct WriteHookFileSystem: DurableFileSystem {
  let base = PosixFileSystem()
  let onWrite: @Sendable (String) -> Void

  func createDirectory(_ path: String) throws(StorageError) { try base.createDirectory(path) }
  func openForAppend(_ path: String, truncatingTo length: Int64) throws(StorageError)
    -> any DurableFile
  {
    HookedFile(
      file: try base.openForAppend(path, truncatingTo: length), path: path, onWrite: onWrite)
  }
  func syncFile(_ path: String) throws(StorageError) { try base.syncFile(path) }
  func rename(_ source: String, to destination: String) throws(StorageError) {
    try base.rename(source, to: destination)
  }
  func syncDirectory(_ path: String) throws(StorageError) { try base.syncDirectory(path) }
  func remove(_ path: String) throws(StorageError) { try base.remove(path) }
  func size(of path: String) -> Int64? { base.size(of: path) }
  func contents(of directory: String) -> [String] { base.contents(of: directory) }

  final class HookedFile: DurableFile {
    let file: any DurableFile
    let path: String
    let onWrite: @Sendable (String) -> Void
    init(file: any DurableFile, path: String, onWrite: @escaping @Sendable (String) -> Void) {
      self.file = file
      self.path = path
      self.onWrite = onWrite
    }
    func write(_ bytes: [UInt8]) throws(StorageError) {
      try file.write(bytes)
      onWrite(path)
    }
    func sync() throws(StorageError) { try file.sync() }
    func close() { file.close() }
  }
}
