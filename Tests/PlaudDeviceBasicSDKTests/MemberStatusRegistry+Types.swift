import Foundation
import PlaudDeviceBasicSDK
import TestSupport
import Testing

@testable import PlaudDeviceBasicSDK

/// The checks of the models, enums, errors, singletons, the domain manager and the log
/// configuration's reads: each calls the member and compares what it answers.
extension MemberStatusRegistry {
  static let types: [MemberCheck] = [
    on(
      .offline, agent,
      #"`class PlaudDeviceAgent : NSObject (a reference type; Equatable/Hashable through NSObject)`"#
    ) { c in
      let object: NSObject = c.agent
      try require(object.isEqual(c.agent) && object.hash == c.agent.hash, "not equal to itself")
      try require(!object.isEqual(c.wifi), "equal to another object")
      return .answered("NSObject identity")
    },
    on(.offline, agent, #"`static let shared: PlaudDeviceAgent`"#) { _ in
      try require(PlaudDeviceAgent.shared === PlaudDeviceAgent.shared, "two shared agents")
      return .answered("one instance")
    },
    on(.offline, wifiAgent, #"`class PlaudWiFiAgent : NSObject`"#) { c in
      let object: NSObject = c.wifi
      try require(object.isEqual(c.agent.wifiAgent), "not the agent's Wi-Fi agent")
      return .answered("an NSObject, the agent's")
    },
    on(.offline, wifiAgent, #"`static let shared: PlaudWiFiAgent`"#) { _ in
      try require(PlaudWiFiAgent.shared === PlaudDeviceAgent.shared.wifiAgent, "not shared's")
      return .answered("PlaudDeviceAgent.shared's Wi-Fi agent")
    },
    on(.offline, agent, #"`var bleAgent: BleAgent? { get set }`"#) { c in
      try require(c.agent.bleAgent === BleAgent.shared, "not BleAgent.shared at first")
      let before = c.agent.lastError
      c.agent.bleAgent = nil
      defer { c.agent.bleAgent = BleAgent.shared }
      try require(c.agent.bleAgent == nil, "not stored")
      try require(c.agent.isConnected() == false && c.agent.lastError == before, "it changed more")
      return .answered("BleAgent.shared at first; stored, nothing else changes")
    },
    on(.offline, update, #"`func formatFileSize(_ bytes: Int64) -> String`"#) { c in
      let texts = [512, 1536, 5 * 1024 * 1024].map { c.agent.formatFileSize(Int64($0)) }
      try require(texts == ["512 B", "1.5 KB", "5.0 MB"], "\(texts)")
      return .answered("\(texts)")
    },
    on(
      .offline, update,
      #"`enum UpdateError : Error, LocalizedError { networkError(String), invalidResponse, downloadFailed(String), fileSystemError(String), noUpdateAvailable, userCancelled }`"#
    ) { _ in
      let errors: [UpdateError] = [
        .networkError("n"), .invalidResponse, .downloadFailed("d"), .fileSystemError("f"),
        .noUpdateAvailable, .userCancelled,
      ]
      let texts = errors.compactMap(\.errorDescription)
      try require(texts.count == 6 && Set(texts).count == 6, "\(texts)")
      try require(texts[0].contains("n") && texts[2].contains("d"), "\(texts)")
      return .answered("six distinct descriptions")
    },
    on(
      .offline, "AudioExportFormat",
      #"`enum AudioExportFormat: Int { pcm = 0, mp3 = 1, wav = 2, opus = 3 } (cases, RawRepresentable)`"#
    ) { _ in
      let formats = (0...4).map { AudioExportFormat(rawValue: $0) }
      try require(formats == [.pcm, .mp3, .wav, .opus, nil], "\(formats)")
      return .answered("0…3, nil for 4")
    },
    on(
      .offline, "PlaudDownloadFormat",
      #"`enum PlaudDownloadFormat: Int { pcm = 0, (mp3 = 1 unavailable), wav = 2 }`"#
    ) { _ in
      try require(
        PlaudDownloadFormat.pcm.rawValue == 0 && PlaudDownloadFormat.wav.rawValue == 2, "")
      try require(PlaudDownloadFormat(rawValue: 2) == .wav, "2 is not wav")
      return .answered("pcm 0, wav 2")
    },
    on(
      .offline, "BleDevice",
      #"`class BleDevice : NSObject (H: `@interface PlaudBleDevice : BleDevice`; Equatable/Hashable through NSObject)`"#
    ) { _ in
      let device = BleDevice(sn: "8881234567890123")
      let object: NSObject = device
      try require(object.isEqual(device) && object.hash == device.hash, "not equal to itself")
      return .answered("an NSObject")
    },
    on(
      .offline, "BleDevice",
      #"`init(sn: String)  (SI: PlaudBleDevice overrides BleDevice's `init(sn:)`)`"#
    ) { _ in
      let device = BleDevice(sn: "8881234567890123")
      try require(device.serialNumber == "8881234567890123", device.serialNumber)
      return .answered("serialNumber set")
    },
    on(.offline, "PlaudBleDevice", #"`class PlaudBleDevice : BleDevice, init(sn: String)  (SI)`"#) {
      _ in
      let device: BleDevice = PlaudBleDevice(sn: "8881234567890124")
      try require(device.serialNumber == "8881234567890124", device.serialNumber)
      return .answered("a BleDevice with its serial")
    },
    on(
      .offline, "BleFile",
      #"`class BleFile : NSObject (H: `@class BleFile`, `NSArray<BleFile *>`)`"#
    ) { _ in
      // A file from the device bench's lists is the same class; here a copy keeps its fields.
      let file = BleFile()
      file.sessionId = 1_775_395_000
      file.size = 4096
      file.sn = "8881234567890123"
      let copy = try #require(file.copy() as? BleFile)
      try require(
        copy !== file && copy.sessionId == file.sessionId && copy.size == 4096
          && copy.sn == file.sn,
        "the copy differs")
      return .answered("an NSObject that copies its fields")
    },
    on(.offline, uploader, #"`class PlaudFileUploader : NSObject with static let shared`"#) { _ in
      try require(PlaudFileUploader.shared === PlaudFileUploader.shared, "two")
      return .answered("one instance")
    },
    on(.offline, uploader, #"`var device: BleDevice? { get set }`"#) { c in
      let uploader = PlaudFileUploader(agent: c.agent)
      uploader.device = BleDevice(sn: "8881234567890125")
      try require(uploader.device?.serialNumber == "8881234567890125", "not stored")
      return .answered("stored")
    },
    on(.offline, domains, #"`class PlaudDomainManager with static let shared`"#) { _ in
      try require(PlaudDomainManager.shared === PlaudDomainManager.shared, "two")
      return .answered("one instance")
    },
    on(.offline, domains, #"`enum Region: String, CaseIterable { cn, us, jp }`"#) { _ in
      let regions = PlaudDomainManager.Region.allCases.map(\.rawValue)
      try require(regions == ["cn", "us", "jp"], "\(regions)")
      return .answered("\(regions)")
    },
    on(.offline, domains, #"`func getCurrentDomain() -> String`"#) { c in
      let manager = c.agent.domainManager
      manager.setCustomDomain("")
      try require(manager.getCurrentDomain() == "platform-us.plaud.ai", manager.getCurrentDomain())
      manager.setCustomDomain("api.example.com")
      try require(manager.getCurrentDomain() == "api.example.com", manager.getCurrentDomain())
      return .answered("the region's, then the custom one")
    },
    on(.offline, domains, #"`func getBaseURL(for region: Region) -> String`"#) { c in
      let url = c.agent.domainManager.getBaseURL(for: .us)
      try require(url == "https://platform-us.plaud.ai/developer/api", url)
      return .answered(url)
    },
    on(.offline, domains, #"`func buildAPIURL(path: String, for region: Region) -> String`"#) { c in
      let url = c.agent.domainManager.buildAPIURL(path: "files", for: .us)
      try require(url == "https://platform-us.plaud.ai/developer/api/files", url)
      return .answered(url)
    },
    on(.offline, domains, #"`func buildAPIURL(path: String, for languageCode: String) -> String`"#)
    { c in
      // en → us; ja → jp, whose domain is unknown: the custom domain set earlier.
      let manager = c.agent.domainManager
      let us = manager.buildAPIURL(path: "/x", for: "en-GB")
      let jp = manager.buildAPIURL(path: "/x", for: "ja")
      try require(us == "https://platform-us.plaud.ai/developer/api/x", us)
      try require(jp == "https://api.example.com/developer/api/x", jp)
      return .answered("\(us), \(jp)")
    },
    on(.offline, domains, #"`func setRegionForLanguage(_ languageCode: String)`"#) { c in
      let manager = c.agent.domainManager
      var seen: [String] = []
      for code in ["zh-Hans", "ja", "de"] {
        manager.setRegionForLanguage(code)
        seen.append(manager.getCurrentRegion().rawValue)
      }
      try require(seen == ["cn", "jp", "us"], "\(seen)")
      return .answered("zh → cn, ja → jp, else us")
    },
    on(.offline, domains, #"`func getCurrentRegion() -> Region`"#) { c in
      let manager = c.agent.domainManager
      manager.setRegion(.cn)
      defer { manager.setRegion(.us) }
      try require(manager.getCurrentRegion() == .cn, "\(manager.getCurrentRegion())")
      return .answered("the region set")
    },
    on(.offline, domains, #"`func getCurrentLanguageCode() -> String`"#) { c in
      let code = c.agent.domainManager.getCurrentLanguageCode()
      try require(!code.isEmpty && code.count <= 8, code)
      return .answered(code)
    },
    on(.offline, domains, #"`func getRegionForCurrentLanguage() -> Region`"#) { c in
      let manager = c.agent.domainManager
      let code = manager.getCurrentLanguageCode().lowercased()
      let expected: PlaudDomainManager.Region =
        code.hasPrefix("zh") ? .cn : code.hasPrefix("ja") ? .jp : .us
      try require(manager.getRegionForCurrentLanguage() == expected, "for \(code)")
      return .answered("\(expected) for \(code)")
    },
    on(.offline, domains, #"`func setAutoLanguageAssociation(_ enabled: Bool)`"#) { c in
      let manager = c.agent.domainManager
      manager.setRegion(.jp)
      manager.setAutoLanguageAssociation(true)
      defer {
        manager.setAutoLanguageAssociation(false)
        manager.setRegion(.us)
      }
      let expected = manager.getRegionForCurrentLanguage()
      try require(manager.getCurrentRegion() == expected, "not the language's region")
      return .answered("the language's region selected at once")
    },
    on(.offline, domains, #"`func isAutoLanguageAssociationEnabled() -> Bool`"#) { c in
      let manager = c.agent.domainManager
      try require(!manager.isAutoLanguageAssociationEnabled(), "on at first")
      manager.setAutoLanguageAssociation(true)
      defer { manager.setAutoLanguageAssociation(false) }
      try require(manager.isAutoLanguageAssociationEnabled(), "off after turning it on")
      return .answered("off, then on")
    },
    on(.offline, logUpload, #"`class PlaudLogUploadManager : NSObject with static let shared`"#) {
      _ in
      try require(PlaudLogUploadManager.shared === PlaudLogUploadManager.shared, "two")
      return .answered("one instance")
    },
    on(
      .offline, "PlaudLogUploadError",
      #"`enum PlaudLogUploadError: Int, Error { alreadyUploading = 0, directoryNotFound = 1, partialUpload = 2 }, localizedDescription`"#
    ) { _ in
      let errors = (0...2).compactMap { PlaudLogUploadError(rawValue: $0) }
      try require(errors == [.alreadyUploading, .directoryNotFound, .partialUpload], "\(errors)")
      try require(Set(errors.map(\.localizedDescription)).count == 3, "descriptions")
      return .answered("0…2, each described")
    },
    on(
      .offline, "PlaudLogUploadPartialError",
      #"`struct PlaudLogUploadPartialError: Error { let result: [String: Any]; init(result:) }`"#
    ) { _ in
      let error = PlaudLogUploadPartialError(result: ["uploaded": 2])
      try require(error.result["uploaded"] as? Int == 2, "the result not kept")
      return .answered("keeps its result")
    },
    on(
      .offline, "PlaudLogExportError",
      #"`enum PlaudLogExportError: Error, LocalizedError { logsDirectoryNotFound, noLogFiles, zipFailed, encryptFailed, writeFailed(underlying:) }`"#
    ) { _ in
      let errors: [PlaudLogExportError] = [
        .logsDirectoryNotFound, .noLogFiles, .zipFailed, .encryptFailed,
        .writeFailed(underlying: CocoaError(.fileWriteNoPermission)),
      ]
      let texts = errors.compactMap(\.errorDescription)
      try require(Set(texts).count == 5, "\(texts)")
      return .answered("five descriptions")
    },
  ]

  /// `PlaudLogConfig.shared`'s reads. Its writers are not called here: VendorMembersTests
  /// changes the one shared configuration and counts the notifications it posts, in
  /// parallel. A read that compares two values can meet such a change between them: it is
  /// tried up to three times.
  static func logConfig(
    _ member: String, _ check: @escaping @Sendable (PlaudLogConfig) throws -> String
  ) -> MemberCheck {
    on(.offline, "PlaudLogConfig", member) { _ in
      var failure: (any Error)?
      for _ in 1...3 {
        do {
          return .answered(try check(PlaudLogConfig.shared))
        } catch {
          failure = error
        }
      }
      throw failure ?? CheckMismatch("no try ran")
    }
  }

  static let logConfigReads: [MemberCheck] = [
    logConfig(#"`class PlaudLogConfig : NSObject with static let shared`"#) { config in
      try require(config === PlaudLogConfig.shared, "two")
      return "one instance"
    },
    logConfig(#"`func getCurrentConfiguration() -> [String: Any]`"#) { config in
      let values = config.getCurrentConfiguration()
      try require(values["maxFileCount"] as? Int == config.maxFileCount, "\(values)")
      try require(values["maxFileSize"] as? Int64 == config.maxFileSize, "\(values)")
      return "the values the properties hold"
    },
    logConfig(#"`var maxFileAgeDays: Int { get }`"#) { config in
      try require(config.maxFileAgeDays == Int(config.maxFileAge / 86_400), "")
      return "\(config.maxFileAgeDays) days"
    },
    logConfig(#"`var maxFileSizeMB: Int { get }`"#) { config in
      try require(config.maxFileSizeMB == Int(config.maxFileSize / (1024 * 1024)), "")
      return "\(config.maxFileSizeMB) MB"
    },
    logConfig(#"`var uploadIntervalMinutes: Int { get }`"#) { config in
      try require(config.uploadIntervalMinutes == Int(config.uploadInterval / 60), "")
      return "\(config.uploadIntervalMinutes) min"
    },
    logConfig(#"`var uploadTimeoutSeconds: Int { get }`"#) { config in
      try require(config.uploadTimeoutSeconds == Int(config.uploadTimeout), "")
      return "\(config.uploadTimeoutSeconds) s"
    },
    logConfig(#"`var maxFileCount: Int { get }`"#) { config in
      let count = config.maxFileCount
      try require(config.getCurrentConfiguration()["maxFileCount"] as? Int == count, "")
      try require((1...50).contains(count), "\(count) outside 1…50")
      return "\(count)"
    },
    logConfig(#"`var maxFileAge: Double { get }`"#) { config in
      let age = config.maxFileAge
      try require(config.getCurrentConfiguration()["maxFileAge"] as? Double == age, "")
      try require((3600...30 * 86_400).contains(age), "\(age) outside 1 hour…30 days")
      return "\(age) s"
    },
    logConfig(#"`var maxFileSize: Int64 { get }`"#) { config in
      let size = config.maxFileSize
      try require(config.getCurrentConfiguration()["maxFileSize"] as? Int64 == size, "")
      try require((1024 * 1024...100 * 1024 * 1024).contains(size), "\(size) outside 1–100 MiB")
      return "\(size) bytes"
    },
    logConfig(#"`var uploadInterval: TimeInterval { get }`"#) { config in
      let interval = config.uploadInterval
      try require(config.getCurrentConfiguration()["uploadInterval"] as? Double == interval, "")
      try require((60...3600).contains(interval), "\(interval) outside 60…3600 s")
      return "\(interval) s"
    },
    logConfig(#"`var uploadTimeout: Double { get }`"#) { config in
      let timeout = config.uploadTimeout
      try require(config.getCurrentConfiguration()["uploadTimeout"] as? Double == timeout, "")
      try require((10...300).contains(timeout), "\(timeout) outside 10…300 s")
      return "\(timeout) s"
    },
    logConfig(#"`func validateConfiguration() -> Bool`"#) { config in
      try require(config.validateConfiguration(), "the shared configuration is invalid")
      return "true"
    },
    logConfig(#"`func getConfigurationDescription() -> String`"#) { config in
      let text = config.getConfigurationDescription()
      try require(text.contains("\(config.maxFileCount)"), text)
      return text
    },
  ]
}
