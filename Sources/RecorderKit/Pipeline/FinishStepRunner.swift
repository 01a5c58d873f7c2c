import RecorderConcurrency
import RecorderProtocol
import RecorderStore

/// How often and how soon a failed finish step is tried again.
public struct FinishStepPolicy: Sendable, Equatable {
  /// Attempts at one step of one recording within one run (≥ 1); after that it stays owed
  /// to the next run.
  public var attemptsPerRun: Int
  /// The wait after the first failure; it doubles after each further one.
  public var firstBackoff: Duration
  /// The longest wait between two attempts.
  public var maximumBackoff: Duration

  /// - Parameters:
  ///   - attemptsPerRun: attempts per step and recording within a run (default 5).
  ///   - firstBackoff: the wait after a first failure (default 1 s).
  ///   - maximumBackoff: the longest wait (default 60 s).
  public init(
    attemptsPerRun: Int = 5, firstBackoff: Duration = .seconds(1),
    maximumBackoff: Duration = .seconds(60)
  ) {
    self.attemptsPerRun = max(1, attemptsPerRun)
    self.firstBackoff = max(.zero, firstBackoff)
    self.maximumBackoff = max(self.firstBackoff, maximumBackoff)
  }

  /// The wait after `failures` failures in a row (≥ 1).
  func backoff(after failures: Int) -> Duration {
    var wait = firstBackoff
    for _ in 1..<max(1, failures) {
      wait = wait * 2
      if wait >= maximumBackoff { return maximumBackoff }
    }
    return min(wait, maximumBackoff)
  }
}

/// What happened to the finish steps of a run (``SyncEngine/finishOwedSteps()``).
public struct FinishStepsReport: Sendable, Equatable {
  /// One step of one recording.
  public struct Step: Sendable, Equatable {
    public var serial: String
    public var sessionId: SessionID
    public var generation: Int
    public var step: String
    /// Attempts over every run (failed ones; a completed step counts its last one too).
    public var attempts: Int
    /// Why the last attempt failed; nil once done.
    public var lastError: String?
  }
  /// Steps completed in this run.
  public var done: [Step] = []
  /// Steps still owed (they are tried again by the next run), with why.
  public var owed: [Step] = []
}

/// Runs the finish steps the journal owes (``FinishStep``), one at a time, apart from the
/// transfers: each recording's steps in order, a failed one again after ``FinishStepPolicy``'s
/// backoff on the injected clock, every completion journaled
/// (`JournalTransaction.completeFinishStep`) before the next step starts.
package actor FinishStepRunner {
  private struct Key: Hashable {
    var serial: String
    var sessionId: UInt32
    var generation: Int
    var step: String

    init(_ row: FinishStepRow) {
      serial = row.serial
      sessionId = row.sessionId
      generation = row.generation
      step = row.step
    }
  }

  private let journal: Journal
  private let steps: [String: any FinishStep]
  private let policy: FinishStepPolicy
  private let clock: AnyClock
  /// The recording a step row is for, as the step sees it; nil when it is no longer held.
  private let describe: @Sendable (FinishStepRow) async -> FinishedRecording?
  private let events: @Sendable (SyncEvent) -> Void
  private var attemptsThisRun: [Key: Int] = [:]
  /// The clock's `elapsed` before which a failed step is not tried again.
  private var notBefore: [Key: Duration] = [:]
  private var worker: Task<Void, Never>?
  private var sleeper: Task<Void, Never>?
  private var report = FinishStepsReport()

  package init(
    journal: Journal, steps: [any FinishStep], policy: FinishStepPolicy, clock: AnyClock,
    describe: @escaping @Sendable (FinishStepRow) async -> FinishedRecording?,
    events: @escaping @Sendable (SyncEvent) -> Void
  ) {
    self.journal = journal
    self.steps = Dictionary(steps.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    self.policy = policy
    self.clock = clock
    self.describe = describe
    self.events = events
  }

  /// A new run: every owed step gets its attempts again.
  package func beginRun() {
    attemptsThisRun = [:]
    notBefore = [:]
    report = FinishStepsReport()
  }

  /// Something may be owed: starts working (or stops waiting out a backoff to look again).
  package func wake() {
    sleeper?.cancel()
    guard worker == nil else { return }
    worker = Task { await self.work() }
  }

  /// Works until no owed step can be tried again in this run, then reports the run's steps.
  package func drain() async -> FinishStepsReport {
    wake()
    while let worker { await worker.value }
    var result = report
    let owed = (try? journal.read { try $0.owedFinishSteps() }) ?? []
    result.owed = owed.map(Self.step)
    return result
  }

  /// Stops working (the steps stay owed).
  package func stop() {
    worker?.cancel()
    sleeper?.cancel()
  }

  private func work() async {
    defer { worker = nil }
    while !Task.isCancelled {
      guard let owed = try? journal.read({ try $0.owedFinishSteps() }) else { return }
      // The first owed step of each recording: its later steps wait for it.
      var seen: Set<String> = []
      let candidates = owed.filter { row in
        seen.insert("\(row.serial)/\(row.sessionId)/\(row.generation)").inserted
      }.filter {
        steps[$0.step] != nil && attemptsThisRun[Key($0), default: 0] < policy.attemptsPerRun
      }
      guard !candidates.isEmpty else { return }
      let now = clock.elapsed
      if let ready = candidates.first(where: { notBefore[Key($0)] ?? .zero <= now }) {
        await attempt(ready)
        continue
      }
      let next = candidates.compactMap { notBefore[Key($0)] }.min() ?? now
      let clock = self.clock
      let sleeper = Task { _ = try? await clock.sleep(for: next - now) }
      self.sleeper = sleeper
      await sleeper.value
      self.sleeper = nil
    }
  }

  private func attempt(_ row: FinishStepRow) async {
    let key = Key(row)
    guard let step = steps[row.step] else { return }
    guard let recording = await describe(row) else {
      // Its bytes are gone (the recording started over): nothing to run the step on.
      _ = try? journal.write { tx in
        try tx.forgetFinishSteps(
          serial: row.serial, sessionId: row.sessionId, generation: row.generation)
      }
      return
    }
    attemptsThisRun[key, default: 0] += 1
    let attempt = FinishAttempt(
      idempotencyKey:
        "\(row.serial)-\(row.sessionId)-\(row.generation)-\(row.step)-\(recording.sha256.prefix(16))",
      earlierAttempts: row.attempts)
    do throws(FinishStepError) {
      try await step.run(recording, attempt: attempt)
    } catch {
      _ = try? journal.write { tx in
        try tx.failFinishStep(
          serial: row.serial, sessionId: row.sessionId, generation: row.generation,
          step: row.step, reason: error.reason)
      }
      let failures = attemptsThisRun[key, default: 1]
      notBefore[key] = clock.elapsed + policy.backoff(after: failures)
      events(
        .stepFailed(
          sessionId: SessionID(row.sessionId), step: row.step, reason: error.reason,
          willRetry: failures < policy.attemptsPerRun))
      return
    }
    do {
      try journal.write { tx in
        try tx.completeFinishStep(
          serial: row.serial, sessionId: row.sessionId, generation: row.generation,
          step: row.step)
      }
    } catch {
      // Not journaled: the step runs again next time (with the same key).
      notBefore[key] = clock.elapsed + policy.backoff(after: attemptsThisRun[key, default: 1])
      return
    }
    var done = Self.step(row)
    done.attempts += 1
    done.lastError = nil
    report.done.append(done)
    events(.stepDone(sessionId: SessionID(row.sessionId), step: row.step))
  }

  private static func step(_ row: FinishStepRow) -> FinishStepsReport.Step {
    FinishStepsReport.Step(
      serial: row.serial, sessionId: SessionID(row.sessionId), generation: row.generation,
      step: row.step, attempts: row.attempts, lastError: row.lastError)
  }
}
