import Foundation
import RecorderKit
import RecorderProtocol

/// The answer to `checkFirmwareUpdate` (fields as the vendor's, PROTOCOL.md §8). Made only
/// by the SDK.
public final class PlaudFirmwareCheckResult: NSObject, Sendable {
  /// Whether the cloud offers a version newer than the device's.
  public let hasUpdate: Bool
  /// The version the device runs (`V0095`).
  public let currentVersion: String
  /// The newest version the cloud offers (the current one when there is none).
  public let latestVersion: String
  /// The latest version's numeric code.
  public let versionCode: Int
  public let releaseNotes: String
  public let downloadUrl: String
  /// Lower-case hex MD5 of the image.
  public let md5: String
  /// Whether the release is mandatory.
  public let isForce: Bool
  /// RecorderKit addition: why the check could not run (nil when it ran). `hasUpdate` is
  /// then false.
  public let errorMessage: String?

  init(
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

/// How a firmware update ended. Made only by the SDK.
public final class PlaudFirmwareUpdateResult: NSObject, Sendable {
  public let success: Bool
  /// The version the device reports after the update (the one it kept on failure).
  public let version: String
  /// Why it failed; nil on success.
  public let errorMessage: String?

  init(success: Bool, version: String, errorMessage: String? = nil) {
    self.success = success
    self.version = version
    self.errorMessage = errorMessage
  }
}

// MARK: - Translations onto RecorderKit
//
// Thin conversions the agent's firmware methods use: RecorderKit holds every policy
// (retries, resumable download, checksums, the newer-only rule, reconnects); these only
// change shapes.

extension PlaudFirmwareCheckResult {
  /// The vendor's check result for RecorderKit's `FirmwareRelease`.
  convenience init(_ release: FirmwareRelease) {
    self.init(
      hasUpdate: release.hasUpdate, currentVersion: release.currentVersion,
      latestVersion: release.latestVersion, versionCode: release.versionCode,
      releaseNotes: release.releaseNotes, downloadUrl: release.downloadUrl, md5: release.md5,
      isForce: release.isForce)
  }

  /// A check that could not run: no update, and why.
  convenience init(currentVersion: String, failure: String) {
    self.init(currentVersion: currentVersion, latestVersion: currentVersion, errorMessage: failure)
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

/// Glue between the vendor's strings and RecorderKit's firmware types.
enum PlaudFirmwareBridge {
  /// `bleFotaResult(uid:status:errmsg:)` arguments for an update's outcome: status 0 and nil
  /// on success, else the device's §7 result / push status, or -1 for a failure on the SDK's
  /// side (as the vendor's negative codes are), and the error text.
  static func fotaResult(uid: Int, error: FirmwareUpdateError?) -> (
    uid: Int, status: Int, errmsg: String?
  ) {
    guard let error else { return (uid, 0, nil) }
    switch error {
    case .rejectedByDevice(let result): return (uid, Int(result), error.description)
    case .refused(let status): return (uid, Int(status), error.description)
    default: return (uid, -1, error.description)
    }
  }

  /// `pushFirmwareFile`'s `toVersion` as the version the device is told it installs. Both
  /// forms parse (`FirmwareVersionNumber`): `V0096` is code 96, `V1.2.8` new firmware's
  /// `major<<16 | minor<<8 | patch` (PROTOCOL.md §1); a dotted part above 255 is
  /// ``FirmwareVersionError/noDeviceEncoding``.
  static func version(_ text: String) throws(FirmwareVersionError) -> FirmwareVersion {
    try FirmwareVersion(parsing: text)
  }

  /// How `version` stands against `other`, both in either form (`V0096`, `V1.2.8`; one of
  /// each compared by device code): nil when they cannot be ordered (another type letter,
  /// or a dotted part above 255 against the code form).
  /// - Throws: ``FirmwareVersionError`` for the first text that is not a version.
  static func order(_ version: String, relativeTo other: String) throws(FirmwareVersionError)
    -> FirmwareVersionOrder?
  {
    let mine = try FirmwareVersionNumber(parsing: version)
    let theirs = try FirmwareVersionNumber(parsing: other)
    return mine.order(relativeTo: theirs)
  }
}
