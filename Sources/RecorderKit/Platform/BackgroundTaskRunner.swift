import RecorderConcurrency

/// `UIApplication.beginBackgroundTask(withName:expirationHandler:)` and
/// `endBackgroundTask(_:)`, mirrored so what happens around them is tested here.
public protocol BackgroundTaskMirror: Sendable {
  /// Begins a task; the system calls `expirationHandler` when the time is up. nil when the
  /// system refuses (`UIBackgroundTaskIdentifier.invalid`).
  func beginBackgroundTask(
    withName name: String, expirationHandler: @escaping @Sendable () -> Void
  ) -> Int?
  /// Ends task `identifier`.
  func endBackgroundTask(_ identifier: Int)
}

/// Runs work in the time the OS grants in the background, through ``BackgroundBudget``:
/// a background task is begun first, its expiration handler expires the budget (cancelling
/// the work, which checkpoints on the way out) and ends the task at once, as the system
/// requires; otherwise the task ends the moment the work returns. Ended exactly once either
/// way. A refused task runs nothing: there is no time to run in.
package struct BackgroundTaskRunner: Sendable {
  private let application: any BackgroundTaskMirror
  private let budget: BackgroundBudget

  /// A runner over `application` (the Apple binding, or scripted), cancelling through `budget`.
  public init(application: any BackgroundTaskMirror, budget: BackgroundBudget) {
    self.application = application
    self.budget = budget
  }

  /// Runs `work` as background task `name`; nil when the system granted no task.
  public func run<Value: Sendable>(
    named name: String, _ work: @escaping @Sendable () async throws -> Value
  ) async -> BackgroundBudget.Run<Value>? {
    // The task's identifier, whether the system expired it and whether it was ended, in one
    // lock: the expiration handler may run on another thread before `begin` has returned.
    let task = Locked<(id: Int?, expired: Bool, ended: Bool)>((nil, false, false))
    let application = self.application
    let endOnce: @Sendable () -> Void = {
      let id = task.withLock { task -> Int? in
        guard !task.ended, let id = task.id else { return nil }
        task.ended = true
        return id
      }
      if let id { application.endBackgroundTask(id) }
    }
    let budget = self.budget
    // An expiry before the work is registered with the budget must still stop it.
    let expiries = budget.expiryCount
    let granted = application.beginBackgroundTask(withName: name) {
      task.withLock { $0.expired = true }
      budget.expire()
      endOnce()
    }
    guard let granted else { return nil }
    let expiredEarly = task.withLock { task -> Bool in
      task.id = granted
      return task.expired
    }
    if expiredEarly { endOnce() }
    let run = await budget.run(granted: nil, expiredSince: expiries, work)
    endOnce()
    return run
  }
}

/// A `BGProcessingTask` as the backlog processor sees it: its expiration handler and
/// `setTaskCompleted(success:)`.
public protocol ProcessingTaskMirror: Sendable {
  /// Sets what the system calls when the task's time is up.
  func setExpirationHandler(_ handler: @escaping @Sendable () -> Void)
  /// `setTaskCompleted(success:)`.
  func setTaskCompleted(success: Bool)
  /// The task's `progress` (`BGContinuedProcessingTask`, shown to the user by the system);
  /// a plain `BGProcessingTask` has none and ignores it.
  func reportProgress(completed: Int64, total: Int64)
}

/// `BGTaskScheduler`, for one processing task identifier.
public protocol TaskSchedulerMirror: Sendable {
  /// `register(forTaskWithIdentifier:using:launchHandler:)`; false when the identifier is
  /// not in Info.plist's `BGTaskSchedulerPermittedIdentifiers`.
  func register(
    identifier: String, launchHandler: @escaping @Sendable (any ProcessingTaskMirror) -> Void
  ) -> Bool
  /// `submit(_:)` of a `BGProcessingTaskRequest` (network not required, external power not
  /// required); false when the system refused it.
  func submitProcessingRequest(identifier: String) -> Bool
  /// `submit(_:)` of a `BGProcessingTaskRequest` with `requiresExternalPower` as given
  /// (network not required): with true, the system launches it only while the device is
  /// charging, and expires it when the device is unplugged; false when refused.
  func submitProcessingRequest(identifier: String, requiresExternalPower: Bool) -> Bool
  /// `submit(_:)` of a `BGContinuedProcessingTaskRequest(identifier:title:subtitle:)`: work
  /// the user started in the foreground that may go on in the background, with progress
  /// (iOS 26); false when refused or unavailable.
  func submitContinuedProcessingRequest(identifier: String, title: String, subtitle: String)
    -> Bool
}

/// A long backlog (many recordings left on the device) worked through in
/// `BGProcessingTask`s: each launch runs `work` under ``BackgroundBudget`` until it
/// finishes or the task expires (cancelled, checkpointed), completes the task with success
/// only if the work finished, and asks for another launch while `work` reports more to do.
/// The work reports its progress (bytes done of bytes to do) to the task, which a continued
/// processing task shows to the user.
public final class BacklogProcessor: Sendable {
  /// What one launch of the work reports: whether backlog remains.
  public enum Outcome: Sendable, Equatable {
    case done
    case moreToDo
  }

  private let scheduler: any TaskSchedulerMirror
  private let budget: BackgroundBudget
  private let identifier: String

  /// A processor for task `identifier` (listed in `BGTaskSchedulerPermittedIdentifiers`).
  public init(scheduler: any TaskSchedulerMirror, budget: BackgroundBudget, identifier: String) {
    self.scheduler = scheduler
    self.budget = budget
    self.identifier = identifier
  }

  /// Registers the launch handler (once, at app launch, as the system requires); false when
  /// the identifier is not permitted.
  public func register(
    _ work:
      @escaping @Sendable (_ progress: @escaping @Sendable (Int64, Int64) -> Void)
      async throws -> Outcome,
    finished: @escaping @Sendable (BackgroundBudget.Run<Outcome>) -> Void = { _ in }
  ) -> Bool {
    let (budget, scheduler, identifier) = (self.budget, self.scheduler, self.identifier)
    return scheduler.register(identifier: identifier) { task in
      task.setExpirationHandler { budget.expire() }
      Task {
        let run = await budget.run(granted: nil) {
          try await work { task.reportProgress(completed: $0, total: $1) }
        }
        let completed = run.expiredAt == nil && (try? run.result.get()) != nil
        if (try? run.result.get()) != .done {
          _ = scheduler.submitProcessingRequest(identifier: identifier)
        }
        task.setTaskCompleted(success: completed)
        finished(run)
      }
    }
  }

  /// Asks the system for a launch (when the backlog grows); false when refused.
  @discardableResult
  public func schedule() -> Bool { scheduler.submitProcessingRequest(identifier: identifier) }

  /// Starts the work now because the user asked (a "Sync all" button): a continued
  /// processing task the system shows with `title`, `subtitle` and the work's progress, and
  /// keeps running in the background. Falls back to ``schedule()`` where the system refuses
  /// it (before iOS 26, or with too many running).
  @discardableResult
  public func startNow(title: String, subtitle: String) -> Bool {
    scheduler.submitContinuedProcessingRequest(
      identifier: identifier, title: title, subtitle: subtitle) || schedule()
  }
}
