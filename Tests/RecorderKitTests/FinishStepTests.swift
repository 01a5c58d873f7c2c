import Foundation
import RecorderConcurrency
import RecorderEmulator
import RecorderStore
import TestSupport
import Testing

@testable import RecorderKit

/// The finish steps of the pipeline (``FinishStep``): the runner's order, backoff and
/// journal, the three steps' contracts, and a DELETE never waiting for a step.
@Suite("Pipeline: finish steps")
struct FinishStepTests {
  /// A step that records each attempt's virtual time and answers from a script (true:
  /// succeed); the last answer repeats.
  final class ScriptedStep: FinishStep {
    let name: String
    private let clock: ManualClock
    private let answers: [SessionID: [Bool]]
    private let log: Locked<[(SessionID, String, Duration, FinishAttempt)]>

    init(
      _ name: String, clock: ManualClock, answers: [SessionID: [Bool]],
      log: Locked<[(SessionID, String, Duration, FinishAttempt)]>
    ) {
      self.name = name
      self.clock = clock
      self.answers = answers
      self.log = log
    }

    func run(_ recording: FinishedRecording, attempt: FinishAttempt) async throws(FinishStepError) {
      let id = SessionID(recording.sessionId)
      let count = log.withLock { log in
        log.append((id, name, clock.elapsed, attempt))
        return log.filter { $0.0 == id && $0.1 == name }.count
      }
      let script = answers[id] ?? [true]
      guard script[min(count, script.count) - 1] else { throw FinishStepError("scripted failure") }
    }
  }

  /// A journal in a fresh folder holding stored recordings `ids` of serial "888".
  static func journal(ids: [UInt32]) throws -> (Journal, String) {
    let directory = NSTemporaryDirectory() + "finish-steps-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let journal = try Journal(path: directory + "/journal.sqlite")
    try journal.write { tx in
      for id in ids {
        var record = RecordingRecord(serial: "888", sessionId: id, size: 800, channels: 1)
        record.stage = .stored
        record.sha256 = String(repeating: "ab", count: 32)
        record.rawPath = "888/\(id).opus-raw"
        try tx.save(record)
      }
    }
    return (journal, directory)
  }

  static func recording(_ row: FinishStepRow) -> FinishedRecording {
    FinishedRecording(
      serial: row.serial, model: nil, firmware: nil, sessionId: row.sessionId,
      generation: row.generation, startedAtUTC: FinishedRecording.utc(row.sessionId),
      deviceUTCOffsetSeconds: 0, deviceZone: nil, durationMs: 1000,
      sha256: String(repeating: "ab", count: 32), checked: "verified", transport: "ble",
      rawPath: "/raw/\(row.sessionId)", exports: [:], conversionsPending: [])
  }

  static func runner(
    _ journal: Journal, steps: [any FinishStep], policy: FinishStepPolicy, clock: ManualClock,
    held: @escaping @Sendable (FinishStepRow) -> Bool = { _ in true }
  ) -> FinishStepRunner {
    FinishStepRunner(
      journal: journal, steps: steps, policy: policy, clock: AnyClock(clock),
      describe: { held($0) ? recording($0) : nil }, events: { _ in })
  }

  @Test(
    "a failing step: tried with doubling backoff up to the run's attempts, owed, tried again next run"
  )
  func backoffAndOwed() async throws {
    let (journal, directory) = try Self.journal(ids: [1])
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let clock = ManualClock()
    clock.startAutoAdvance()
    defer { clock.stopAutoAdvance() }
    let log = Locked<[(SessionID, String, Duration, FinishAttempt)]>([])
    let step = ScriptedStep("hook", clock: clock, answers: [1: [false]], log: log)
    let runner = Self.runner(
      journal, steps: [step],
      policy: FinishStepPolicy(
        attemptsPerRun: 4, firstBackoff: .seconds(1), maximumBackoff: .seconds(3)),
      clock: clock)
    try journal.write {
      try $0.oweFinishSteps(serial: "888", sessionId: 1, generation: 0, steps: ["hook"])
    }
    let report = await runner.drain()
    let times = log.withLock { $0.map(\.2) }
    // 0, then 1 s, 2 s and 3 s (capped) later.
    #expect(times == [.zero, .seconds(1), .seconds(3), .seconds(6)])
    #expect(report.done.isEmpty)
    #expect(report.owed.count == 1)
    #expect(report.owed.first?.attempts == 4)
    #expect(report.owed.first?.lastError == "scripted failure")
    // The key is the same on every attempt; the attempts before each are counted.
    let attempts = log.withLock { $0.map(\.3) }
    #expect(Set(attempts.map(\.idempotencyKey)) == ["888-1-0-hook-abababababababab"])
    #expect(attempts.map(\.earlierAttempts) == [0, 1, 2, 3])
    // Another run tries it again.
    await runner.beginRun()
    let again = await runner.drain()
    #expect(log.withLock { $0.count } == 8)
    #expect(again.owed.first?.attempts == 8)
  }

  @Test(
    "a recording's steps run in order; a failing one holds only its own recording's later steps")
  func orderPerRecording() async throws {
    let (journal, directory) = try Self.journal(ids: [1, 2])
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let clock = ManualClock()
    clock.startAutoAdvance()
    defer { clock.stopAutoAdvance() }
    let log = Locked<[(SessionID, String, Duration, FinishAttempt)]>([])
    let first = ScriptedStep("first", clock: clock, answers: [1: [false, true]], log: log)
    let second = ScriptedStep("second", clock: clock, answers: [:], log: log)
    let runner = Self.runner(
      journal, steps: [first, second], policy: FinishStepPolicy(firstBackoff: .seconds(2)),
      clock: clock)
    try journal.write { tx in
      for id: UInt32 in [1, 2] {
        try tx.oweFinishSteps(
          serial: "888", sessionId: id, generation: 0, steps: ["first", "second"])
        // Owing again changes nothing.
        try tx.oweFinishSteps(
          serial: "888", sessionId: id, generation: 0, steps: ["first", "second"])
      }
    }
    let report = await runner.drain()
    let calls = log.withLock { $0.map { "\($0.0) \($0.1) \($0.2)" } }
    #expect(
      calls == [
        "1 first 0.0 seconds", "2 first 0.0 seconds", "2 second 0.0 seconds",
        "1 first 2.0 seconds", "1 second 2.0 seconds",
      ])
    #expect(report.done.count == 4)
    #expect(report.owed.isEmpty)
    let rows = try journal.read { try $0.finishSteps(serial: "888", sessionId: 1, generation: 0) }
    #expect(rows.map(\.done) == [true, true])
    #expect(rows.map(\.attempts) == [1, 0])
    // Done is done: draining again runs nothing.
    _ = await runner.drain()
    #expect(log.withLock { $0.count } == 5)
  }

  @Test("a step owed to a recording whose bytes are gone is forgotten, not run")
  func goneRecordingForgotten() async throws {
    let (journal, directory) = try Self.journal(ids: [1])
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let clock = ManualClock()
    let log = Locked<[(SessionID, String, Duration, FinishAttempt)]>([])
    let step = ScriptedStep("hook", clock: clock, answers: [:], log: log)
    let runner = Self.runner(
      journal, steps: [step], policy: FinishStepPolicy(), clock: clock, held: { _ in false })
    try journal.write {
      try $0.oweFinishSteps(serial: "888", sessionId: 1, generation: 0, steps: ["hook"])
    }
    let report = await runner.drain()
    #expect(log.withLock { $0.isEmpty })
    #expect(report.owed.isEmpty)
    #expect(
      try journal.read { try $0.finishSteps(serial: "888", sessionId: 1, generation: 0) }.isEmpty)
  }

  @Test("the description's JSON: the start time in UTC and every field, keys sorted")
  func descriptionJSON() throws {
    let row = FinishStepRow(
      serial: "888", sessionId: 1_775_393_534, generation: 1, step: "x", position: 0)
    let text = String(decoding: Self.recording(row).json(), as: UTF8.self)
    #expect(text.contains("\"startedAtUTC\":\"2026-04-05T12:52:14Z\""), "\(text)")
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    #expect(
      Set(object.keys).isSuperset(of: [
        "serial", "sessionId", "generation", "startedAtUTC", "deviceUTCOffsetSeconds",
        "durationMs", "sha256", "checked", "rawPath", "exports", "conversionsPending",
      ]))
    let checked = try #require(text.range(of: "\"checked\""))
    let serial = try #require(text.range(of: "\"serial\""))
    #expect(checked.lowerBound < serial.lowerBound, "keys sorted")
  }

  /// Answers POSTs from a script of statuses (nil: no answer) and keeps the headers.
  final class ScriptedPoster: HTTPPoster {
    let statuses: [Int?]
    let headers = Locked<[[String: String]]>([])
    init(_ statuses: [Int?]) { self.statuses = statuses }
    func post(_ body: [UInt8], to url: URL, headers: [String: String], timeout: Duration)
      async throws(UploadError) -> Int
    {
      let n = self.headers.withLock { list in
        list.append(headers)
        return list.count
      }
      guard let status = statuses[min(n, statuses.count) - 1] else {
        throw .transport("timed out after \(timeout)")
      }
      return status
    }
  }

  @Test(
    "the webhook: https or loopback http only; 2xx is done, any other answer a failure with its reason"
  )
  func webhook() async throws {
    for accepted in ["https://example.com/hook", "http://127.0.0.1:8080/x", "http://[::1]/x"] {
      #expect(throws: Never.self) { try WebhookStep(url: URL(string: accepted)!) }
    }
    for refused in ["http://example.com/hook", "http://127.attacker.example/x", "ftp://127.0.0.1/"]
    {
      #expect(throws: FinishStepError.self, "\(refused)") {
        try WebhookStep(url: URL(string: refused)!)
      }
    }
    let poster = ScriptedPoster([503, nil, 302, 204])
    let step = try WebhookStep(url: URL(string: "https://example.com/hook")!, poster: poster)
    let row = FinishStepRow(
      serial: "888", sessionId: 7, generation: 0, step: "webhook", position: 0)
    let attempt = FinishAttempt(idempotencyKey: "888-7-0-webhook-ab", earlierAttempts: 0)
    var reasons: [String] = []
    for _ in 0..<3 {
      do throws(FinishStepError) {
        try await step.run(Self.recording(row), attempt: attempt)
      } catch {
        reasons.append(error.reason)
      }
    }
    #expect(
      reasons == [
        "webhook: HTTP 503", "webhook: no answer: timed out after 30.0 seconds",
        "webhook: HTTP 302",
      ])
    try await step.run(Self.recording(row), attempt: attempt)
    let sent = poster.headers.withLock { $0 }
    #expect(sent.allSatisfy { $0["Idempotency-Key"] == "888-7-0-webhook-ab" })
    #expect(sent.allSatisfy { $0["Content-Type"] == "application/json" })
  }

  #if os(Linux) || os(macOS)
    @Test("the command: exit 0 done, another status a failure, no exit within the timeout killed")
    func command() async throws {
      let row = FinishStepRow(serial: "888", sessionId: 7, generation: 0, step: "exec", position: 0)
      let attempt = FinishAttempt(idempotencyKey: "k", earlierAttempts: 2)
      try await CommandStep(command: "test \"$RECORDER_ATTEMPT\" = 2 && grep -q '\"sessionId\":7'")
        .run(Self.recording(row), attempt: attempt)
      await #expect(throws: FinishStepError("exec: exit status 3")) {
        try await CommandStep(command: "exit 3").run(Self.recording(row), attempt: attempt)
      }
      // The timeout on an injected clock: the command never ends; advancing past the bound
      // kills it.
      let clock = ManualClock()
      let step = CommandStep(
        command: "exec sleep 600", timeout: .seconds(5), clock: AnyClock(clock))
      let running = Task { () async -> FinishStepError? in
        do throws(FinishStepError) {
          try await step.run(Self.recording(row), attempt: attempt)
          return nil
        } catch {
          return error
        }
      }
      let waiting = await pollUntil(timeout: .seconds(30)) { clock.sleeperCount >= 1 }
      #expect(waiting)
      clock.advance(by: .seconds(5))
      let failure = await running.value
      #expect(failure?.reason == "exec: no exit within 5.0 seconds; killed")
    }
  #endif

  /// Holds every step run until ``open()``.
  final class Gate: Sendable {
    private let state = Locked<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>(
      (false, []))
    let started = Locked(0)

    func wait() async {
      started.withLock { $0 += 1 }
      await withCheckedContinuation { continuation in
        let now = state.withLock { state -> Bool in
          if state.open { return true }
          state.waiters.append(continuation)
          return false
        }
        if now { continuation.resume() }
      }
    }

    func open() {
      let waiters = state.withLock { state in
        state.open = true
        defer { state.waiters = [] }
        return state.waiters
      }
      for waiter in waiters { waiter.resume() }
    }
  }

  struct HeldStep: FinishStep {
    let name = "held"
    let gate: Gate
    func run(_ recording: FinishedRecording, attempt: FinishAttempt) async throws(FinishStepError) {
      await gate.wait()
    }
  }

  @Test(
    "a step that never ends holds no DELETE up: each DELETE goes out one file behind, as without")
  func deletesNotDelayed() async throws {
    let seed: UInt64 = 0x5739_0040
    let template = try await SyncFlashTemplate.make(
      seed: seed, durations: [.seconds(30), .seconds(20), .seconds(25), .seconds(15)])
    defer { template.cleanUp() }
    /// The requests the device was written, as (opcode, session id), and its DELETEs.
    @Sendable func run(_ steps: [any FinishStep]) async throws -> (
      requests: [(UInt16, UInt32)], deletes: [DeleteRecord]
    ) {
      let bench = try SyncBench(seed: seed, template: template)
      defer { bench.cleanUp() }
      await bench.device.recordWireTrace(true)
      var options = SyncEngine.Options.fast
      options.finishSteps = steps
      let report = try await bench.syncOnce(try bench.makeEngine(options: options))
      #expect(report.files.count == 4)
      #expect(report.files.allSatisfy { $0.deletedFromDevice }, "seed \(seed)")
      let requests = await bench.device.wireTrace.compactMap { event -> (UInt16, UInt32)? in
        guard case .written(let bytes) = event, bytes.count >= 7,
          let opcode = WireTraceChecker.opcode(bytes)
        else { return nil }
        let id = bytes[3..<7].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return (opcode, id)
      }
      return (requests, await bench.device.deleteLog)
    }
    /// Where each DELETE went out: after its own SYNC_START, before the SYNC_START two
    /// recordings later (the finish runs one file behind the transfers).
    @Sendable func expectOneBehind(_ requests: [(UInt16, UInt32)], _ label: String) {
      let starts = requests.enumerated().filter { $0.element.0 == 0x001C }
      var firstStart: [UInt32: Int] = [:]
      for start in starts where firstStart[start.element.1] == nil {
        firstStart[start.element.1] = start.offset
      }
      let ids = firstStart.keys.sorted()
      #expect(ids.count == 4, "\(label): \(ids)")
      for (index, id) in ids.enumerated() {
        let delete = requests.firstIndex { $0.0 == 0x001E && $0.1 == id }
        #expect(delete != nil, "\(label): no DELETE of \(id)")
        guard let delete, let start = firstStart[id] else { continue }
        #expect(delete > start, "\(label): \(id) deleted before its transfer")
        if index + 2 < ids.count, let later = firstStart[ids[index + 2]] {
          #expect(delete < later, "\(label): \(id)'s DELETE came after \(ids[index + 2])'s start")
        }
      }
    }
    // A DELETE that waited for the held step would never come: bounded, not hung.
    try await withTimeout(120) {
      let without = try await run([])
      let gate = Gate()
      let with = try await run([HeldStep(gate: gate)])
      // The step was started (and is still held) while every DELETE went out.
      #expect(gate.started.withLock { $0 } >= 1)
      gate.open()
      expectOneBehind(without.requests, "without steps")
      expectOneBehind(with.requests, "with a held step")
      #expect(with.deletes.map(\.sessionId) == without.deletes.map(\.sessionId))
      // A figure, not a bound: virtual time moves while exports use the CPU, so a loaded
      // machine shifts both runs' DELETEs.
      let shifts = zip(with.deletes, without.deletes).map {
        ($0.virtualTime - $1.virtualTime) / .milliseconds(1)
      }
      print("DELETE virtual-time shifts with a held step (ms): \(shifts)")
    }
  }
}

/// Whether `condition` held within `timeout` (real time: a bound on a real child process).
private func pollUntil(timeout: Duration, _ condition: @Sendable () -> Bool) async -> Bool {
  let start = ContinuousClock.now
  while ContinuousClock.now - start < timeout {
    if condition() { return true }
    await Task.yield()
  }
  return condition()
}
