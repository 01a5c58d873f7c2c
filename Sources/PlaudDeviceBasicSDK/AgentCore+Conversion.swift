import RecorderKit

/// Deferred conversions (``PlaudSDKConfiguration/exportPolicy``): each a translation onto
/// RecorderKit's `SyncWorkspace.convertPending`.
extension AgentCore {
  /// Makes every conversion the journal owes; each deferred export's callback still retained
  /// hears `onProgress(100)` and `onComplete(outputPath:)` once its file is in place, or
  /// `onError` when its conversion failed. Stops before the next conversion when the
  /// background time runs out.
  func convertPending() async -> ConversionReport {
    let workspace: SyncWorkspace
    do {
      workspace = try openWorkspace()
    } catch {
      fail(error)
      var report = ConversionReport()
      report.stopped = true
      return report
    }
    let timeUp = backgroundTimeUp
    let report = await workspace.convertPending(
      shouldStop: { timeUp.current }, converted: { self.deliverConverted($0) })
    for failure in report.failed {
      let reporters = deferredExports.withLock { $0.removeValue(forKey: failure.conversion.path) }
      let why = PlaudSDKError.operationFailed(failure.error.description)
      fail(why)
      for report in reporters ?? [] { report { $0.onError(why.description) } }
    }
    return report
  }

  /// Completes the deferred exports waiting for `conversion`'s file.
  nonisolated func deliverConverted(_ conversion: PendingConversion) {
    let path = conversion.path
    let reporters = deferredExports.withLock { $0.removeValue(forKey: path) } ?? []
    for report in reporters {
      report { $0.onProgress(100, message: "exported") }
      report { $0.onComplete(outputPath: path) }
    }
  }

  /// The conversions the journal owes (empty when the storage root cannot be opened).
  func pendingConversions() -> [PendingConversion] {
    (try? openWorkspace().pendingConversions()) ?? []
  }

  /// The workspace, for a processing task launched outside the command order.
  func workspaceForConversions() -> SyncWorkspace? { try? openWorkspace() }
}
