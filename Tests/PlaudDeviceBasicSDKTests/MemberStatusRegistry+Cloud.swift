import Foundation
import PlaudDeviceBasicSDK
import RecorderConcurrency
import TestSupport
import Testing

@testable import PlaudDeviceBasicSDK

/// The cloud bench's checks: the firmware check and its result's fields, the update packages
/// (check, download three ways, list, clean), the firmware update from the cloud with its
/// phases and device callbacks, then a push of a local file.
extension MemberStatusRegistry {
  /// What `checkFirmwareUpdate` answered, field by field.
  struct FirmwareCheck: Sendable {
    var isObject: Bool
    var hasUpdate: Bool
    var currentVersion: String
    var latestVersion: String
    var versionCode: Int
    var releaseNotes: String
    var downloadUrl: String
    var md5: String
    var isForce: Bool
    var errorMessage: String?
  }

  static func firmwareCheck(_ c: MemberContext) async throws -> FirmwareCheck {
    try await answer("checkFirmwareUpdate") { done in
      c.agent.checkFirmwareUpdate { result in
        done(
          FirmwareCheck(
            isObject: (result as AnyObject) is NSObject, hasUpdate: result.hasUpdate,
            currentVersion: result.currentVersion, latestVersion: result.latestVersion,
            versionCode: result.versionCode, releaseNotes: result.releaseNotes,
            downloadUrl: result.downloadUrl, md5: result.md5, isForce: result.isForce,
            errorMessage: result.errorMessage))
      }
    }
  }

  /// A firmware check field: `read` of the check must equal `expected`.
  static func field<T: Equatable & Sendable>(
    _ member: String, _ expected: @escaping @Sendable (MemberContext) -> T,
    _ read: @escaping @Sendable (FirmwareCheck) -> T
  ) -> MemberCheck {
    on(.cloud, "PlaudFirmwareCheckResult", member) { c in
      let result = try await firmwareCheck(c)
      try require(result.errorMessage == nil, result.errorMessage ?? "")
      let want = expected(c)
      try require(read(result) == want, "\(read(result)), published \(want)")
      return .answered("\(want)")
    }
  }

  /// The published update as `quickUpdateCheck(device:)` reports it.
  static func available(_ c: MemberContext) async throws -> LatestVersionResponse {
    let text = try await answer("quickUpdateCheck(device:)") {
      (done: @escaping @Sendable (String) -> Void) in
      c.agent.quickUpdateCheck(device: BleDevice(serialNumber: c.serial)) { status in
        guard case .available(let info) = status else { return done("\(status)") }
        let json = (try? JSONEncoder().encode(info)).map { String(decoding: $0, as: UTF8.self) }
        done(json ?? "not encodable")
      }
    }
    guard let info = try? JSONDecoder().decode(LatestVersionResponse.self, from: Data(text.utf8))
    else { throw CheckMismatch("no update available: \(text)") }
    return info
  }

  /// The bytes of the file at `path`.
  static func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

  /// `startFirmwareUpdate`'s result and phases, kept for the rows that read them.
  static let firmwareUpdate = Locked<(success: Bool, version: String, error: String?)?>(nil)
  static let firmwarePhases = Locked<[Int]>([])

  /// A bind or unbind's answer, as text.
  static func binding(
    _ c: MemberContext,
    _ call:
      @escaping (PlaudFileUploader, @escaping (Result<[String: Any], any Error>) -> Void) -> Void
  ) async throws -> String {
    let uploader = PlaudFileUploader(agent: c.agent)
    return try await answer("the cloud's answer") { (done: @escaping @Sendable (String) -> Void) in
      call(uploader) { result in
        switch result {
        case .success(let value):
          done("ok sn=\(value["sn"] as? String ?? "") type=\(value["type"] as? String ?? "")")
        case .failure(let error): done("failed \(error)")
        }
      }
    }
  }

  static let cloud: [MemberCheck] = [
    on(.cloud, uploader, #"`static func calculateSnType(sn: String) -> String`"#) { c in
      let type = PlaudFileUploader.calculateSnType(sn: c.serial)
      try require(type == "note", "\(type) for the emulated note")
      try require(PlaudFileUploader.calculateSnType(sn: "0000") == "note", "no fallback")
      return .answered(type)
    },
    on(
      .cloud, uploader,
      #"`func bindDevice(ownerId: String, sn: String, completion: @escaping (Result<[String: Any], any Error>) -> Void)`"#
    ) { c in
      let text = try await binding(c) { uploader, done in
        uploader.bindDevice(ownerId: "owner", sn: c.serial, completion: done)
      }
      try require(text == "ok sn=\(c.serial) type=note", text)
      return .answered(text)
    },
    on(
      .cloud, uploader,
      #"`func unbindDevice(ownerId: String, sn: String, completion: @escaping (Result<[String: Any], any Error>) -> Void)`"#
    ) { c in
      let text = try await binding(c) { uploader, done in
        uploader.unbindDevice(ownerId: "owner", sn: c.serial, completion: done)
      }
      try require(text.hasPrefix("ok"), text)
      return .answered(text)
    },
    on(
      .cloud, agent,
      #"`func checkFirmwareUpdate(completion: @escaping (PlaudFirmwareCheckResult) -> Void)`"#
    ) { c in
      let result = try await firmwareCheck(c)
      try require(
        result.hasUpdate && result.latestVersion == "V0096", "\(result.latestVersion)")
      return .answered("V0095 → V0096 available")
    },
    on(
      .cloud, "PlaudFirmwareCheckResult",
      #"`class PlaudFirmwareCheckResult : NSObject (a reference type)`"#
    ) { c in
      try require(try await firmwareCheck(c).isObject, "not an NSObject")
      return .answered("an NSObject from the check")
    },
    field(#"`let hasUpdate: Bool`"#, { _ in true }, \.hasUpdate),
    field(#"`let currentVersion: String`"#, { _ in "V0095" }, \.currentVersion),
    field(#"`let latestVersion: String`"#, { _ in "V0096" }, \.latestVersion),
    field(#"`let versionCode: Int`"#, { _ in 96 }, \.versionCode),
    field(#"`let releaseNotes: String`"#, { _ in "fixes" }, \.releaseNotes),
    field(#"`let md5: String`"#, { $0.facts["md5"] ?? "" }, \.md5),
    field(#"`let isForce: Bool`"#, { _ in true }, \.isForce),
    on(.cloud, "PlaudFirmwareCheckResult", #"`let downloadUrl: String`"#) { c in
      let result = try await firmwareCheck(c)
      try require(result.downloadUrl.hasSuffix("note-V0096.bin"), result.downloadUrl)
      return .answered(result.downloadUrl)
    },
    on(
      .cloud, update,
      #"`func quickUpdateCheck(device: BleDevice, showUI: Bool = true, completion: @escaping (UpdateStatus) -> Void)`"#
    ) { c in
      let info = try await available(c)
      try require(info.version_number == "V0096" && info.force_update, "\(info.version_number)")
      return .answered(".available(V0096)")
    },
    on(
      .cloud, update,
      #"`enum UpdateStatus { checking, available(LatestVersionResponse), notAvailable, downloading(progress: Float), downloaded(localPath: String), failed(any Error) }`"#
    ) { c in
      _ = try await available(c)
      return .answered(".available from quickUpdateCheck(device:)")
    },
    on(
      .cloud, update,
      #"`class LatestVersionResponse : NSObject, Codable (type, model, version_type, version_code, version_number, version_description, is_force, is_strong_guidance, file_md5, download_url, version, release_notes, force_update, memberwise init)`"#
    ) { c in
      let info = try await available(c)
      let json = String(decoding: try JSONEncoder().encode(info), as: UTF8.self)
      try require(json.contains("\"version_number\":\"V0096\""), json)
      try require(info.type == "note" && info.version_type == "V" && info.version_code == "96", "")
      try require(info.file_md5 == c.facts["md5"], "md5 \(info.file_md5 ?? "nil")")
      return .answered("the published update, snake_case Codable")
    },
    on(
      .cloud, update,
      #"`func downloadUpdate(versionInfo: LatestVersionResponse, callback: @escaping UpdateStatusCallback)`"#
    ) { c in
      let info = try await available(c)
      let statuses = Locked<[String]>([])
      let path = try await answer("downloadUpdate") {
        (done: @escaping @Sendable (String) -> Void) in
        c.agent.downloadUpdate(versionInfo: info) { status in
          switch status {
          case .downloaded(let path): done(path)
          case .failed(let error): done("failed \(error)")
          default: statuses.withLock { $0.append("\(status)") }
          }
        }
      }
      try require(bytes(path) == c.facts["published"].flatMap(bytes), "\(path): not the image")
      try require(statuses.current.last?.hasPrefix("downloading") == true, "\(statuses.current)")
      return .answered("downloading → downloaded, the published image")
    },
    on(
      .cloud, update,
      #"`typealias UpdateStatusCallback = (UpdateStatus) -> Void; typealias UserConfirmationCallback = (Bool) -> Void`"#
    ) { c in
      let info = try await available(c)
      let text = try await answer("downloadUpdate") {
        (done: @escaping @Sendable (String) -> Void) in
        let callback: PlaudDeviceAgent.UpdateStatusCallback = { status in
          if case .downloaded(let path) = status { done(path) }
          if case .failed(let error) = status { done("failed \(error)") }
        }
        let confirm: PlaudDeviceAgent.UserConfirmationCallback = { _ in }
        confirm(true)
        c.agent.downloadUpdate(versionInfo: info, callback: callback)
      }
      try require(!text.hasPrefix("failed"), text)
      return .answered("an UpdateStatusCallback heard .downloaded")
    },
    on(.cloud, update, #"`func getDownloadedUpdatePackages() -> [String]`"#) { c in
      let packages = c.agent.getDownloadedUpdatePackages()
      try require(packages.count == 1, "\(packages)")
      try require(bytes(packages[0]) == c.facts["published"].flatMap(bytes), "not the image")
      return .answered("the downloaded package")
    },
    on(.cloud, update, #"`@discardableResult func cleanDownloadedUpdatePackages() -> Bool`"#) { c in
      let packages = c.agent.getDownloadedUpdatePackages()
      try require(c.agent.cleanDownloadedUpdatePackages(), "false")
      try require(c.agent.getDownloadedUpdatePackages().isEmpty, "packages left")
      try require(packages.allSatisfy { !FileManager.default.fileExists(atPath: $0) }, "files left")
      return .answered("removed \(packages.count)")
    },
    on(
      .cloud, update,
      #"`func downloadUpdateForVersion(_ versionInfo: LatestVersionResponse, progress: @escaping (Float) -> Void, success: @escaping (String) -> Void, failure: @escaping (String) -> Void)`"#
    ) { c in
      let info = try await available(c)
      let progress = Locked<[Float]>([])
      let path = try await answer("downloadUpdateForVersion") {
        (done: @escaping @Sendable (String) -> Void) in
        c.agent.downloadUpdateForVersion(
          info, progress: { value in progress.withLock { $0.append(value) } },
          success: { done($0) }, failure: { done("failed \($0)") })
      }
      try require(bytes(path) == c.facts["published"].flatMap(bytes), "\(path): not the image")
      try require(progress.current.last == 1, "progress \(progress.current)")
      return .answered("success with the image, progress to 1")
    },
    on(
      .cloud, update,
      #"`func downloadUpdatePackage(downloadURL: String, model: String, versionNumber: String, versionCode: String = "", fileMD5: String? = nil, showProgress: Bool = false, completion: @escaping (Bool, String?) -> Void)`"#
    ) { c in
      let info = try await available(c)
      let (ok, path) = try await answer("downloadUpdatePackage") { done in
        c.agent.downloadUpdatePackage(
          downloadURL: info.download_url, model: info.model, versionNumber: "V0096",
          fileMD5: info.file_md5
        ) { done(($0, $1)) }
      }
      try require(ok, path ?? "")
      try require(bytes(path ?? "") == c.facts["published"].flatMap(bytes), "not the image")
      let (refused, _) = try await answer("no MD5") { done in
        c.agent.downloadUpdatePackage(
          downloadURL: info.download_url, model: info.model, versionNumber: "V0096", fileMD5: nil
        ) { done(($0, $1)) }
      }
      try require(!refused, "a package without an MD5 was accepted")
      return .answered("the image, MD5-checked; none without an MD5")
    },
    on(
      .cloud, agent,
      #"`func startFirmwareUpdate(progress: @escaping (PlaudFirmwarePhase, Float) -> Void, completion: @escaping (PlaudFirmwareUpdateResult) -> Void)`"#
    ) { c in
      let phases = Locked<[Int]>([])
      let result = try await answer("startFirmwareUpdate") { done in
        c.agent.startFirmwareUpdate(
          progress: { phase, _ in
            phases.withLock { if $0.last != phase.rawValue { $0.append(phase.rawValue) } }
          },
          completion: {
            done(($0.success, $0.version, $0.errorMessage, ($0 as AnyObject) is NSObject))
          })
      }
      firmwareUpdate.withLock { $0 = (result.0, result.1, result.2) }
      firmwarePhases.withLock { $0 = phases.current }
      try require(result.0 && result.1 == "V0096", "\(result)")
      try require(result.3, "the result is not an NSObject")
      try await eventually("reconnected") {
        c.log.count("bleConnectState 1") == 2 && c.agent.isConnected()
      }
      return .answered("V0096 installed, the device reconnected")
    },
    on(
      .cloud, "PlaudFirmwareUpdateResult",
      #"`class PlaudFirmwareUpdateResult : NSObject (a reference type)`"#
    ) { _ in
      try require(firmwareUpdate.current != nil, "no update ran")
      return .answered("an NSObject from startFirmwareUpdate")
    },
    on(.cloud, "PlaudFirmwareUpdateResult", #"`let success: Bool`"#) { _ in
      try require(
        firmwareUpdate.current?.success == true, "\(String(describing: firmwareUpdate.current))")
      return .answered("true")
    },
    on(.cloud, "PlaudFirmwareUpdateResult", #"`let version: String`"#) { c in
      let check = try await firmwareCheck(c)
      try require(firmwareUpdate.current?.version == "V0096", "")
      try require(check.currentVersion == "V0096", "the device reports \(check.currentVersion)")
      return .answered("V0096, as the device reports")
    },
    on(.cloud, "PlaudFirmwareUpdateResult", #"`let errorMessage: String?`"#) { c in
      try require(firmwareUpdate.current?.error == nil, firmwareUpdate.current?.error ?? "")
      let failed = try await answer("a push of a missing file") { done in
        c.agent.pushFirmwareFile(
          filePath: c.scratch + "/missing.bin", toVersion: "V0097", progress: { _, _ in },
          completion: { done($0.errorMessage) })
      }
      try require(failed?.isEmpty == false, "no reason for a failed push")
      return .answered("nil on success, the reason on failure")
    },
    on(
      .cloud, "PlaudFirmwarePhase",
      #"`enum PlaudFirmwarePhase: Int { downloading = 0, installing = 1, restarting = 2, complete = 3 }`"#
    ) { _ in
      try require(firmwarePhases.current == [0, 1, 2, 3], "phases \(firmwarePhases.current)")
      return .answered("downloading, installing, restarting, complete")
    },
    on(.cloud, callbacks, #"`optional func bleFotaResult(uid: Int, status: Int, errmsg: String?)`"#)
    { c in
      try require(c.log.has("bleFotaResult 0"), "no bleFotaResult 0")
      return .answered("0 after the update")
    },
    on(.cloud, callbacks, #"`optional func bleFotaPackReq(uid: Int, start: Int, end: Int)`"#) { c in
      let first = try #require(c.log.all.first { $0.hasPrefix("bleFotaPackReq ") })
      try require(first.hasPrefix("bleFotaPackReq 0 "), first)
      return .answered("from byte 0")
    },
    on(
      .cloud, callbacks, #"`optional func bleFotaPackFin(uid: Int, status: Int, errmsg: String?)`"#
    ) { c in
      let fota = c.log.all.filter { $0.hasPrefix("bleFotaPackFin") || $0 == "bleFotaResult 0" }
      try require(fota.prefix(2) == ["bleFotaPackFin 2", "bleFotaResult 0"], "\(fota)")
      return .answered("2 (checking the image), before bleFotaResult")
    },
    on(
      .cloud, agent,
      #"`func pushFirmwareFile(filePath: String, toVersion: String, progress: @escaping (PlaudFirmwarePhase, Float) -> Void, completion: @escaping (PlaudFirmwareUpdateResult) -> Void)`"#
    ) { c in
      let local = try #require(c.facts["local"])
      let (ok, version, error) = try await answer("pushFirmwareFile") { done in
        c.agent.pushFirmwareFile(
          filePath: local, toVersion: "V0097", progress: { _, _ in },
          completion: { done(($0.success, $0.version, $0.errorMessage)) })
      }
      try require(ok && version == "V0097", "\(version) \(error ?? "")")
      try await eventually("reconnected") { c.agent.isConnected() }
      let check = try await firmwareCheck(c)
      try require(check.currentVersion == "V0097", "the device reports \(check.currentVersion)")
      return .answered("V0097 from a local file")
    },
  ]
}
