import RecorderKit

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

// MARK: - Translations onto RecorderKit (issue 15)
//
// Thin conversions the agent's firmware and binding methods use: RecorderKit holds every
// policy (retries, resumable download, checksums, reconnects); these only change shapes.

extension PlaudFirmwareCheckResult {
  /// The vendor's check result for RecorderKit's `FirmwareRelease`.
  init(_ release: FirmwareRelease) {
    self.init(
      hasUpdate: release.hasUpdate, currentVersion: release.currentVersion,
      latestVersion: release.latestVersion, versionCode: release.versionCode,
      releaseNotes: release.releaseNotes, downloadUrl: release.downloadUrl, md5: release.md5,
      isForce: release.isForce)
  }

  /// A check that could not run: no update, and why.
  init(currentVersion: String, error: CloudError) {
    self.init(
      currentVersion: currentVersion, latestVersion: currentVersion, errorMessage: "\(error)")
  }
}

extension PlaudFirmwarePhase {
  /// The vendor's phase for RecorderKit's.
  init(_ phase: FirmwarePhase) {
    switch phase {
    case .downloading: self = .downloading
    case .installing: self = .installing
    case .restarting: self = .restarting
    case .complete: self = .complete
    }
  }
}

extension PlaudFirmwareUpdateResult {
  /// Success: the version the device confirmed after its restart.
  init(_ result: FirmwareUpdater.Result) {
    self.init(success: true, version: result.version)
  }

  /// Failure: the device keeps `currentVersion`; the message says why (never a token).
  init(currentVersion: String, error: FirmwareUpdateError) {
    self.init(success: false, version: currentVersion, errorMessage: error.description)
  }
}

/// Glue between the agent's stored strings and RecorderKit's cloud and firmware types.
enum PlaudFirmwareBridge {
  /// The cloud client for `initSDK`'s domain and token (`customDomain` without a scheme is
  /// https).
  static func cloudClient(domain: String, userAccessToken: String) throws(CloudError)
    -> CloudClient
  {
    try CloudClient(domain: domain, userToken: UserToken(jwt: userAccessToken))
  }

  /// `bleFotaResult(uid:status:errmsg:)` arguments for an update's outcome: status 0 and nil
  /// on success, else the device's §7 result / push status (or 1) and the error text.
  static func fotaResult(uid: Int, error: FirmwareUpdateError?) -> (
    uid: Int, status: Int, errmsg: String?
  ) {
    guard let error else { return (uid, 0, nil) }
    switch error {
    case .rejectedByDevice(let result): return (uid, Int(result), error.description)
    case .refused(let status): return (uid, Int(status), error.description)
    default: return (uid, 1, error.description)
    }
  }

  /// `pushFirmwareFile`'s `toVersion` as a device version (`V0096`; the vendor's `V1.2.8`
  /// style has no device encoding we know of).
  static func version(_ text: String) throws(FirmwareUpdateError) -> FirmwareVersion {
    guard let version = FirmwareVersion(text) else { throw .invalidVersion(text) }
    return version
  }
}
