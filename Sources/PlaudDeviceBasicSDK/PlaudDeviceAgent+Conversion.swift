import RecorderConcurrency
import RecorderKit

/// RecorderKit additions for ``PlaudSDKConfiguration/exportPolicy`` deferred: where the mp3
/// conversion runs (docs/export-policy.md).
extension PlaudDeviceAgent {
  /// Makes every conversion a deferred `exportAudio` left owed, in the agent's command order,
  /// inside a background task like every command. Each deferred export whose callback the
  /// app still retains then hears `onProgress(100)` and `onComplete(outputPath:)` (or
  /// `onError`); `completion` gets the report on the callback queue. When the background time
  /// runs out, the conversion running finishes and the rest stay owed.
  public func convertPendingAudio(
    completion: @escaping @Sendable (ConversionReport) -> Void = { _ in }
  ) {
    let queue = callbackQueue
    enqueue { core in
      let report = await core.convertPending()
      queue.async { completion(report) }
    }
  }

  /// The conversions still owed (their files do not exist yet), oldest first; `completion`
  /// runs on the callback queue.
  public func pendingAudioConversions(
    completion: @escaping @Sendable ([PendingConversion]) -> Void
  ) {
    let queue = callbackQueue
    enqueue { core in
      let pending = await core.pendingConversions()
      queue.async { completion(pending) }
    }
  }

  /// Registers the `BGProcessingTask` `identifier` (in Info.plist's
  /// `BGTaskSchedulerPermittedIdentifiers`) that makes the owed conversions on external
  /// power (RecorderKit's `ConversionProcessor`); call once at launch, as the system
  /// requires, then `schedule()` the returned processor after a deferred export. Its
  /// expiration cancels the conversion running (its partial file removed); that one and the
  /// rest stay owed and another launch is asked for. Returns nil when the identifier is not
  /// permitted.
  /// - Parameters:
  ///   - identifier: the processing task's identifier.
  ///   - scheduler: the system's scheduler (`SystemTaskScheduler()` on iOS).
  public func registerAudioConversionTask(
    identifier: String, scheduler: any TaskSchedulerMirror
  ) -> ConversionProcessor? {
    let processor = ConversionProcessor(
      scheduler: scheduler, identifier: identifier, clock: configuration.clock)
    let core = self.core
    let registered = processor.register(
      opening: { await core.workspaceForConversions() },
      converted: { core.deliverConverted($0) })
    return registered ? processor : nil
  }
}
