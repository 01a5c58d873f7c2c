import Foundation
import RecorderKit

#if PowerLossHook
  import RecorderTesting
#endif

/// The process-level power-loss harness, a test hook compiled in only with the package's
/// `PowerLossHook` trait (`make test` builds with it; a `recorder` built without it ignores the
/// variable and links no test double): with `RECORDER_TEST_POWER_LOSS_AFTER=N` in the
/// environment, `recorder sync` writes through a file system whose power goes after N
/// operations (RecorderTesting's PowerLossFileSystem). At that operation the disk is rolled
/// back to what the fsyncs made durable, as after a real power loss (a SIGKILL cannot show
/// that: the page cache survives it), and the process ends there and then with exit 98:
/// nothing after the cut runs. A run that finishes before its cut says how many operations
/// it made (`power-loss hook: N file operations, no cut` on stderr), so a test can choose its
/// cuts.
///
/// The SQLite journal is outside it: SQLite makes its own writes durable.
struct SimulatedPowerLoss {
  /// The variable that turns the hook on.
  static let variable = "RECORDER_TEST_POWER_LOSS_AFTER"
  /// The exit code of a process whose power was cut.
  static let exitCode: Int32 = 98

  #if PowerLossHook
    let fileSystem: PowerLossFileSystem
  #else
    /// Without the trait there is no hook: no value of this type is made.
    let fileSystem: PosixFileSystem
  #endif

  /// The hook when the environment asks for it (with the `PowerLossHook` trait only).
  /// - Throws: ``UsageError`` for a value that is not a count.
  static func fromEnvironment() throws -> SimulatedPowerLoss? {
    #if PowerLossHook
      guard let text = ProcessInfo.processInfo.environment[variable] else { return nil }
      guard let count = Int(text), count >= 0 else {
        throw UsageError("\(variable) must be a number of file operations")
      }
      printError("power-loss hook: the power goes after \(count) file operations")
      return SimulatedPowerLoss(
        fileSystem: PowerLossFileSystem(crashAfter: count) { fileSystem in
          let recovered = (try? fileSystem.recoverFromPowerLoss()) != nil
          printError(
            "power-loss hook: power cut after \(count) file operations"
              + (recovered ? "" : " (rolling the disk back failed)"))
          fflush(nil)
          _exit(exitCode)
        })
    #else
      return nil
    #endif
  }

  /// Reports the operation count of a run its cut never reached.
  func finish() {
    #if PowerLossHook
      printError("power-loss hook: \(fileSystem.operationCount) file operations, no cut")
    #endif
  }
}
