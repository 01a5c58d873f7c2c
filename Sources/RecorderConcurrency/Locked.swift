import Foundation

/// A value behind a lock, for the few places that must be reached synchronously from any
/// thread (a `Clock`'s `now`, counters read by a driver).
///
/// `@unchecked Sendable` is sound here: `value` is private and only touched inside
/// `withLock`, which holds `lock` for the whole access, so no two threads see it at once.
public final class Locked<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Value

  public init(_ value: Value) { self.value = value }

  /// Runs `body` with exclusive access to the value. Do not suspend or call back into
  /// code that takes the same lock from inside `body`.
  @discardableResult
  public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }

  /// The value now (a copy, read under the lock).
  public var current: Value { withLock { $0 } }
}
