import Foundation
import RecorderKit
import RecorderProtocol

// The vendor's update-check API. Real where the cloud API of PROTOCOL.md §8 knows the
// request: the check for the connected device (`quickUpdateCheck(device:)`) and the download
// of a published package (MD5-checked, through RecorderKit's `CloudClient.download`). The
// vendor's model-based version query (`model`, `snType`, `versionType`, no serial) is not
// described by any source of ours, so those members answer "not supported by RecorderKit"
// through their own callbacks. This SDK has no UI: every `showUI`/`showProgress` argument
// is ignored.

// swift-format-ignore: AlwaysUseLowerCamelCase
/// A published firmware version, as the vendor's version query answers it (its field names,
/// snake_case as on the wire).
public final class LatestVersionResponse: NSObject, Codable, Sendable {
  /// The device type (`note`, `notepin`, …).
  public let type: String
  public let model: String
  /// The version's type letter (`V`).
  public let version_type: String
  /// The numeric code, as text (`96`).
  public let version_code: String
  /// The version (`V0096`).
  public let version_number: String
  public let version_description: String
  public let is_force: Bool
  public let is_strong_guidance: Bool
  /// Lower-case hex MD5 of the package; a package without one is never downloaded here.
  public let file_md5: String?
  /// Absolute https URL, or a path on the API's origin.
  public let download_url: String

  public init(
    type: String, model: String, version_type: String, version_code: String,
    version_number: String, version_description: String, is_force: Bool,
    is_strong_guidance: Bool, file_md5: String?, download_url: String
  ) {
    self.type = type
    self.model = model
    self.version_type = version_type
    self.version_code = version_code
    self.version_number = version_number
    self.version_description = version_description
    self.is_force = is_force
    self.is_strong_guidance = is_strong_guidance
    self.file_md5 = file_md5
    self.download_url = download_url
  }

  /// ``version_number``.
  public var version: String { version_number }
  /// ``version_description``.
  public var release_notes: String? { version_description }
  /// ``is_force``.
  public var force_update: Bool { is_force }
}

/// Where an update check or download is.
public enum UpdateStatus: Sendable {
  case checking
  case available(LatestVersionResponse)
  case notAvailable
  /// 0.0…1.0.
  case downloading(progress: Float)
  case downloaded(localPath: String)
  case failed(any Error)
}

/// Why an update check or download failed.
public enum UpdateError: Error, LocalizedError, Sendable {
  case networkError(String)
  case invalidResponse
  case downloadFailed(String)
  case fileSystemError(String)
  case noUpdateAvailable
  case userCancelled

  public var errorDescription: String? {
    switch self {
    case .networkError(let reason): "update check failed: \(reason)"
    case .invalidResponse: "the cloud's answer is not a version"
    case .downloadFailed(let reason): "update download failed: \(reason)"
    case .fileSystemError(let reason): "update package storage: \(reason)"
    case .noUpdateAvailable: "no newer firmware is published"
    case .userCancelled: "cancelled"
    }
  }
}

extension PlaudDeviceAgent {
  public typealias UpdateStatusCallback = (UpdateStatus) -> Void
  public typealias UserConfirmationCallback = (Bool) -> Void

  // MARK: - Checks

  /// Checks the cloud for firmware newer than `device`'s, which must be the connected
  /// device (its version is the one the session read): `.available`, `.notAvailable`, or
  /// `.failed` (not that device, no token, the cloud's reason). `showUI` is ignored.
  public func quickUpdateCheck(
    device: BleDevice, showUI: Bool = true, completion: @escaping (UpdateStatus) -> Void
  ) {
    let closure = AppClosure(completion)
    let queue = callbackQueue
    let serial = device.serialNumber
    enqueue { core in
      let status = await core.updateStatus(serial: serial)
      queue.async { closure.body(status) }
    }
  }

  /// Not supported by RecorderKit (the model-based version query is unknown; use
  /// ``quickUpdateCheck(device:showUI:completion:)`` or ``checkFirmwareUpdate(completion:)``):
  /// `completion` gets `(false, reason)`. `showUI` is ignored.
  public func quickUpdateCheck(
    model: String, snType: String = "notepin", versionType: String = "V", showUI: Bool = true,
    completion: ((Bool, String?) -> Void)? = nil
  ) {
    let reason = modelQueryUnsupported("quickUpdateCheck(model:)")
    guard let completion else { return }
    let closure = AppClosure<(Bool, String?)>(completion)
    callbackQueue.async { closure.body((false, reason)) }
  }

  /// Not supported by RecorderKit (model-based query): `(false, nil, error)`.
  public func silentUpdateCheck(
    model: String, snType: String = "notepin", versionType: String = "V",
    completion: @escaping (Bool, LatestVersionResponse?, (any Error)?) -> Void
  ) {
    let error = UpdateError.networkError(modelQueryUnsupported("silentUpdateCheck"))
    let closure = AppClosure<(Bool, LatestVersionResponse?, (any Error)?)>(completion)
    callbackQueue.async { closure.body((false, nil, error)) }
  }

  /// Not supported by RecorderKit (model-based query): `(false, nil)`, the reason in
  /// ``lastError``.
  public func checkForceUpdate(
    model: String, snType: String = "notepin", versionType: String = "V",
    completion: @escaping (Bool, LatestVersionResponse?) -> Void
  ) {
    _ = modelQueryUnsupported("checkForceUpdate")
    let closure = AppClosure<(Bool, LatestVersionResponse?)>(completion)
    callbackQueue.async { closure.body((false, nil)) }
  }

  /// Not supported by RecorderKit (model-based query): `.checking`, then `.failed`.
  public func checkLatestVersion(
    model: String, snType: String = "notepin", versionType: String = "V",
    callback: @escaping UpdateStatusCallback
  ) {
    unsupportedStatus("checkLatestVersion", callback)
  }

  /// Not supported by RecorderKit (model-based query): `.checking`, then `.failed`.
  public func performUpdateCheck(
    model: String, snType: String = "notepin", versionType: String = "V",
    callback: @escaping UpdateStatusCallback
  ) {
    unsupportedStatus("performUpdateCheck", callback)
  }

  /// Not supported by RecorderKit (model-based query): `failure(reason)`.
  public func checkLatestVersionForModel(
    _ model: String, snType: String, versionType: String,
    hasUpdate: @escaping (Bool, LatestVersionResponse?) -> Void,
    failure: @escaping (String) -> Void
  ) {
    let reason = modelQueryUnsupported("checkLatestVersionForModel")
    let closure = AppClosure(failure)
    callbackQueue.async { closure.body(reason) }
  }

  private func modelQueryUnsupported(_ member: String) -> String {
    let error = PlaudSDKError.notSupported(
      member: member,
      reason: "the vendor's model-based version query is unknown; the firmware check is per "
        + "device (checkFirmwareUpdate, quickUpdateCheck(device:))")
    core.fail(error)
    return error.description
  }

  private func unsupportedStatus(_ member: String, _ callback: @escaping UpdateStatusCallback) {
    let error = UpdateError.networkError(modelQueryUnsupported(member))
    let closure = AppClosure(callback)
    callbackQueue.async {
      closure.body(.checking)
      closure.body(.failed(error))
    }
  }

  // MARK: - Downloads

  /// Downloads the package at `downloadURL` (absolute https, or a path on the API's
  /// origin; the user's token goes only to that origin) into `<storageRoot>/firmware`,
  /// resumably, and checks it against `fileMD5` (RecorderKit's `CloudClient.download`): a
  /// mismatch deletes it. A package without an MD5 is refused before anything is
  /// downloaded. `completion` gets `(true, localPath)` or `(false, reason)`. `versionCode`
  /// is not needed; `showProgress` is ignored.
  public func downloadUpdatePackage(
    downloadURL: String, model: String, versionNumber: String, versionCode: String = "",
    fileMD5: String? = nil, showProgress: Bool = false,
    completion: @escaping (Bool, String?) -> Void
  ) {
    let closure = AppClosure<(Bool, String?)>(completion)
    let queue = callbackQueue
    let package = UpdatePackage(
      url: downloadURL, model: model, version: versionNumber, md5: fileMD5)
    enqueue { core in
      let outcome = await core.download(package) { _ in }
      queue.async {
        switch outcome {
        case .success(let path): closure.body((true, path))
        case .failure(let error): closure.body((false, error.errorDescription))
        }
      }
    }
  }

  /// Downloads `versionInfo`'s package as `downloadUpdatePackage` does: `.downloading(progress:)` as bytes arrive (0.0…1.0), then `.downloaded(localPath:)`
  /// or `.failed(UpdateError)`.
  public func downloadUpdate(
    versionInfo: LatestVersionResponse, callback: @escaping UpdateStatusCallback
  ) {
    let closure = AppClosure(callback)
    let queue = callbackQueue
    let package = UpdatePackage(versionInfo)
    enqueue { core in
      let outcome = await core.download(package) { fraction in
        queue.async { closure.body(.downloading(progress: fraction)) }
      }
      queue.async {
        switch outcome {
        case .success(let path): closure.body(.downloaded(localPath: path))
        case .failure(let error): closure.body(.failed(error))
        }
      }
    }
  }

  /// As ``downloadUpdate(versionInfo:callback:)``, with separate closures.
  public func downloadUpdateForVersion(
    _ versionInfo: LatestVersionResponse, progress: @escaping (Float) -> Void,
    success: @escaping (String) -> Void, failure: @escaping (String) -> Void
  ) {
    let (step, done, failed) = (AppClosure(progress), AppClosure(success), AppClosure(failure))
    let queue = callbackQueue
    let package = UpdatePackage(versionInfo)
    enqueue { core in
      let outcome = await core.download(package) { fraction in
        queue.async { step.body(fraction) }
      }
      queue.async {
        switch outcome {
        case .success(let path): done.body(path)
        case .failure(let error): failed.body(error.errorDescription ?? "\(error)")
        }
      }
    }
  }

  /// The packages downloaded into `<storageRoot>/firmware` (full paths, sorted).
  public func getDownloadedUpdatePackages() -> [String] {
    let directory = core.firmwareDirectory
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    return names.filter { $0.hasSuffix(".bin") && !$0.hasPrefix(".") }.sorted().map {
      directory + "/" + $0
    }
  }

  /// Deletes the downloaded packages; true when none is left.
  @discardableResult
  public func cleanDownloadedUpdatePackages() -> Bool {
    for path in getDownloadedUpdatePackages() { try? FileManager.default.removeItem(atPath: path) }
    return getDownloadedUpdatePackages().isEmpty
  }

  // MARK: - Versions

  /// 1 when `version1` is newer than `version2`, -1 when older, 0 when the same. Both forms
  /// parse (`V0096`, `V1.2.8`, by RecorderKit's `FirmwareVersionNumber` grammar; one of each
  /// form compared by device code, V1.2.7 = V66055); two versions that cannot be ordered
  /// (another type letter, a dotted part above 255 against the code form) or a text that
  /// is not a version also answer 0, with the reason in ``lastError``.
  public func compareVersions(_ version1: String, _ version2: String) -> Int {
    do throws(FirmwareVersionError) {
      switch try PlaudFirmwareBridge.order(version1, relativeTo: version2) {
      case .newer: return 1
      case .older: return -1
      case .same: return 0
      case nil:
        core.fail(.operationFailed("these versions cannot be ordered (type letter or form)"))
        return 0
      }
    } catch {
      core.fail(.operationFailed("\(error)"))
      return 0
    }
  }

  /// Whether `latestVersion` is newer than `currentVersion` (``compareVersions(_:_:)`` is
  /// 1); false for anything that cannot be ordered.
  public func shouldUpdate(currentVersion: String, latestVersion: String) -> Bool {
    compareVersions(latestVersion, currentVersion) == 1
  }

  /// `bytes` for people: `512 B`, `1.5 KB`, `12.3 MB`, `1.1 GB` (powers of 1024, one
  /// decimal); a negative count is `0 B`.
  public func formatFileSize(_ bytes: Int64) -> String {
    guard bytes >= 1024 else { return "\(max(0, bytes)) B" }
    var value = Double(bytes)
    var unit = "B"
    for next in ["KB", "MB", "GB", "TB"] where value >= 1024 {
      value /= 1024
      unit = next
    }
    return String(format: "%.1f %@", value, unit)
  }
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// Not supported by RecorderKit: as
/// ``PlaudDeviceAgent/quickUpdateCheck(model:snType:versionType:showUI:completion:)`` on
/// ``PlaudDeviceAgent/shared``.
public func PlaudQuickUpdateCheck(
  model: String, snType: String = "notepin", versionType: String = "V", showUI: Bool = true,
  completion: ((Bool, String?) -> Void)? = nil
) {
  PlaudDeviceAgent.shared.quickUpdateCheck(
    model: model, snType: snType, versionType: versionType, showUI: showUI,
    completion: completion)
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// Not supported by RecorderKit: as
/// ``PlaudDeviceAgent/silentUpdateCheck(model:snType:versionType:completion:)`` on
/// ``PlaudDeviceAgent/shared``.
public func PlaudSilentUpdateCheck(
  model: String, snType: String = "notepin", versionType: String = "V",
  completion: @escaping (Bool, LatestVersionResponse?, (any Error)?) -> Void
) {
  PlaudDeviceAgent.shared.silentUpdateCheck(
    model: model, snType: snType, versionType: versionType, completion: completion)
}

/// A package to download: where, what it is, its checksum.
struct UpdatePackage: Sendable {
  var url: String
  var model: String
  var version: String
  var md5: String?

  init(url: String, model: String, version: String, md5: String?) {
    self.url = url
    self.model = model
    self.version = version
    self.md5 = md5
  }

  init(_ info: LatestVersionResponse) {
    self.init(
      url: info.download_url, model: info.model.isEmpty ? info.type : info.model,
      version: info.version_number, md5: info.file_md5)
  }
}

extension AgentCore {
  /// `CloudClient.download` of `package` into ``firmwareDirectory``, MD5-checked.
  func download(
    _ package: UpdatePackage, progress: @escaping @Sendable (Float) -> Void
  ) async -> Result<String, UpdateError> {
    guard let md5 = package.md5, md5.utf8.count == 32, md5.allSatisfy(\.isHexDigit) else {
      let reason = "a package is downloaded only with its MD5 (32 hex digits)"
      fail(.operationFailed(reason))
      return .failure(.downloadFailed(reason))
    }
    let cloud: CloudClient
    do {
      cloud = try cloudClient()
    } catch {
      fail(error)
      return .failure(.downloadFailed(error.description))
    }
    do {
      try FileManager.default.createDirectory(
        atPath: firmwareDirectory, withIntermediateDirectories: true)
    } catch {
      fail(.operationFailed("cannot create \(firmwareDirectory)"))
      return .failure(.fileSystemError("cannot create \(firmwareDirectory)"))
    }
    let release = FirmwareRelease(
      hasUpdate: true, currentVersion: "", latestVersion: package.version, versionCode: 0,
      releaseNotes: "", downloadUrl: package.url, md5: md5.lowercased(), isForce: false)
    let path = firmwareDirectory + "/" + Self.packageName(package.model, package.version)
    do throws(CloudError) {
      let file = try await cloud.download(release, to: path) { bytes, total in
        guard let total, total > 0 else { return }
        progress(Float(min(1, max(0, Double(bytes) / Double(total)))))
      }
      return .success(file.path)
    } catch {
      fail(.operationFailed("update download failed: \(error)"))
      return .failure(.downloadFailed(error.description))
    }
  }

  /// `quickUpdateCheck(device:)`: ``checkFirmware()`` for the connected device `serial`.
  func updateStatus(serial: String) async -> UpdateStatus {
    guard let current = session, await current.info.serial == serial else {
      fail(.notConnected)
      return .failed(PlaudSDKError.notConnected)
    }
    let result = await checkFirmware()
    if let message = result.errorMessage {
      return .failed(UpdateError.networkError(message))
    }
    guard result.hasUpdate else { return .notAvailable }
    let version = FirmwareVersion(result.latestVersion)
    return .available(
      LatestVersionResponse(
        type: CloudDeviceType(serial: serial).rawValue, model: serial,
        version_type: version.map { String(UnicodeScalar($0.type)) } ?? "",
        version_code: String(result.versionCode), version_number: result.latestVersion,
        version_description: result.releaseNotes, is_force: result.isForce,
        is_strong_guidance: false, file_md5: result.md5, download_url: result.downloadUrl))
  }
}
