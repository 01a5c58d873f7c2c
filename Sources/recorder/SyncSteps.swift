import Foundation
import RecorderKit

/// `recorder sync`'s finish steps: the user's own command, a webhook, a sidecar file per
/// export (``FinishStep``), in that order, and how failed ones are tried again.
struct SyncSteps {
  static let help = """
      --exec CMD            After each recording is stored and exported, run CMD with
                            /bin/sh -c: its description as JSON on stdin (serial, model,
                            firmware, session id, start time in UTC and the zone, duration,
                            SHA-256, how it was checked, the raw and export paths) and the
                            paths in RECORDER_RAW, RECORDER_EXPORT, RECORDER_EXPORTS. Exit 0
                            is done (journaled; never run again for that recording); a
                            failure is tried again with backoff. A run cut by a kill runs
                            again, with the same RECORDER_IDEMPOTENCY_KEY.
      --exec-timeout S      Kill a run of CMD after S seconds (default 600): a failed attempt.
      --webhook URL         POST each recording's description to URL (https, or http to this
                            machine) with an Idempotency-Key header, until it answers 2xx.
      --webhook-timeout S   The bound of one POST, connect to status line (default 30).
      --sidecar             Write each recording's description beside each export
                            (<export>.json).
      --step-attempts N     Attempts per step and recording in one run (default 5); what is
                            still owed then is tried by the next run (exit 4).
      --step-backoff S      The wait after a step's first failure, doubling after each
                            further one, at most 60 s (default 1).
      Steps never delay a DELETE: the recording is safe on disk before they run.
    """

  var steps: [any FinishStep] = []
  var policy = FinishStepPolicy()

  init(arguments: inout Arguments) throws {
    let command = try arguments.option("exec")
    let timeout = try arguments.option("exec-timeout", as: Double.self)
    if let command {
      guard !command.isEmpty else { throw UsageError("--exec needs a command") }
      let seconds = timeout ?? 600
      guard seconds > 0, seconds <= 86400 else {
        throw UsageError("--exec-timeout must be 0-86400 seconds")
      }
      steps.append(CommandStep(command: command, timeout: .seconds(seconds)))
    } else if timeout != nil {
      throw UsageError("--exec-timeout needs --exec")
    }
    let webhookTimeout = try arguments.option("webhook-timeout", as: Double.self)
    if let text = try arguments.option("webhook") {
      guard let url = URL(string: text) else {
        throw UsageError("--webhook must be a URL (\(EchoedValue(text)))")
      }
      let seconds = webhookTimeout ?? 30
      guard seconds > 0, seconds <= 3600 else {
        throw UsageError("--webhook-timeout must be 0-3600 seconds")
      }
      do {
        steps.append(try WebhookStep(url: url, timeout: .seconds(seconds)))
      } catch {
        throw UsageError("--webhook: \(error)")
      }
    } else if webhookTimeout != nil {
      throw UsageError("--webhook-timeout needs --webhook")
    }
    if arguments.flag("sidecar") { steps.append(SidecarStep()) }
    let attempts = try arguments.option("step-attempts", as: Int.self)
    let backoff = try arguments.option("step-backoff", as: Double.self)
    if let attempts, attempts < 1 { throw UsageError("--step-attempts must be at least 1") }
    if let backoff, backoff < 0 || backoff > 3600 {
      throw UsageError("--step-backoff must be 0-3600 seconds")
    }
    policy = FinishStepPolicy(
      attemptsPerRun: attempts ?? 5, firstBackoff: .seconds(backoff ?? 1),
      maximumBackoff: .seconds(max(60, backoff ?? 1)))
  }

  /// Waits for the steps `engine` owes (this run's and earlier ones'), reports those still
  /// owed on stderr, and fails with exit 4 when any is.
  static func finish(_ engine: SyncEngine) async throws {
    let report = await engine.finishOwedSteps()
    for step in report.owed {
      printError(
        "\(step.serial) \(step.sessionId): \(step.step) still owed after \(step.attempts) "
          + "attempt(s)\(step.lastError.map { " (\($0))" } ?? ""); the next run tries again")
    }
    if !report.owed.isEmpty {
      throw CommandFailure(.stepsOwed, "\(report.owed.count) finish step(s) still owed")
    }
  }
}
