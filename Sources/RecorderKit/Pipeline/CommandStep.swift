import Foundation
import RecorderConcurrency

#if os(Linux) || os(macOS)
  /// A finish step that runs the user's own command once per recording: `/bin/sh -c COMMAND`,
  /// with the recording's description (``FinishedRecording/json()``) on stdin and its paths
  /// in the environment:
  ///
  /// | variable | value |
  /// |---|---|
  /// | `RECORDER_RAW` | the raw copy |
  /// | `RECORDER_EXPORT` | the first export (by format name), or empty |
  /// | `RECORDER_EXPORTS` | every export, one per line |
  /// | `RECORDER_SERIAL`, `RECORDER_SESSION_ID`, `RECORDER_GENERATION` | which recording |
  /// | `RECORDER_IDEMPOTENCY_KEY` | ``FinishAttempt/idempotencyKey`` |
  /// | `RECORDER_ATTEMPT` | attempts before this one (0 for the first) |
  ///
  /// Exit status 0 is done; any other status, a signal, or no exit within ``timeout`` (the
  /// command's process group is then killed) is a failed attempt, tried again with backoff.
  /// The command's stdout and stderr go to this process's stderr.
  ///
  /// "Exactly once" for a command: it has *completed* exactly once when its 0 exit is
  /// journaled. A command that was running when this process was killed, or whose 0 exit was
  /// not yet journaled, runs again with the same `RECORDER_IDEMPOTENCY_KEY`: a command with
  /// effects elsewhere checks that key (or is harmless to repeat).
  ///
  /// The command inherits this process's environment without `RECORDER_TOKEN` and
  /// `RECORDER_USER_KEY` (secrets it has no use for).
  public struct CommandStep: FinishStep {
    public let name = "exec"
    /// The command line, given to `/bin/sh -c`.
    public let command: String
    /// The longest a run of the command may take.
    public let timeout: Duration
    private let clock: AnyClock

    /// Environment variables never passed to the command.
    static let withheld: Set<String> = ["RECORDER_TOKEN", "RECORDER_USER_KEY"]

    /// - Parameters:
    ///   - command: the command line, for `/bin/sh -c`.
    ///   - timeout: the longest one run may take (default 10 minutes).
    ///   - clock: the clock ``timeout`` is measured on.
    public init(command: String, timeout: Duration = .seconds(600), clock: AnyClock = .continuous) {
      self.command = command
      self.timeout = timeout
      self.clock = clock
    }

    /// A read handle on a file holding `bytes`, already unlinked (0600 while it had a name).
    static func unlinkedFile(holding bytes: [UInt8]) throws -> FileHandle {
      var template = Array((NSTemporaryDirectory() + "/recorder-step-XXXXXX").utf8CString)
      let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
      guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
      let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
      unlink(path)
      let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
      try handle.write(contentsOf: bytes)
      try handle.seek(toOffset: 0)
      return handle
    }

    public func run(_ recording: FinishedRecording, attempt: FinishAttempt)
      async throws(FinishStepError)
    {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/bin/sh")
      process.arguments = ["-c", command]
      var environment = ProcessInfo.processInfo.environment.filter {
        !Self.withheld.contains($0.key)
      }
      let exports = recording.exports.sorted { $0.key < $1.key }.map(\.value)
      environment["RECORDER_RAW"] = recording.rawPath
      environment["RECORDER_EXPORT"] = exports.first ?? ""
      environment["RECORDER_EXPORTS"] = exports.joined(separator: "\n")
      environment["RECORDER_SERIAL"] = recording.serial
      environment["RECORDER_SESSION_ID"] = String(recording.sessionId)
      environment["RECORDER_GENERATION"] = String(recording.generation)
      environment["RECORDER_IDEMPOTENCY_KEY"] = attempt.idempotencyKey
      environment["RECORDER_ATTEMPT"] = String(attempt.earlierAttempts)
      process.environment = environment
      // The description on stdin from an unlinked file: the command may read it or not (a
      // pipe it never reads would block us, or SIGPIPE us once it exits).
      let input: FileHandle
      do {
        input = try Self.unlinkedFile(holding: recording.json() + [0x0A])
      } catch {
        throw FinishStepError("exec: cannot write the description for stdin: \(error)")
      }
      defer { try? input.close() }
      process.standardInput = input
      process.standardOutput = FileHandle.standardError
      process.standardError = FileHandle.standardError
      let exited = Exit()
      process.terminationHandler = { finished in
        exited.finish(status: finished.terminationStatus, reason: finished.terminationReason)
      }
      do {
        try process.run()
      } catch {
        throw FinishStepError("exec: cannot start /bin/sh: \(error)")
      }
      let pid = process.processIdentifier
      guard let outcome = await exited.wait(timeout: timeout, clock: clock) else {
        kill(pid, SIGKILL)
        _ = await exited.wait(timeout: .seconds(5), clock: clock)
        throw FinishStepError("exec: no exit within \(timeout); killed")
      }
      if outcome.reason == .uncaughtSignal {
        throw FinishStepError("exec: killed by signal \(outcome.status)")
      }
      guard outcome.status == 0 else {
        throw FinishStepError("exec: exit status \(outcome.status)")
      }
    }
  }

  /// A child's exit, awaited with a bound.
  private final class Exit: Sendable {
    struct Outcome: Sendable {
      var status: Int32
      var reason: Process.TerminationReason
    }
    private struct State {
      var outcome: Outcome?
      var waiters: [UInt64: CheckedContinuation<Outcome?, Never>] = [:]
      var nextWaiter: UInt64 = 0
      /// Waits whose time ran out before they began waiting.
      var expired: Set<UInt64> = []
    }
    private let state = Locked(State())

    func finish(status: Int32, reason: Process.TerminationReason) {
      let outcome = Outcome(status: status, reason: reason)
      let waiters = state.withLock { state in
        state.outcome = outcome
        defer { state.waiters = [:] }
        return Array(state.waiters.values)
      }
      for waiter in waiters { waiter.resume(returning: outcome) }
    }

    /// The exit, or nil when `timeout` passed first on `clock`.
    func wait(timeout: Duration, clock: AnyClock) async -> Outcome? {
      let id = state.withLock { state in
        defer { state.nextWaiter += 1 }
        return state.nextWaiter
      }
      let timer = Task {
        try? await clock.sleep(for: timeout)
        self.expire(id)
      }
      defer { timer.cancel() }
      return await withCheckedContinuation { continuation in
        let done = state.withLock { state -> Outcome?? in
          if let outcome = state.outcome { return .some(outcome) }
          if state.expired.remove(id) != nil { return .some(nil) }
          state.waiters[id] = continuation
          return nil
        }
        if let done { continuation.resume(returning: done) }
      }
    }

    /// Ends waiter `id`'s wait with nil, unless it already ended.
    private func expire(_ id: UInt64) {
      let waiter = state.withLock { state in
        guard let waiter = state.waiters.removeValue(forKey: id) else {
          if state.outcome == nil { state.expired.insert(id) }
          return CheckedContinuation<Outcome?, Never>?.none
        }
        return waiter
      }
      waiter?.resume(returning: nil)
    }
  }
#endif
