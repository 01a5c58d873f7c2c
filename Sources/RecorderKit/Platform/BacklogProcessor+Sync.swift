import RecorderConcurrency
import RecorderProtocol

/// A sync's events folded into what a processing task shows: bytes done of bytes to do.
///
/// The total is what the device listed; a file counts the bytes its transfer reached (a
/// resumed file starts where it resumes). A run that completes reports the total as done.
package struct SyncProgressTally: Sendable, Equatable {
  /// Bytes the device listed in this run.
  public private(set) var total: Int64 = 0
  private var reached: [SessionID: Int64] = [:]

  /// An empty tally: nothing listed yet.
  public init() {}

  /// Bytes done, at most ``total``.
  public var completed: Int64 { min(total, reached.values.reduce(0, +)) }

  /// Folds `event` in; true when ``completed`` or ``total`` changed.
  public mutating func add(_ event: SyncEvent) -> Bool {
    let before = (completed, total)
    switch event {
    case .listed(_, let bytes):
      total = bytes
      reached = [:]
    case .fileProgress(let sessionId, _, let bytes, _, _):
      reached[sessionId] = max(reached[sessionId] ?? 0, bytes)
    case .fileStored, .fileExported, .fileDeleted, .fileSkipped, .overall, .stepDone, .stepFailed:
      break
    }
    return before != (completed, total)
  }
}

extension BacklogProcessor {
  /// Registers a whole-device sync as the backlog's work (once, at app launch): each launch
  /// runs one attempt of the front door's sync (``Recorders/runSync(serial:into:options:report:)``)
  /// of the recorder with `serial`, with its progress (bytes done of bytes listed) on the
  /// task. A run that completes is `.done`; one the system's expiry cancelled, or one that
  /// failed (the recorder out of range, say), leaves its checkpoint in the journal,
  /// completes the task without success and asks for another launch, which resumes: the
  /// launches are the attempts.
  ///
  /// Takes over `engine`'s ``SyncEngine/events`` (a single-consumer stream): use another
  /// engine where the app reads them itself.
  /// - Parameters:
  ///   - recorders: the front door (its radio: the app's central, whose pending connect the
  ///     system may have restored).
  ///   - serial: the recorder to sync.
  ///   - engine: the sync engine (journal, folder, export and delete options).
  ///   - wifi: the Wi-Fi plan, or nil for BLE only.
  ///   - finished: told how each launch ended.
  /// - Returns: false when the identifier is not permitted.
  public func registerSync(
    recorders: Recorders, serial: String, engine: SyncEngine, wifi: WiFiSyncPlan? = nil,
    finished: @escaping @Sendable (BackgroundBudget.Run<Outcome>) -> Void = { _ in }
  ) -> Bool {
    let report = Locked<(@Sendable (Int64, Int64) -> Void)?>(nil)
    let tally = Locked(SyncProgressTally())
    let registered = register(
      { progress in
        tally.withLock { $0 = SyncProgressTally() }
        report.withLock { $0 = progress }
        // Events still on their way when this launch ends go nowhere.
        defer { report.withLock { $0 = nil } }
        let done = try await recorders.runSync(
          serial: serial, into: engine, options: SyncRunOptions(maximumAttempts: 1, wifi: wifi),
          report: { event in
            guard case .pipeline(let event) = event else { return }
            let changed = tally.withLock { tally in
              tally.add(event) ? (tally.completed, tally.total) : nil
            }
            // Called under the lock: once a launch has cleared it, no late event reaches
            // that launch's task (after its 100 %, say).
            if let (completed, total) = changed { report.withLock { $0?(completed, total) } }
          })
        report.withLock { $0 = nil }
        // The events may lag the run: the report's own bytes count too, and nothing to do is
        // done all the same.
        let total = max(tally.withLock { $0.total }, done.files.reduce(0) { $0 + $1.size }, 1)
        progress(total, total)
        return .done
      }, finished: finished)
    return registered
  }
}
