// The firmware, cloud, domain, update-check and uploader rows of the vendor's checklist
// (shared VENDOR-API.md), with the vendor's exact types.
import Foundation
import PlaudDeviceBasicSDK
import Testing

@Suite("Facade: the vendor's firmware and cloud shapes")
struct VendorShapeCloudTests {
  @Test("firmware, cloud and update-check members of PlaudDeviceAgent")
  func deviceAgentCloudMembers() {
    let _: (PlaudDeviceAgent) -> (String, String, [String: String]) -> Void =
      PlaudDeviceAgent.initSDK(userAccessToken:customDomain:extra:)
    let _: (PlaudDeviceAgent) -> (String?) -> Void = PlaudDeviceAgent.setUserAccessToken
    let _: (PlaudDeviceAgent) -> (@escaping (PlaudFirmwareCheckResult) -> Void) -> Void =
      PlaudDeviceAgent.checkFirmwareUpdate(completion:)
    let _:
      (PlaudDeviceAgent) -> (
        @escaping (PlaudFirmwarePhase, Float) -> Void,
        @escaping (PlaudFirmwareUpdateResult) -> Void
      ) -> Void = PlaudDeviceAgent.startFirmwareUpdate(progress:completion:)
    let _:
      (PlaudDeviceAgent) -> (
        String, String, @escaping (PlaudFirmwarePhase, Float) -> Void,
        @escaping (PlaudFirmwareUpdateResult) -> Void
      ) -> Void = PlaudDeviceAgent.pushFirmwareFile(
        filePath:toVersion:progress:completion:)
    let _: (PlaudDeviceAgent) -> (String, @escaping (Bool, String) -> Void) -> Void =
      PlaudDeviceAgent.sendApiToken(token:callback:)
    let _: (PlaudDeviceAgent) -> () -> Void = PlaudDeviceAgent.clearSDKCredentials
    let _: (PlaudDeviceAgent) -> () -> Void = PlaudDeviceAgent.checkSdkResource
    let _: (PlaudDeviceAgent) -> (BleDevice, Bool, @escaping (UpdateStatus) -> Void) -> Void =
      PlaudDeviceAgent.quickUpdateCheck(device:showUI:completion:)
    let _:
      (PlaudDeviceAgent) -> (String, String, String, Bool, ((Bool, String?) -> Void)?) -> Void =
        PlaudDeviceAgent.quickUpdateCheck(model:snType:versionType:showUI:completion:)
    let _:
      (PlaudDeviceAgent) -> (
        String, String, String,
        @escaping (Bool, LatestVersionResponse?, (any Error)?) -> Void
      ) -> Void = PlaudDeviceAgent.silentUpdateCheck(model:snType:versionType:completion:)
    let _:
      (PlaudDeviceAgent) -> (
        String, String, String, String, String?, Bool, @escaping (Bool, String?) -> Void
      ) -> Void = PlaudDeviceAgent.downloadUpdatePackage(
        downloadURL:model:versionNumber:versionCode:fileMD5:showProgress:completion:)
    let _:
      (PlaudDeviceAgent) -> (
        String, String, String, @escaping (Bool, LatestVersionResponse?) -> Void
      ) -> Void = PlaudDeviceAgent.checkForceUpdate(model:snType:versionType:completion:)
    let _: (PlaudDeviceAgent) -> () -> [String] = PlaudDeviceAgent.getDownloadedUpdatePackages
    let _: (PlaudDeviceAgent) -> () -> Bool = PlaudDeviceAgent.cleanDownloadedUpdatePackages
    let _: (PlaudDeviceAgent) -> (String, String) -> Int = PlaudDeviceAgent.compareVersions
    let _: (PlaudDeviceAgent) -> (String, String) -> Bool = PlaudDeviceAgent.shouldUpdate(
      currentVersion:latestVersion:)
    let _: (PlaudDeviceAgent) -> (Int64) -> String = PlaudDeviceAgent.formatFileSize
    let _: PlaudDeviceAgent.UpdateStatusCallback.Type = ((UpdateStatus) -> Void).self
    let _: PlaudDeviceAgent.UserConfirmationCallback.Type = ((Bool) -> Void).self
    let _:
      (PlaudDeviceAgent) -> (String, String, String, @escaping (UpdateStatus) -> Void) -> Void =
        PlaudDeviceAgent.checkLatestVersion(model:snType:versionType:callback:)
    let _: (PlaudDeviceAgent) -> (LatestVersionResponse, @escaping (UpdateStatus) -> Void) -> Void =
      PlaudDeviceAgent.downloadUpdate(versionInfo:callback:)
    let _:
      (PlaudDeviceAgent) -> (String, String, String, @escaping (UpdateStatus) -> Void) -> Void =
        PlaudDeviceAgent.performUpdateCheck(model:snType:versionType:callback:)
    let _:
      (PlaudDeviceAgent) -> (
        String, String, String, @escaping (Bool, LatestVersionResponse?) -> Void,
        @escaping (String) -> Void
      ) -> Void = PlaudDeviceAgent.checkLatestVersionForModel(
        _:snType:versionType:hasUpdate:failure:)
    let _:
      (PlaudDeviceAgent) -> (
        LatestVersionResponse, @escaping (Float) -> Void, @escaping (String) -> Void,
        @escaping (String) -> Void
      ) -> Void = PlaudDeviceAgent.downloadUpdateForVersion(_:progress:success:failure:)
    let _: (String, String, String, Bool, ((Bool, String?) -> Void)?) -> Void =
      PlaudQuickUpdateCheck(model:snType:versionType:showUI:completion:)
    let _:
      (String, String, String, @escaping (Bool, LatestVersionResponse?, (any Error)?) -> Void)
        -> Void = PlaudSilentUpdateCheck(model:snType:versionType:completion:)
  }

  /// Calls with the defaults, never run.
  func defaultsCompile(_ agent: PlaudDeviceAgent, _ device: BleDevice) {
    agent.initSDK(userAccessToken: "t", customDomain: "platform-us.plaud.ai")
    agent.setUserAccessToken(nil)
    agent.quickUpdateCheck(device: device) { _ in }
    agent.quickUpdateCheck(model: "notepin")
    agent.silentUpdateCheck(model: "notepin") { _, _, _ in }
    agent.downloadUpdatePackage(downloadURL: "", model: "", versionNumber: "") { _, _ in }
    agent.checkForceUpdate(model: "notepin") { _, _ in }
    agent.checkLatestVersion(model: "notepin") { _ in }
    agent.performUpdateCheck(model: "notepin") { _ in }
    _ = agent.cleanDownloadedUpdatePackages()
    PlaudQuickUpdateCheck(model: "notepin")
    PlaudSilentUpdateCheck(model: "notepin") { _, _, _ in }
  }

  @Test("firmware results, update types, uploader, domain manager")
  func cloudTypes() {
    let _: NSObject.Type = PlaudFirmwareCheckResult.self
    let _: KeyPath<PlaudFirmwareCheckResult, Bool> = \.hasUpdate
    let _: KeyPath<PlaudFirmwareCheckResult, String> = \.currentVersion
    let _: KeyPath<PlaudFirmwareCheckResult, String> = \.latestVersion
    let _: KeyPath<PlaudFirmwareCheckResult, Int> = \.versionCode
    let _: KeyPath<PlaudFirmwareCheckResult, String> = \.releaseNotes
    let _: KeyPath<PlaudFirmwareCheckResult, String> = \.downloadUrl
    let _: KeyPath<PlaudFirmwareCheckResult, String> = \.md5
    let _: KeyPath<PlaudFirmwareCheckResult, Bool> = \.isForce
    let _: NSObject.Type = PlaudFirmwareUpdateResult.self
    let _: KeyPath<PlaudFirmwareUpdateResult, Bool> = \.success
    let _: KeyPath<PlaudFirmwareUpdateResult, String> = \.version
    let _: KeyPath<PlaudFirmwareUpdateResult, String?> = \.errorMessage
    #expect(
      [PlaudFirmwarePhase.downloading, .installing, .restarting, .complete].map(\.rawValue)
        == [0, 1, 2, 3])
    let _: NSObject.Type = LatestVersionResponse.self
    let _: any Codable.Type = LatestVersionResponse.self
    let statuses: [UpdateStatus] = [
      .checking, .notAvailable, .downloading(progress: 0.5),
      .downloaded(localPath: ""), .failed(UpdateError.invalidResponse),
    ]
    _ = statuses
    let errors: [UpdateError] = [
      .networkError(""), .invalidResponse, .downloadFailed(""),
      .fileSystemError(""), .noUpdateAvailable, .userCancelled,
    ]
    let _: [any LocalizedError] = errors
    let _: NSObject.Type = PlaudFileUploader.self
    let _: () -> PlaudFileUploader = { PlaudFileUploader.shared }
    let _: ReferenceWritableKeyPath<PlaudFileUploader, BleDevice?> = \.device
    let _: (PlaudFileUploader) -> (Int) -> Bool = PlaudFileUploader.checkRecordingExist(
      sessionId:)
    let _: (PlaudFileUploader) -> (Int, String) -> String =
      PlaudFileUploader.getDownloadedRecordingPath(sessionId:desiredPath:)
    let _:
      (PlaudFileUploader) -> (
        String, Int, Double, @escaping (Double) -> Void, @escaping ([String: Any]) -> Void,
        @escaping (any Error) -> Void
      ) -> Void = PlaudFileUploader.uploadRecording(
        sn:sessionId:duration:onProgress:onSuccess:onFailure:)
    let _:
      (PlaudFileUploader) -> (
        String, String, @escaping (Double) -> Void, @escaping ([String: Any]) -> Void,
        @escaping (any Error) -> Void
      ) -> Void = PlaudFileUploader.uploadLogFile(
        filePath:sn:onProgress:onSuccess:onFailure:)
    let _: (String) -> String = PlaudFileUploader.calculateSnType(sn:)
    let _:
      (PlaudFileUploader) -> (
        String, String, @escaping (Result<[String: Any], any Error>) -> Void
      ) -> Void = PlaudFileUploader.bindDevice(ownerId:sn:completion:)
    let _:
      (PlaudFileUploader) -> (
        String, String, @escaping (Result<[String: Any], any Error>) -> Void
      ) -> Void = PlaudFileUploader.unbindDevice(ownerId:sn:completion:)
    let _: () -> PlaudDomainManager = { PlaudDomainManager.shared }
    #expect(PlaudDomainManager.Region.allCases.map(\.rawValue) == ["cn", "us", "jp"])
    typealias Region = PlaudDomainManager.Region
    let _: (PlaudDomainManager) -> (String) -> Void = PlaudDomainManager.setCustomDomain
    let _: (PlaudDomainManager) -> (Bool) -> Void = PlaudDomainManager.setAutoLanguageAssociation
    let _: (PlaudDomainManager) -> () -> Bool =
      PlaudDomainManager.isAutoLanguageAssociationEnabled
    let _: (PlaudDomainManager) -> (Region) -> Void = PlaudDomainManager.setRegion
    let _: (PlaudDomainManager) -> (String) -> Void = PlaudDomainManager.setRegionForLanguage
    let _: (PlaudDomainManager) -> () -> Region = PlaudDomainManager.getCurrentRegion
    let _: (PlaudDomainManager) -> () -> String = PlaudDomainManager.getCurrentDomain
    let _: (PlaudDomainManager) -> () -> String = PlaudDomainManager.getCurrentBaseURL
    let _: (PlaudDomainManager) -> (Region) -> String = PlaudDomainManager.getDomain(for:)
    let _: (PlaudDomainManager) -> (Region) -> String = PlaudDomainManager.getBaseURL(for:)
    let _: (PlaudDomainManager) -> (String) -> String = PlaudDomainManager.buildAPIURL(path:)
    let _: (PlaudDomainManager) -> (String, Region) -> String =
      PlaudDomainManager.buildAPIURL(path:for:)
    let _: (PlaudDomainManager) -> (String, String) -> String =
      PlaudDomainManager.buildAPIURL(path:for:)
    let _: (PlaudDomainManager) -> () -> Region = PlaudDomainManager.getRegionForCurrentLanguage
    let _: (PlaudDomainManager) -> () -> String = PlaudDomainManager.getCurrentLanguageCode
  }
}
