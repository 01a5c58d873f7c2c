import Foundation

/// A value behind a lock (the same small type as RecorderLink's; RecorderStore may import
/// only CSQLite, so it keeps its own copy of these dozen lines).
///
/// `@unchecked Sendable` is sound: `value` is private and only touched inside `withLock`,
/// which holds `lock` for the whole access.
final class Locked<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Value

  init(_ value: Value) { self.value = value }

  func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}
