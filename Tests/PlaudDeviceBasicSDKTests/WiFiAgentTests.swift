import Foundation
import PlaudDeviceBasicSDK
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderTesting
import TestSupport
import Testing

/// Wi-Fi Fast Transfer through the vendor's facade, end to end: BLE (in process, virtual
/// time) opens the hotspot, the emulator's join port stands in for the platform's join, and
/// everything after that is real loopback TCP: our WebSocket server, the emulated device's
/// client, the §6 session. No sleeps: every wait is `eventually` with its hang guard.
@Suite("PlaudWiFiAgent against the emulator's Wi-Fi side (real loopback TCP)")
struct WiFiAgentTests {
  /// The vendor's recipe: connect and bind over BLE, `setDeviceWiFi(open: true)`, then
  /// `connectWifi` with what `bleWiFiOpen` reported, up to `wifiHandshake(0)`.
  @discardableResult
  static func openWiFi(_ bench: FacadeBench, _ log: CallbackLog) async throws -> String {
    let hotspot = try await raiseHotspot(bench, log)
    #expect(hotspot.wholeName == "PLAUD" + bench.device.serial.suffix(4))
    #expect(hotspot.wifiName == hotspot.wholeName)
    #expect(hotspot.password.count == 8)
    #expect(bench.agent.isWiFiTransferActive)
    #expect(await bench.device.hotspotSSID == hotspot.wholeName)
    let wifi = bench.agent.wifiAgent
    wifi.bleDevice = BleDevice(serialNumber: bench.device.serial)
    wifi.connectWifi(hotspot.wholeName, hotspot.password, 60)
    try await eventually("handshake") { log.count("wifiHandshake") == 1 }
    #expect(log.has("wifiHandshake 0"), "\(bench.agent.lastError.map(\.description) ?? "")")
    #expect(wifi.isConnected)
    let opened = log.all.filter { $0.hasPrefix("wifi") }
    #expect(opened == ["wifiConnectionStatus \(hotspot.wholeName) true", "wifiHandshake 0"])
    return hotspot.wholeName
  }

  /// Connect and bind over BLE, then `setDeviceWiFi(open: true)`: what `bleWiFiOpen(0, …)`
  /// reported.
  static func raiseHotspot(_ bench: FacadeBench, _ log: CallbackLog) async throws
    -> (wifiName: String, wholeName: String, password: String)
  {
    bench.agent.delegate = log
    bench.agent.wifiAgent.delegate = log
    bench.agent.initSDK(
      userAccessToken: FacadeBench.userToken, customDomain: FacadeBench.offlineDomain)
    bench.agent.connectBySN(bench.device.serial)
    try await eventually("bind") { log.count("bleStorage") == 1 }
    #expect(log.has("bleConnectState 1"))
    #expect(!bench.agent.isWiFiTransferActive)
    bench.agent.setDeviceWiFi(open: true)
    try await eventually("hotspot") { log.count("bleWiFiOpen") == 1 }
    #expect(log.has("bleWiFiOpen 0"), "\(log.all)")
    return try #require(log.hotspot.withLock { $0 }, "\(log.all)")
  }

  static func flash(_ recording: RecordingInfo) throws -> [UInt8] {
    Array(try #require(FileManager.default.contents(atPath: recording.path)))
  }

  @Test("the Wi-Fi list equals the BLE list; syncFile of a file and a range match the flash")
  func listAndSync() async throws {
    let bench = try FacadeBench(seed: 11, wifi: true)
    defer { bench.cleanUp() }
    // Session ids are start times: oldest first, as both lists report them.
    let made = [
      try await bench.device.addRecording(duration: .seconds(20)),
      try await bench.device.addRecording(duration: .seconds(30), scene: 4),
      try await bench.device.addRecording(duration: .seconds(45)),
    ].sorted { $0.sessionId < $1.sessionId }
    let log = CallbackLog()
    let ssid = try await Self.openWiFi(bench, log)
    let wifi = bench.agent.wifiAgent

    bench.agent.getFileList(startSessionId: 0)
    wifi.getFileList(Int(Date().timeIntervalSince1970), 0, false)
    try await eventually("lists") {
      log.count("bleFileList") == 1 && log.count("wifiFileList") == 1
    }
    let overBLE = try #require(log.all.first { $0.hasPrefix("bleFileList ") })
    let overWiFi = try #require(log.all.first { $0.hasPrefix("wifiFileList ") })
    #expect(overWiFi.dropFirst("wifiFileList ".count) == overBLE.dropFirst("bleFileList ".count))
    let whole = try #require(made.first { $0.scene == 4 })
    #expect(overWiFi.contains("\(whole.sessionId):\(whole.size):0:4"))

    // One recording whole (scene 4, as listed), then a range of another.
    wifi.syncFile(Int(whole.sessionId.rawValue), 0, 0, Int(whole.scene))
    try await eventually("whole file") {
      log.count("wifiDataComplete") + log.count("wifiCommonErr") >= 1
    }
    #expect(log.count("wifiDataComplete") == 1, "\(log.all.filter { $0 != "wifiSyncFileData" })")
    #expect(log.takeBytes(Int(whole.sessionId.rawValue), from: 0) == (try Self.flash(whole)))
    let ranged = try #require(made.last { $0.scene == 1 })
    wifi.syncFile(Int(ranged.sessionId.rawValue), 1000, 5000)
    try await eventually("range") { log.count("wifiDataComplete") == 2 }
    #expect(
      log.takeBytes(Int(ranged.sessionId.rawValue), from: 1000)
        == Array(try Self.flash(ranged)[1000..<5000])
    )
    #expect(log.count("wifiSyncFile 0") == 2)
    #expect(!wifi.isDownloading && wifi.currentSessionId == Int(ranged.sessionId.rawValue))

    // Only the listed recordings: one after the first, then just the first.
    wifi.getFileList(2, Int(made[0].sessionId.rawValue))
    wifi.getFileList(3, Int(made[0].sessionId.rawValue), true)
    try await eventually("filtered lists") { log.count("wifiFileList") == 3 }
    let lists = log.all.filter { $0.hasPrefix("wifiFileList") }
    #expect(!lists[1].contains("\(made[0].sessionId):"))
    #expect(
      lists[1].contains("\(made[1].sessionId):") && lists[1].contains("\(made[2].sessionId):"))
    #expect(lists[2] == "wifiFileList [\"\(made[0].sessionId):\(made[0].size):0:1\"]")

    // disconnect(): STOP, clean close, then WIFI_CLOSE over BLE; BLE stays up.
    wifi.disconnect()
    try await eventually("closed") { log.count("wifiClose") == 1 }
    #expect(log.has("wifiClose 0"))
    let closing = log.all.filter {
      $0.hasPrefix("wifiConnectionStatus") || $0.hasPrefix("wifiClose")
    }
    #expect(closing.suffix(2) == ["wifiConnectionStatus \(ssid) false", "wifiClose 0"])
    try await eventually("hotspot down") { await bench.device.hotspotSSID == nil }
    #expect(!bench.agent.isWiFiTransferActive && !wifi.isConnected)
    #expect(await bench.device.isConnected)
    #expect(!log.has("wifiCommonErr"), "\(log.all.filter { $0.hasPrefix("wifiCommonErr") })")
    #expect(log.sawMainThread.withLock { $0 } == false)
  }

  @Test("stopSyncFile stops the transfer at once and the session stays usable")
  func stopAndContinue() async throws {
    let bench = try FacadeBench(seed: 12, wifi: true)
    defer { bench.cleanUp() }
    let long = try await bench.device.addRecording(duration: .seconds(1800))
    let short = try await bench.device.addRecording(duration: .seconds(10))
    let log = CallbackLog()
    try await Self.openWiFi(bench, log)
    let wifi = bench.agent.wifiAgent
    // Stop from the first data callback, as an app's cancel button would. The device pauses
    // its content inside the second PDU (the agent hands a frame on when the next one
    // arrives) until the stop was asked for, then lets one PDU more out, which the agent
    // refuses and answers with STOP: the STOP finds the transfer going however late the
    // callback comes (a loopback stream need not wait for it).
    let cut = 40_000
    let device = bench.device
    await device.setFaults(FaultPlan(pauseWiFiContentAfterBytes: cut))
    let stopped = Locked(false)
    log.reaction.withLock {
      $0 = { entry in
        guard entry == "wifiSyncFileData" else { return }
        let first = stopped.withLock { stopped in
          defer { stopped = true }
          return !stopped
        }
        guard first else { return }
        wifi.stopSyncFile(Int(long.sessionId.rawValue), 1)
        // The agent acts on its next frame: let one out of the pause.
        Task { await device.stepWiFiContent() }
      }
    }
    wifi.syncFile(Int(long.sessionId.rawValue), 0)
    try await eventually("stopped") { log.count("wifiSyncFileStop") == 1 }
    #expect(log.has("wifiSyncFileStop 0") && log.count("wifiDataComplete") == 0)
    let received = try #require(log.takeBytes(Int(long.sessionId.rawValue), from: 0))
    #expect(received.count <= cut && received.count < long.size)
    #expect(received == Array(try Self.flash(long).prefix(received.count)))
    #expect(await bench.device.faultPlan.pauseWiFiContentAfterBytes == nil)

    // The same session goes on: resume the stopped file where it stopped, then another.
    log.reaction.withLock { $0 = nil }
    wifi.syncFile(Int(long.sessionId.rawValue), received.count, 0, 1)
    wifi.syncFile(Int(short.sessionId.rawValue), 0, 0, 1)
    try await eventually("both") { log.count("wifiDataComplete") == 2 }
    let rest = try #require(log.takeBytes(Int(long.sessionId.rawValue), from: received.count))
    #expect(received + rest == (try Self.flash(long)))
    #expect(log.takeBytes(Int(short.sessionId.rawValue), from: 0) == (try Self.flash(short)))
    #expect(!log.has("wifiCommonErr") && !log.has("wifiClose"))
    bench.agent.endWiFiTransfer()
    try await eventually("ended") { log.has("wifiClose 0") }
    try await eventually("hotspot down") { await bench.device.hotspotSSID == nil }
  }

  @Test("exportAudioViaWiFi, download all with progress, delete after the batch, end")
  func exportDownloadAllDelete() async throws {
    let bench = try FacadeBench(seed: 13, wifi: true)
    defer { bench.cleanUp() }
    var added: [RecordingInfo] = []
    for (seconds, scene) in [(12.0, UInt8(1)), (30, 4), (5, 1)] {
      added.append(try await bench.device.addRecording(duration: .seconds(seconds), scene: scene))
    }
    let made = added.sorted { $0.sessionId < $1.sessionId }
    let digests = Dictionary(
      uniqueKeysWithValues: try await bench.device.recordings(includingDigests: true).map {
        ($0.sessionId, $0.sha256 ?? "")
      })
    let log = CallbackLog()
    try await Self.openWiFi(bench, log)
    let wifi = bench.agent.wifiAgent

    wifi.exportAudioViaWiFi(
      sessionId: Int(made[1].sessionId.rawValue), outputDir: bench.exports, format: .mp3,
      channels: 1,
      callback: log)
    try await eventually("export") { log.count("onComplete") + log.count("onError") == 1 }
    let path = bench.exports + "/\(bench.device.serial)-\(made[1].sessionId).mp3"
    #expect(log.has("onComplete \(path)"), "\(log.all.filter { $0.hasPrefix("on") })")
    #expect(FileManager.default.fileExists(atPath: path))
    #expect(log.has("onProgress 0") && log.has("onProgress 100"))
    #expect(log.has("wifiSyncFile 0") && log.count("wifiDataComplete") == 1)

    wifi.startDownloadAll(outputDir: bench.exports, format: .mp3, channels: 1)
    try await eventually("batch", timeout: .seconds(180)) {
      log.count("wifiDownloadAllCompleted") == 1
    }
    #expect(
      log.has("wifiDownloadAllCompleted 3 0"),
      "\(log.all.filter { $0.hasPrefix("wifi") && $0 != "wifiSyncFileData" })")
    let progress = log.all.filter { $0.hasPrefix("wifiDownloadAllProgress") }
    for (index, recording) in made.enumerated() {
      #expect(
        progress.contains {
          $0.hasPrefix("wifiDownloadAllProgress 3 \(index + 1) \(recording.sessionId) ")
        })
    }
    #expect(progress.last == "wifiDownloadAllProgress 3 3 nil 1.0")
    let files = try FileManager.default.contentsOfDirectory(atPath: bench.exports).sorted()
    #expect(files == made.map { "\(bench.device.serial)-\($0.sessionId).mp3" }.sorted())
    let workspace = try SyncWorkspace(root: bench.directory + "/store")
    let checkpoints = try workspace.checkpoints(serial: bench.device.serial)
    #expect(checkpoints.count == made.count)
    for checkpoint in checkpoints { #expect(checkpoint.sha256 == digests[checkpoint.sessionId]) }
    #expect(try await bench.device.recordings().count == made.count)

    // Delete only after the batch (between downloads the device would stall).
    for recording in made {
      wifi.deleteFile(Int(recording.sessionId.rawValue), Int(recording.scene))
    }
    try await eventually("deleted") { log.count("wifiFileDelete") == made.count }
    for recording in made { #expect(log.has("wifiFileDelete \(recording.sessionId) 0")) }
    #expect(try await bench.device.recordings().isEmpty)
    wifi.getFileList(9, 0)
    try await eventually("empty list") { log.has("wifiFileList []") }

    bench.agent.endWiFiTransfer()
    try await eventually("ended") { log.has("wifiClose 0") }
    try await eventually("hotspot down") { await bench.device.hotspotSSID == nil }
    #expect(!bench.agent.isWiFiTransferActive)
    bench.agent.endWiFiTransfer()
    #expect(!log.has("wifiCommonErr"))
  }

  @Test("stopDownloadAll ends the batch with what it moved; the session stays up")
  func stopDownloadAll() async throws {
    let bench = try FacadeBench(seed: 14, wifi: true)
    defer { bench.cleanUp() }
    for _ in 0..<3 { _ = try await bench.device.addRecording(duration: .seconds(600)) }
    let log = CallbackLog()
    try await Self.openWiFi(bench, log)
    let wifi = bench.agent.wifiAgent
    log.reaction.withLock {
      $0 = { entry in
        if entry.hasPrefix("wifiDownloadAllProgress 3 1 ") { wifi.stopDownloadAll() }
      }
    }
    wifi.startDownloadAll()
    try await eventually("batch") { log.count("wifiDownloadAllCompleted") == 1 }
    let counts = try #require(log.all.first { $0.hasPrefix("wifiDownloadAllCompleted") })
      .split(separator: " ").dropFirst().compactMap { Int($0) }
    #expect(counts.count == 2 && counts[0] + counts[1] == 3 && counts[0] <= 1)
    #expect(!wifi.isDownloadingAll)
    log.reaction.withLock { $0 = nil }
    wifi.getFileList(1, 0)
    try await eventually("still up") { log.count("wifiFileList") == 1 }
    #expect(!log.has("wifiClose") && wifi.isConnected)
    wifi.disconnect()
    try await eventually("closed") { log.has("wifiClose 0") }
  }

  @Test(
    "a Wi-Fi link lost mid-export: onError, the session ends with wifiClose(-1); rejoin and the export resumes from its durable offset"
  )
  func lostLinkResumes() async throws {
    let bench = try FacadeBench(seed: 17, wifi: true)
    defer { bench.cleanUp() }
    let recording = try await bench.device.addRecording(duration: .seconds(300))
    let digest = try await bench.device.recordings(includingDigests: true).first?.sha256
    let log = CallbackLog()
    let ssid = try await Self.openWiFi(bench, log)
    let hotspot = try #require(log.hotspot.withLock { $0 })
    let wifi = bench.agent.wifiAgent
    let cut = 600_000
    await bench.device.setFaults(FaultPlan(dropWiFiAfterContentBytes: cut))
    wifi.exportAudioViaWiFi(
      sessionId: Int(recording.sessionId.rawValue), outputDir: bench.exports, format: .mp3,
      callback: log)
    try await eventually("lost") { log.count("wifiClose") == 1 }
    #expect(log.count("onError") == 1 && log.count("onComplete") == 0)
    #expect(log.has("wifiCommonErr 12 -1"))
    let ending = log.all.filter {
      $0.hasPrefix("wifiConnectionStatus") || $0.hasPrefix("wifiClose")
    }
    #expect(ending.suffix(2) == ["wifiConnectionStatus \(ssid) false", "wifiClose -1"])
    #expect(!wifi.isConnected && bench.agent.isWiFiTransferActive)

    // BLE still up: its list shows where the transfer will resume.
    bench.agent.getFileList(startSessionId: 0)
    try await eventually("BLE list") { log.count("bleFileList") == 1 }
    let listed = try #require(log.all.first { $0.hasPrefix("bleFileList") })
    let offset = try #require(
      listed.split(separator: ":").dropFirst(2).first.flatMap { Int($0) })
    #expect(offset > 0 && offset <= cut, "\(listed)")

    await bench.device.setFaults(.none)
    wifi.connectWifi(hotspot.wholeName, hotspot.password, 60)
    try await eventually("rejoined") { log.count("wifiHandshake 0") == 2 }
    wifi.exportAudioViaWiFi(
      sessionId: Int(recording.sessionId.rawValue), outputDir: bench.exports, format: .mp3,
      callback: log)
    try await eventually("exported") { log.count("onComplete") == 1 }
    let resumed = log.chunks.withLock { $0[Int(recording.sessionId.rawValue)] ?? [] }
    #expect(resumed.contains { $0.offset == offset })
    let workspace = try SyncWorkspace(root: bench.directory + "/store")
    let checkpoint = try #require(try workspace.checkpoints(serial: bench.device.serial).first)
    #expect(checkpoint.sha256 == digest)
    #expect(FileManager.default.fileExists(atPath: try #require(checkpoint.exportPath)))
    bench.agent.setDeviceWiFi(open: false)
    try await eventually("closed") { log.has("wifiClose 0") }
    try await eventually("hotspot down") { await bench.device.hotspotSSID == nil }
  }

  @Test("connectWifi goes through the front door: an agent without a radio has none (noCentral)")
  func connectWithoutARadio() async throws {
    var configuration = PlaudSDKConfiguration(
      storageRoot: NSTemporaryDirectory() + "plaud-no-radio-\(UUID().uuidString)")
    // Its own domain manager: `.shared` is one per process, and tests run in parallel.
    configuration.domainManager = PlaudDomainManager()
    configuration.hotspotJoiner = TCPHotspotJoiner(host: "127.0.0.1", port: 9)
    defer { try? FileManager.default.removeItem(atPath: configuration.storageRoot) }
    let agent = PlaudDeviceAgent(configuration: configuration)
    let log = CallbackLog()
    agent.wifiAgent.delegate = log
    agent.initSDK(userAccessToken: FacadeBench.userToken, customDomain: FacadeBench.offlineDomain)
    agent.wifiAgent.bleDevice = BleDevice(serialNumber: "8881234567890123")
    agent.wifiAgent.connectWifi("PLAUD0123", "01234567", 1)
    try await eventually("refused") { log.count("wifiCommonErr") == 1 }
    #expect(log.all.suffix(2) == ["wifiHandshake -1", "wifiCommonErr 1 -1"])
    #expect(agent.lastError == .noCentral)
  }

  @Test("failures: no joiner, a refused join retried until the timeout, the wrong device")
  func failures() async throws {
    // No joiner configured: the hotspot opens over BLE, the join fails clearly.
    do {
      let bench = try FacadeBench(seed: 15)
      defer { bench.cleanUp() }
      let log = CallbackLog()
      let hotspot = try await Self.raiseHotspot(bench, log)
      bench.agent.wifiAgent.connectWifi(hotspot.wholeName, hotspot.password, 5)
      try await eventually("refused") { log.count("wifiCommonErr") == 1 }
      #expect(log.all.suffix(2) == ["wifiHandshake -1", "wifiCommonErr 1 -1"])
      #expect(bench.agent.lastError == .noHotspotJoiner)
      #expect(!bench.agent.lastError!.description.contains(hotspot.password))
      bench.agent.setDeviceWiFi(open: false)
      try await eventually("hotspot down") { await bench.device.hotspotSSID == nil }
      #expect(!bench.agent.isWiFiTransferActive && !log.has("wifiClose"))
      // A device that cannot raise its hotspot: bleWiFiOpen(-1, "", "", "").
      await bench.device.setFaults(FaultPlan(refuseWiFiOpen: true))
      bench.agent.setDeviceWiFi(open: true)
      try await eventually("refused") { log.has("bleWiFiOpen -1") }
      #expect(!bench.agent.isWiFiTransferActive)
    }
    // A wrong password: the device refuses every join; retried until the timeout.
    do {
      let bench = try FacadeBench(seed: 16, wifi: true)
      defer { bench.cleanUp() }
      let log = CallbackLog()
      let hotspot = try await Self.raiseHotspot(bench, log)
      let wrong = hotspot.password == "Wrong123" ? "Wrong456" : "Wrong123"
      let started = bench.clock.elapsed
      bench.agent.wifiAgent.connectWifi(hotspot.wholeName, wrong, 1)
      try await eventually("gave up") { log.count("wifiCommonErr") == 1 }
      // The join's timeout runs on the agent's clock, as every other wait does.
      #expect(bench.clock.elapsed - started >= .seconds(1))
      #expect(log.all.suffix(2) == ["wifiHandshake -1", "wifiCommonErr 1 -1"])
      #expect(!(bench.agent.lastError?.description.contains(wrong) ?? true))
      #expect(!log.has("wifiConnectionStatus"))

      // The wrong device: its HELLO token is not the serial's (not retried).
      bench.agent.wifiAgent.bleDevice = BleDevice(serialNumber: "8889999999999999")
      bench.agent.wifiAgent.connectWifi(hotspot.wholeName, hotspot.password, 60)
      try await eventually("wrong device") { log.count("wifiCommonErr") == 2 }
      #expect(log.count("wifiHandshake -1") == 2)
      bench.agent.endWiFiTransfer()
      try await eventually("hotspot down") { await bench.device.hotspotSSID == nil }
    }
  }
}
