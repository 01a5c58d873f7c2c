import Foundation
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import RecorderStore
import TestSupport

/// Issue 18, "many recordings": what each recording costs the phone when the device holds
/// 10, 100 and 1,000 recordings of 10 s, as real CPU milliseconds per recording (flat from
/// 10 to 1,000 means nothing grows faster than the number of recordings), and the link use
/// of a sync of all 1,000 in virtual time (as `RecorderBench sync` defines it).
///
/// - LIST: one LIST of every recording over the in-process emulator (its paging, both
///   sides' work: the device's share is included, so this is an upper bound).
/// - engine per file: a whole sync of N 10-second recordings served from memory (no radio,
///   no emulator, no export): the engine's per-file decisions, its journal reads and writes,
///   the partial file, fsyncs, rename, SHA-256.
/// - journal: the journal reads and writes of that sync alone, replayed statement for
///   statement (``JournalReplay``; and the one reconcile read of the sync).
enum ScaleBenchmarks {
  static let counts = [10, 100, 1_000]
  static let recordingLength: Duration = .seconds(10)

  static func run() throws {
    say("== scale: recordings of 10 s; CPU ms per recording (user + system, this process)")
    var overhead: [Int: Double] = [:]
    for count in counts {
      let list = try blocking { try await listCost(count: count) }
      let engine = try blocking { try await engineCost(count: count) }
      let journal = try journalCost(count: count)
      let total = list.cpu + engine.cpu
      overhead[count] = total
      say(
        "\(String(count).padding(toLength: 5, withPad: " ", startingAt: 0)) recordings: "
          + "LIST \(milliseconds(list.cpu)) (\(list.requests) request)  "
          + "engine per file \(milliseconds(engine.cpu)) (fsyncs \(engine.fsyncsPerFile) per file, "
          + "their CPU \(milliseconds(engine.fsyncCPU)))  "
          + "journal alone \(milliseconds(journal))  "
          + "per-recording overhead (LIST + engine) \(milliseconds(total)) ms")
    }
    if let small = overhead[counts[0]], let large = overhead[counts[counts.count - 1]] {
      say(
        "growth 10 → 1,000 recordings: per-recording overhead × \(String(format: "%.2f", large / small)) "
          + "(flat = 1; target: ≤ 2 ms at 1,000)")
    }
    let sync = try blocking { try await linkUse(count: 1_000) }
    say(
      "sync of 1,000 × 10 s over the emulator (mp3 exports): link use \(String(format: "%.3f", sync.utilization)) "
        + "(target ≥ 0.9)  \(sync.bytes) bytes in \(String(format: "%.1f", sync.virtual)) s virtual  "
        + "CPU \(milliseconds(sync.cpu / 1_000)) ms per recording (with the emulator and mp3 export)  "
        + "real \(String(format: "%.1f", sync.wall)) s  reissues \(sync.reissues)")
  }

  /// One LIST of `count` recordings: CPU per recording (median of 3) and the requests the
  /// phone wrote for it (its pages come back as notifications).
  static func listCost(count: Int) async throws -> (cpu: Double, requests: Int) {
    let rig = try await EmulatorRig(recordings: Array(repeating: recordingLength, count: count))
    defer { rig.cleanUp() }
    rig.manual.startAutoAdvance()
    defer { rig.manual.stopAutoAdvance() }
    let session = try await rig.connect()
    var samples: [Double] = []
    for _ in 0..<3 {
      let before = CPUTime.process()
      let listed = try await session.listRecordings()
      samples.append((CPUTime.process() - before) / Double(count))
      guard listed.count == count else { throw BenchError("LIST gave \(listed.count) of \(count)") }
    }
    rig.central.resetRequests()
    _ = try await session.listRecordings()
    let requests = rig.central.requests
    await session.close()
    return (median(samples), requests)
  }

  /// A sync of `count` 10-second recordings from memory: CPU per recording, fsyncs per file.
  static func engineCost(count: Int) async throws -> (
    cpu: Double, fsyncsPerFile: Int, fsyncCPU: Double
  ) {
    let scratch = try Scratch("scale-engine")
    defer { scratch.cleanUp() }
    let fileSystem = CountingFileSystem()
    let journal = try Journal(path: scratch.path + "/journal.sqlite")
    var options = SyncEngine.Options()
    options.format = nil
    let engine = SyncEngine(
      journal: journal, fileSystem: fileSystem, root: scratch.path, options: options)
    let draining = Task { for await _ in engine.events {} }
    defer { draining.cancel() }
    let transport = MemoryTransport(
      serial: "SCALE", first: 1_700_000_000, count: count,
      frames: Int(recordingLength.components.seconds) * 50, stopAtFirstStream: false)
    let before = CPUTime.process()
    let report = try await engine.sync(using: transport)
    let cpu = CPUTime.process() - before
    guard report.files.count == count, report.files.allSatisfy(\.deletedFromDevice) else {
      throw BenchError("the engine synced \(report.files.count) of \(count)")
    }
    let counts = fileSystem.counts.withLock { $0 }
    return (
      cpu / Double(count), (counts.fileSyncs + counts.directorySyncs) / count,
      counts.cpuSeconds / Double(count)
    )
  }

  /// The journal's share of that sync: its statements replayed for `count` recordings on a
  /// fresh journal, CPU per recording.
  static func journalCost(count: Int) throws -> Double {
    let scratch = try Scratch("scale-journal")
    defer { scratch.cleanUp() }
    let journal = try Journal(path: scratch.path + "/journal.sqlite")
    let size = Int64(recordingLength.components.seconds) * 50 * 80
    let (_, cpu, _) = try CPUTime.measure {
      _ = try journal.read { try $0.recordings(serial: "SCALE", at: [.stored, .exported]) }
      for index in 0..<count {
        try JournalReplay.syncOneFile(
          journal, serial: "SCALE", sessionId: 1_700_000_000 + UInt32(index) * 60, size: size)
      }
    }
    return cpu / Double(count)
  }

  struct LinkUse {
    var utilization: Double
    var bytes: Int64
    var virtual: Double
    var cpu: Double
    var wall: Double
    var reissues: Int
  }

  /// The sync of `count` recordings over the emulator, timed as `RecorderBench sync` does.
  static func linkUse(count: Int) async throws -> LinkUse {
    let rig = try await EmulatorRig(recordings: Array(repeating: recordingLength, count: count))
    defer { rig.cleanUp() }
    rig.manual.startAutoAdvance()
    defer { rig.manual.stopAutoAdvance() }
    let engine = rig.makeEngine()
    let draining = Task { for await _ in engine.events {} }
    defer { draining.cancel() }
    let session = try await rig.connect()
    let transport = TimedTransport(base: BLETransport(session: session), clock: rig.manual)
    let link = LinkParameters()
    let capacity = Double(link.packetsPerConnectionEvent) * 80 / link.connectionInterval.seconds
    let before = CPUTime.process()
    let started = ContinuousClock.now
    let report = try await engine.sync(using: transport)
    let wall = (ContinuousClock.now - started).seconds
    let cpu = CPUTime.process() - before
    await session.close()
    guard report.files.count == count else {
      throw BenchError("synced \(report.files.count) of \(count)")
    }
    let (first, last) = transport.window
    let window = ((last ?? .zero) - (first ?? .zero)).seconds
    let bytes = report.files.reduce(0) { $0 + $1.size }
    return LinkUse(
      utilization: Double(bytes) / (capacity * window), bytes: bytes, virtual: window, cpu: cpu,
      wall: wall, reissues: report.reissues)
  }
}

/// The journal statements the sync engine runs for one new recording, in its order
/// (SyncEngine: the read of `load`, the transfer's first write which creates the row, a
/// checkpoint per 256 KiB streamed, store, export, delete), so their cost can be measured
/// apart from everything else the engine does. Returns the commits it made.
enum JournalReplay {
  @discardableResult
  static func syncOneFile(
    _ journal: Journal, serial: String, sessionId: UInt32, size: Int64, exported: Bool = false
  ) throws -> Int {
    _ = try journal.read { try $0.recording(serial: serial, sessionId: sessionId) }
    try journal.write { tx in
      var record =
        try tx.recording(serial: serial, sessionId: sessionId)
        ?? RecordingRecord(serial: serial, sessionId: sessionId, size: size, channels: 1)
      record.stage = .transferring
      record.transport = "ble"
      try tx.save(record)
    }
    // RangeReceiver journals a checkpoint each time 256 KiB more are fsync'd; the range's
    // end goes straight to `store`.
    let checkpoints = Int((size - 1) / (256 * 1024))
    for checkpoint in 0..<checkpoints {
      _ = try journal.write { tx in
        try tx.update(serial: serial, sessionId: sessionId) {
          $0.durableBytes = Int64(checkpoint + 1) * 256 * 1024
        }
      }
    }
    _ = try journal.write { tx in
      try tx.update(serial: serial, sessionId: sessionId) {
        $0.stage = .stored
        $0.durableBytes = size
        $0.verification = .verified
        $0.sha256 = String(repeating: "ab", count: 32)
        $0.rawPath = "/state/\(serial)/\(sessionId).opus-raw"
      }
    }
    if exported {
      _ = try journal.write { tx in
        try tx.update(serial: serial, sessionId: sessionId) {
          $0.stage = .exported
          $0.exportPath = "/state/exports/\(serial)-\(sessionId).mp3"
          $0.exportFormat = "mp3"
        }
      }
    }
    _ = try journal.write { tx in
      try tx.update(serial: serial, sessionId: sessionId) { $0.stage = .deletedFromDevice }
    }
    return checkpoints + (exported ? 4 : 3)
  }
}
