#if canImport(UIKit) && canImport(BackgroundTasks)
  import BackgroundTasks
  import Foundation
  import RecorderKit
  import UIKit

  /// `UIApplication`'s background tasks as a `BackgroundTaskMirror`: translation only. The
  /// application object is main-actor bound: calls hop to the main thread.
  public struct SystemBackgroundTasks: BackgroundTaskMirror {
    public init() {}

    private func onMain<Result: Sendable>(_ body: @MainActor () -> Result) -> Result {
      if Thread.isMainThread { return MainActor.assumeIsolated(body) }
      return DispatchQueue.main.sync { MainActor.assumeIsolated(body) }
    }

    public func beginBackgroundTask(
      withName name: String, expirationHandler: @escaping @Sendable () -> Void
    ) -> Int? {
      let identifier = onMain {
        UIApplication.shared.beginBackgroundTask(
          withName: name, expirationHandler: expirationHandler)
      }
      return identifier == .invalid ? nil : identifier.rawValue
    }

    public func endBackgroundTask(_ identifier: Int) {
      onMain {
        UIApplication.shared.endBackgroundTask(UIBackgroundTaskIdentifier(rawValue: identifier))
      }
    }
  }

  /// `BGTaskScheduler` for processing tasks as a `TaskSchedulerMirror`: translation only.
  public struct SystemTaskScheduler: TaskSchedulerMirror {
    public init() {}

    public func register(
      identifier: String, launchHandler: @escaping @Sendable (any ProcessingTaskMirror) -> Void
    ) -> Bool {
      BGTaskScheduler.shared.register(forTaskWithIdentifier: identifier, using: nil) { task in
        launchHandler(SystemProcessingTask(task: task))
      }
    }

    public func submitProcessingRequest(identifier: String) -> Bool {
      submitProcessingRequest(identifier: identifier, requiresExternalPower: false)
    }

    public func submitProcessingRequest(identifier: String, requiresExternalPower: Bool) -> Bool {
      let request = BGProcessingTaskRequest(identifier: identifier)
      request.requiresNetworkConnectivity = false
      request.requiresExternalPower = requiresExternalPower
      do {
        try BGTaskScheduler.shared.submit(request)
        return true
      } catch {
        return false
      }
    }

    public func submitContinuedProcessingRequest(
      identifier: String, title: String, subtitle: String
    ) -> Bool {
      guard #available(iOS 26, *) else { return false }
      let request = BGContinuedProcessingTaskRequest(
        identifier: identifier, title: title, subtitle: subtitle)
      do {
        try BGTaskScheduler.shared.submit(request)
        return true
      } catch {
        return false
      }
    }
  }

  /// A launched `BGTask` as a `ProcessingTaskMirror`.
  ///
  /// `@unchecked Sendable`: the task object is only given its expiration handler (once, from
  /// the launch handler) and completed (once, from the work's task); BackgroundTasks documents
  /// both as callable from any thread, and nothing else touches it.
  final class SystemProcessingTask: ProcessingTaskMirror, @unchecked Sendable {
    private let task: BGTask
    init(task: BGTask) { self.task = task }
    func setExpirationHandler(_ handler: @escaping @Sendable () -> Void) {
      task.expirationHandler = handler
    }
    func setTaskCompleted(success: Bool) { task.setTaskCompleted(success: success) }
    func reportProgress(completed: Int64, total: Int64) {
      guard #available(iOS 26, *), let continued = task as? BGContinuedProcessingTask else {
        return
      }
      continued.progress.totalUnitCount = total
      continued.progress.completedUnitCount = completed
    }
  }
#endif
