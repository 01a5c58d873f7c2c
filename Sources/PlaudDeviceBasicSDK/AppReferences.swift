import Foundation

/// A weak reference to an app object (a delegate, an export callback) that the facade calls
/// on its callback queue.
///
/// `@unchecked Sendable` because the app's objects are not Sendable (they are NSObject
/// subclasses written for the vendor's Objective-C SDK). It is safe by contract, the same one
/// the vendor documents: the facade only ever *invokes* the object on its one serial
/// callback queue, never concurrently, and never touches its state; `value` is written once
/// in `init` and weak-reference loads are atomic in the Swift runtime.
final class WeakReference<Object: AnyObject>: @unchecked Sendable {
  private(set) weak var value: Object?
  init(_ value: Object?) { self.value = value }
}

/// A closure from the app (a firmware completion, a permission answer), carried to the
/// callback queue.
///
/// `@unchecked Sendable` for the reason given on `WeakReference`: the app's closures
/// capture its own non-Sendable state, and the facade calls them only on its serial
/// callback queue, once.
final class AppClosure<Argument>: @unchecked Sendable {
  let body: (Argument) -> Void
  init(_ body: @escaping (Argument) -> Void) { self.body = body }
}
