import Dispatch
import TestSupport
import Testing

/// The `.blockingWaits` trait the process suites carry: their tests block a thread on a
/// child process, so they must not hold the cooperative pool's few threads.
@Suite("blocking waits run off the cooperative pool", .blockingWaits)
struct BlockingWaitsTests {
  /// More tasks than the machine has cooperative threads (one per core), each blocking its
  /// thread until all have arrived: on the pool that never happens, so the wait times out.
  static let blockers = 12

  @Test("the body and its children run on threads of their own, not the pool's")
  func bodyRunsOffThePool() async {
    #expect(ThreadPerJobExecutor.isCurrent)
    let arrived = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let met = await withTaskGroup(of: Bool.self) { group in
      for _ in 0..<Self.blockers {
        group.addTask {
          arrived.signal()
          return release.wait(timeout: .now() + 10) == .success
        }
      }
      // A barrier: every child must be blocked at once before any is let go.
      var all = true
      for _ in 0..<Self.blockers where arrived.wait(timeout: .now() + 10) == .timedOut {
        all = false
      }
      for _ in 0..<Self.blockers { release.signal() }
      var results = [all]
      for await result in group { results.append(result) }
      return results.allSatisfy { $0 }
    }
    #expect(met, "\(Self.blockers) blocked children did not all run at once")
  }
}
