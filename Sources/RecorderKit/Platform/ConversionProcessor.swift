import RecorderConcurrency

/// The conversions a deferred sync left owed (``ExportPolicy/deferConversion``), made in
/// `BGProcessingTask`s that require external power: the encoder's CPU is spent while the
/// phone charges, not on its battery.
///
/// Each launch runs ``SyncWorkspace/convertPending(shouldStop:converted:)`` under its own
/// ``BackgroundBudget``. The task's expiration handler (the user picked the phone up, it was
/// unplugged) expires the budget: the conversion running stops within about a second of
/// audio, its partial output is removed, and it and the rest stay owed in the journal. The
/// task completes with success only when nothing is owed any more; otherwise another launch
/// is asked for. Nothing here decides on the platform's side: the Apple binding only submits
/// the request and relays the handler.
public final class ConversionProcessor: Sendable {
  private let scheduler: any TaskSchedulerMirror
  private let budget: BackgroundBudget
  private let identifier: String

  /// A processor for task `identifier` (listed in `BGTaskSchedulerPermittedIdentifiers`).
  /// - Parameters:
  ///   - scheduler: the system's task scheduler (the Apple binding, or scripted).
  ///   - identifier: the processing task's identifier.
  ///   - clock: the clock of the launches' budget (virtual in tests).
  public init(scheduler: any TaskSchedulerMirror, identifier: String, clock: AnyClock) {
    self.scheduler = scheduler
    self.identifier = identifier
    // Its own budget: an expiry of this task cancels only the conversions.
    budget = BackgroundBudget(clock: clock)
  }

  /// Registers the launch handler (once, at app launch, as the system requires): each launch
  /// converts what `workspace` owes, reporting conversions done of conversions owed as the
  /// task's progress. Returns false when the identifier is not permitted.
  /// - Parameters:
  ///   - workspace: the storage root whose journal owes the conversions.
  ///   - converted: told of each conversion whose file is in place.
  ///   - finished: told how each launch ended.
  public func register(
    workspace: SyncWorkspace,
    converted: @escaping @Sendable (PendingConversion) -> Void = { _ in },
    finished: @escaping @Sendable (ConversionReport) -> Void = { _ in }
  ) -> Bool {
    register(opening: { workspace }, converted: converted, finished: finished)
  }

  /// ``register(workspace:converted:finished:)`` for a workspace opened at each launch
  /// (nil: it cannot be opened, and the launch completes without success).
  /// - Parameters:
  ///   - opening: opens the storage root whose journal owes the conversions.
  ///   - converted: told of each conversion whose file is in place.
  ///   - finished: told how each launch ended.
  public func register(
    opening: @escaping @Sendable () async -> SyncWorkspace?,
    converted: @escaping @Sendable (PendingConversion) -> Void = { _ in },
    finished: @escaping @Sendable (ConversionReport) -> Void = { _ in }
  ) -> Bool {
    let (budget, scheduler, identifier) = (self.budget, self.scheduler, self.identifier)
    return scheduler.register(identifier: identifier) { task in
      task.setExpirationHandler { budget.expire() }
      Task {
        guard let workspace = await opening() else {
          task.setTaskCompleted(success: false)
          finished(ConversionReport())
          return
        }
        let total = Int64((try? workspace.pendingConversions().count) ?? 0)
        let done = Locked<Int64>(0)
        task.reportProgress(completed: 0, total: max(total, 1))
        let run = await budget.run(granted: nil) {
          await workspace.convertPending(converted: { conversion in
            let count = done.withLock { done -> Int64 in
              done += 1
              return done
            }
            task.reportProgress(completed: min(count, total), total: max(total, 1))
            converted(conversion)
          })
        }
        var report = (try? run.result.get()) ?? ConversionReport()
        if run.expiredAt != nil { report.stopped = true }
        report.remaining = (try? workspace.pendingConversions()) ?? report.remaining
        if !report.remaining.isEmpty {
          _ = scheduler.submitProcessingRequest(
            identifier: identifier, requiresExternalPower: true)
        }
        task.setTaskCompleted(success: report.remaining.isEmpty && run.expiredAt == nil)
        finished(report)
      }
    }
  }

  /// Asks the system for a launch on external power (after a deferred sync left conversions
  /// owed); false when refused.
  @discardableResult
  public func schedule() -> Bool {
    scheduler.submitProcessingRequest(identifier: identifier, requiresExternalPower: true)
  }
}
