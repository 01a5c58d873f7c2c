import RecorderConcurrency
import RecorderKit

/// How an agent spends the OS's background time: every command runs inside a background
/// task (``PlaudSDKConfiguration/backgroundTasks``) through RecorderKit's
/// `BackgroundTaskRunner`, so the work an app starts in the foreground, or from a Bluetooth
/// or beacon wake-up, may finish after the app leaves the foreground.
///
/// When the system's time runs out, its expiration handler expires the `BackgroundBudget`,
/// whose cancellation reaches the command here as a *soft* stop: `stop` is called (the
/// agent's transfers stop at their next frame, bytes kept, and report it through their
/// callbacks), while the command itself is not cancelled, so it still delivers its callback
/// and the next command starts on a link that is in a known state. The task is ended at once
/// by the runner, as iOS requires.
///
/// A task the system refuses (no background time left) does not keep the command from
/// running: with `bluetooth-central`, the device's notifications keep waking the app, and a
/// transfer frozen by a suspension resumes from its checkpoint. The vendor's background sync
/// relies on exactly that (shared/seeds/000).
struct BackgroundCommands: Sendable {
  private let runner: BackgroundTaskRunner?
  private let name: String
  private let timeUp: Locked<Bool>
  private let onTimeUp: @Sendable () -> Void

  /// - Parameters:
  ///   - runner: the agent's runner (nil: no background time to manage).
  ///   - name: the background task's name (what the system's diagnostics show).
  ///   - timeUp: false while a command runs in time, true once its time ran out; the
  ///     agent's transfers read it before each frame. One command runs at a time per agent.
  ///   - onTimeUp: anything else to stop when the time runs out.
  init(
    runner: BackgroundTaskRunner?, name: String, timeUp: Locked<Bool>,
    onTimeUp: @escaping @Sendable () -> Void = {}
  ) {
    self.runner = runner
    self.name = name
    self.timeUp = timeUp
    self.onTimeUp = onTimeUp
  }

  /// The runner of `configuration`: one budget shared by the device and Wi-Fi agents, since
  /// the system ends all of an app's background time at once.
  static func runner(for configuration: PlaudSDKConfiguration) -> BackgroundTaskRunner? {
    configuration.backgroundTasks.map {
      BackgroundTaskRunner(application: $0, budget: BackgroundBudget(clock: configuration.clock))
    }
  }

  /// Runs `command` inside a background task, telling it through `timeUp` when the system's
  /// time runs out.
  func run(_ command: @escaping @Sendable () async -> Void) async {
    timeUp.withLock { $0 = false }
    guard let runner else { return await command() }
    let (timeUp, onTimeUp) = (self.timeUp, self.onTimeUp)
    let ran = await runner.run(named: name) {
      // An unstructured task does not inherit the budget's cancellation: the command runs
      // to its end and only `timeUp` tells it that time is up. (Already cancelled, the
      // handler runs at once.)
      let running = Task { await command() }
      await withTaskCancellationHandler {
        await running.value
      } onCancel: {
        timeUp.withLock { $0 = true }
        onTimeUp()
      }
    }
    if ran == nil { await command() }
  }
}
