import Foundation
import PlaudDeviceBasicSDK
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import TestSupport
import Testing

@testable import PlaudDeviceBasicSDK

/// Issue 26: the cloud through the facade. `customDomain` (and `PlaudDomainManager`) is where
/// every request goes, by RecorderKit's domain rule; the user token in force is the one every
/// request and the next handshake use; Mode B devices get their serial signature from it.
@Suite("Facade cloud: domain, user token, Mode B signature, update packages, binding")
struct FacadeCloudTests {
  @Test("the domain rule: no scheme is https, a loopback host with a port is plain http")
  func domainRule() throws {
    let domains = PlaudDomainManager(languageCode: { "en" })
    let cases: [(String, String)] = [
      ("platform-us.plaud.ai", "https://platform-us.plaud.ai/developer/api"),
      ("127.0.0.1:8080", "http://127.0.0.1:8080/developer/api"),
      ("localhost:9", "http://localhost:9/developer/api"),
      ("[::1]:4443", "http://[::1]:4443/developer/api"),
      ("127.0.0.1", "https://127.0.0.1/developer/api"),
      ("example.com:8443", "https://example.com:8443/developer/api"),
      ("http://127.0.0.1:8080", "http://127.0.0.1:8080/developer/api"),
      ("https://platform-us.plaud.ai", "https://platform-us.plaud.ai/developer/api"),
    ]
    for (domain, base) in cases {
      domains.setCustomDomain(domain)
      #expect(domains.getCurrentDomain() == domain)
      #expect(domains.getCurrentBaseURL() == base, "\(domain)")
      #expect(try CloudClient.apiBase(forDomain: domain) == base)
    }
    domains.setCustomDomain("127.0.0.1:8080")
    #expect(domains.buildAPIURL(path: "/a/b") == "http://127.0.0.1:8080/developer/api/a/b")
    #expect(domains.buildAPIURL(path: "a") == "http://127.0.0.1:8080/developer/api/a")
    // Plain http to anything but loopback is refused, never sent.
    domains.setCustomDomain("http://platform-us.plaud.ai")
    #expect(domains.getCurrentBaseURL() == "")
    #expect(throws: CloudError.insecureURL("http://platform-us.plaud.ai")) {
      try CloudClient.apiBase(forDomain: "http://platform-us.plaud.ai")
    }
  }

  @Test("regions: only the US domain is known; cn and jp answer the custom domain or unknown")
  func regions() {
    let domains = PlaudDomainManager(languageCode: { "ja-JP" })
    #expect(PlaudDomainManager.Region.allCases.map(\.rawValue) == ["cn", "us", "jp"])
    #expect(domains.getCurrentRegion() == .us)
    #expect(domains.getCurrentDomain() == "platform-us.plaud.ai")
    #expect(domains.getBaseURL(for: .us) == "https://platform-us.plaud.ai/developer/api")
    #expect(domains.getDomain(for: .cn) == PlaudDomainManager.unknownDomain)
    #expect(domains.buildAPIURL(path: "/x", for: .jp) == "")
    domains.setRegion(.jp)
    #expect(domains.getCurrentDomain() == "" && domains.getCurrentBaseURL() == "")
    domains.setCustomDomain("platform-us.plaud.ai")
    #expect(domains.getDomain(for: .jp) == "platform-us.plaud.ai")
    domains.setCustomDomain("")
    domains.setRegionForLanguage("zh-Hans")
    #expect(domains.getCurrentRegion() == .cn)
    domains.setRegionForLanguage("de")
    #expect(domains.getCurrentRegion() == .us)
    #expect(domains.getCurrentLanguageCode() == "ja-JP")
    #expect(domains.getRegionForCurrentLanguage() == .jp)
    #expect(!domains.isAutoLanguageAssociationEnabled())
    domains.setAutoLanguageAssociation(true)
    #expect(domains.isAutoLanguageAssociationEnabled() && domains.getCurrentRegion() == .jp)
    #expect(
      domains.buildAPIURL(path: "/p", for: "en-US")
        == "https://platform-us.plaud.ai/developer/api/p")
  }

  @Test("customDomain is used for every request, and a domain set later for the next ones")
  func everyRequestGoesToTheDomain() async throws {
    let bench = try FacadeCloudBench(seed: 0x26_0101)
    defer { bench.cleanUp() }
    let log = CallbackLog()
    try await bench.connect(log)
    #expect(bench.agent.domainManager === bench.domains)
    #expect(bench.domains.getCurrentDomain() == bench.domain)
    let first = await bench.check()
    #expect(first.errorMessage == nil && !first.hasUpdate)
    // The check is signed by the device's serial signature (sn-sign first, PROTOCOL.md §8).
    #expect(
      bench.cloud.requestLog.map(\.path) == [
        "/developer/api/open/partner/sdk/sn-sign", "/developer/api/open/partner/sdk/version/latest",
      ])

    // The domain manager's domain is the agent's: another cloud set there gets the next one.
    let other = try CloudEmulator()
    defer { other.stop() }
    let otherToken = other.issueToken(userID: FacadeCloudBench.userID)
    bench.agent.setUserAccessToken(otherToken)
    bench.domains.setCustomDomain("127.0.0.1:\(other.port)")
    let second = await bench.check()
    #expect(second.errorMessage == nil)
    #expect(other.requestLog.count == 2 && bench.cloud.requestLog.count == 2)

    // The cloud bind of the uploader goes there too.
    let uploader = PlaudFileUploader(agent: bench.agent)
    let bound = await withCheckedContinuation { continuation in
      uploader.bindDevice(ownerId: "ignored", sn: bench.serial) { result in
        continuation.resume(returning: (try? result.get())?["sn"] as? String)
      }
    }
    #expect(bound == bench.serial)
    #expect(other.binding(of: bench.serial) == FacadeCloudBench.userID)

    // A domain that is not a domain: the request is never made, the reason is given.
    bench.domains.setCustomDomain("http://platform-us.plaud.ai")
    let refused = await bench.check()
    #expect(
      refused.errorMessage?.contains("not a usable cloud domain") == true
        || refused.errorMessage?.contains("http") == true)
    #expect(other.requestLog.count == 3)
  }

  @Test("a Mode B recorder bound to another account: the rejected-handshake callbacks, once")
  func boundElsewhereIsARejectedHandshake() async throws {
    let bench = try FacadeCloudBench(seed: 0x26_0109, portVersion: 20, boundElsewhere: true)
    defer { bench.cleanUp() }
    let log = CallbackLog()
    bench.agent.delegate = log
    let stranger = bench.cloud.issueToken(userID: "ffffffff-0000-1111-2222-333333333333")
    bench.agent.initSDK(userAccessToken: stranger, customDomain: bench.domain)
    bench.agent.connectBySN(bench.serial)
    try await eventually("refused") { log.count("bleConnectState -2") == 1 }
    #expect(log.count("bleBind \(bench.serial) status=1") == 1)
    #expect(await bench.device.counters.connections == 1, "not retried")
  }

  @Test("recoveryConnectBleDevice: a wrong earlier id is refused, the locked account's id accepted")
  func recoveryConnectWithTheEarlierAccount() async throws {
    let bench = try FacadeCloudBench(seed: 0x26_010A, portVersion: 20, boundElsewhere: true)
    defer { bench.cleanUp() }
    let log = CallbackLog()
    bench.agent.delegate = log
    let current = bench.cloud.issueToken(userID: "ffffffff-0000-1111-2222-333333333333")
    bench.agent.initSDK(userAccessToken: current, customDomain: bench.domain)
    let recorder = BleDevice(serialNumber: bench.serial)
    // A wrong earlier id: refused as the locked recorder refuses (the link drops).
    bench.agent.recoveryConnectBleDevice(
      bleDevice: recorder, historicalUserId: "client_user_99999999-0000-0000-0000-000000000000")
    try await eventually("refused") { log.count("bleConnectState -2") == 1 }
    // The account the recorder is locked to.
    bench.agent.recoveryConnectBleDevice(
      bleDevice: recorder, historicalUserId: "client_user_" + FacadeCloudBench.userID)
    try await eventually("accepted") { log.count("bleBind \(bench.serial) status=0") == 1 }
    #expect(await bench.device.counters.connections == 2)
  }

  @Test("setUserAccessToken: the next handshake and every request use it at once; nil clears")
  func userTokenInForce() async throws {
    let bench = try FacadeCloudBench(seed: 0x26_0102)
    defer { bench.cleanUp() }
    let log = CallbackLog()
    bench.agent.delegate = log
    // Another user's token: the device refuses its handshake token.
    let stranger = bench.cloud.issueToken(userID: "ffffffff-0000-1111-2222-333333333333")
    bench.agent.initSDK(userAccessToken: stranger, customDomain: bench.domain)
    bench.agent.connectBySN(bench.serial)
    try await eventually("refused") { log.count("bleConnectState -2") == 1 }
    #expect(log.count("bleBind \(bench.serial) status=1") == 1)
    let keys = bench.keyStore
    let strangerAccount = UserKeyRing.account(forUser: "ffffffff000011112222333333333333")
    let userAccount = UserKeyRing.account(forUser: bench.deviceToken)
    try await eventually("the key pair made at initSDK") {
      (try? keys.secret(for: strangerAccount)) != nil
    }
    let strangerKey = try #require(try keys.secret(for: strangerAccount))
    #expect(try keys.secret(for: userAccount) == nil)

    bench.agent.setUserAccessToken(bench.userToken)
    bench.agent.connectBySN(bench.serial)
    try await eventually("connected") { log.count("bleStorage") == 1 }
    #expect(log.has("bleBind \(bench.serial) status=0 port=10 tz=3"))
    try await eventually("the new user's key pair") {
      (try? keys.secret(for: userAccount)) != nil
    }
    let userKey = try #require(try keys.secret(for: userAccount))
    #expect(userKey != strangerKey)

    // The cloud stops accepting the token; a refreshed one works for the very next request.
    bench.cloud.expire(bench.userToken)
    let expired = await bench.check()
    #expect(expired.errorMessage?.contains("expired") == true)
    bench.agent.setUserAccessToken(bench.cloud.issueToken(userID: FacadeCloudBench.userID))
    let refreshed = await bench.check()
    #expect(refreshed.errorMessage == nil)
    // The same user keeps the key its devices and recordings hold.
    #expect(try keys.secret(for: userAccount) == userKey)

    // nil clears the credentials: no request, no handshake.
    bench.agent.setUserAccessToken(nil)
    let cleared = await bench.check()
    #expect(cleared.errorMessage == "\(PlaudSDKError.noUserToken)")
    bench.agent.disconnect()
    try await eventually("disconnected") { log.count("bleConnectState 0") == 1 }
    bench.agent.connectBySN(bench.serial)
    try await eventually("no token") { log.count("bleConnectState -1") == 1 }
    #expect(bench.agent.lastError == .noUserToken)
    bench.agent.clearSDKCredentials()
    #expect(try keys.secret(for: userAccount) == userKey, "keys stay: recordings stay readable")
  }

  @Test(
    "a Mode B device that answers only the cloud's serial signature connects through the facade")
  func modeBSignatureFromTheCloud() async throws {
    let bench = try FacadeCloudBench(seed: 0x26_0103, portVersion: 20, requireSignature: true)
    defer { bench.cleanUp() }
    let log = CallbackLog()
    try await bench.connect(log)
    #expect(log.has("bleBind \(bench.serial) status=0 port=20 tz=3"))
    #expect(bench.cloud.requestLog.map(\.path).contains("/developer/api/open/partner/sdk/sn-sign"))
    // The user key is registered beside the handshake (RecorderKit), so it may land later.
    try await eventually("gen-key") {
      bench.cloud.requestLog.map(\.path).contains("/developer/api/open/partner/sdk/gen-key")
    }
    #expect(await bench.device.counters.refusedSerialSignatures == 0)
  }

  @Test("update packages: quickUpdateCheck(device:) → downloadUpdate (MD5-checked) → clean")
  func updatePackages() async throws {
    let bench = try FacadeCloudBench(seed: 0x26_0104)
    defer { bench.cleanUp() }
    let v96 = FirmwareVersion(type: 0x56, code: 96)
    let image = EmulatedFirmwareImage.make(version: v96, size: 4096, seed: 31)
    bench.cloud.publishFirmware(type: "note", version: v96, image: image, force: true)
    let log = CallbackLog()
    try await bench.connect(log)
    let status = await withCheckedContinuation { continuation in
      bench.agent.quickUpdateCheck(device: BleDevice(serialNumber: bench.serial)) {
        continuation.resume(returning: $0)
      }
    }
    guard case .available(let info) = status else {
      Issue.record("expected an available update, got \(status)")
      return
    }
    #expect(info.version_number == "V0096" && info.version_code == "96" && info.force_update)
    #expect(info.type == "note" && info.version_type == "V")

    let statuses = Locked<[String]>([])
    let path = await withCheckedContinuation { continuation in
      bench.agent.downloadUpdate(versionInfo: info) { status in
        switch status {
        case .downloading(let progress): statuses.withLock { $0.append("downloading \(progress)") }
        case .downloaded(let path): continuation.resume(returning: Optional(path))
        case .failed(let error):
          statuses.withLock { $0.append("failed \(error)") }
          continuation.resume(returning: nil)
        default: statuses.withLock { $0.append("\(status)") }
        }
      }
    }
    let downloaded = try #require(path, "\(statuses.withLock { $0 })")
    #expect(FileManager.default.contents(atPath: downloaded).map { Array($0) } == image)
    #expect(statuses.withLock { $0 }.last == "downloading 1.0")
    #expect(bench.agent.getDownloadedUpdatePackages() == [downloaded])
    #expect(bench.agent.cleanDownloadedUpdatePackages())
    #expect(bench.agent.getDownloadedUpdatePackages().isEmpty)

    // A wrong MD5, or none: refused, nothing kept.
    let wrong = LatestVersionResponse(
      type: info.type, model: info.model, version_type: "V", version_code: "96",
      version_number: "V0096", version_description: "", is_force: false,
      is_strong_guidance: false, file_md5: String(repeating: "0", count: 32),
      download_url: info.download_url)
    for md5 in [wrong.file_md5, nil] {
      let outcome = await withCheckedContinuation { continuation in
        bench.agent.downloadUpdatePackage(
          downloadURL: info.download_url, model: info.model, versionNumber: "V0096",
          fileMD5: md5
        ) { continuation.resume(returning: ($0, $1)) }
      }
      #expect(outcome.0 == false && outcome.1?.isEmpty == false)
    }
    #expect(bench.agent.getDownloadedUpdatePackages().isEmpty)

    // Codable with the vendor's snake_case keys.
    let json = try JSONEncoder().encode(info)
    let text = String(decoding: json, as: UTF8.self)
    #expect(text.contains("\"version_number\":\"V0096\"") && text.contains("\"is_force\":true"))
    let decoded = try JSONDecoder().decode(LatestVersionResponse.self, from: json)
    #expect(decoded.version == "V0096" && decoded.download_url == info.download_url)
  }

  @Test(
    "the model-based queries and uploads answer 'not supported by RecorderKit' through their callbacks"
  )
  func unsupportedMembers() async throws {
    let agent = PlaudDeviceAgent(
      configuration: {
        var configuration = PlaudSDKConfiguration()
        configuration.domainManager = PlaudDomainManager()
        return configuration
      }())
    let quick = await withCheckedContinuation { continuation in
      agent.quickUpdateCheck(model: "notepin") { continuation.resume(returning: ($0, $1)) }
    }
    #expect(quick.0 == false && quick.1?.contains("not supported by RecorderKit") == true)
    let silent = await withCheckedContinuation { continuation in
      agent.silentUpdateCheck(model: "notepin") { ok, info, error in
        continuation.resume(returning: (ok, info == nil, error.map { "\($0)" } ?? ""))
      }
    }
    #expect(silent.0 == false && silent.1 && silent.2.contains("not supported by RecorderKit"))
    let statuses = await withCheckedContinuation { continuation in
      let seen = Locked<[String]>([])
      agent.performUpdateCheck(model: "notepin") { status in
        let count = seen.withLock { seen -> Int in
          seen.append("\(status)")
          return seen.count
        }
        if count == 2 { continuation.resume(returning: seen.withLock { $0 }) }
      }
    }
    #expect(statuses.first == "checking" && statuses.last?.contains("not supported") == true)
    let failure = await withCheckedContinuation { continuation in
      agent.checkLatestVersionForModel(
        "notepin", snType: "notepin", versionType: "V", hasUpdate: { _, _ in },
        failure: { continuation.resume(returning: $0) })
    }
    #expect(failure.contains("not supported by RecorderKit"))
    let token = await withCheckedContinuation { continuation in
      agent.sendApiToken(token: "t") { continuation.resume(returning: ($0, $1)) }
    }
    #expect(token.0 == false && token.1.contains("not supported by RecorderKit"))
    let uploader = PlaudFileUploader(agent: agent)
    let upload = await withCheckedContinuation { continuation in
      uploader.uploadRecording(
        sn: "888", sessionId: 1, duration: 1, onProgress: { _ in }, onSuccess: { _ in },
        onFailure: { continuation.resume(returning: "\($0)") })
    }
    #expect(upload.contains("not supported by RecorderKit"))
    #expect(agent.lastError?.description.contains("not supported by RecorderKit") == true)
    // No token: binding fails with the reason.
    let bind = await withCheckedContinuation { continuation in
      uploader.unbindDevice(ownerId: "", sn: "888") { result in
        if case .failure(let error) = result {
          continuation.resume(returning: "\(error)")
        } else {
          continuation.resume(returning: "success")
        }
      }
    }
    #expect(bind == "\(PlaudSDKError.noUserToken)")
  }
}
