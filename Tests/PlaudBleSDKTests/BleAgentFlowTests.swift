import Foundation
import PlaudBleSDK
import PlaudDeviceBasicSDK
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import TestSupport
import Testing

/// PlaudBleSDK's `BleAgent` as the vendor's "advanced usage" apps drive it, against the
/// emulator: the same session as the facade agent (one connection), events translated to
/// `BleAgentProtocol`, settings and device commands answered with what the device reports,
/// unsupported commands failing loudly. Serialized: `BleAgent.shared` and its delegate are
/// one per process (each test pins BleAgent to its own facade agent).
@Suite("PlaudBleSDK BleAgent over the facade's session", .serialized)
struct BleAgentFlowTests {
  /// A bench whose agent BleAgent stands for, with `log` as BleAgent's delegate.
  private func withLowerAgent(
    portVersion: UInt16 = 10, _ body: (FacadeBench, LowerLog) async throws -> Void
  ) async throws {
    let bench = try FacadeBench(portVersion: portVersion)
    let log = LowerLog()
    BleAgent.shared.pin(bench.agent)
    BleAgent.shared.delegate = log
    defer {
      BleAgent.shared.delegate = nil
      BleAgent.shared.pin(nil)
      bench.agent.disconnect()
      bench.cleanUp()
    }
    bench.agent.initSDK(
      userAccessToken: FacadeBench.userToken, customDomain: FacadeBench.offlineDomain)
    BleAgent.shared.connectBleDevice(bleDevice: BleDevice(sn: bench.device.serial), nil, nil, false)
    try await eventually("bleConnectState 1") { log.has("bleConnectState state=1") }
    try await eventually("blePenState") { log.has("blePenState") }
    try await body(bench, log)
  }

  @Test("connect through BleAgent: the stages as they happen, then the vendor's order, one session")
  func connectStagesAndOrder() async throws {
    try await withLowerAgent { bench, log in
      let stages = log.all.filter { $0.hasPrefix("bleConnectStage") }.map {
        $0.components(separatedBy: "stage=")[1].components(separatedBy: " ")[0]
      }
      #expect(stages == ["start", "gattConnect", "setNotify", "firstHandshake", "syncTime"])
      let order = log.all.map { $0.components(separatedBy: " ")[0] }.filter {
        ["bleConnectStage", "bleConnectState", "bleBind", "blePenState"].contains($0)
      }
      #expect(order.last(where: { $0 != "bleConnectStage" }) == "blePenState")
      #expect(order.firstIndex(of: "bleConnectState")! > order.lastIndex(of: "bleConnectStage")!)
      // blePenState carries the firmware the device reported (V0095).
      #expect(log.first("blePenState")?.contains("versionType=V versionCode=95") == true)
      #expect(log.first("bleBind")?.contains("status=0") == true)
      // One connection: the facade agent BleAgent went through is the one connected.
      #expect(bench.agent.isConnected())
      #expect(BleAgent.shared.isAuthOk())
      #expect(BleAgent.shared.versionType == "V")
    }
  }

  @Test("a Mode B recorder's connect goes through the pre-handshake stage")
  func modeBStages() async throws {
    try await withLowerAgent(portVersion: 20) { _, log in
      let stages = log.all.filter { $0.hasPrefix("bleConnectStage") }.map {
        $0.components(separatedBy: "stage=")[1].components(separatedBy: " ")[0]
      }
      #expect(
        stages == [
          "start", "gattConnect", "setNotify", "preHandshake", "firstHandshake", "syncTime",
        ])
      #expect(log.first("bleBind")?.contains("protVersion=20") == true)
      #expect(BleAgent.shared.isSecureChannelEstablished)
    }
  }

  @Test("recording through BleAgent: start, the state BleAgent reports, stop, the file listed")
  func recordThroughBleAgent() async throws {
    try await withLowerAgent { bench, log in
      BleAgent.shared.startRecord()
      try await eventually("bleRecordStart") { log.has("bleRecordStart") }
      let started = try #require(log.first("bleRecordStart"))
      #expect(started.contains("status=0"), "\(started)")
      #expect(bench.agent.checkIsRecording())
      let sessionId = bench.agent.getCurrentSessionID()
      #expect(sessionId != 0)
      #expect(started.contains("sessionId=\(sessionId)"))
      try await bench.anyClock.sleep(for: .seconds(3))
      BleAgent.shared.stopRecord()
      try await eventually("bleRecordStop") { log.has("bleRecordStop") }
      #expect(!bench.agent.checkIsRecording())
      BleAgent.shared.getFileList(uid: 1, sessionId: 0)
      try await eventually("bleFileList") { log.has("bleFileList") }
      #expect(log.first("bleFileList")?.contains("\(sessionId)") == true)
    }
  }

  @Test("settings read and written through BleAgent report the device's values")
  func settingsRoundTrip() async throws {
    try await withLowerAgent { _, log in
      BleAgent.shared.setBacklightDuration(type: 2)
      try await eventually("bleBacklightDuration") { log.has("bleBacklightDuration") }
      #expect(log.first("bleBacklightDuration") == "bleBacklightDuration duration=2")
      BleAgent.shared.getCommonParams(dataType: CommonType.LightDuration.rawValue)
      try await eventually("onCommonParamsGetResult") { log.has("onCommonParamsGetResult") }
      #expect(
        log.first("onCommonParamsGetResult")
          == #"onCommonParamsGetResult success=true dataType=1 value=Optional("2")"#)
      BleAgent.shared.setRecScene(type: .Music)
      try await eventually("bleRecScene") { log.has("bleRecScene") }
      #expect(log.first("bleRecScene") == "bleRecScene scene=4")
      #expect(BleAgent.shared.settingScene == 4)
      BleAgent.shared.setCommonParams(dataType: 999, value: "1")
      try await eventually("onCommonParamsSetResult") { log.has("onCommonParamsSetResult") }
      #expect(
        log.first("onCommonParamsSetResult")
          == "onCommonParamsSetResult success=false dataType=999 value=nil")
    }
  }

  @Test("WebSocket settings (0010/0011) and TAGS through BleAgent")
  func webSocketAndTags() async throws {
    try await withLowerAgent { _, log in
      BleAgent.shared.setWebsocketProfile(type: .url, content: "wss://example.test/a")
      try await eventually("bleWebsocketProfile") { log.has("bleWebsocketProfile") }
      #expect(
        log.first("bleWebsocketProfile")
          == #"bleWebsocketProfile type=1 conent=Optional("wss://example.test/a")"#)
      BleAgent.shared.getRecordMarkingTags(uid: 7, startTimestamp: 0, endTimestamp: Int(UInt32.max))
      try await eventually("bleGetRecordMarkingTags") { log.has("bleGetRecordMarkingTags") }
      #expect(
        log.first("bleGetRecordMarkingTags")?.hasPrefix("bleGetRecordMarkingTags uid=7 totals=")
          == true)
      #expect(log.first("bleGetRecordMarkingTags")?.contains("totals=-1") == false)
      BleAgent.shared.getFileList(uid: 1, sessionId: 0)
      try await eventually("bleFileList") { log.has("bleFileList") }
    }
  }

  /// Every BleAgent command the migration doc lists as not supported, with the callback it
  /// fails through (nil: `lastError` only).
  static let unsupportedCommands: [(member: String, call: @Sendable () -> Void, own: String?)] = [
    (
      "setUserIdentifier(_:_:_:)", { BleAgent.shared.setUserIdentifier("k", "t") },
      "bleAppKeyState result=2"
    ),
    ("checkAppKey(_:)", { BleAgent.shared.checkAppKey("k") }, "bleAppKeyState result=2"),
    ("setBinding(_:)", { BleAgent.shared.setBinding("t") }, nil),
    ("isSNTempChecked()", { _ = BleAgent.shared.isSNTempChecked() }, nil),
    ("reCheckSNIfNeed()", { BleAgent.shared.reCheckSNIfNeed() }, nil),
    ("appResetPassword()", { BleAgent.shared.appResetPassword() }, "blePasswordReset password=-1"),
    (
      "getDeviceLogList(logType:)", { BleAgent.shared.getDeviceLogList(logType: 1) },
      "onGetDeviceLogList"
    ),
    (
      "startSyncDeviceLogFile(logType:)", { BleAgent.shared.startSyncDeviceLogFile(logType: 1) },
      "onSyncDeviceLogEnd"
    ),
    ("stopSyncDeviceLogFile()", { BleAgent.shared.stopSyncDeviceLogFile() }, "onSyncDeviceLogStop"),
    (
      "deleteDeviceLogFile(logType:)", { BleAgent.shared.deleteDeviceLogFile(logType: 1) },
      "onDeviceLogDeleted"
    ),
    ("readGlassData(uid:)", { BleAgent.shared.readGlassData(uid: 1) }, nil),
    ("clearGlassData()", { BleAgent.shared.clearGlassData() }, nil),
    (
      "pushFotaInfo(_:_:_:_:_:_:_:_:)",
      { BleAgent.shared.pushFotaInfo(9, 95, "V", 96, "V", 0, 10, 0) },
      "bleFotaResult uid=9 status=-1"
    ),
    (
      "pushFotaComplete(_:_:)", { BleAgent.shared.pushFotaComplete(9, 0) },
      "bleFotaPackFin uid=9 status=-1"
    ),
    (
      "pushFotaPack(_:packData:postDelayUs:)",
      { BleAgent.shared.pushFotaPack(0, packData: Data(), postDelayUs: nil) }, "bleOtaDataSendFail"
    ),
    ("startBleRateTest(_:)", { BleAgent.shared.startBleRateTest() }, "bleRate lossRate=-1.0"),
    ("stopBleRateTest()", { BleAgent.shared.stopBleRateTest() }, nil),
    ("restoreFactory()", { BleAgent.shared.restoreFactory() }, nil),
    (
      "setDeviceActive(status:)", { BleAgent.shared.setDeviceActive(status: 1) },
      "bleSetActive status=-1"
    ),
    (
      "setWiFiSsid(ssid:password:isTest:)",
      { BleAgent.shared.setWiFiSsid(ssid: "n", password: "p") }, "bleSetWiFiSsid status=-1"
    ),
    ("getWiFiSsid()", { BleAgent.shared.getWiFiSsid() }, "bleGetWiFiSsid status=-1"),
    ("testWebsocket()", { BleAgent.shared.testWebsocket() }, "bleWebsocketTest status=-1"),
    (
      "setAlarmRec(start:duration:repeatMode:)",
      { BleAgent.shared.setAlarmRec(start: 1, duration: 1, repeatMode: 0) }, "bleAlarmRec start=-1"
    ),
    ("getAlarmRec()", { BleAgent.shared.getAlarmRec() }, "bleAlarmRec start=-1"),
    (
      "sendBinFileInfo(type:totalSize:)",
      { BleAgent.shared.sendBinFileInfo(type: 1, totalSize: 1) }, "onBinaryFileEnd result=-1"
    ),
    (
      "getSyncInIdleWifiConfig(wifiIndex:)",
      { BleAgent.shared.getSyncInIdleWifiConfig(wifiIndex: 1) }, nil
    ),
    (
      "setSyncInIdleWifiConfig(operation:wifiIndex:ssid:password:)",
      {
        BleAgent.shared.setSyncInIdleWifiConfig(
          operation: 1, wifiIndex: 1, ssid: "n", password: "p")
      }, "onSyncIdleWifiConfigSet result=-1"
    ),
    (
      "deleteSyncInIdleWifiConfig(wifiIndices:)",
      { BleAgent.shared.deleteSyncInIdleWifiConfig(wifiIndices: [1]) },
      "onSyncIdleWifiDeleteResult result=-1"
    ),
    ("resetFindmy()", { BleAgent.shared.resetFindmy() }, "onResetFindmyResult result=-1"),
    ("getSyncInIdleWifiList()", { BleAgent.shared.getSyncInIdleWifiList() }, nil),
    (
      "setSyncInIdleWifiTest(wifiIndex:)", { BleAgent.shared.setSyncInIdleWifiTest(wifiIndex: 4) },
      "onSyncIdleWifiTestResult index=4 result=-1"
    ),
    (
      "setSoundPlusToken(licenseKey:)", { BleAgent.shared.setSoundPlusToken(licenseKey: "l") },
      "onSetSoundPlusTokenResult"
    ),
    ("getSDFLASHCID()", { BleAgent.shared.getSDFLASHCID() }, "onGetSDFlashCIDResult"),
    ("getNewFeature(_:)", { BleAgent.shared.getNewFeature(Data()) }, "bleNewFeature"),
    ("getDeviceStatus()", { BleAgent.shared.getDeviceStatus() }, "bleDeviceStatus"),
  ]

  @Test("every not-supported BleAgent command fails loudly: its reason, and its own callback")
  func everyUnsupportedCommand() async throws {
    try await withLowerAgent { _, log in
      for command in Self.unsupportedCommands {
        command.call()
        let error = BleAgent.shared.lastError
        guard case .notSupported(let member, _) = error else {
          Issue.record("\(command.member): lastError \(String(describing: error))")
          continue
        }
        #expect(member == command.member)
        #expect(error?.description.contains("not supported by RecorderKit") == true)
        if let own = command.own {
          try await eventually(own) { log.has(own) }
        }
      }
    }
  }

  @Test("a command no source of ours knows fails loudly through its own callback")
  func unsupportedFailsLoudly() async throws {
    try await withLowerAgent { _, log in
      BleAgent.shared.setHeartBeat(status: 1)
      try await eventually("bleHeartbeat") { log.has("bleHeartbeat") }
      #expect(log.first("bleHeartbeat") == "bleHeartbeat status=-1")
      #expect(
        BleAgent.shared.lastError?.description.contains("not supported by RecorderKit") == true)
      BleAgent.shared.pushFotaInfo(3, "V0095", "V0096", 0, 100, 0)
      try await eventually("bleFotaResult") { log.has("bleFotaResult") }
      #expect(log.first("bleFotaResult")?.hasPrefix("bleFotaResult uid=3 status=-1") == true)
    }
  }

  @Test("an audio conversion of bytes that are not audio fails, with its reason on lastError")
  func conversionFailure() async throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    _ = FileManager.default.createFile(
      atPath: dir + "bad.raw", contents: Data(repeating: 0x41, count: 400))
    let (ok, ms) = await completion { done in
      JXFileDecoder.shared.avcToMp3(avcPath: dir + "bad.raw", mp3Path: dir + "bad.mp3") {
        done(($0, $1))
      }
    }
    #expect(!ok && ms == 0)
    #expect(!FileManager.default.fileExists(atPath: dir + "bad.mp3"))
    let (nr, _) = await completion { done in
      JXFileDecoder.shared.avcToNoiseReductionWav(avcPath: dir + "bad.raw", wavPath: dir + "n.wav")
      {
        done(($0, $1))
      }
    }
    #expect(!nr)
    #expect(BleAgent.shared.lastError?.description.contains("not supported by RecorderKit") == true)
  }

}
