import Foundation
import PlaudDeviceBasicSDK
import RecorderConcurrency
import TestSupport
import Testing

/// The device bench's members that are not supported: each is called on the connected agent
/// and must fail loudly (its own callback or return value, the reason, `lastError`); then the
/// callbacks that answer them, and those that must never have fired.
extension MemberStatusRegistry {
  static let deviceRefusals: [MemberCheck] = [
    on(
      .device, agent,
      #"`func initSDK(hostName:appKey:appSecret:bindToken: = "", extra: = [:], customDomain: String? = nil, partnerToken: String? = nil)`"#
    ) { c in
      try await c.refusal("initSDK(hostName:", heard: "bleAppKeyState 2") {
        c.agent.initSDK(hostName: "example.com", appKey: "key", appSecret: "secret")
      }
    },
    on(.device, agent, #"`func getPartnerApiManager() -> PlaudPartnerApiManager`"#) { c in
      let manager = c.agent.getPartnerApiManager()
      try require(!manager.isSupported, "isSupported is true")
      return try c.lastErrorRefusal("getPartnerApiManager", "isSupported false")
    },
    on(.device, agent, #"`func isPartnerDataReady() -> Bool`"#) { c in
      try require(!c.agent.isPartnerDataReady(), "true")
      return try c.lastErrorRefusal("isPartnerDataReady", "false")
    },
    on(.device, agent, #"`static func getTestAppKey(_ beta: Bool = false) -> String`"#) { _ in
      // A static member: its return value is its only channel (no agent's lastError).
      let key = PlaudDeviceAgent.getTestAppKey() + PlaudDeviceAgent.getTestAppKey(true)
      return key.isEmpty ? .refused("\"\": no vendor test credentials") : .answered(key)
    },
    on(.device, agent, #"`static func getTestAppSecret(_ beta: Bool = false) -> String`"#) { _ in
      let secret = PlaudDeviceAgent.getTestAppSecret() + PlaudDeviceAgent.getTestAppSecret(true)
      return secret.isEmpty ? .refused("\"\": no vendor test credentials") : .answered("a secret")
    },
    on(.device, agent, #"`func setDeviceBinding(token: String)`"#) { c in
      try await c.refusal("setDeviceBinding", heard: nil) { c.agent.setDeviceBinding(token: "t") }
    },
    on(.device, agent, #"`func getWifiSyncEnable()`"#) { c in
      try await c.refusal("getWifiSyncEnable", heard: "onWifiSyncEnabled -1") {
        c.agent.getWifiSyncEnable()
      }
    },
    on(.device, agent, #"`func setWifiSyncEnable(value: Int)`"#) { c in
      try await c.refusal("setWifiSyncEnable", heard: "onWifiSyncEnabled -1") {
        c.agent.setWifiSyncEnable(value: 1)
      }
    },
    on(.device, agent, #"`func setWifiSyncTest(wifiIndex: UInt32)`"#) { c in
      try await c.refusal("setWifiSyncTest", heard: "onWifiSyncTestResult 3 -1 -1") {
        c.agent.setWifiSyncTest(wifiIndex: 3)
      }
    },
    on(.device, agent, #"`func getWifiSyncTestResult(wifiIndex: UInt32)`"#) { c in
      try await c.refusal("getWifiSyncTestResult", heard: "onWifiSyncTestResult 4 -1 -1") {
        c.agent.getWifiSyncTestResult(wifiIndex: 4)
      }
    },
    on(.device, agent, #"`func setUDiskMode(onOff: Bool)`"#) { c in
      try await c.refusal("setUDiskMode", heard: nil) { c.agent.setUDiskMode(onOff: true) }
    },
    on(.device, agent, #"`func setDeviceActive(status: Int)`"#) { c in
      try await c.refusal("setDeviceActive", heard: "bleSetActive -1") {
        c.agent.setDeviceActive(status: 1)
      }
    },
    on(.device, agent, #"`func restoreFactory()`"#) { c in
      let seen = try await c.refusal("restoreFactory", heard: nil) { c.agent.restoreFactory() }
      try require(c.agent.isConnected(), "the connection did not survive")
      return seen
    },
    on(.device, agent, #"`func getWifiSyncConfig(wifiIndex: UInt32)`"#) { c in
      try await c.refusal("getWifiSyncConfig", heard: nil) {
        c.agent.getWifiSyncConfig(wifiIndex: 1)
      }
    },
    on(
      .device, agent,
      #"`func setWifiSyncConfig(operation: Int, wifiIndex: UInt32, ssid: String, password: String)`"#
    ) { c in
      try await c.refusal("setWifiSyncConfig", heard: "onWifiSyncConfigSet -1") {
        c.agent.setWifiSyncConfig(operation: 1, wifiIndex: 1, ssid: "home", password: "pw")
      }
    },
    on(.device, agent, #"`func getWifiSyncList()`"#) { c in
      try await c.refusal("getWifiSyncList", heard: nil) { c.agent.getWifiSyncList() }
    },
    on(.device, agent, #"`func deleteWifiSyncConfig(wifiIndices: [UInt32])`"#) { c in
      try await c.refusal("deleteWifiSyncConfig", heard: "onWifiSyncDeleteResult -1") {
        c.agent.deleteWifiSyncConfig(wifiIndices: [1, 2])
      }
    },
    on(.device, agent, #"`func reportDeviceMetadata()`"#) { c in
      try await c.refusal("reportDeviceMetadata", heard: nil) { c.agent.reportDeviceMetadata() }
    },
    on(
      .device, agent,
      #"`func sendApiToken(token: String, callback: @escaping (Bool, String) -> Void)`"#
    ) { c in
      let (ok, reason) = try await answer("sendApiToken") { done in
        c.agent.sendApiToken(token: "t") { done(($0, $1)) }
      }
      try require(!ok, "the callback said true")
      guard case .refused = refusedText(reason, "sendApiToken") else { return .answered(reason) }
      return try c.lastErrorRefusal("sendApiToken", "callback(false, reason)")
    },
    on(
      .device, agent,
      #"`func sendBinaryFile(type: Int, data: Data?, callback: @escaping (Bool, String) -> Void)`"#
    ) { c in
      let (ok, reason) = try await answer("sendBinaryFile") { done in
        c.agent.sendBinaryFile(type: 1, data: Data([1, 2, 3])) { done(($0, $1)) }
      }
      try require(!ok, "the callback said true")
      guard case .refused = refusedText(reason, "sendBinaryFile") else { return .answered(reason) }
      return try c.lastErrorRefusal("sendBinaryFile", "callback(false, reason)")
    },
    on(.device, agent, #"`func checkSdkResource()`"#) { c in
      try await c.refusal("checkSdkResource", heard: "onSdkCheckResourceResult false ") {
        c.agent.checkSdkResource()
      }
    },
    // The model-based update queries.
    on(
      .device, update,
      #"`func quickUpdateCheck(model: String, snType: String = "notepin", versionType: String = "V", showUI: Bool = true, completion: ((Bool, String?) -> Void)? = nil)`"#
    ) { c in
      let (ok, text) = try await answer("quickUpdateCheck") { done in
        c.agent.quickUpdateCheck(model: "notepin") { done(($0, $1)) }
      }
      try require(!ok, "true")
      guard case .refused = refusedText(text, "quickUpdateCheck") else { return .answered("") }
      return try c.lastErrorRefusal("quickUpdateCheck", "(false, reason)")
    },
    on(
      .device, update,
      #"`func silentUpdateCheck(model: String, snType: String = "notepin", versionType: String = "V", completion: @escaping (Bool, LatestVersionResponse?, (any Error)?) -> Void)`"#
    ) { c in
      let (ok, text) = try await answer("silentUpdateCheck") { done in
        c.agent.silentUpdateCheck(model: "notepin") { ok, response, error in
          done((ok && response != nil, error.map { "\($0)" }))
        }
      }
      try require(!ok, "an answer")
      guard case .refused = refusedText(text, "silentUpdateCheck") else { return .answered("") }
      return try c.lastErrorRefusal("silentUpdateCheck", "(false, nil, error)")
    },
    on(
      .device, update,
      #"`func checkForceUpdate(model: String, snType: String = "notepin", versionType: String = "V", completion: @escaping (Bool, LatestVersionResponse?) -> Void)`"#
    ) { c in
      let ok = try await answer("checkForceUpdate") { done in
        c.agent.checkForceUpdate(model: "notepin") { ok, response in done(ok || response != nil) }
      }
      try require(!ok, "an answer")
      return try c.lastErrorRefusal("checkForceUpdate", "(false, nil)")
    },
    on(
      .device, update,
      #"`func checkLatestVersion(model: String, snType: String = "notepin", versionType: String = "V", callback: @escaping UpdateStatusCallback)`"#
    ) { c in
      let text = try await answer("checkLatestVersion") {
        (done: @escaping @Sendable (String) -> Void) in
        c.agent.checkLatestVersion(model: "notepin") { status in
          if case .failed(let error) = status { done("\(error)") }
        }
      }
      guard case .refused = refusedText(text, "checkLatestVersion") else { return .answered(text) }
      return try c.lastErrorRefusal("checkLatestVersion", ".failed(reason)")
    },
    on(
      .device, update,
      #"`func performUpdateCheck(model: String, snType: String = "notepin", versionType: String = "V", callback: @escaping UpdateStatusCallback)`"#
    ) { c in
      let text = try await answer("performUpdateCheck") {
        (done: @escaping @Sendable (String) -> Void) in
        c.agent.performUpdateCheck(model: "notepin") { status in
          if case .failed(let error) = status { done("\(error)") }
        }
      }
      guard case .refused = refusedText(text, "performUpdateCheck") else { return .answered(text) }
      return try c.lastErrorRefusal("performUpdateCheck", ".failed(reason)")
    },
    on(
      .device, update,
      #"`func checkLatestVersionForModel(_ model: String, snType: String, versionType: String, hasUpdate: @escaping (Bool, LatestVersionResponse?) -> Void, failure: @escaping (String) -> Void)`"#
    ) { c in
      let text = try await answer("checkLatestVersionForModel") {
        (done: @escaping @Sendable (String) -> Void) in
        c.agent.checkLatestVersionForModel(
          "notepin", snType: "notepin", versionType: "V", hasUpdate: { _, _ in done("hasUpdate") },
          failure: { done($0) })
      }
      guard case .refused = refusedText(text, "checkLatestVersionForModel") else {
        return .answered(text)
      }
      return try c.lastErrorRefusal("checkLatestVersionForModel", "failure(reason)")
    },
    on(
      .device, update,
      #"`func PlaudQuickUpdateCheck(model:snType: = "notepin", versionType: = "V", showUI: = true, completion: ((Bool, String?) -> Void)? = nil)  (free function)`"#
    ) { _ in
      // The free function runs on PlaudDeviceAgent.shared: its completion carries the reason.
      let (ok, text) = try await answer("PlaudQuickUpdateCheck") { done in
        PlaudQuickUpdateCheck(model: "notepin") { done(($0, $1)) }
      }
      try require(!ok, "true")
      return refusedText(text, "quickUpdateCheck")
    },
    on(
      .device, update,
      #"`func PlaudSilentUpdateCheck(model:snType: = "notepin", versionType: = "V", completion: @escaping (Bool, LatestVersionResponse?, (any Error)?) -> Void)  (free function)`"#
    ) { _ in
      let (ok, text) = try await answer("PlaudSilentUpdateCheck") { done in
        PlaudSilentUpdateCheck(model: "notepin") { ok, response, error in
          done((ok && response != nil, error.map { "\($0)" }))
        }
      }
      try require(!ok, "an answer")
      return refusedText(text, "silentUpdateCheck")
    },
    // The callbacks that answer those calls: they fire (their rows say how).
    on(.device, callbacks, #"`optional func bleAppKeyState(result: Int)`"#) { c in
      try require(c.log.has("bleAppKeyState 2"), "no bleAppKeyState 2 after initSDK(hostName:…)")
      return .answered("bleAppKeyState 2")
    },
    on(.device, callbacks, #"`optional func bleSetActive(status: Int)`"#) { c in
      try require(c.log.has("bleSetActive -1"), "no bleSetActive -1 after setDeviceActive")
      return .answered("bleSetActive -1")
    },
    on(.device, callbacks, #"`optional func onSdkCheckResourceResult(pass: Bool, tips: String)`"#) {
      c in
      try require(c.log.count("onSdkCheckResourceResult false ") == 1, "not after checkSdkResource")
      return .answered("pass false with the reason")
    },
    on(
      .device, callbacks,
      #"`optional func onCommonMsgChannel(type: Int, value: Int, tips: String)`"#
    ) { c in
      let heard = c.log.count("onCommonMsgChannel -1 -1 ")
      try require(
        heard == 6, "\(heard) onCommonMsgChannel(-1, -1) for the 6 calls without their own")
      return .answered("type -1, value -1 with why, \(heard) times")
    },
    // The idle-sync callbacks that answer their call with -1.
    on(.device, callbacks, #"`optional func onWifiSyncEnabled(_ value: Int)`"#) { c in
      try await c.refusal("getWifiSyncEnable", heard: "onWifiSyncEnabled -1") {
        c.agent.getWifiSyncEnable()
      }
    },
    on(.device, callbacks, #"`optional func onWifiSyncConfigSet(result: Int)`"#) { c in
      try await c.refusal("setWifiSyncConfig", heard: "onWifiSyncConfigSet -1") {
        c.agent.setWifiSyncConfig(operation: 2, wifiIndex: 2, ssid: "office", password: "pw")
      }
    },
    on(.device, callbacks, #"`optional func onWifiSyncDeleteResult(result: Int)`"#) { c in
      try await c.refusal("deleteWifiSyncConfig", heard: "onWifiSyncDeleteResult -1") {
        c.agent.deleteWifiSyncConfig(wifiIndices: [3])
      }
    },
    on(
      .device, callbacks,
      #"`optional func onWifiSyncTestResult(index: UInt32, result: Int, rawCode: Int)`"#
    ) { c in
      try await c.refusal("getWifiSyncTestResult", heard: "onWifiSyncTestResult 5 -1 -1") {
        c.agent.getWifiSyncTestResult(wifiIndex: 5)
      }
    },
  ]

  // MARK: - Callbacks that never fire

  /// A never-firing callback whose vendor trigger is `call`: the trigger fails loudly
  /// (`onCommonMsgChannel`, naming `member`) and the callback stays silent.
  static func silent(
    _ prefix: String, after member: String, _ call: @escaping @Sendable (MemberContext) -> Void
  ) -> @Sendable (MemberContext) async throws -> SeenStatus {
    { c in
      _ = try await c.refusal(member, heard: nil) { call(c) }
      return c.neverFired(prefix, member)
    }
  }

  static let deviceNeverFired: [MemberCheck] = [
    on(
      .device, callbacks,
      #"`optional func onWifiSyncConfigReceived(index: UInt32, ssid: String, password: String)`"#,
      silent("onWifiSyncConfigReceived", after: "getWifiSyncConfig") {
        $0.agent.getWifiSyncConfig(wifiIndex: 2)
      }),
    on(
      .device, callbacks, #"`optional func onWifiSyncListReceived(list: [UInt32])`"#,
      silent("onWifiSyncListReceived", after: "getWifiSyncList") { $0.agent.getWifiSyncList() }),
    on(.device, callbacks, #"`optional func onWifiSyncTestStarted(index: UInt32)`"#) { c in
      _ = try await c.refusal("setWifiSyncTest", heard: "onWifiSyncTestResult 6 -1 -1") {
        c.agent.setWifiSyncTest(wifiIndex: 6)
      }
      return c.neverFired("onWifiSyncTestStarted", "setWifiSyncTest")
    },
    on(.device, callbacks, #"`optional func onWifiSyncWillStart(seconds: Int)`"#) { c in
      c.neverFired("onWifiSyncWillStart", "the bench's idle-sync calls")
    },
    on(.device, callbacks, #"`optional func onWifiSyncUrl(url: String)`"#) { c in
      c.neverFired("onWifiSyncUrl", "the bench's idle-sync calls")
    },
    on(.device, callbacks, #"`optional func onWifiRssiRequestConfirmed(status: Int)`"#) { c in
      c.neverFired("onWifiRssiRequestConfirmed", "the bench's idle-sync calls")
    },
    on(.device, callbacks, #"`optional func onSdkFetchPermissionResult(pass: Bool, tips: String)`"#)
    { c in
      c.neverFired("onSdkFetchPermissionResult", "initSDK, the connect and checkSdkResource")
    },
    on(.device, callbacks, #"`optional func onSdkCheckPermissionResult(pass: Bool, tips: String)`"#)
    { c in
      c.neverFired("onSdkCheckPermissionResult", "initSDK, the connect and checkSdkResource")
    },
    on(.device, callbacks, #"`optional func bleCommonSetting(setting: Int)`"#) { c in
      c.neverFired("bleCommonSetting", "the bench's settings (mic gain, name)")
    },
    on(
      .device, callbacks, #"`optional func bleRate(lossRate: Double, rate: Int, instantRate: Int)`"#
    ) { c in
      c.neverFired("bleRate", "a download and an export over BLE")
    },
    on(.device, callbacks, #"`optional func bleOtaDataSendFail()`"#) { c in
      // A push that fails: the completion and bleFotaResult say so, never this callback.
      let failed = try await answer("the failed push") { done in
        c.agent.pushFirmwareFile(
          filePath: c.scratch + "/no-such-image.bin", toVersion: "V0096", progress: { _, _ in },
          completion: { done(!$0.success) })
      }
      try require(failed, "a push of a missing file succeeded")
      try await eventually("bleFotaResult") {
        c.log.count("bleFotaResult ") > 0
      }
      return c.neverFired("bleOtaDataSendFail", "a failed firmware push")
    },
  ]

  // MARK: - Last: the disconnect

  static let deviceLast: [MemberCheck] = [
    on(.device, agent, #"`func disconnect()`"#) { c in
      let entry = try await c.call({ c.agent.disconnect() }, heard: "bleConnectState ")
      try require(entry == "bleConnectState 0", entry)
      try require(!c.agent.isConnected(), "still connected")
      try await eventually("link down") { !(await c.device.isConnected) }
      return .answered(entry)
    }
  ]
}
