import Foundation
import PlaudDeviceBasicSDK
import RecorderConcurrency
import RecorderEmulator
import TestSupport
import Testing

/// A delegate written as the vendor's template app writes its DeviceManager: it reads
/// `recentConnectDevice` in `bleBind` and again in `blePenState`, and logs the callbacks the
/// template implements beyond the published protocol.
final class TemplateStyleDelegate: NSObject, PlaudDeviceAgentProtocol, Sendable {
  let entries = Locked<[String]>([])
  /// What `recentConnectDevice` held when `bleBind` / `blePenState` arrived.
  let atBind = Locked<String?>(nil)
  let atPenState = Locked<String?>(nil)
  let downloads = Locked<[(status: Int, progress: Int)]>([])
  /// What `bleWiFiOpen` reported (kept out of `entries`).
  let hotspot = Locked<(ssid: String, password: String)?>(nil)
  private let agent: PlaudDeviceAgent

  init(agent: PlaudDeviceAgent) { self.agent = agent }

  func log(_ entry: String) { entries.withLock { $0.append(entry) } }
  func count(_ prefix: String) -> Int {
    entries.withLock { $0.filter { $0.hasPrefix(prefix) }.count }
  }
  func has(_ entry: String) -> Bool { entries.withLock { $0.contains(entry) } }

  static func describe(_ device: BleDevice?) -> String? {
    device.map {
      "\($0.serialNumber) \($0.name) power=\($0.power) charging=\($0.isCharging) "
        + "wifi=\($0.supportWiFi) \($0.versionTypeStr)\($0.versionCode)"
    }
  }

  func blePenState(
    state: Int, privacy: Int, keyState: Int, uDisk: Int, findMyToken: Int, hasSndpKey: Int,
    deviceAccessToken: Int
  ) {
    if atPenState.current == nil {
      atPenState.withLock { $0 = Self.describe(agent.recentConnectDevice) }
    }
    log("blePenState \(state)")
  }
  func bleBind(sn: String?, status: Int, protVersion: Int, timezone: Int) {
    atBind.withLock { $0 = Self.describe(agent.recentConnectDevice) }
    log("bleBind \(status)")
  }
  func bleConnectState(state: Int) { log("bleConnectState \(state)") }
  func bleState(powered: Bool) { log("bleState \(powered)") }
  func bleDeviceDisconnectErr() { log("bleDeviceDisconnectErr") }
  func bleStorage(total: Int, free: Int, duration: Int) { log("bleStorage \(total)") }
  func bleMicGain(_ value: Int) { log("bleMicGain \(value)") }
  func blePowerChange(power: Int, oldPower: Int) { log("blePowerChange \(power) \(oldPower)") }
  func bleDeviceName(name: String?) { log("bleDeviceName \(name ?? "nil")") }
  func bleChargingState(isCharging: Bool, level: Int) { log("bleChargingState \(level)") }
  func bleFileList(bleFiles: [BleFile]) {
    log("bleFileList \(bleFiles.map { "\($0.sessionId):\($0.sn):\($0.duration())" })")
  }
  func bleSyncFileHead(sessionId: Int, status: Int) {
    log("bleSyncFileHead \(sessionId) \(status)")
  }
  func bleSyncFileTail(sessionId: Int, crc: Int) { log("bleSyncFileTail \(sessionId)") }
  func bleDownloadFile(
    sessionId: Int, desiredOutputPath: String, status: Int, progress: Int, tips: String
  ) {
    downloads.withLock { $0.append((status, progress)) }
    log("bleDownloadFile \(status) \(progress)")
  }
  func bleDownloadFileStop() { log("bleDownloadFileStop") }
  func onWifiSyncEnabled(_ value: Int) { log("onWifiSyncEnabled \(value)") }
  func onCommonMsgChannel(type: Int, value: Int, tips: String) {
    log("onCommonMsgChannel \(type) \(value) \(tips)")
  }
  func bleWiFiOpen(_ status: Int, _ wifiName: String, _ wholeName: String, _ wifiPass: String) {
    hotspot.withLock { $0 = (wholeName, wifiPass) }
    log("bleWiFiOpen \(status)")
  }
  func bleWiFiClose(_ status: Int) { log("bleWiFiClose \(status)") }
  func bleClearAllFile(status: Int) { log("bleClearAllFile \(status)") }
}

/// The Wi-Fi callbacks the vendor's shipped interface adds, logged.
final class WiFiMembersDelegate: NSObject, PlaudWiFiAgentProtocol, Sendable {
  let entries = Locked<[String]>([])
  func log(_ entry: String) { entries.withLock { $0.append(entry) } }
  func has(_ entry: String) -> Bool { entries.withLock { $0.contains(entry) } }
  func first(_ prefix: String) -> String? { entries.withLock { $0.first { $0.hasPrefix(prefix) } } }

  func wifiHandshake(_ status: Int) { log("wifiHandshake \(status)") }
  func wifiConnectResult(_ success: Bool, _ errorCode: Int, _ message: String) {
    log("wifiConnectResult \(success) \(errorCode) \(message)")
  }
  func wifiConnectionStatus(_ ssid: String, _ connected: Bool) {
    log("wifiConnectionStatus \(connected)")
  }
  func wifiFileList(_ files: [BleFile]) {
    log("wifiFileList \(files.map { "\($0.sessionId):\($0.sn)" })")
  }
  func wifiDataComplete() { log("wifiDataComplete") }
  func wifiRateFail(_ status: Int) { log("wifiRateFail \(status)") }
  func wifiLogsFail(_ status: Int) { log("wifiLogsFail \(status)") }
  func wifiClose(_ status: Int) { log("wifiClose \(status)") }
}

@Suite("Facade: the vendor's members and the template app's expectations")
struct VendorMembersTests {
  @Test("recentConnectDevice is filled before bleBind; state, storage, mic gain, name, download")
  func templateFlow() async throws {
    let bench = try FacadeBench()
    defer { bench.cleanUp() }
    let agent = bench.agent
    let log = TemplateStyleDelegate(agent: agent)
    #expect(agent.recentConnectDevice == nil)
    #expect(!agent.isConnected())
    bench.connect(log)
    try await eventually("bound") { log.has("bleBind 0") && log.count("bleStorage") == 1 }
    let expected = TemplateStyleDelegate.describe(agent.recentConnectDevice)
    let recent = try #require(agent.recentConnectDevice)
    #expect(recent.serialNumber == bench.device.serial)
    #expect(!recent.name.isEmpty)
    #expect(recent.power > 0)
    #expect(recent.supportWiFi)
    #expect(recent.versionTypeStr == "V")
    #expect(recent.versionCode == 95)
    #expect(log.atBind.current == expected)
    #expect(log.atPenState.current == expected)
    #expect(log.has("bleState true"))
    #expect(agent.isConnected())
    #expect(!agent.checkIsRecording())
    #expect(agent.getCurrentSessionID() == 0)

    agent.getState()
    agent.getStorage()
    try await eventually("state, storage") {
      log.count("blePenState") == 2 && log.count("bleStorage") == 2
    }
    agent.setMicGain(value: 12)
    agent.readMicGain()
    try await eventually("mic gain") { log.count("bleMicGain 12") == 2 }
    agent.setDeviceName("Desk")
    try await eventually("name") { log.has("bleDeviceName Desk") }
    #expect(agent.recentConnectDevice?.name == "Desk")

    let id = Int(try await bench.recordOnDevice(for: .seconds(3)).rawValue)
    agent.getFile(sessionId: id)
    try await eventually("file") { log.count("bleFileList") == 1 }
    #expect(log.has("bleFileList [\"\(id):\(bench.device.serial):3000\"]"))
    let path = bench.directory + "/downloads/one.wav"
    try FileManager.default.createDirectory(
      atPath: bench.directory + "/downloads", withIntermediateDirectories: true)
    agent.downloadFile(sessionId: id, desiredOutputPath: path)
    try await eventually("download") { log.has("bleDownloadFile 0 100") }
    #expect(log.has("bleSyncFileHead \(id) 0"))
    #expect(log.has("bleSyncFileTail \(id)"))
    let progress = log.downloads.current.map(\.progress)
    #expect(progress == progress.sorted())
    #expect(log.downloads.current.allSatisfy { $0.status == 0 })
    #expect(FileManager.default.fileExists(atPath: path))
    #expect(agent.currentDownloadSpeedKBps > 0)
    #expect(agent.getFormattedDownloadSpeed().hasSuffix("B/s"))
    #expect(!agent.checkIsDownloading())

    // Not supported: loud, through the member's own callback, with lastError saying why.
    agent.setWifiSyncEnable(value: 1)
    try await eventually("idle sync") { log.has("onWifiSyncEnabled -1") }
    #expect("\(agent.lastError.map { "\($0)" } ?? "")".contains("not supported by RecorderKit"))
    agent.restoreFactory()
    try await eventually("restore") { log.count("onCommonMsgChannel -1 -1") == 1 }

    // A disconnect the app asks for is not an unexpected drop; a lost link is.
    agent.disconnect()
    try await eventually("disconnected") { log.has("bleConnectState 0") }
    #expect(!log.has("bleDeviceDisconnectErr"))
    #expect(!agent.isConnected())
    agent.tryReconnectLastDevice()
    try await eventually("reconnected") { log.count("bleBind 0") == 2 }
    await bench.device.goOutOfRange()
    try await eventually("dropped") { log.count("bleConnectState 0") == 2 }
    let entries = log.entries.current
    let drop = try #require(entries.firstIndex(of: "bleDeviceDisconnectErr"))
    #expect(entries[drop + 1] == "bleConnectState 0")
  }

  @Test("tryReconnectLastDevice connects as the last connect did, its device token included")
  func reconnectWithDeviceToken() async throws {
    let bench = try FacadeBench(seed: 3)
    defer { bench.cleanUp() }
    let log = TemplateStyleDelegate(agent: bench.agent)
    bench.agent.delegate = log
    bench.agent.tryReconnectLastDevice()
    try await eventually("nothing to reconnect") { log.has("bleConnectState -1") }
    // No initSDK: the device token is the handshake's only source (the template passes its
    // user id this way).
    bench.agent.connectBleDevice(
      bleDevice: BleDevice(sn: bench.device.serial),
      deviceToken: "client_user_01234567-89ab-cdef-0123-456789abcdef")
    try await eventually("bound") { log.has("bleBind 0") }
    bench.agent.disconnect()
    try await eventually("down") { log.has("bleConnectState 0") }
    bench.agent.tryReconnectLastDevice()
    try await eventually("again") {
      log.count("bleBind 0") == 2 || log.count("bleConnectState -1") == 2
    }
    #expect(log.count("bleBind 0") == 2, "\(bench.agent.lastError.map { "\($0)" } ?? "")")
  }

  @Test("isWiFiTransferActive is false when endWiFiTransfer() returns; bleWiFiClose answers")
  func endWiFiTransferIsImmediate() async throws {
    let bench = try FacadeBench(wifi: true)
    defer { bench.cleanUp() }
    let log = TemplateStyleDelegate(agent: bench.agent)
    bench.connect(log)
    try await eventually("bound") { log.has("bleBind 0") }
    bench.agent.setDeviceWiFi(open: true)
    try await eventually("hotspot") { log.has("bleWiFiOpen 0") }
    #expect(bench.agent.isWiFiTransferActive)
    bench.agent.endWiFiTransfer()
    #expect(!bench.agent.isWiFiTransferActive)
    try await eventually("closed") { log.has("bleWiFiClose 0") }
    #expect(!bench.agent.isWiFiTransferActive)
  }

  @Test("PlaudLogConfig keeps the vendor's defaults and ranges; log upload fails loudly")
  func logging() async throws {
    let config = PlaudLogConfig.shared
    defer { config.resetToDefaults() }
    config.resetToDefaults()
    #expect(config.maxFileCount == 10)
    #expect(config.maxFileAge == 7 * 24 * 60 * 60)
    #expect(config.maxFileSize == 10 * 1024 * 1024)
    #expect(config.uploadInterval == 300)
    #expect(config.uploadTimeout == 30)
    #expect(config.maxFileAgeDays == 7)
    #expect(config.maxFileSizeMB == 10)
    #expect(config.uploadIntervalMinutes == 5)
    #expect(config.uploadTimeoutSeconds == 30)
    let posted = Locked(0)
    let observer = NotificationCenter.default.addObserver(
      forName: .plaudLogConfigurationChanged, object: config, queue: nil
    ) { _ in posted.withLock { $0 += 1 } }
    defer { NotificationCenter.default.removeObserver(observer) }
    config.updateFileConfiguration(
      maxFileCount: 25, maxFileAge: 7 * 24 * 60 * 60, maxFileSize: 20 * 1024 * 1024)
    #expect(config.maxFileCount == 25)
    #expect(config.maxFileSizeMB == 20)
    #expect(posted.current == 1)
    config.updateFileConfiguration(maxFileCount: 500, maxFileAge: 1, maxFileSize: 0)
    #expect(config.maxFileCount == 50)
    #expect(config.maxFileAge == 3600)
    #expect(config.maxFileSize == 1024 * 1024)
    config.updateUploadConfiguration(uploadInterval: 1, uploadTimeout: .infinity)
    #expect(config.uploadInterval == 60)
    #expect(config.uploadTimeout == 30)
    #expect(config.validateConfiguration())
    #expect(config.getCurrentConfiguration()["maxFileCount"] as? Int == 50)

    let failure = Locked<String?>(nil)
    PlaudLogUploadManager.shared.uploadLogFiles(
      onProgress: { _ in }, onSuccess: { _ in failure.withLock { $0 = "succeeded" } },
      onFailure: { error in failure.withLock { $0 = "\(error)" } })
    try await eventually("upload answer") { failure.current != nil }
    #expect(failure.current?.contains("not supported by RecorderKit") == true)
    #expect(throws: PlaudLogExportError.self) { try PlaudLogEncryption.exportEncryptedLogFile() }
  }

  @Test("battery changes reach blePowerChange and recentConnectDevice; stop a download; erase")
  func batteryStopAndErase() async throws {
    let bench = try FacadeBench(seed: 5)
    defer { bench.cleanUp() }
    let agent = bench.agent
    let log = TemplateStyleDelegate(agent: agent)
    let id = Int(try await bench.device.addRecording(duration: .seconds(60)).sessionId.rawValue)
    bench.connect(log)
    try await eventually("bound") { log.has("bleBind 0") && log.count("bleStorage") == 1 }
    let before = try #require(agent.recentConnectDevice?.power)
    await bench.device.setBattery(level: 42, charging: true)
    agent.getChargingState()
    try await eventually("battery") { log.has("bleChargingState 42") }
    #expect(log.has("blePowerChange 42 \(before)"))
    #expect(agent.recentConnectDevice?.power == 42)
    #expect(agent.recentConnectDevice?.isCharging == true)

    // Erasing is refused while the recording is not synced: nothing is lost.
    agent.clearAllFiles()
    try await eventually("refused") { log.has("bleClearAllFile -1") }
    #expect(agent.lastError.map { "\($0)" }?.contains("not synced") == true)
    let whole = bench.directory + "/whole.wav"
    agent.downloadFile(sessionId: id, desiredOutputPath: whole)
    try await eventually("downloaded") { log.has("bleDownloadFile 0 100") }
    agent.clearAllFiles()
    try await eventually("erased") { log.count("bleClearAllFile") == 2 }
    #expect(log.has("bleClearAllFile 0"), "\(agent.lastError.map { "\($0)" } ?? "")")
    agent.getFileList(startSessionId: 0)
    try await eventually("empty") { log.has("bleFileList []") }

    // A stopped download keeps its bytes and says so; the next one completes from them.
    let next = Int(try await bench.recordOnDevice(for: .seconds(600)).rawValue)
    let path = bench.directory + "/next.pcm"
    log.entries.withLock { $0.removeAll() }
    agent.downloadFile(sessionId: next, desiredOutputPath: path, format: .pcm)
    try await eventually("moving") { log.count("bleSyncFileHead") == 1 }
    agent.stopDownloadFile()
    try await eventually("stopped") {
      log.has("bleDownloadFileStop") || log.has("bleDownloadFile 0 100")
    }
    #expect(log.has("bleDownloadFileStop"), "the stop came too late")
    #expect(!FileManager.default.fileExists(atPath: path))
    agent.downloadFile(sessionId: next, desiredOutputPath: path, format: .pcm)
    try await eventually("resumed") { log.has("bleDownloadFile 0 100") }
    #expect(FileManager.default.fileExists(atPath: path))
  }

  @Test("PlaudWiFiAgent: connect result, session queries, speed; unsupported calls fail loudly")
  func wifiMembers() async throws {
    let bench = try FacadeBench(seed: 7, wifi: true)
    defer { bench.cleanUp() }
    let id = Int(try await bench.device.addRecording(duration: .seconds(20)).sessionId.rawValue)
    let log = TemplateStyleDelegate(agent: bench.agent)
    let wifiLog = WiFiMembersDelegate()
    let wifi = bench.agent.wifiAgent
    wifi.delegate = wifiLog
    #expect(wifi.getCurrentWiFiName() == nil)
    #expect(wifi.getConnectionStatusDescription() == "not connected")
    #expect(!wifi.isWebSocketConnected())
    wifi.listenPort("PLAUD0000")
    try await eventually("listenPort") { wifiLog.first("wifiConnectResult false -1") != nil }
    #expect(
      wifiLog.first("wifiConnectResult false -1")?.contains("not supported by RecorderKit") == true)

    // Nothing to join with yet (no BLE session has given a token): the join result says so.
    wifi.connectWifi("PLAUD0000", "password", 1)
    try await eventually("no join") { wifiLog.has("wifiHandshake -1") }
    let failures = wifiLog.entries.current.filter { $0.hasPrefix("wifiConnectResult false -1") }
    #expect(failures.count == 2)

    bench.connect(log)
    try await eventually("bound") { log.has("bleBind 0") }
    bench.agent.setDeviceWiFi(open: true)
    try await eventually("hotspot") { log.has("bleWiFiOpen 0") }
    let (ssid, password) = try #require(log.hotspot.current)
    #expect(ssid == "PLAUD" + bench.device.serial.suffix(4))
    wifi.connectWifi(ssid, password)
    try await eventually("handshake") { wifiLog.has("wifiHandshake 0") }
    let entries = wifiLog.entries.current
    #expect(
      entries.suffix(3) == [
        "wifiConnectResult true 0 ", "wifiConnectionStatus true", "wifiHandshake 0",
      ])
    #expect(wifi.isConnectedTo(ssid))
    #expect(!wifi.isConnectedTo("PLAUD0000"))
    #expect(wifi.getCurrentWiFiName() == ssid)
    #expect(wifi.getConnectionStatusDescription() == "connected to \(ssid)")
    #expect(wifi.isWebSocketConnected())

    wifi.getFileList(1, 0)
    try await eventually("list") { wifiLog.first("wifiFileList") != nil }
    #expect(wifiLog.has("wifiFileList [\"\(id):\(bench.device.serial)\"]"))
    wifi.syncFile(id, 0)
    try await eventually("synced") { wifiLog.has("wifiDataComplete") }
    #expect(wifi.currentDownloadSpeedKBps > 0)
    #expect(wifi.getFormattedDownloadSpeed().hasSuffix("B/s"))

    wifi.startRateTest(true, 1024)
    wifi.getDeviceLogs(true)
    try await eventually("unsupported") {
      wifiLog.has("wifiRateFail -1") && wifiLog.has("wifiLogsFail -1")
    }
    let line = Locked<String?>(nil)
    wifi.openLog(true) { text in line.withLock { $0 = text } }
    try await eventually("openLog") { line.current != nil }
    #expect(line.current?.contains("not supported by RecorderKit") == true)
    bench.agent.endWiFiTransfer()
    #expect(!wifi.isConnectedTo(ssid))
    try await eventually("closed") { wifiLog.has("wifiClose 0") }
  }
}
