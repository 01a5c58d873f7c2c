import Foundation
import Testing

/// Runs each test of the suite (or the test) it marks on threads of its own, never on Swift's
/// cooperative pool: for tests that block their thread (a child process's exit, a semaphore,
/// a polling loop). The pool has one thread per core, so on 2 cores two such tests blocked at
/// once would stop every other test in the process, and stall it outright when the blocked
/// tests wait on work that needs the pool.
///
/// Every job of the test's task (the body, and each resumption after an `await` that does not
/// hop to an actor) runs on a new thread, which ends with the job.
public struct BlockingWaits: SuiteTrait, TestTrait, TestScoping {
  public var isRecursive: Bool { true }

  /// A scope per test case: the suite itself needs none.
  public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
    testCase == nil ? nil : self
  }

  public func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    // A child task with the preference starts on the executor: it is enqueued there. A
    // preference set on the running task need not move the job already running (under
    // ThreadSanitizer a test body stayed on the pool), and a synchronous body has no other.
    try await withoutActuallyEscaping(function) { function in
      try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask(executorPreference: ThreadPerJobExecutor.shared) { try await function() }
        try await group.waitForAll()
      }
    }
  }
}

extension Trait where Self == BlockingWaits {
  /// The test blocks its thread: run it off the cooperative pool (``BlockingWaits``).
  public static var blockingWaits: Self { BlockingWaits() }
}

/// A task executor that runs each job on a new thread.
public final class ThreadPerJobExecutor: TaskExecutor {
  public static let shared = ThreadPerJobExecutor()
  /// The stack of each thread: the size of a main thread's, as some tests recurse deeply.
  static let stackSize = 8 << 20

  public func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    let executor = asUnownedTaskExecutor()
    let thread = Thread {
      // Named from inside: a name set before `start()` does not reach the thread on Linux.
      Thread.current.name = Self.threadName
      pthread_setspecific(Self.marker, Self.markerValue)
      job.runSynchronously(on: executor)
    }
    thread.stackSize = Self.stackSize
    thread.start()
  }

  /// Whether the calling code runs on a thread of this executor (for the trait's own test).
  /// Read from a thread-specific value this executor sets, not from Foundation's thread name
  /// (a full run once saw the name check fail; whether the name or the thread was wrong is
  /// not known).
  public static var isCurrent: Bool { UnsafeRawPointer(pthread_getspecific(marker)) == markerValue }
  static let threadName = "test-job"
  /// The thread-specific key that marks this executor's threads, and the value it holds.
  private static let marker: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key, nil)
    return key
  }()
  private static var markerValue: UnsafeRawPointer? { UnsafeRawPointer(bitPattern: 0x7e57) }
}
