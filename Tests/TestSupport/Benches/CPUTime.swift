import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// CPU time (user + system) of this process, or of the calling thread, in seconds. Real CPU,
/// not wall time: the figure to compare on a machine shared with other jobs.
package enum CPUTime {
  package static func process() -> Double { seconds(RUSAGE_SELF) }

  /// The calling thread only (Linux RUSAGE_THREAD): for synchronous work that cannot hop
  /// threads (an fsync, a hash, an export), measured while other tasks run beside it.
  package static func thread() -> Double {
    #if os(Linux)
      // RUSAGE_THREAD (1) is behind _GNU_SOURCE in Glibc's header, so Swift does not see it.
      seconds(__rusage_who(rawValue: 1))
    #else
      seconds(RUSAGE_SELF)
    #endif
  }

  #if os(Linux)
    private static func seconds(_ who: __rusage_who) -> Double {
      var usage = rusage()
      getrusage(who.rawValue, &usage)
      return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
  #else
    private static func seconds(_ who: Int32) -> Double {
      var usage = rusage()
      getrusage(who, &usage)
      return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
  #endif

  /// Process CPU seconds and wall seconds of `body`.
  package static func measure<T>(_ body: () throws -> T) rethrows -> (
    value: T, cpu: Double, wall: Double
  ) {
    let cpu = process()
    let wall = ContinuousClock.now
    let value = try body()
    return (value, process() - cpu, (ContinuousClock.now - wall).seconds)
  }
}
