import Foundation
import PlaudBleSDK
import PlaudDeviceBasicSDK
import PlaudWiFiSDK
import RecorderConcurrency
import TestSupport
import Testing

/// The not-supported members of PlaudBleSDK and PlaudWiFiSDK that no other test calls, each
/// with the callback its failure arrives on (nil: `lastError` only).
enum LowerRefusals {
  enum Agent: Sendable { case ble, wifi }
  static let checks:
    [(member: String, agent: Agent, call: @Sendable () -> Void, own: @Sendable (LowerSide) -> Bool)] =
      [
        (
          "getSyncInIdleWifiTestResult(wifiIndex:)", .ble,
          { BleAgent.shared.getSyncInIdleWifiTestResult(wifiIndex: 7) },
          { $0.ble.has("onSyncIdleWifiTestResult index=7 result=-1") }
        ),
        (
          "operateWiFi(open:isOTA:)", .ble,
          { BleAgent.shared.operateWiFi(open: true, isOTA: true) },
          { $0.ble.has("bleWiFiOpen -1") }
        ),
        (
          "pushFotaInfo(_:_:_:_:_:_:)", .ble,
          { BleAgent.shared.pushFotaInfo(11, "V0095", "V0096", 0, 10, 0) },
          { $0.ble.has("bleFotaResult uid=11 status=-1") }
        ),
        (
          // The overload with Character version types (BleAgentFlowTests calls the String one).
          "pushFotaInfo(_:_:_:_:_:_:_:_:)", .ble,
          {
            BleAgent.shared.pushFotaInfo(
              12, 95, Character("V"), 96, Character("V"), 0, 10, 0)
          }, { $0.ble.has("bleFotaResult uid=12 status=-1") }
        ),
        (
          "sendBinFileData(type:packageOffset:packageSize:data:)", .ble,
          {
            BleAgent.shared.sendBinFileData(
              type: 1, packageOffset: 0, packageSize: 2, data: Data([1, 2]))
          }, { $0.ble.all.filter { $0 == "onBinaryFileEnd result=-1" }.count >= 1 }
        ),
        (
          "sendBinFileCheckSumResult(type:crc:)", .ble,
          { BleAgent.shared.sendBinFileCheckSumResult(type: 1, crc: 0) },
          { $0.ble.all.filter { $0 == "onBinaryFileEnd result=-1" }.count >= 2 }
        ),
        (
          "appExtendWifiExitTime()", .wifi, { WiFiAgent.shared.appExtendWifiExitTime() },
          { $0.wifi.entries.current.contains("wifiTips -1") }
        ),
        (
          "clearAllWiFiConfigurations()", .wifi, { WiFiAgent.shared.clearAllWiFiConfigurations() },
          { _ in true }
        ),
        (
          "clearAllWiFiConfigurationsCompat()", .wifi,
          { WiFiAgent.shared.clearAllWiFiConfigurationsCompat() }, { _ in true }
        ),
        (
          "sendFilePackToPen(type:start:len:last:uid:binData:)", .wifi,
          {
            WiFiAgent.shared.sendFilePackToPen(
              type: 1, start: 0, len: 4, last: true, uid: 8, binData: Data([1, 2, 3, 4]))
          }, { $0.wifi.entries.current.contains("wifiOTAStatus -1 8") }
        ),
      ]

  /// Not-supported members called by a named test elsewhere (not in a list this test can
  /// read), with that test.
  static let checkedElsewhere: [String: String] = [
    "setHeartBeat(status:)": "BleAgentFlowTests.unsupportedFailsLoudly",
    "avcToNoiseReductionWav(avcPath:wavPath:channels:sound_plus:noiseReductionGain:clearUnfinished:completionHandler:)":
      "BleAgentFlowTests.conversionFailure",
    "startPushOTA(_:_:crc:_:)": "BleAgentFlowTests.wifiFlow",
  ]

  /// Every member PlaudBleSDK's and PlaudWiFiSDK's sources refuse as not supported: the
  /// names given to `unsupported(…)` (and its `fotaUnsupported` / `binaryUnsupported`
  /// kin) and `.notSupported(member:…)` there.
  static func refusedBySources() throws -> Set<String> {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
    var names: Set<String> = []
    let pattern = try NSRegularExpression(
      pattern: #"(?:[uU]nsupported\(|\.notSupported\(member:)\s*"([^"]+)""#)
    for module in ["Sources/PlaudBleSDK", "Sources/PlaudWiFiSDK"] {
      let directory = root.appendingPathComponent(module)
      for file in try FileManager.default.contentsOfDirectory(atPath: directory.path)
      where file.hasSuffix(".swift") {
        let text = try String(
          contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
        let range = NSRange(text.startIndex..., in: text)
        for match in pattern.matches(in: text, range: range) {
          if let name = Range(match.range(at: 1), in: text) { names.insert(String(text[name])) }
        }
      }
    }
    return names
  }
}

/// The delegates of both lower agents.
struct LowerSide: Sendable {
  let ble: LowerLog
  let wifi: WiFiLowerLog
}

@Suite("PlaudBleSDK and PlaudWiFiSDK: every not-supported member is called by a test")
struct LowerMemberStatusTests {
  @Test("every member the two modules refuse has a check that calls it and sees its failure")
  func everyRefusedMemberIsCalled() throws {
    let refused = try LowerRefusals.refusedBySources()
    #expect(refused.count >= 40, "the sources' refusals were not found: \(refused.count)")
    let called = Set(BleAgentFlowTests.unsupportedCommands.map(\.member))
      .union(LowerRefusals.checks.map(\.member)).union(LowerRefusals.checkedElsewhere.keys)
    let missing = refused.subtracting(called).sorted()
    print(
      "PlaudBleSDK and PlaudWiFiSDK: \(refused.count - missing.count) of \(refused.count) "
        + "refused members called by a test")
    #expect(missing.isEmpty, "refused members no test calls: \(missing)")
    let stale = called.subtracting(refused).sorted()
    #expect(stale.isEmpty, "checks of members the sources no longer refuse: \(stale)")
  }
}

extension BleAgentFlowTests {
  /// In BleAgentFlowTests' serialized suite: `BleAgent.shared` and `WiFiAgent.shared` are
  /// one per process.
  @Test("the refused members no other test calls: their reason on lastError, their callback")
  func remainingRefusals() async throws {
    let bench = try FacadeBench()
    let side = LowerSide(ble: LowerLog(), wifi: WiFiLowerLog())
    BleAgent.shared.pin(bench.agent)
    BleAgent.shared.delegate = side.ble
    WiFiAgent.shared.delegate = side.wifi
    defer {
      WiFiAgent.shared.delegate = nil
      BleAgent.shared.delegate = nil
      BleAgent.shared.pin(nil)
      bench.agent.disconnect()
      bench.cleanUp()
    }
    bench.agent.initSDK(
      userAccessToken: FacadeBench.userToken, customDomain: FacadeBench.offlineDomain)
    BleAgent.shared.connectBleDevice(bleDevice: BleDevice(sn: bench.device.serial), nil, nil, false)
    try await eventually("connected") { side.ble.has("bleConnectState state=1") }
    for check in LowerRefusals.checks {
      check.call()
      let error = check.agent == .ble ? BleAgent.shared.lastError : WiFiAgent.shared.lastError
      guard case .notSupported(let member, _) = error else {
        Issue.record("\(check.member): lastError \(String(describing: error))")
        continue
      }
      #expect(member == check.member)
      #expect(error?.description.contains("not supported by RecorderKit") == true)
      try await eventually("\(check.member)'s callback") { check.own(side) }
    }
  }
}

/// The doc's "PlaudDeviceBasicSDK members the checklist missed": its not-supported ones, each
/// called, each answering its documented failure.
@Suite("The added PlaudDeviceBasicSDK members the doc lists as not supported")
struct AddedMemberStatusTests {
  /// The members the doc's "**not supported** (7)" item names (backticked, with `()`).
  static func documented() throws -> [String] {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
    let text = try String(
      contentsOf: root.appendingPathComponent("docs/migrating-from-vendor-sdk.md"), encoding: .utf8)
    let section = try #require(
      text.range(of: "## PlaudDeviceBasicSDK members the checklist missed"))
    let item = try #require(
      text.range(of: "- **not supported**", range: section.upperBound..<text.endIndex))
    let end =
      text.range(of: "\n\n", range: item.upperBound..<text.endIndex)?.lowerBound ?? text.endIndex
    let body = text[item.upperBound..<end]
    return body.components(separatedBy: "`").enumerated().filter { $0.offset % 2 == 1 }.map(
      \.element
    )
    .filter { $0.hasSuffix("()") }
  }

  /// Each documented member's call and the failure it must answer (nil, "", or nothing
  /// done), as text; nil when it answered something else.
  static let checks: [String: @Sendable () -> String?] = [
    "getEncryptionKey()": { BleAgent.shared.getEncryptionKey() == nil ? "nil" : nil },
    "getEncryptionNonce()": { BleAgent.shared.getEncryptionNonce() == nil ? "nil" : nil },
    "getEncryptionAD()": { BleAgent.shared.getEncryptionAD() == nil ? "nil" : nil },
    "getEncryptionParameters()": {
      BleAgent.shared.getEncryptionParameters() == nil ? "nil" : nil
    },
    "getCurrentLogFilePath()": {
      PlaudLogFileRotationManager.shared.getCurrentLogFilePath().isEmpty ? "\"\"" : nil
    },
    "forceRotateCurrentLogFile()": {
      PlaudLogFileRotationManager.shared.forceRotateCurrentLogFile()
      return PlaudLogFileRotationManager.shared.getCurrentLogFilePath().isEmpty
        ? "no file to rotate" : nil
    },
    "notifyUploadCompleted()": {
      PlaudLogFileRotationManager.shared.notifyUploadCompleted()
      return PlaudLogFileRotationManager.shared.getCurrentLogFilePath().isEmpty
        ? "no file uploaded" : nil
    },
  ]

  @Test("each is called and answers its documented failure; the channel key's reason is loud")
  func eachAnswersItsFailure() throws {
    let documented = try Self.documented()
    #expect(documented.count == 7, "\(documented)")
    let missing = documented.filter { Self.checks[$0] == nil }
    #expect(missing.isEmpty, "documented as not supported, no check calls them: \(missing)")
    for member in documented {
      guard let check = Self.checks[member] else { continue }
      #expect(check() != nil, "\(member) did not answer its documented failure")
    }
    // Why the key getters answer nil: a decryption that needs the channel key says so.
    #expect(throws: EncryptionError.noKey) { try BleAgent.shared.decryptFileData(Data(count: 32)) }
    #expect(EncryptionError.noKey.localizedDescription.contains("not supported by RecorderKit"))
  }
}
