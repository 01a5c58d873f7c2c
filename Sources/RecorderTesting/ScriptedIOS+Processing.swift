import RecorderConcurrency
import RecorderKit

extension ScriptedIOS {
  /// `BGTaskScheduler` for processing tasks, keeping Apple's rules for them:
  /// - a request that requires external power is launched only while the device is on
  ///   external power (``plugIn()``); unplugging (``unplug()``) calls the expiration handler of
  ///   every running task that required it, as the system does when a task's conditions end;
  /// - the system launches a submitted request when it chooses (here: ``runEligible()``), at
  ///   most once per submission, and never for an app the user force-quit or one not launched
  ///   since a reboot;
  /// - a launch handler exists only once registered (at launch, for an identifier the
  ///   Info.plist permits: every identifier here).
  ///
  /// Each rule can be switched off (``Rules``) so a test can show what depends on it.
  /// Thread-safe: all state is in one `Locked`; handlers run outside it.
  public final class ProcessingScheduler: TaskSchedulerMirror {
    /// The processing-task rules, each switchable.
    public struct Rules: Sendable, Equatable {
      /// A request that requires external power waits for it, and ends when it goes.
      public var externalPowerIsRequired = true

      /// Apple's rules, as documented.
      public init() {}
    }

    /// One submission, as the system holds it.
    public struct Request: Sendable, Equatable {
      public var identifier: String
      public var requiresExternalPower: Bool

      /// - Parameters:
      ///   - identifier: the task's identifier.
      ///   - requiresExternalPower: whether it waits for external power.
      public init(identifier: String, requiresExternalPower: Bool) {
        self.identifier = identifier
        self.requiresExternalPower = requiresExternalPower
      }
    }

    private struct State {
      var handlers: [String: @Sendable (any ProcessingTaskMirror) -> Void] = [:]
      var submitted: [Request] = []
      var everSubmitted: [Request] = []
      var onPower = false
      var running: [ScriptedProcessingTask] = []
      var launches = 0
    }

    private let appState: @Sendable () -> AppState
    private let rules: Rules
    private let state = Locked(State())

    /// The scheduler of `system`'s app, with `rules`.
    public convenience init(system: ScriptedIOS, rules: Rules = Rules()) {
      self.init(rules: rules, appState: { [weak system] in system?.appState ?? .notRunning })
    }

    /// A scheduler for an app whose state `appState` tells (a test without the rest of the
    /// scripted iOS), with `rules`.
    /// - Parameters:
    ///   - rules: which processing-task rules hold (all, by default).
    ///   - appState: the app's life-cycle state now.
    public init(rules: Rules = Rules(), appState: @escaping @Sendable () -> AppState) {
      self.appState = appState
      self.rules = rules
    }

    /// Every request submitted so far, in order.
    public var submissions: [Request] { state.withLock { $0.everSubmitted } }
    /// Requests waiting for a launch.
    public var waiting: [Request] { state.withLock { $0.submitted } }
    /// Launches so far.
    public var launches: Int { state.withLock { $0.launches } }
    /// Whether the device is on external power.
    public var isOnExternalPower: Bool { state.withLock { $0.onPower } }

    public func register(
      identifier: String, launchHandler: @escaping @Sendable (any ProcessingTaskMirror) -> Void
    ) -> Bool {
      state.withLock { $0.handlers[identifier] = launchHandler }
      return true
    }

    public func submitProcessingRequest(identifier: String) -> Bool {
      submitProcessingRequest(identifier: identifier, requiresExternalPower: false)
    }

    public func submitProcessingRequest(identifier: String, requiresExternalPower: Bool) -> Bool {
      let request = Request(identifier: identifier, requiresExternalPower: requiresExternalPower)
      state.withLock { state in
        // One pending request per identifier: a new submission replaces the old one.
        state.submitted.removeAll { $0.identifier == identifier }
        state.submitted.append(request)
        state.everSubmitted.append(request)
      }
      return true
    }

    /// Continued processing tasks are not part of this script: refused.
    public func submitContinuedProcessingRequest(
      identifier: String, title: String, subtitle: String
    ) -> Bool { false }

    /// The device is connected to a charger.
    public func plugIn() { state.withLock { $0.onPower = true } }

    /// The device is unplugged: running tasks that required external power expire.
    public func unplug() {
      let expiring = state.withLock { state -> [ScriptedProcessingTask] in
        state.onPower = false
        guard rules.externalPowerIsRequired else { return [] }
        return state.running.filter { $0.requiresExternalPower }
      }
      for task in expiring { task.expire() }
    }

    /// The system launches every waiting request whose conditions hold, each once, and
    /// returns the launched tasks.
    @discardableResult
    public func runEligible() -> [ScriptedProcessingTask] {
      let app = appState()
      guard app != .forceQuit, app != .notRunning else { return [] }
      let launched = state.withLock {
        state -> [(ScriptedProcessingTask, @Sendable (any ProcessingTaskMirror) -> Void)] in
        var launched: [(ScriptedProcessingTask, @Sendable (any ProcessingTaskMirror) -> Void)] = []
        var kept: [Request] = []
        for request in state.submitted {
          let powered = state.onPower || !rules.externalPowerIsRequired
          guard let handler = state.handlers[request.identifier],
            !request.requiresExternalPower || powered
          else {
            kept.append(request)
            continue
          }
          let task = ScriptedProcessingTask(requiresExternalPower: request.requiresExternalPower)
          state.running.append(task)
          state.launches += 1
          launched.append((task, handler))
        }
        state.submitted = kept
        return launched
      }
      for (task, handler) in launched { handler(task) }
      return launched.map(\.0)
    }
  }

  /// A launched `BGProcessingTask` of the script: its expiration handler, completion and
  /// progress. Thread-safe: its state is in one `Locked`.
  public final class ScriptedProcessingTask: ProcessingTaskMirror {
    private struct State {
      var expiration: (@Sendable () -> Void)?
      var completed: Bool?
      var progress: [(completed: Int64, total: Int64)] = []
      var expired = false
    }
    private let state = Locked(State())
    /// Whether its request required external power.
    public let requiresExternalPower: Bool

    init(requiresExternalPower: Bool) { self.requiresExternalPower = requiresExternalPower }

    /// `setTaskCompleted(success:)`'s value, nil until called.
    public var completedWithSuccess: Bool? { state.withLock { $0.completed } }
    /// Whether the system expired it.
    public var expired: Bool { state.withLock { $0.expired } }
    /// The progress it reported, in order.
    public var progress: [(completed: Int64, total: Int64)] { state.withLock { $0.progress } }

    public func setExpirationHandler(_ handler: @escaping @Sendable () -> Void) {
      state.withLock { $0.expiration = handler }
    }
    public func setTaskCompleted(success: Bool) { state.withLock { $0.completed = success } }
    public func reportProgress(completed: Int64, total: Int64) {
      state.withLock { $0.progress.append((completed, total)) }
    }

    /// The system ends the task: its expiration handler runs (once).
    public func expire() {
      let handler = state.withLock { state -> (@Sendable () -> Void)? in
        guard !state.expired, state.completed == nil else { return nil }
        state.expired = true
        return state.expiration
      }
      handler?()
    }
  }
}
