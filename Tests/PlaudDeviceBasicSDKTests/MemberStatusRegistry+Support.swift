import Foundation
import PlaudDeviceBasicSDK
import RecorderConcurrency
import TestSupport
import Testing

extension MemberStatusRegistry {
  /// A check of the row `type` / `member` (exactly as in the doc's table) on `bench`.
  static func on(
    _ bench: MemberBenchKind, _ type: String, _ member: String,
    _ run: @escaping @Sendable (MemberContext) async throws -> SeenStatus
  ) -> MemberCheck {
    MemberCheck(type: type, member: member, bench: bench, run: run)
  }
}

/// Starts a call whose answer comes through a completion, and waits for it.
func answer<T: Sendable>(
  _ what: String, _ start: (@escaping @Sendable (T) -> Void) -> Void
) async throws -> T {
  let box = Locked<T?>(nil)
  start { value in box.withLock { $0 = value } }
  try await eventually(what) { box.current != nil }
  return try #require(box.current)
}

/// A completion's text is the loud failure of a not-supported member: it names the member
/// and says "not supported by RecorderKit".
func refusedText(_ text: String?, _ member: String) -> SeenStatus {
  guard let text, text.contains("not supported by RecorderKit") else {
    return .answered("completion: \(text ?? "nil")")
  }
  #expect(text.contains(member), "\(text)")
  return .refused(text)
}

/// Where a check expected something else: the check fails with `what`.
struct CheckMismatch: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

/// `condition`, or the check fails saying `what` (and what it saw).
func require(_ condition: Bool, _ what: @autoclosure () -> String) throws {
  if !condition { throw CheckMismatch(what()) }
}
