import Foundation
import PlaudDeviceBasicSDK
import TestSupport
import Testing

@testable import PlaudDeviceBasicSDK

/// The checks that need no device: the log and upload types, the uploader's refusals, the
/// version helpers, the domain manager, the delegate conformances.
extension MemberStatusRegistry {
  static let logUpload = "PlaudLogUploadManager"
  static let uploader = "PlaudFileUploader"
  static let domains = "PlaudDomainManager"

  /// The log manager's statistics: its no-op members' only channel, saying it is not
  /// supported and why.
  static func uploadStatistics(_ what: String) throws -> SeenStatus {
    let statistics = PlaudLogUploadManager.shared.getUploadStatistics()
    let reason = statistics["reason"] as? String ?? ""
    guard statistics["supported"] as? Bool == false, !reason.isEmpty else {
      return .answered("\(what): statistics \(statistics)")
    }
    return .refused("\(what); getUploadStatistics: supported false, \(reason)")
  }

  /// An upload's failure: `PlaudSDKError.notSupported` naming `member`.
  static func uploadFailure(_ error: String, _ member: String) -> SeenStatus {
    refusedText(error, member)
  }

  static let offline: [MemberCheck] = [
    on(
      .offline, logUpload,
      #"`func uploadLogFiles(onProgress: @escaping (Double) -> Void, onSuccess: @escaping ([String: Any]) -> Void, onFailure: @escaping (any Error) -> Void)`"#
    ) { _ in
      let error = try await answer("uploadLogFiles") {
        (done: @escaping @Sendable (String) -> Void) in
        PlaudLogUploadManager.shared.uploadLogFiles(
          onProgress: { _ in }, onSuccess: { _ in done("success") }, onFailure: { done("\($0)") })
      }
      return uploadFailure(error, "uploadLogFiles")
    },
    on(
      .offline, logUpload,
      #"`func uploadLogFilesWithDeviceSN(sn: String, onProgress:onSuccess:onFailure:)`"#
    ) { _ in
      let error = try await answer("uploadLogFilesWithDeviceSN") {
        (done: @escaping @Sendable (String) -> Void) in
        PlaudLogUploadManager.shared.uploadLogFilesWithDeviceSN(
          sn: "888317040000", onProgress: { _ in }, onSuccess: { _ in done("success") },
          onFailure: { done("\($0)") })
      }
      return uploadFailure(error, "uploadLogFilesWithDeviceSN")
    },
    on(
      .offline, logUpload,
      #"`func uploadLogsAfterRecording(sn: String, sessionId: Int, onCompletion: @escaping (Bool, (any Error)?) -> Void)`"#
    ) { _ in
      let (ok, error) = try await answer("uploadLogsAfterRecording") { done in
        PlaudLogUploadManager.shared.uploadLogsAfterRecording(sn: "888317040000", sessionId: 1) {
          done(($0, $1.map { "\($0)" }))
        }
      }
      try require(!ok, "(true, …)")
      return uploadFailure(error ?? "", "uploadLogsAfterRecording")
    },
    on(.offline, logUpload, #"`func setAutoUploadEnabled(_ enabled: Bool)`"#) { _ in
      PlaudLogUploadManager.shared.setAutoUploadEnabled(true)
      defer { PlaudLogUploadManager.shared.setAutoUploadEnabled(false) }
      let statistics = PlaudLogUploadManager.shared.getUploadStatistics()
      try require(statistics["autoUploadEnabled"] as? Bool == true, "not recorded")
      return try uploadStatistics("recorded, never run")
    },
    on(.offline, logUpload, #"`func startAutoUpload()`"#) { _ in
      PlaudLogUploadManager.shared.startAutoUpload()
      return try uploadStatistics("nothing started")
    },
    on(.offline, logUpload, #"`func stopAutoUpload()`"#) { _ in
      PlaudLogUploadManager.shared.stopAutoUpload()
      return try uploadStatistics("nothing to stop")
    },
    on(.offline, logUpload, #"`func cleanupLogFiles()`"#) { _ in
      PlaudLogUploadManager.shared.cleanupLogFiles()
      return try uploadStatistics("no log files")
    },
    on(.offline, logUpload, #"`func getUploadStatistics() -> [String: Any]`"#) { _ in
      try uploadStatistics("the statistics")
    },
    on(
      .offline, "PlaudLogEncryption",
      #"`static func exportEncryptedLogFile() throws -> NSURL; static func exportEncryptedLogs() -> NSURL?`"#
    ) { _ in
      try require(PlaudLogEncryption.exportEncryptedLogs() == nil, "an export")
      do {
        let url = try PlaudLogEncryption.exportEncryptedLogFile()
        return .answered("exported \(url)")
      } catch {
        let text = (error as? PlaudLogExportError)?.errorDescription ?? "\(error)"
        return text.contains("not supported by RecorderKit") ? .refused(text) : .answered(text)
      }
    },
    on(
      .offline, uploader,
      #"`func uploadRecording(sn: String, sessionId: Int, duration: Double, onProgress: @escaping (Double) -> Void, onSuccess: @escaping ([String: Any]) -> Void, onFailure: @escaping (any Error) -> Void)`"#
    ) { c in
      let error = try await answer("uploadRecording") {
        (done: @escaping @Sendable (String) -> Void) in
        PlaudFileUploader(agent: c.agent).uploadRecording(
          sn: "888317040000", sessionId: 1, duration: 10, onProgress: { _ in },
          onSuccess: { _ in done("success") }, onFailure: { done("\($0)") })
      }
      guard case .refused = refusedText(error, "uploadRecording") else { return .answered(error) }
      return try c.lastErrorRefusal("uploadRecording", "onFailure(reason)")
    },
    on(
      .offline, uploader,
      #"`func uploadLogFile(filePath: String, sn: String, onProgress:onSuccess:onFailure:)`"#
    ) { c in
      let error = try await answer("uploadLogFile") {
        (done: @escaping @Sendable (String) -> Void) in
        PlaudFileUploader(agent: c.agent).uploadLogFile(
          filePath: c.scratch + "/app.log", sn: "888317040000", onProgress: { _ in },
          onSuccess: { _ in done("success") }, onFailure: { done("\($0)") })
      }
      guard case .refused = refusedText(error, "uploadLogFile") else { return .answered(error) }
      return try c.lastErrorRefusal("uploadLogFile", "onFailure(reason)")
    },
    // What works without a device.
    on(.offline, update, #"`func compareVersions(_ version1: String, _ version2: String) -> Int`"#)
    { c in
      let answers = [
        c.agent.compareVersions("V0096", "V0095"), c.agent.compareVersions("V1.2.8", "V1.10.0"),
        c.agent.compareVersions("V0095", "V0095"),
      ]
      try require(answers == [1, -1, 0], "\(answers)")
      return .answered("\(answers)")
    },
    on(
      .offline, update,
      #"`func shouldUpdate(currentVersion: String, latestVersion: String) -> Bool`"#
    ) { c in
      try require(c.agent.shouldUpdate(currentVersion: "V0095", latestVersion: "V0096"), "")
      try require(!c.agent.shouldUpdate(currentVersion: "V0096", latestVersion: "V0095"), "")
      return .answered("newer only")
    },
    on(.offline, agent, #"`static func getSupportedExportFormats() -> [AudioExportFormat]`"#) { _ in
      let formats = PlaudDeviceAgent.getSupportedExportFormats().map(\.rawValue)
      try require(formats == [0, 1, 2, 3], "\(formats)")
      return .answered("pcm, mp3, wav, opus")
    },
    on(.offline, "AudioExportFormat", #"`var fileExtension: String { get }`"#) { _ in
      let extensions = AudioExportFormat.allCases.map(\.fileExtension)
      try require(extensions == ["pcm", "mp3", "wav", "opus"], "\(extensions)")
      return .answered("\(extensions)")
    },
    on(.offline, agent, #"`var skipPermissionCheck: Bool { get set }`"#) { c in
      c.agent.skipPermissionCheck = true
      try require(c.agent.skipPermissionCheck, "not stored")
      c.agent.skipPermissionCheck = false
      return .answered("stored")
    },
    on(.offline, callbacks, #"`a class implementing only the required blePenState conforms`"#) {
      c in
      let delegate = PenStateOnlyDelegate()
      c.agent.delegate = delegate
      defer { c.agent.delegate = c.log }
      try require(c.agent.delegate === delegate, "not kept")
      return .answered("accepted as the delegate")
    },
    on(.offline, wifiCallbacks, #"`a class implementing nothing conforms`"#) { c in
      let delegate = SilentWiFiDelegate()
      c.wifi.delegate = delegate
      defer { c.wifi.delegate = c.log }
      try require(c.wifi.delegate === delegate, "not kept")
      return .answered("accepted as the delegate")
    },
    on(.offline, domains, #"`func setCustomDomain(_ domain: String)`"#) { c in
      let manager = c.agent.domainManager
      manager.setCustomDomain("api.example.com")
      try require(manager.getCurrentDomain() == "api.example.com", manager.getCurrentDomain())
      return .answered("api.example.com")
    },
    on(.offline, domains, #"`func getCurrentBaseURL() -> String`"#) { c in
      let url = c.agent.domainManager.getCurrentBaseURL()
      try require(url == "https://api.example.com/developer/api", url)
      return .answered(url)
    },
    on(.offline, domains, #"`func buildAPIURL(path: String) -> String`"#) { c in
      let url = c.agent.domainManager.buildAPIURL(path: "/device/list")
      try require(url == "https://api.example.com/developer/api/device/list", url)
      return .answered(url)
    },
    on(.offline, domains, #"`func getDomain(for region: Region) -> String`"#) { c in
      let domain = c.agent.domainManager.getDomain(for: .us)
      try require(domain == "platform-us.plaud.ai", domain)
      return .answered(domain)
    },
    on(.offline, domains, #"`func setRegion(_ region: Region)`"#) { c in
      let manager = c.agent.domainManager
      manager.setRegion(.jp)
      try require(manager.getCurrentRegion() == .jp, "\(manager.getCurrentRegion())")
      manager.setRegion(.us)
      return .answered("jp, then us")
    },
  ]
}
