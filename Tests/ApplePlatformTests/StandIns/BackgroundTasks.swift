// swift-format-ignore-file
// A stand-in for Apple's BackgroundTasks: declarations only, with the signatures of Apple's
// documentation, for processing tasks (AppleBindingTypeCheckTests). Never run.
import Foundation

open class BGTask: NSObject {
  open var identifier: String { fatalError("stand-in") }
  open var expirationHandler: (@Sendable () -> Void)?
  open func setTaskCompleted(success: Bool) {}
}

open class BGProcessingTask: BGTask {}

open class BGContinuedProcessingTask: BGTask, ProgressReporting {
  open var progress: Progress { fatalError("stand-in") }
}

open class BGTaskRequest: NSObject {
  open var identifier: String { fatalError("stand-in") }
  open var earliestBeginDate: Date?
}

open class BGProcessingTaskRequest: BGTaskRequest {
  public init(identifier: String) { fatalError("stand-in") }
  open var requiresNetworkConnectivity: Bool = false
  open var requiresExternalPower: Bool = false
}

open class BGContinuedProcessingTaskRequest: BGTaskRequest {
  public init(identifier: String, title: String, subtitle: String) { fatalError("stand-in") }
}

open class BGTaskScheduler: NSObject {
  open class var shared: BGTaskScheduler { fatalError("stand-in") }
  open func register(
    forTaskWithIdentifier identifier: String, using queue: DispatchQueue?,
    launchHandler: @escaping @Sendable (BGTask) -> Void
  ) -> Bool { fatalError("stand-in") }
  open func submit(_ taskRequest: BGTaskRequest) throws {}
}
