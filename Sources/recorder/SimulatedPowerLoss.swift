import Foundation
import RecorderKit
import RecorderTesting

/// The process-level power-loss harness (a test hook, never set in normal use): with
/// `RECORDER_TEST_POWER_LOSS_AFTER=N` in the environment, `recorder sync` writes through a
/// file system whose power goes after N operations (RecorderTesting's PowerLossFileSystem).
/// At the cut the disk is rolled back to what the fsyncs made durable, as after a real
/// power loss (a SIGKILL cannot show that: the page cache survives it), and the process ends
/// at once with exit 98. A run that finishes before its cut says how many operations it made
/// (`power-loss hook: N file operations, no cut` on stderr), so a test can choose its cuts.
///
/// The SQLite journal is outside it: SQLite makes its own writes durable.
struct SimulatedPowerLoss {
  /// The variable that turns the hook on.
  static let variable = "RECORDER_TEST_POWER_LOSS_AFTER"
  /// The exit code of a process whose power was cut.
  static let exitCode: Int32 = 98

  let fileSystem: PowerLossFileSystem
  let cutAfter: Int

  /// The hook when the environment asks for it.
  /// - Throws: ``UsageError`` for a value that is not a count.
  static func fromEnvironment() throws -> SimulatedPowerLoss? {
    guard let text = ProcessInfo.processInfo.environment[variable] else { return nil }
    guard let count = Int(text), count >= 0 else {
      throw UsageError("\(variable) must be a number of file operations")
    }
    return SimulatedPowerLoss(fileSystem: PowerLossFileSystem(crashAfter: count), cutAfter: count)
  }

  /// Ends the process as the power cut would have, if it came; else reports the count.
  func finish() {
    guard fileSystem.hasCrashed else {
      printError("power-loss hook: \(fileSystem.operationCount) file operations, no cut")
      return
    }
    let recovered = (try? fileSystem.recoverFromPowerLoss()) != nil
    printError(
      "power-loss hook: power cut after \(cutAfter) file operations"
        + (recovered ? "" : " (rolling the disk back failed)"))
    fflush(nil)
    _exit(Self.exitCode)
  }
}
