/// The answer to `checkFirmwareUpdate` (fields as the vendor's reference, PROTOCOL.md §8).
public struct PlaudFirmwareCheckResult: Sendable, Equatable {
  public var hasUpdate: Bool
  public var currentVersion: String
  public var latestVersion: String
  public var versionCode: Int
  public var releaseNotes: String
  public var downloadUrl: String
  public var md5: String
  public var isForce: Bool
  /// RecorderKit addition: why no answer could be had (nil when the check ran). Firmware
  /// update arrives with a later issue; until then every check carries this message.
  public var errorMessage: String?

  public init(
    hasUpdate: Bool = false, currentVersion: String = "", latestVersion: String = "",
    versionCode: Int = 0, releaseNotes: String = "", downloadUrl: String = "", md5: String = "",
    isForce: Bool = false, errorMessage: String? = nil
  ) {
    self.hasUpdate = hasUpdate
    self.currentVersion = currentVersion
    self.latestVersion = latestVersion
    self.versionCode = versionCode
    self.releaseNotes = releaseNotes
    self.downloadUrl = downloadUrl
    self.md5 = md5
    self.isForce = isForce
    self.errorMessage = errorMessage
  }
}

/// The stages of a firmware update, in order.
public enum PlaudFirmwarePhase: Int, Sendable, CaseIterable {
  case downloading = 0
  case installing = 1
  case restarting = 2
  case complete = 3
}

/// How a firmware update ended.
public struct PlaudFirmwareUpdateResult: Sendable, Equatable {
  public var success: Bool
  /// The firmware version after the update (the current one on failure).
  public var version: String
  /// Why it failed; nil on success.
  public var errorMessage: String?

  public init(success: Bool, version: String, errorMessage: String? = nil) {
    self.success = success
    self.version = version
    self.errorMessage = errorMessage
  }
}
