import Foundation
import PlaudDeviceBasicSDK
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import TestSupport
import Testing

@Suite("PlaudDeviceBasicSDK against the emulator (in process, virtual time)")
struct FacadeFlowTests {
  @Test(
    "every method with its exact labels; no central, no Wi-Fi session or joiner, firmware report clear errors"
  )
  func surfaceAndUnavailableFeatures() async throws {
    var configuration = PlaudSDKConfiguration()
    // Its own domain manager: `.shared` is one per process, and tests run in parallel.
    configuration.domainManager = PlaudDomainManager()
    let agent = PlaudDeviceAgent(configuration: configuration)
    let log = CallbackLog()
    agent.delegate = log
    agent.initSDK(userAccessToken: FacadeBench.userToken, customDomain: FacadeBench.offlineDomain)
    agent.setUserAccessToken(FacadeBench.userToken)
    agent.startScan()
    agent.stopScan()
    let device = BleDevice(serialNumber: "8881234567890123")
    agent.connectBleDevice(bleDevice: device)
    agent.connectBleDevice(bleDevice: device, deviceToken: "user-1")
    agent.connectBySN("8881234567890123")
    agent.depair(clear: true)
    agent.getFileList(startSessionId: 0)
    agent.exportAudio(sessionId: 1, outputDir: "/tmp", format: .mp3, channels: 1, callback: log)
    agent.exportAudio(sessionId: 1, outputDir: "/tmp", format: .wav, callback: log)
    agent.deleteFile(sessionId: 1)
    agent.setDeviceWiFi(open: true)
    agent.setDeviceWiFi(open: false)
    agent.endWiFiTransfer()
    #expect(agent.isWiFiTransferActive == false)
    let firmware = Locked<[String]>([])
    agent.checkFirmwareUpdate { result in
      firmware.withLock { $0.append("check \(result.hasUpdate) \(result.errorMessage ?? "")") }
    }
    agent.startFirmwareUpdate(
      progress: { phase, percentage in firmware.withLock { $0.append("progress") } },
      completion: { result in firmware.withLock { $0.append("update \(result.success)") } })
    agent.pushFirmwareFile(
      filePath: "/tmp/fw.bin", toVersion: "V1.2.8", progress: { _, _ in },
      completion: { result in
        firmware.withLock { $0.append("push \(result.success) \(result.errorMessage ?? "")") }
      })
    agent.activateBeaconMonitoring()
    agent.updateBeaconMonitoredDevices(serialNumbers: ["8881234567890123"])
    #expect(agent.isBeaconLocationAlwaysGranted == false)
    #expect(agent.canRequestBeaconLocationAlwaysUpgrade == false)
    let permission = Locked<Bool?>(nil)
    agent.requestBeaconLocationAlwaysPermission { granted in permission.withLock { $0 = granted } }
    agent.setIBeaconWakeupEnabled(value: 1)
    // `BleAgent.shared` is process-wide and other suites connect in parallel, so its value is
    // asserted where this test controls it (`connectAndControl`); here only its type.
    let _: BleDevice? = BleAgent.shared.bleDevice
    #expect(PlaudFileUploader.calculateSnType(sn: "881000") == "notepro")
    #expect(PlaudFileUploader.calculateSnType(sn: "882000") == "notepins")
    #expect(PlaudFileUploader.calculateSnType(sn: "880000") == "notepin")
    #expect(PlaudFileUploader.calculateSnType(sn: "888000") == "note")
    #expect(AudioExportFormat.pcm.rawValue == 0 && AudioExportFormat.mp3.rawValue == 1)
    #expect(AudioExportFormat.wav.rawValue == 2 && AudioExportFormat.opus.rawValue == 3)
    #expect(PlaudFirmwarePhase.allCases == [.downloading, .installing, .restarting, .complete])

    // Wi-Fi: every method and property of 002 (and the vendor's shipped interface) with its
    // exact shape; with no Wi-Fi session and no hotspot joiner each answers a clear failure.
    #expect(PlaudWiFiAgent.shared === PlaudDeviceAgent.shared.wifiAgent)
    let wifi = agent.wifiAgent
    wifi.delegate = log
    wifi.bleDevice = BleAgent.shared.bleDevice
    wifi.bleDevice = BleDevice(serialNumber: "8881234567890123")
    #expect(wifi.bleDevice?.serialNumber == "8881234567890123")
    #expect(!wifi.isConnected && !wifi.isDownloading && !wifi.isDownloadingAll)
    #expect(wifi.currentSessionId == 0)
    wifi.connectWifi("PLAUD0123", "password", 180)
    wifi.connectWifi("PLAUD0123", "password")
    wifi.getFileList(Int(Date().timeIntervalSince1970), 0, false)
    wifi.getFileList(1, 0)
    wifi.syncFile(1, 0, 0, 1)
    wifi.syncFile(1, 0)
    wifi.stopSyncFile(1, 1)
    wifi.stopSyncFile(1)
    wifi.deleteFile(1, 1)
    wifi.deleteFile(1)
    wifi.exportAudioViaWiFi(
      sessionId: 1, outputDir: "/tmp", format: .mp3, channels: 1, callback: log)
    wifi.exportAudioViaWiFi(sessionId: 1, outputDir: "/tmp", format: .wav, callback: log)
    wifi.startDownloadAll()
    wifi.startDownloadAll(outputDir: "/tmp", format: .opus, channels: 1)
    wifi.stopDownloadAll()
    wifi.disconnect()
    wifi.close()

    try await eventually("every answer") {
      log.count("bleDepair -1") == 1 && log.count("bleWiFiOpen -1") == 1
        && log.count("wifiClose") == 2 && firmware.withLock { $0.count } == 3
        && permission.withLock { $0 } != nil && log.count("bleDeleteFile status=-1") == 1
    }
    #expect(log.count("bleScanOverTime") == 1)
    #expect(log.count("bleConnectState -1") == 3)
    #expect(log.count("bleFileList []") == 1)
    #expect(log.count("onError no device is connected") == 2)
    #expect(log.count("bleFotaResult -1") == 2)
    #expect(log.count("wifiHandshake -1") == 2 && log.count("wifiCommonErr 1 -1") == 2)
    #expect(log.count("wifiFileListFail -1") == 2 && log.count("wifiCommonErr 11 -1") == 4)
    #expect(log.count("wifiSyncFile -1") == 2 && log.count("wifiCommonErr 12 -1") == 2)
    #expect(log.count("wifiSyncFileStop 0") == 2)
    #expect(log.count("wifiFileDelete 1 -1") == 2 && log.count("wifiCommonErr 14 -1") == 2)
    #expect(log.count("wifiCommonErr") == 10)
    #expect(log.count("onError \(PlaudSDKError.wifiNotConnected)") == 2)
    #expect(log.count("wifiDownloadAllCompleted 0 0") == 2)
    #expect(log.count("wifiClose -1") == 2 && log.count("wifiConnectionStatus") == 0)
    #expect(!agent.isWiFiTransferActive)
    #expect(
      firmware.withLock { $0 }.contains(
        "check false \(PlaudSDKError.notConnected)"))
    #expect(firmware.withLock { $0 }.filter { $0 == "progress" }.isEmpty)
    #expect(agent.lastError != nil)
    #expect(log.sawMainThread.withLock { $0 } == false)
  }

  @Test("malformed user tokens fail the connection with -1 and never leak the token")
  func malformedTokens() async throws {
    let bench = try FacadeBench()
    defer { bench.cleanUp() }
    let log = CallbackLog()
    bench.agent.delegate = log
    let secret = "SECRETSECRETSECRET"
    let bad = [
      "", "not-a-jwt", "a.b", "a.!!!.c", FacadeBench.jwt(payload: "[1,2]"),
      FacadeBench.jwt(payload: #"{"sub":""}"#), FacadeBench.jwt(payload: #"{"sub":42}"#),
      FacadeBench.jwt(payload: "{\"sub\":\"\u{7}\(secret)\"}"),
      secret + "." + secret + "." + secret,
    ]
    for (index, token) in bad.enumerated() {
      bench.agent.initSDK(userAccessToken: token, customDomain: FacadeBench.offlineDomain)
      bench.agent.connectBySN(bench.device.serial)
      try await eventually("failure \(index)") { log.count("bleConnectState -1") == index + 1 }
      let error = try #require(bench.agent.lastError)
      guard case .malformedUserToken = error else {
        Issue.record("token \(index): \(error)")
        continue
      }
      #expect(!error.description.contains(secret))
    }
    #expect(await bench.device.isConnected == false)
  }

  @Test("scan, connect, the documented order, device control, depair")
  func connectAndControl() async throws {
    let bench = try FacadeBench()
    defer { bench.cleanUp() }
    let log = CallbackLog()
    bench.agent.delegate = log
    bench.agent.initSDK(
      userAccessToken: FacadeBench.userToken, customDomain: FacadeBench.offlineDomain)
    bench.agent.startScan()
    try await eventually("scan") { log.count("bleScanResult 8881234567890123") >= 1 }
    bench.agent.stopScan()
    bench.agent.connectBleDevice(bleDevice: BleDevice(serialNumber: bench.device.serial))
    try await eventually("storage") { log.count("bleStorage") == 1 }
    let order = log.all.filter { !$0.hasPrefix("bleScan") }
    #expect(
      order.map { $0.split(separator: " ").first.map(String.init) ?? "" }
        == ["bleConnectState", "bleBind", "blePenState", "bleChargingState", "bleStorage"])
    #expect(order[0] == "bleConnectState 1")
    #expect(order[1] == "bleBind 8881234567890123 status=0 port=10 tz=3")
    #expect(BleAgent.shared.bleDevice?.serialNumber == bench.device.serial)

    // The recording's steps follow one another at once, as an app's would: the test holds the
    // clock while it reads each callback and acts, so an idle moment of the test's (a busy
    // machine's) is no jump to the next deadline, which is the recording's 5-hour limit; the
    // link still moves time for its traffic. The two seconds recorded are the test's to move.
    let steps = bench.clock.beginWork(ClockHold("test: one recording step after another"))
    bench.agent.startRecord()
    try await eventually("start") { log.has("bleRecordStart status=0") }
    bench.agent.pauseRecord()
    try await eventually("pause") { log.has("bleRecordPause") }
    bench.agent.resumeRecord()
    try await eventually("resume") { log.has("bleRecordResume status=0") }
    bench.clock.advance(by: .seconds(2))
    bench.agent.stopRecord()
    try await eventually("stop") { log.count("bleRecordStop") == 1 }
    steps.end()
    bench.agent.setIBeaconWakeupEnabled(value: 1)
    bench.agent.getFileList(startSessionId: 0)
    try await eventually("list") { log.count("bleFileList") == 1 }
    #expect(await bench.device.setting(49) == 1)

    bench.agent.depair(clear: false)
    try await eventually("depair") { log.has("bleDepair 0") && log.has("bleConnectState 0") }
    #expect(await bench.device.isConnected == false)
  }

  /// Vendor code, unchanged, against a Mode B device: the facade makes the user key on first
  /// use, gives it to the device when asked (FE11), and the session runs sealed.
  @Test("a Mode B device (portVersion 20): connect, list, the user key kept in the store")
  func modeBDevice() async throws {
    let bench = try FacadeBench(portVersion: 20)
    defer { bench.cleanUp() }
    _ = try await bench.device.populate(count: 2, seed: 3)
    let log = CallbackLog()
    bench.agent.delegate = log
    bench.agent.initSDK(
      userAccessToken: FacadeBench.userToken, customDomain: FacadeBench.offlineDomain)
    bench.agent.connectBleDevice(bleDevice: BleDevice(serialNumber: bench.device.serial))
    try await eventually("storage") { log.count("bleStorage") == 1 }
    #expect(log.has("bleBind 8881234567890123 status=0 port=20 tz=3"), "\(log.all)")
    bench.agent.getFileList(startSessionId: 0)
    try await eventually("list") { log.count("bleFileList") == 1 }
    #expect(await bench.device.counters.refusedSealedWrites == 0)
    #expect(await bench.device.modeBUserKey != nil, "the device was given the user key")
    let keys = try FileManager.default.contentsOfDirectory(atPath: bench.directory + "/store/keys")
    #expect(keys.count == 1 && keys[0].hasPrefix("mode-b-user-key-"), "\(keys)")
    bench.agent.disconnect()
  }

  @Test("a wrong token: bleBind status 1, then bleConnectState -2")
  func wrongToken() async throws {
    let bench = try FacadeBench()
    defer { bench.cleanUp() }
    let log = CallbackLog()
    bench.agent.delegate = log
    bench.agent.initSDK(
      userAccessToken: FacadeBench.jwt(payload: #"{"sub":"client_user_ffff"}"#),
      customDomain: FacadeBench.offlineDomain)
    bench.agent.connectBySN(bench.device.serial)
    try await eventually("refused") { log.has("bleConnectState -2") }
    #expect(log.all.first?.hasPrefix("bleBind 8881234567890123 status=1") == true)
  }

  @Test("a delegate that implements only blePenState compiles and works")
  func minimalDelegate() async throws {
    final class OnlyPenState: PlaudDeviceAgentProtocol, Sendable {
      let states = Locked<[Int]>([])
      func blePenState(
        state: Int, privacy: Int, keyState: Int, uDisk: Int, findMyToken: Int, hasSndpKey: Int,
        deviceAccessToken: Int
      ) { states.withLock { $0.append(state) } }
    }
    let bench = try FacadeBench()
    defer { bench.cleanUp() }
    let delegate = OnlyPenState()
    bench.agent.delegate = delegate
    bench.agent.initSDK(
      userAccessToken: FacadeBench.userToken, customDomain: FacadeBench.offlineDomain)
    bench.agent.connectBySN(bench.device.serial)
    bench.agent.getFileList(startSessionId: 0)
    try await eventually("pen state") { delegate.states.withLock { $0 } == [1] }
  }

  @Test("the callback-driven loop exports N recordings as mp3 and deletes them")
  func exportLoop() async throws {
    let bench = try FacadeBench(seed: 5)
    defer { bench.cleanUp() }
    var added: [RecordingInfo] = []
    for seconds in [12.0, 30, 5, 20] {
      added.append(try await bench.device.addRecording(duration: .seconds(seconds)))
    }
    let made = added
    let app = SyncApp(agent: bench.agent, outputDir: bench.exports, clock: bench.anyClock)
    let log = CallbackLog()
    bench.agent.delegate = app
    bench.agent.initSDK(
      userAccessToken: FacadeBench.userToken, customDomain: FacadeBench.offlineDomain)
    bench.agent.connectBySN(bench.device.serial)
    try await eventually("bind") { app.log.has("bleBind 0") }
    // One export seen through a full logger too: progress, data, data complete.
    bench.agent.exportAudio(
      sessionId: Int(made[0].sessionId.rawValue), outputDir: bench.exports, format: .mp3,
      callback: log)
    try await eventually("first export") { log.count("onComplete") + log.count("onError") == 1 }
    #expect(log.count("onComplete") == 1, "\(log.all.filter { !$0.hasPrefix("bleData") })")
    #expect(log.count("onProgress 0") == 1 && log.has("onProgress 100"))
    app.startSync()
    try await eventually("sync loop") {
      app.runs == 1 && app.idle && app.log.count("bleDeleteFile 0") == made.count
    }
    #expect(try await bench.device.recordings().isEmpty)
    let files = try FileManager.default.contentsOfDirectory(atPath: bench.exports).sorted()
    #expect(files.count == made.count)
    #expect(files.allSatisfy { $0.hasSuffix(".mp3") })
    #expect(app.log.count("onComplete") == made.count)
    #expect(app.log.count("bleData") > 0)
  }

  @Test("auto-sync one second after the recording stops on the device")
  func autoSyncAfterStop() async throws {
    let bench = try FacadeBench(seed: 6)
    defer { bench.cleanUp() }
    let app = SyncApp(agent: bench.agent, outputDir: bench.exports, clock: bench.anyClock)
    bench.connect(app)
    try await eventually("bind") { app.log.has("bleBind 0") }
    let sessionId = try await bench.recordOnDevice(for: .seconds(8))
    let stoppedAt = app.clock.elapsed
    try await eventually("stop seen") { app.log.has("bleRecordStop") }
    try await eventually("synced") {
      app.runs == 1 && app.idle && app.log.count("bleDeleteFile 0") == 1
    }
    // The sync started one second (virtual) after the stop: not at once, not much later.
    let started = try #require(app.syncStarts.first)
    #expect(started - stoppedAt >= .seconds(1), "\(started - stoppedAt)")
    #expect(started - stoppedAt < .seconds(2), "\(started - stoppedAt)")
    let files = try FileManager.default.contentsOfDirectory(atPath: bench.exports)
    #expect(files == ["\(bench.device.serial)-\(sessionId).mp3"])
    #expect(try await bench.device.recordings().isEmpty)
  }

  @Test(
    "beacon wake-up: out of range mid-sync, back in range, reconnect by serial, nothing lost or duplicated"
  )
  func beaconWakeUp() async throws {
    let bench = try FacadeBench(seed: 7)
    defer { bench.cleanUp() }
    var added: [RecordingInfo] = []
    for seconds in [40.0, 40, 40] {
      added.append(try await bench.device.addRecording(duration: .seconds(seconds)))
    }
    let made = added
    let digests = Dictionary(
      uniqueKeysWithValues: try await bench.device.recordings(includingDigests: true).map {
        ($0.sessionId, $0.sha256 ?? "")
      })
    let app = SyncApp(agent: bench.agent, outputDir: bench.exports, clock: bench.anyClock)
    bench.agent.delegate = app
    bench.agent.initSDK(
      userAccessToken: FacadeBench.userToken, customDomain: FacadeBench.offlineDomain)
    bench.agent.activateBeaconMonitoring()
    bench.agent.updateBeaconMonitoredDevices(serialNumbers: [bench.device.serial])
    bench.agent.connectBySN(bench.device.serial)
    try await eventually("bind") { app.log.has("bleBind 0") }
    app.startSync()
    // Walk away in the middle of the second file.
    try await eventually("mid-sync") {
      app.log.count("onComplete") == 1 && app.log.count("bleData") > 600
    }
    await bench.beacon.leaveRange()
    try await eventually("link lost") { app.log.has("bleConnectState 0") && app.idle }
    #expect(app.log.count("onError") >= 1)
    try await bench.anyClock.sleep(for: .seconds(30))
    await bench.device.comeBackInRange()
    try await eventually("beacon and resync") {
      app.log.has("bleIBeaconWakeupTriggered") && app.runs == 2 && app.idle
        && app.log.count("bleDeleteFile 0") == made.count
    }
    #expect(bench.beacon.wakeCount == 1)
    #expect(try await bench.device.recordings().isEmpty)
    let files = try FileManager.default.contentsOfDirectory(atPath: bench.exports).sorted()
    #expect(files == made.map { "\(bench.device.serial)-\($0.sessionId).mp3" }.sorted())
    let workspace = try SyncWorkspace(root: bench.directory + "/store")
    let checkpoints = try workspace.checkpoints(serial: bench.device.serial)
    #expect(checkpoints.map(\.stage) == Array(repeating: .deletedFromDevice, count: made.count))
    for checkpoint in checkpoints { #expect(checkpoint.sha256 == digests[checkpoint.sessionId]) }
  }
}
