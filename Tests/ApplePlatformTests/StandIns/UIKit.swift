// swift-format-ignore-file
// A stand-in for Apple's UIKit: declarations only, with the signatures of Apple's
// documentation, for UIApplication's background tasks (AppleBindingTypeCheckTests). Never run.
import Foundation

public struct UIBackgroundTaskIdentifier: RawRepresentable, Hashable, Sendable {
  public var rawValue: Int
  public init(rawValue: Int) { self.rawValue = rawValue }
  public static let invalid = UIBackgroundTaskIdentifier(rawValue: 0)
}

@MainActor
open class UIApplication {
  open class var shared: UIApplication { fatalError("stand-in") }
  open func beginBackgroundTask(
    withName taskName: String?, expirationHandler handler: (@MainActor @Sendable () -> Void)? = nil
  ) -> UIBackgroundTaskIdentifier { fatalError("stand-in") }
  open func endBackgroundTask(_ identifier: UIBackgroundTaskIdentifier) {}
}
