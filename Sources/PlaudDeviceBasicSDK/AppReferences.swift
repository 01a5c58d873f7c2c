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

/// A closure from the app (a firmware completion, a permission answer, a conversion's
/// completion), carried to the queue that calls it. Also the vendor's lower modules'
/// (PlaudBleSDK, PlaudWiFiSDK).
///
/// `@unchecked Sendable` for the reason given on `WeakReference`: the app's closures
/// capture its own non-Sendable state, and the SDK calls each one only on one serial queue,
/// once.
package final class AppClosure<Argument>: @unchecked Sendable {
  package let body: (Argument) -> Void
  package init(_ body: @escaping (Argument) -> Void) { self.body = body }
}

/// An app-facing object (a `BleDevice`, a `BleFile`) made for one callback and handed to the
/// queue that delivers it.
///
/// `@unchecked Sendable` because those objects are NSObject subclasses with mutable fields.
/// Safe by how it is used: the sender made the object for this one delivery and never
/// touches it after handing it over, so only the receiving queue ever reads or writes it.
package struct HandedOver<Object: AnyObject>: @unchecked Sendable {
  package let object: Object
  package init(_ object: Object) { self.object = object }
}
