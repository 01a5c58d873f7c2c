import Foundation
import RecorderConcurrency

extension Notification.Name {
  /// Posted (object: ``PlaudLogConfig/shared``) after a log configuration value changes.
  public static let plaudLogConfigurationChanged = Notification.Name(
    "PlaudLogConfigurationChanged")
}

/// The vendor's log retention and upload settings. RecorderKit writes no log files of its
/// own and uploads none, so these values are stored, validated and reported, and change
/// nothing else. Defaults are the vendor's: 10 files, 7 days, 10 MiB a file, an upload every
/// 300 s with a 30 s timeout. Updates outside the vendor's ranges (1–50 files, 1 hour–30
/// days, 1–100 MiB; 60–3600 s, 10–300 s) are clamped into them.
public final class PlaudLogConfig: NSObject, Sendable {
  /// The one configuration.
  public static let shared = PlaudLogConfig()

  private struct Values: Sendable, Equatable {
    var maxFileCount = 10
    var maxFileAge: TimeInterval = 7 * 24 * 60 * 60
    var maxFileSize: Int64 = 10 * 1024 * 1024
    var uploadInterval: TimeInterval = 300
    var uploadTimeout: TimeInterval = 30
  }

  private let values = Locked(Values())

  private override init() { super.init() }

  /// Log files to keep (default 10).
  public var maxFileCount: Int { values.current.maxFileCount }
  /// Age in seconds after which a log file goes (default 7 days).
  public var maxFileAge: Double { values.current.maxFileAge }
  /// Largest log file in bytes (default 10 MiB).
  public var maxFileSize: Int64 { values.current.maxFileSize }
  /// Seconds between automatic uploads (default 300).
  public var uploadInterval: TimeInterval { values.current.uploadInterval }
  /// Seconds an upload may take (default 30).
  public var uploadTimeout: Double { values.current.uploadTimeout }

  /// ``maxFileAge`` in whole days.
  public var maxFileAgeDays: Int { Int(maxFileAge / 86_400) }
  /// ``maxFileSize`` in whole MiB.
  public var maxFileSizeMB: Int { Int(maxFileSize / (1024 * 1024)) }
  /// ``uploadInterval`` in whole minutes.
  public var uploadIntervalMinutes: Int { Int(uploadInterval / 60) }
  /// ``uploadTimeout`` in whole seconds.
  public var uploadTimeoutSeconds: Int { Int(uploadTimeout) }

  /// Sets the retention: `maxFileCount` 1–50, `maxFileAge` 1 hour–30 days, `maxFileSize`
  /// 1–100 MiB (each clamped into its range); posts `Notification.Name.plaudLogConfigurationChanged`.
  public func updateFileConfiguration(
    maxFileCount: Int = 10, maxFileAge: TimeInterval = 7 * 24 * 60 * 60,
    maxFileSize: Int64 = 10 * 1024 * 1024
  ) {
    change { values in
      values.maxFileCount = min(max(maxFileCount, 1), 50)
      values.maxFileAge = Self.clamp(maxFileAge, 3600, 30 * 86_400, default: 7 * 86_400)
      values.maxFileSize = min(max(maxFileSize, 1024 * 1024), 100 * 1024 * 1024)
    }
  }

  /// Sets the upload timing: `uploadInterval` 60–3600 s, `uploadTimeout` 10–300 s (clamped);
  /// posts `Notification.Name.plaudLogConfigurationChanged`.
  public func updateUploadConfiguration(
    uploadInterval: TimeInterval = 300, uploadTimeout: TimeInterval = 30
  ) {
    change { values in
      values.uploadInterval = Self.clamp(uploadInterval, 60, 3600, default: 300)
      values.uploadTimeout = Self.clamp(uploadTimeout, 10, 300, default: 30)
    }
  }

  /// Back to the vendor's defaults.
  public func resetToDefaults() { change { $0 = Values() } }

  /// The values by name: maxFileCount, maxFileAge, maxFileSize, uploadInterval,
  /// uploadTimeout.
  public func getCurrentConfiguration() -> [String: Any] {
    let current = values.current
    return [
      "maxFileCount": current.maxFileCount, "maxFileAge": current.maxFileAge,
      "maxFileSize": current.maxFileSize, "uploadInterval": current.uploadInterval,
      "uploadTimeout": current.uploadTimeout,
    ]
  }

  /// Whether every value is within its range (always true: updates clamp).
  public func validateConfiguration() -> Bool {
    let current = values.current
    return (1...50).contains(current.maxFileCount)
      && (3600...(30 * 86_400)).contains(current.maxFileAge)
      && ((1024 * 1024)...(100 * 1024 * 1024)).contains(current.maxFileSize)
      && (60...3600).contains(current.uploadInterval) && (10...300).contains(current.uploadTimeout)
  }

  /// One line with every value, for debugging.
  public func getConfigurationDescription() -> String {
    "PlaudLogConfig: \(maxFileCount) files, \(maxFileAgeDays) days, \(maxFileSizeMB) MB a file, "
      + "upload every \(Int(uploadInterval)) s, timeout \(uploadTimeoutSeconds) s"
  }

  private func change(_ body: (inout Values) -> Void) {
    let changed = values.withLock { values -> Bool in
      let before = values
      body(&values)
      return values != before
    }
    if changed {
      NotificationCenter.default.post(name: .plaudLogConfigurationChanged, object: self)
    }
  }

  private static func clamp(
    _ value: Double, _ low: Double, _ high: Double, default fallback: Double
  ) -> Double {
    guard value.isFinite else { return fallback }
    return min(max(value, low), high)
  }
}

/// Why a log upload failed. Raw values are the vendor's.
public enum PlaudLogUploadError: Int, Error, Sendable {
  /// An upload is already running.
  case alreadyUploading = 0
  /// There is no log directory.
  case directoryNotFound = 1
  /// Some files were uploaded, some not (``PlaudLogUploadPartialError`` has the detail).
  case partialUpload = 2

  /// What went wrong, in words.
  public var localizedDescription: String {
    switch self {
    case .alreadyUploading: "a log upload is already running"
    case .directoryNotFound: "the log directory was not found"
    case .partialUpload: "some log files were not uploaded"
    }
  }
}

/// A partial upload's result (what was and was not uploaded).
public struct PlaudLogUploadPartialError: Error, @unchecked Sendable {
  // `@unchecked Sendable`: `Error` requires Sendable and the vendor's shape is
  // `[String: Any]`. The dictionary is a `let`, never mutated after `init`, and RecorderKit
  // never makes one (log upload is not supported, so nothing fills a result): the only
  // values in it are what the app itself puts there and throws, and those the app already
  // shares across its own threads when it throws them.
  /// The upload's result by key.
  public let result: [String: Any]

  public init(result: [String: Any]) { self.result = result }
}

/// The vendor's log uploader. RecorderKit does not upload logs to the vendor's servers:
/// every upload fails at once through its `onFailure` / `onCompletion` with
/// ``PlaudSDKError/notSupported(member:reason:)``; the automatic upload is never started
/// (enabling it is recorded and reported by ``getUploadStatistics()``).
public final class PlaudLogUploadManager: NSObject, Sendable {
  /// The one manager.
  public static let shared = PlaudLogUploadManager()

  private let autoUpload = Locked(false)
  private let callbackQueue = DispatchQueue(label: "PlaudDeviceBasicSDK.logUpload")

  private override init() { super.init() }

  static let reason = "RecorderKit does not upload logs to the vendor's servers"

  /// Records whether automatic upload is wanted (it never runs: see the type).
  public func setAutoUploadEnabled(_ enabled: Bool) { autoUpload.withLock { $0 = enabled } }

  /// Does nothing: automatic upload is not supported (see the type).
  public func startAutoUpload() {}

  /// Does nothing: no automatic upload runs.
  public func stopAutoUpload() {}

  /// Fails at once: `onFailure(PlaudSDKError.notSupported)` on the manager's queue.
  public func uploadLogFiles(
    onProgress: @escaping (Double) -> Void, onSuccess: @escaping ([String: Any]) -> Void,
    onFailure: @escaping (any Error) -> Void
  ) {
    fail("uploadLogFiles(onProgress:onSuccess:onFailure:)", onFailure)
  }

  /// Does nothing: RecorderKit keeps no log files.
  public func cleanupLogFiles() {}

  /// `autoUploadEnabled` (as set), `supported` (false) and `reason`.
  public func getUploadStatistics() -> [String: Any] {
    ["autoUploadEnabled": autoUpload.current, "supported": false, "reason": Self.reason]
  }

  /// Fails at once: `onFailure(PlaudSDKError.notSupported)`.
  public func uploadLogFilesWithDeviceSN(
    sn: String, onProgress: @escaping (Double) -> Void,
    onSuccess: @escaping ([String: Any]) -> Void, onFailure: @escaping (any Error) -> Void
  ) {
    fail("uploadLogFilesWithDeviceSN(sn:onProgress:onSuccess:onFailure:)", onFailure)
  }

  /// Fails at once: `onCompletion(false, PlaudSDKError.notSupported)`.
  public func uploadLogsAfterRecording(
    sn: String, sessionId: Int, onCompletion: @escaping (Bool, (any Error)?) -> Void
  ) {
    let closure = AppClosure<(Bool, (any Error)?)>(onCompletion)
    let error = PlaudSDKError.notSupported(
      member: "uploadLogsAfterRecording(sn:sessionId:onCompletion:)", reason: Self.reason)
    callbackQueue.async { closure.body((false, error)) }
  }

  private func fail(_ member: String, _ onFailure: @escaping (any Error) -> Void) {
    let closure = AppClosure<any Error>(onFailure)
    let error = PlaudSDKError.notSupported(member: member, reason: Self.reason)
    callbackQueue.async { closure.body(error) }
  }
}

/// Why an encrypted log export failed.
public enum PlaudLogExportError: Error, LocalizedError {
  /// There is no log directory (RecorderKit keeps none: always this).
  case logsDirectoryNotFound
  /// The directory holds no log files.
  case noLogFiles
  /// Zipping the files failed.
  case zipFailed
  /// Encrypting the archive failed.
  case encryptFailed
  /// Writing the archive failed.
  case writeFailed(underlying: any Error)

  public var errorDescription: String? {
    switch self {
    case .logsDirectoryNotFound:
      "no log directory: RecorderKit keeps no SDK log files (not supported by RecorderKit)"
    case .noLogFiles: "no log files to export"
    case .zipFailed: "zipping the log files failed"
    case .encryptFailed: "encrypting the log archive failed"
    case .writeFailed(let underlying): "writing the log archive failed: \(underlying)"
    }
  }
}

/// The vendor's encrypted log export (`.plaud`). RecorderKit keeps no SDK log files, so
/// there is nothing to export: not supported.
public final class PlaudLogEncryption: NSObject {
  /// Throws ``PlaudLogExportError/logsDirectoryNotFound`` (RecorderKit keeps no log files).
  public static func exportEncryptedLogFile() throws -> NSURL {
    throw PlaudLogExportError.logsDirectoryNotFound
  }

  /// nil: as ``exportEncryptedLogFile()``, without the reason.
  public static func exportEncryptedLogs() -> NSURL? { try? exportEncryptedLogFile() }
}

/// The vendor's log file rotation. RecorderKit keeps no SDK log file of its own, so there is
/// no current file (``getCurrentLogFilePath()`` is "" and ``forceRotateCurrentLogFile()``
/// has nothing to rotate); ``checkAndRotateIfNeeded(filePath:additionalSize:)`` rotates an
/// app's own log file by ``PlaudLogConfig``'s size and count limits.
public final class PlaudLogFileRotationManager: NSObject, Sendable {
  /// The one manager.
  public static let shared = PlaudLogFileRotationManager()

  /// Does nothing: RecorderKit keeps no current log file to rotate.
  public func forceRotateCurrentLogFile() {}

  /// Whether writing `additionalSize` more bytes to the file at `filePath` would take it past
  /// ``PlaudLogConfig/maxFileSize``; if so, rotates first: `<file>.1` … `<file>.<n-1>` shift
  /// up one (the oldest beyond ``PlaudLogConfig/maxFileCount`` files goes), and the file
  /// becomes `<file>.1`. A missing file needs no rotation (false).
  public func checkAndRotateIfNeeded(filePath: String, additionalSize: Int64) -> Bool {
    let files = FileManager.default
    guard let attributes = try? files.attributesOfItem(atPath: filePath),
      let size = (attributes[.size] as? NSNumber)?.int64Value
    else { return false }
    let config = PlaudLogConfig.shared
    guard size + max(0, additionalSize) > config.maxFileSize else { return false }
    let kept = max(1, config.maxFileCount - 1)
    try? files.removeItem(atPath: "\(filePath).\(kept)")
    if kept > 1 {
      for index in stride(from: kept - 1, through: 1, by: -1) {
        try? files.moveItem(atPath: "\(filePath).\(index)", toPath: "\(filePath).\(index + 1)")
      }
    }
    try? files.moveItem(atPath: filePath, toPath: "\(filePath).1")
    return true
  }

  /// "": RecorderKit keeps no SDK log file (not supported by RecorderKit).
  public func getCurrentLogFilePath() -> String { "" }

  /// Does nothing: RecorderKit uploads no log files, so no uploaded file is owed cleaning up.
  public func notifyUploadCompleted() {}
}
