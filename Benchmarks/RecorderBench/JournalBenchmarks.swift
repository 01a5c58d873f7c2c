import Foundation
import RecorderKit
import RecorderStore
import TestSupport

/// Issue 18, "a long-lived journal": a journal of 1k, 10k and 100k rows, all of one device
/// (the worst case: every query of a sync is about that device), each row a recording synced
/// and deleted long ago.
///
/// - open: `Journal(path:)` (open, WAL, migrations checked).
/// - plan: the real sync engine on that journal, asked to sync a device listing 50 new
///   recordings (served from memory): from its start to its first SYNC_START, i.e. the LIST
///   answer read, stale rows reconciled, the first recording journaled and ready to transfer.
/// - whole sync of the 50 (10 s each, no export), per recording, to show the rest of the
///   per-file decisions do not grow with the journal either.
/// - one checkpoint write: one committed `durableBytes` update (fsync'd, WAL).
/// Then SQLite's plan (EXPLAIN QUERY PLAN) of every statement the journal runs.
enum JournalBenchmarks {
  static let sizes = [1_000, 10_000, 100_000]
  static let newRecordings = 50

  static func run() throws {
    say("== journal: one device's rows; wall ms (CPU ms); new recordings listed: \(newRecordings)")
    for rows in sizes {
      let scratch = try Scratch("journal")
      defer { scratch.cleanUp() }
      let path = scratch.path + "/journal.sqlite"
      let built = try CPUTime.measure { try fill(path, rows: rows) }
      // Open + plan, three times on copies of the same journal: the median.
      var opens: [(Double, Double)] = []
      var plans: [(Double, Double)] = []
      var perFile: [(Double, Double)] = []
      for attempt in 0..<3 {
        let copy = scratch.path + "/copy-\(attempt)"
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: path, toPath: copy + "/journal.sqlite")
        let figures = try blocking { try await openAndPlan(folder: copy) }
        opens.append(figures.open)
        plans.append(figures.plan)
        perFile.append(figures.perFile)
      }
      let open = medianPair(opens)
      let plan = medianPair(plans)
      let file = medianPair(perFile)
      let checkpoint = try checkpointWrite(path)
      let reconcile = try reconcileReads(path)
      say(
        "\(String(rows).padding(toLength: 7, withPad: " ", startingAt: 0)) rows: "
          + "open \(ms(open))  plan → first SYNC_START \(ms(plan))  "
          + "open + plan \(milliseconds(open.0 + plan.0)) ms (target ≤ 100)  "
          + "whole 50-file sync per file \(ms(file))  one checkpoint write \(ms(checkpoint))  "
          + "reconcile read: stored/exported rows \(ms(reconcile.stage)), "
          + "every row of the device (before issue 18) \(ms(reconcile.every))  "
          + "(built in \(String(format: "%.1f", built.wall)) s, "
          + "\(FileManagerSize.megabytes(path)) MB)")
      if rows == sizes[sizes.count - 1] {
        let journal = try Journal(path: path)
        for statement in JournalStatement.allCases {
          let plan = try journal.queryPlan(of: statement)
          say("  EXPLAIN QUERY PLAN \(statement): \(plan.joined(separator: " | "))")
        }
      }
    }
  }

  /// `rows` recordings of one device, synced and deleted from it, in one transaction.
  static func fill(_ path: String, rows: Int) throws {
    let journal = try Journal(path: path)
    try journal.write { tx in
      for index in 0..<rows {
        let id = 1_500_000_000 + UInt32(index) * 600
        var record = RecordingRecord(serial: "LONG", sessionId: id, size: 1_440_000, channels: 1)
        record.stage = .deletedFromDevice
        record.durableBytes = record.size
        record.verification = .verified
        record.sha256 = String(repeating: "5e", count: 32)
        record.rawPath = "/state/LONG/\(id).opus-raw"
        record.exportPath = "/state/exports/LONG-\(id).mp3"
        record.exportFormat = "mp3"
        record.transport = "ble"
        try tx.save(record)
      }
    }
  }

  /// (wall, CPU) seconds of opening the journal in `folder`, of the engine's way to its first
  /// SYNC_START for 50 new recordings, and of a whole sync of them per file (on a second
  /// copy of the state: the first run stops at that SYNC_START).
  static func openAndPlan(folder: String) async throws -> (
    open: (Double, Double), plan: (Double, Double), perFile: (Double, Double)
  ) {
    let cpu0 = CPUTime.process()
    let wall0 = ContinuousClock.now
    let journal = try Journal(path: folder + "/journal.sqlite")
    let openWall = (ContinuousClock.now - wall0).seconds
    let openCPU = CPUTime.process() - cpu0
    var options = SyncEngine.Options()
    options.format = nil
    let engine = SyncEngine(journal: journal, root: folder, options: options)
    let draining = Task { for await _ in engine.events {} }
    defer { draining.cancel() }
    let first = MemoryTransport(
      serial: "LONG", first: 1_800_000_000, count: newRecordings, frames: 500,
      stopAtFirstStream: true)
    let cpu1 = CPUTime.process()
    let wall1 = ContinuousClock.now
    _ = try? await engine.sync(using: first)
    let planCPU = CPUTime.process() - cpu1
    guard let reached = first.firstStreamAt else { throw BenchError("no SYNC_START") }
    let planWall = (reached - wall1).seconds

    let whole = MemoryTransport(
      serial: "LONG", first: 1_800_000_000, count: newRecordings, frames: 500,
      stopAtFirstStream: false)
    let cpu2 = CPUTime.process()
    let wall2 = ContinuousClock.now
    let report = try await engine.sync(using: whole)
    let perFile = (
      (ContinuousClock.now - wall2).seconds / Double(newRecordings),
      (CPUTime.process() - cpu2) / Double(newRecordings)
    )
    guard report.files.count == newRecordings else {
      throw BenchError("synced \(report.files.count) of \(newRecordings)")
    }
    return ((openWall, openCPU), (planWall, planCPU), perFile)
  }

  /// One committed checkpoint (`durableBytes` of one recording): median (wall, CPU) of 20.
  static func checkpointWrite(_ path: String) throws -> (Double, Double) {
    let journal = try Journal(path: path)
    var samples: [(Double, Double)] = []
    for index in 0..<20 {
      let id = 1_500_000_000 + UInt32(index * 37 % 1_000) * 600
      let (_, cpu, wall) = try CPUTime.measure {
        try journal.write { tx in
          try tx.update(serial: "LONG", sessionId: id) { $0.durableBytes = Int64(index) }
        }
      }
      samples.append((wall, cpu))
    }
    return medianPair(samples)
  }

  /// The sync's reconcile read as it is (the device's stored and exported rows, by index)
  /// and as it was (every row of the device, then filtered): median (wall, CPU) of 5.
  static func reconcileReads(_ path: String) throws -> (
    stage: (Double, Double), every: (Double, Double)
  ) {
    let journal = try Journal(path: path)
    var stage: [(Double, Double)] = []
    var every: [(Double, Double)] = []
    for _ in 0..<5 {
      let now = try CPUTime.measure {
        try journal.read { try $0.recordings(serial: "LONG", at: [.stored, .exported]) }.count
      }
      stage.append((now.wall, now.cpu))
      let before = try CPUTime.measure {
        try journal.read { try $0.recordings(serial: "LONG") }.filter {
          $0.stage >= .stored && $0.stage < .deletedFromDevice
        }.count
      }
      every.append((before.wall, before.cpu))
    }
    return (medianPair(stage), medianPair(every))
  }

  static func medianPair(_ pairs: [(Double, Double)]) -> (Double, Double) {
    (median(pairs.map(\.0)), median(pairs.map(\.1)))
  }

  static func ms(_ pair: (Double, Double)) -> String {
    "\(milliseconds(pair.0)) (\(milliseconds(pair.1))) ms"
  }
}

enum FileManagerSize {
  static func megabytes(_ path: String) -> String {
    let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    return String(format: "%.1f", Double(bytes) / 1e6)
  }
}
