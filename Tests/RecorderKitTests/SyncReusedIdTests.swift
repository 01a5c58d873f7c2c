import Foundation
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import RecorderStore
import TestSupport
import Testing

/// Session ids are start seconds, so a device can list other audio under an id and size the
/// journal holds (a reset device re-recorded, a restored backup, a clock reset), or list again
/// an id whose recording was deleted. 50 seeded rounds mix those with new recordings, link
/// drops mid-sync, `--keep-on-device` runs and fresh engines (a process restarted): every
/// audio the device ever held ends up held and exported exactly once, and every DELETE the
/// device served named bytes the client held.
@Suite("Sync: reused session ids")
struct SyncReusedIdTests {
  /// What the device held and what it was asked to delete, by content.
  private final class DeviceWatch: Sendable {
    let everHeld = Locked<Set<String>>([])
    let deleted = Locked<[String]>([])
  }

  /// The bench's transport, noting the SHA-256 of each recording the moment before its DELETE.
  private static func noting(_ device: EmulatedDevice, _ watch: DeviceWatch)
    -> @Sendable (BLETransport) -> any RecordingTransport
  {
    { base in
      var transport = WatchedTransport(base: base)
      transport.beforeDelete = { sessionId in
        let digest = (try? await device.recordings(includingDigests: true))?
          .first { $0.sessionId == sessionId }?.sha256
        if let digest { watch.deleted.withLock { $0.append(digest) } }
      }
      return transport
    }
  }

  @Test("50 seeded rounds of reused ids, re-listed deleted ids, drops and restarts")
  func reusedIdsNeverLoseAudio() async throws {
    let seed: UInt64 = 0x5E55_1D_0050
    var random = SplitMix64(seed: seed)
    let bench = try SyncBench(seed: seed)
    defer { bench.cleanUp() }
    let device = bench.device
    let watch = DeviceWatch()
    let base = await device.unixTimeNow - 100_000
    var nextId = base
    var lengths: [SessionID: Int] = [:]  // seconds, per id ever used

    let deviceFolder = bench.root + "/" + device.serial
    func clientHolds(_ digest: String) -> Bool {
      let names = (try? FileManager.default.contentsOfDirectory(atPath: deviceFolder)) ?? []
      return names.contains { sha256(ofFile: deviceFolder + "/" + $0) == digest }
    }
    func noteHeld() async throws {
      for info in try await device.recordings(includingDigests: true) {
        if let digest = info.sha256 { _ = watch.everHeld.withLock { $0.insert(digest) } }
      }
    }
    func add(_ id: SessionID, seconds: Int) async throws {
      try await device.addRecording(
        duration: .seconds(seconds), sessionId: id, contentPhase: random.next(in: 0...100_000))
      lengths[id] = seconds
    }

    for _ in 0..<3 {
      nextId += 600
      try await add(SessionID(nextId), seconds: random.next(in: 1...4))
    }
    var kinds: [String: Int] = [:]
    var drops = 0
    var dropsFired = 0
    for round in 0..<50 {
      let onDevice = try await device.recordings().map(\.sessionId)
      let gone = lengths.keys.filter { !onDevice.contains($0) }.sorted()
      switch random.next(in: 0...3) {
      case 0:
        nextId += 600
        try await add(SessionID(nextId), seconds: random.next(in: 1...4))
        kinds["new", default: 0] += 1
      case 1 where !onDevice.isEmpty:
        // Other audio, same id and size.
        let id = onDevice[random.next(in: 0...(onDevice.count - 1))]
        // Audio the device itself erases before any sync took it is no loss of the sync's.
        if let digest = try await device.recordings(includingDigests: true)
          .first(where: { $0.sessionId == id })?.sha256, !clientHolds(digest)
        {
          _ = watch.everHeld.withLock { $0.remove(digest) }
        }
        await device.eraseRecording(id)
        try await add(id, seconds: lengths[id] ?? 2)
        kinds["same id and size, other audio", default: 0] += 1
      case 2 where !gone.isEmpty:
        // A deleted id listed again: same length (other audio) or another length.
        let id = gone[random.next(in: 0...(gone.count - 1))]
        let seconds = random.next(in: 0...1) == 0 ? lengths[id] ?? 2 : random.next(in: 1...4)
        try await add(id, seconds: seconds)
        kinds["deleted id listed again", default: 0] += 1
      default:
        kinds["sync only", default: 0] += 1
      }
      try await noteHeld()
      var options = SyncEngine.Options.fast
      options.deleteFromDevice = random.next(in: 0...1) == 0
      options.proofSeed = random.next()
      let drop = random.next(in: 0...2) == 0
      await device.setFaults(
        drop ? FaultPlan(dropLinkAfterNotifiedBytes: random.next(in: 300...12_000)) : .none)
      // A fresh engine each round: a process that was killed and started again.
      defer { drops += drop ? 1 : 0 }
      let engine = try bench.makeEngine(options: options)
      do {
        _ = try await bench.syncOnce(engine, wrap: Self.noting(device, watch))
      } catch let error as SyncError {
        guard case .device = error else {
          Issue.record(seedComment(seed, "round \(round): not a link failure: \(error)"))
          return
        }
      } catch {
        // The drop hit the connection's set-up.
      }
      if drop, await device.faultPlan.dropLinkAfterNotifiedBytes == nil { dropsFired += 1 }
    }
    // Then the device is left to sync to the end.
    await device.setFaults(.none)
    var options = SyncEngine.Options.fast
    options.proofSeed = random.next()
    for _ in 0..<5 where try await !device.recordings().isEmpty {
      _ = try? await bench.syncOnce(
        try bench.makeEngine(options: options), wrap: Self.noting(device, watch))
    }
    #expect(try await device.recordings().isEmpty, seedComment(seed))

    // What the client holds: every raw copy, current and earlier generations.
    let raws = try FileManager.default.contentsOfDirectory(atPath: deviceFolder)
      .filter { $0.hasSuffix(".opus-raw") }
    let held = raws.compactMap { sha256(ofFile: deviceFolder + "/" + $0) }
    let everHeld = watch.everHeld.withLock { $0 }
    #expect(Set(held) == everHeld, seedComment(seed, "kinds \(kinds)"))
    #expect(held.count == Set(held).count, seedComment(seed, "no audio held twice"))
    let exports = bench.exportNames().filter { !$0.hasPrefix(".") }
    #expect(exports.count == everHeld.count, seedComment(seed, "each audio exported once"))
    let deleted = watch.deleted.withLock { $0 }
    #expect(Set(deleted).isSubset(of: Set(held)), seedComment(seed, "a DELETE only for bytes held"))
    #expect(kinds.count == 4, seedComment(seed, "every kind of round ran: \(kinds)"))
    #expect(dropsFired > 0, seedComment(seed, "link drops armed \(drops), fired \(dropsFired)"))
    print(
      "reused ids: \(kinds), \(everHeld.count) recordings, \(deleted.count) deletes, "
        + "\(dropsFired) of \(drops) drops fired (seed \(seed))")
  }

  @Test("a conversion owed to a recording replaced under its id is made before it is kept")
  func owedConversionOfARetiredRecordingIsMade() async throws {
    let bench = try SyncBench(seed: 7)
    defer { bench.cleanUp() }
    let device = bench.device
    let id = SessionID(await device.unixTimeNow - 10_000)
    try await device.addRecording(duration: .seconds(3), sessionId: id, contentPhase: 11)
    var deferred = SyncEngine.Options.fast
    deferred.exportPolicy = .deferConversion
    deferred.deleteFromDevice = false
    _ = try await bench.syncOnce(try bench.makeEngine(options: deferred))
    #expect(bench.exportNames().filter { !$0.hasPrefix(".") }.isEmpty, "the export is owed")

    // Other audio under the same id and size.
    await device.eraseRecording(id)
    try await device.addRecording(duration: .seconds(3), sessionId: id, contentPhase: 900)
    let report = try await bench.syncOnce(try bench.makeEngine())

    let exports = bench.exportNames().filter { !$0.hasPrefix(".") }.sorted()
    let serial = device.serial
    #expect(exports == ["\(serial)-\(id)-2.opus", "\(serial)-\(id).opus"], "\(exports)")
    #expect(report.files.map(\.generation).sorted() == [0, 1], "\(report.files)")
    let owed = try Journal(path: bench.journalPath).read { try $0.pendingConversions() }
    #expect(owed.isEmpty)
  }
}
