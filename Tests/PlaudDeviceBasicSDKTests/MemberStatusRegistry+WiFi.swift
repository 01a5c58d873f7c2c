import Foundation
import PlaudDeviceBasicSDK
import RecorderConcurrency
import RecorderEmulator
import TestSupport
import Testing

/// The Wi-Fi bench's checks, in order: the hotspot over BLE, the join, the session's
/// queries, list / sync / stop / export / download all / delete, the members that are not
/// supported, the callbacks that never fire, then the close.
extension MemberStatusRegistry {
  static let wifiAgent = "PlaudWiFiAgent"
  static let wifiCallbacks = "PlaudWiFiAgentProtocol"

  static let wifi: [MemberCheck] = wifiSession + wifiTransfers + wifiRefusals + wifiLast

  static func hotspotName(_ c: MemberContext) throws -> String {
    try #require(c.log.hotspot.current?.name, "no hotspot reported")
  }

  static let wifiSession: [MemberCheck] = [
    on(.wifi, agent, #"`func setDeviceWiFi(open: Bool)`"#) { c in
      let entry = try await c.call({ c.agent.setDeviceWiFi(open: true) }, heard: "bleWiFiOpen ")
      try require(entry == "bleWiFiOpen 0", entry)
      let name = try hotspotName(c)
      try require(await c.device.hotspotSSID == name, "the device's hotspot is not \(name)")
      return .answered("the device's hotspot is up")
    },
    on(
      .wifi, callbacks,
      #"`optional func bleWiFiOpen(_ status: Int, _ wifiName: String, _ wholeName: String, _ wifiPass: String)`"#
    ) { c in
      let name = try hotspotName(c)
      let password = try #require(c.log.hotspot.current?.password)
      try require(name == "PLAUD" + c.serial.suffix(4), "hotspot \(name)")
      try require(password.count == 8, "a password of \(password.count) characters")
      return .answered("status 0, the hotspot's name and password")
    },
    on(.wifi, agent, #"`var isWiFiTransferActive: Bool { get }`"#) { c in
      try require(c.agent.isWiFiTransferActive, "false with the hotspot up")
      return .answered("true with the hotspot up")
    },
    on(.wifi, wifiAgent, #"`var bleDevice: BleDevice? { get set }`"#) { c in
      c.wifi.bleDevice = BleDevice(serialNumber: c.serial)
      try require(c.wifi.bleDevice?.serialNumber == c.serial, "not read back")
      return .answered("set and read back")
    },
    on(.wifi, wifiAgent, #"`weak var delegate: (any PlaudWiFiAgentProtocol)? { get set }`"#) { c in
      try require(c.wifi.delegate === c.log, "not the delegate set")
      return .answered("the delegate set")
    },
    on(
      .wifi, wifiAgent,
      #"`func connectWifi(_ ssid: String, _ passphrase: String, _ overtimeSec: Int = 60)`"#
    ) { c in
      let hotspot = try #require(c.log.hotspot.current)
      let entry = try await c.call(
        { c.wifi.connectWifi(hotspot.name, hotspot.password, 60) }, heard: "wifiHandshake ")
      try require(entry == "wifiHandshake 0", "\(entry) \(c.lastFailure)")
      return .answered(entry)
    },
    on(.wifi, wifiCallbacks, #"`optional func wifiHandshake(_ status: Int)`"#) { c in
      try require(c.log.has("wifiHandshake 0"), "no wifiHandshake 0")
      return .answered("wifiHandshake 0")
    },
    on(
      .wifi, wifiCallbacks,
      #"`optional func wifiConnectionStatus(_ ssid: String, _ connected: Bool)`"#
    ) { c in
      let name = try hotspotName(c)
      try require(c.log.has("wifiConnectionStatus \(name) true"), "not connected to \(name)")
      return .answered("the hotspot, true")
    },
    on(
      .wifi, wifiCallbacks,
      #"`optional func wifiConnectResult(_ success: Bool, _ errorCode: Int, _ message: String)`"#
    ) { c in
      try require(c.log.has("wifiConnectResult true 0 "), "no (true, 0, \"\")")
      return .answered("(true, 0, \"\")")
    },
    on(.wifi, wifiAgent, #"`var isConnected: Bool { get }`"#) { c in
      try require(c.wifi.isConnected, "false after the handshake")
      return .answered("true")
    },
    on(.wifi, wifiAgent, #"`func isWebSocketConnected() -> Bool`"#) { c in
      try require(c.wifi.isWebSocketConnected(), "false after the handshake")
      return .answered("true")
    },
    on(.wifi, wifiAgent, #"`func isConnectedTo(_ ssid: String) -> Bool`"#) { c in
      let name = try hotspotName(c)
      try require(c.wifi.isConnectedTo(name) && !c.wifi.isConnectedTo("other"), "")
      return .answered("true for its hotspot only")
    },
    on(.wifi, wifiAgent, #"`func getCurrentWiFiName() -> String?`"#) { c in
      let name = try hotspotName(c)
      try require(c.wifi.getCurrentWiFiName() == name, "\(c.wifi.getCurrentWiFiName() ?? "nil")")
      return .answered(name)
    },
    on(.wifi, wifiAgent, #"`func getConnectionStatusDescription() -> String`"#) { c in
      let name = try hotspotName(c)
      let text = c.wifi.getConnectionStatusDescription()
      try require(text == "connected to \(name)", text)
      return .answered(text)
    },
  ]

  static let wifiTransfers: [MemberCheck] = [
    on(
      .wifi, wifiAgent, #"`func getFileList(_ uid: Int, _ sessionId: Int, _ single: Bool = false)`"#
    ) { c in
      try await c.call({ c.wifi.getFileList(1, 0, false) }, heard: "wifiFileList ")
      let listed = c.log.wifiFiles.current.map(\.sessionId)
      let held = try await onDevice(c)
      try require(Set(listed) == Set(held.keys), "listed \(listed), held \(held.keys)")
      return .answered("the device's \(listed.count) recordings")
    },
    on(.wifi, wifiCallbacks, #"`optional func wifiFileList(_ files: [BleFile])`"#) { c in
      let files = c.log.wifiFiles.current
      let held = try await onDevice(c)
      for file in files {
        try require(file.size == held[file.sessionId]?.size && file.sn == c.serial, "\(file)")
      }
      return .answered("sizes and serial as the device's")
    },
    on(
      .wifi, wifiAgent,
      #"`func syncFile(_ sessionId: Int, _ start: Int, _ end: Int = 0, _ scene: Int = 1)`"#
    ) { c in
      let id = c.recordings[0]
      let wifi = c.wifi
      // What the agent says while the data arrives, for the rows of its two properties.
      stopOnFirst(c, { $0 == "wifiSyncFileData" }) {
        c.log.entries.withLock {
          $0.append("during: isDownloading \(wifi.isDownloading) \(wifi.currentSessionId)")
        }
      }
      defer { c.log.reaction.withLock { $0 = nil } }
      try await c.call({ c.wifi.syncFile(id, 0, 0, 1) }, heard: "wifiDataComplete")
      let size = try #require(try await onDevice(c)[id]).size
      let got = c.log.wifiBytes.current[id] ?? 0
      try require(got == size, "\(got) bytes of \(size)")
      return .answered("all \(size) bytes")
    },
    on(.wifi, wifiAgent, #"`var isDownloading: Bool { get }`"#) { c in
      let during = try #require(c.log.last("during: "))
      try require(during.hasPrefix("during: isDownloading true "), during)
      try require(!c.wifi.isDownloading, "true after the transfer")
      return .answered("true during a transfer, false after")
    },
    on(.wifi, wifiAgent, #"`var currentSessionId: Int { get }`"#) { c in
      let during = try #require(c.log.last("during: "))
      try require(during.hasSuffix(" \(c.recordings[0])"), "\(during), not \(c.recordings[0])")
      return .answered("the recording moving")
    },
    on(.wifi, wifiCallbacks, #"`optional func wifiSyncFile(_ sessionId: Int, _ status: Int)`"#) {
      c in
      try require(c.log.has("wifiSyncFile \(c.recordings[0]) 0"), "no wifiSyncFile id 0")
      return .answered("wifiSyncFile id 0")
    },
    on(
      .wifi, wifiCallbacks,
      #"`optional func wifiSyncFileData(_ sessionId: Int, _ offset: Int, _ count: Int, _ binData: Data)`"#
    ) { c in
      try require(c.log.count("wifiSyncFileData") > 0, "no data")
      return .answered("\(c.log.count("wifiSyncFileData")) chunks")
    },
    on(.wifi, wifiCallbacks, #"`optional func wifiDataComplete()`"#) { c in
      try require(c.log.count("wifiDataComplete") == 1, "not once")
      return .answered("once")
    },
    on(.wifi, wifiAgent, #"`var currentDownloadSpeedKBps: Double { get }`"#) { c in
      try require(c.wifi.currentDownloadSpeedKBps > 0, "0 after a transfer")
      return .answered("\(c.wifi.currentDownloadSpeedKBps) KB/s")
    },
    on(.wifi, wifiAgent, #"`func getFormattedDownloadSpeed() -> String`"#) { c in
      let text = c.wifi.getFormattedDownloadSpeed()
      try require(text != "0 KB/s" && text.hasSuffix("B/s"), text)
      return .answered(text)
    },
    on(.wifi, wifiAgent, #"`func stopSyncFile(_ sessionId: Int, _ scene: Int = 1)`"#) { c in
      let long = c.recordings[2]
      let wifi = c.wifi
      let size = try #require(try await onDevice(c)[long]).size
      // Stopped from the first data callback, as an app's cancel button would. The device
      // pauses its content (the pause fault) until the stop was asked for; then one PDU
      // more, which the agent refuses and answers with STOP: the STOP finds the transfer
      // going however late the callback queue delivers, where a free-running loopback stream
      // could be over before the stop is asked. The cut is inside the second 32 KiB PDU: the
      // agent hands a frame on when the next one arrives (it joins frames into chunks), and
      // the PDU after it is not the file's last (a STOP after the last is a goodbye).
      let cut = 40_000
      let device = c.device
      await device.setFaults(FaultPlan(pauseWiFiContentAfterBytes: cut))
      c.log.wifiBytes.withLock { $0[long] = 0 }
      let completed = c.log.count("wifiDataComplete")
      stopOnFirst(c, { $0 == "wifiSyncFileData" }) {
        wifi.stopSyncFile(long, 1)
        Task { await device.stepWiFiContent() }
      }
      defer { c.log.reaction.withLock { $0 = nil } }
      let entry = try await c.call({ c.wifi.syncFile(long, 0) }, heard: "wifiSyncFileStop ")
      let got = c.log.wifiBytes.current[long] ?? 0
      try require(entry == "wifiSyncFileStop 0", entry)
      try require(got < size && got <= cut, "\(got) of \(size) bytes (the pause at \(cut))")
      try require(c.log.count("wifiDataComplete") == completed, "completed though stopped")
      try require(await c.device.faultPlan.pauseWiFiContentAfterBytes == nil, "never paused")
      return .answered("\(entry) after \(got) of \(size) bytes, no wifiDataComplete")
    },
    on(.wifi, wifiCallbacks, #"`optional func wifiSyncFileStop(_ status: Int)`"#) { c in
      try require(c.log.has("wifiSyncFileStop 0"), "no wifiSyncFileStop 0")
      return .answered("wifiSyncFileStop 0")
    },
    on(
      .wifi, wifiAgent,
      #"`func exportAudioViaWiFi(sessionId: Int, outputDir: String, format: AudioExportFormat, channels: Int = 1, callback: any AudioExportCallback)`"#
    ) { c in
      let id = c.recordings[1]
      let entry = try await c.call(
        {
          c.wifi.exportAudioViaWiFi(
            sessionId: id, outputDir: c.scratch, format: .wav, callback: c.log)
        }, heard: "onComplete ")
      let path = String(entry.dropFirst("onComplete ".count))
      let head = try #require(FileManager.default.contents(atPath: path)).prefix(4)
      try require(head == Data("RIFF".utf8), "not a WAV file")
      return .answered("a WAV file in outputDir")
    },
    on(.wifi, wifiAgent, #"`func startDownloadAll()`"#) { c in
      let wifi = c.wifi
      // Stopped at the first file's progress (stopDownloadAll's row reads the result).
      stopOnFirst(c, { $0.hasPrefix("wifiDownloadAllProgress 3 1") }) {
        c.log.entries.withLock { $0.append("batch: isDownloadingAll \(wifi.isDownloadingAll)") }
        wifi.stopDownloadAll()
      }
      defer { c.log.reaction.withLock { $0 = nil } }
      let entry = try await c.call(
        { c.wifi.startDownloadAll() }, heard: "wifiDownloadAllCompleted ")
      try require(c.log.count("wifiDownloadAllProgress 3 1") > 0, "no progress of 3 files")
      return .answered("a batch of the device's 3 files: \(entry)")
    },
    on(.wifi, wifiAgent, #"`func stopDownloadAll()`"#) { c in
      let entry = try #require(c.log.last("wifiDownloadAllCompleted "))
      let counts = entry.split(separator: " ").dropFirst().compactMap { Int($0) }
      try require(counts.count == 2 && counts[0] + counts[1] == 3 && counts[0] <= 1, entry)
      return .answered("ended with what it moved: \(entry)")
    },
    on(.wifi, wifiAgent, #"`var isDownloadingAll: Bool { get }`"#) { c in
      try require(c.log.has("batch: isDownloadingAll true"), "not true during the batch")
      try require(!c.wifi.isDownloadingAll, "true after the batch")
      return .answered("true during the batch, false after")
    },
    on(.wifi, wifiAgent, #"`func downloadAllFiles()`"#) { c in
      let entry = try await c.call(
        { c.wifi.downloadAllFiles() }, heard: "wifiDownloadAllCompleted ")
      try require(entry == "wifiDownloadAllCompleted 3 0", entry)
      return .answered(entry)
    },
    on(
      .wifi, wifiCallbacks,
      #"`optional func wifiDownloadAllProgress(_ totalFiles: Int, _ currentFileIndex: Int, _ currentFile: BleFile?, _ totalProgress: Double)`"#
    ) { c in
      for index in 1...3 {
        try require(c.log.count("wifiDownloadAllProgress 3 \(index)") > 0, "no file \(index) of 3")
      }
      return .answered("files 1…3 of 3")
    },
    on(
      .wifi, wifiCallbacks,
      #"`optional func wifiDownloadAllCompleted(_ completedFiles: Int, _ failedFiles: Int)`"#
    ) { c in
      try require(c.log.has("wifiDownloadAllCompleted 3 0"), "not 3 0")
      return .answered("3 0")
    },
    on(.wifi, wifiAgent, #"`func deleteFile(_ sessionId: Int, _ scene: Int = 1)`"#) { c in
      let id = c.recordings[0]
      let entry = try await c.call({ c.wifi.deleteFile(id, 1) }, heard: "wifiFileDelete ")
      try require(entry == "wifiFileDelete \(id) 0", "\(entry) \(c.lastFailure)")
      try require(try await onDevice(c)[id] == nil, "still on the device")
      return .answered(entry)
    },
    on(.wifi, wifiCallbacks, #"`optional func wifiFileDelete(_ sessionId: Int, _ status: Int)`"#) {
      c in
      try require(c.log.has("wifiFileDelete \(c.recordings[0]) 0"), "no wifiFileDelete id 0")
      return .answered("id 0")
    },
  ]

  static let wifiRefusals: [MemberCheck] = [
    on(.wifi, wifiCallbacks, #"`optional func wifiCommonErr(_ cmd: Int, _ status: Int)`"#) { c in
      let entry = try await c.call({ c.wifi.deleteFile(12_345, 1) }, heard: "wifiCommonErr ")
      try require(entry.hasPrefix("wifiCommonErr 14 "), entry)
      try require(c.log.count("wifiFileDelete 12345 ") == 1, "no wifiFileDelete first")
      return .answered("\(entry) after a delete the device refused")
    },
    on(.wifi, "BleDevice", #"`var supportWiFi: Bool  (TA: PlaudDevice(supportWiFi: Bool))`"#) { c in
      let recent = try #require(c.agent.recentConnectDevice)
      try require(recent.supportWiFi, "false for a device whose hotspot opened")
      return .answered("true, the hotspot opened")
    },
    on(.wifi, wifiAgent, #"`func listenPort(_ ssid: String, _ overtimeSec: Int = 30)`"#) { c in
      try await c.refusal("listenPort", heard: "wifiConnectResult false -1 ") {
        c.wifi.listenPort("PLAUD0000", 30)
      }
    },
    on(.wifi, wifiAgent, #"`func startRateTest(_ onOff: Bool, _ packSize: Int)`"#) { c in
      try await c.refusal("startRateTest", heard: "wifiRateFail -1") {
        c.wifi.startRateTest(true, 1024)
      }
    },
    on(.wifi, wifiAgent, #"`func getDeviceLogs(_ begin: Bool)`"#) { c in
      try await c.refusal("getDeviceLogs", heard: "wifiLogsFail -1") { c.wifi.getDeviceLogs(true) }
    },
    on(.wifi, wifiCallbacks, #"`optional func wifiRateFail(_ status: Int)`"#) { c in
      try await c.refusal("startRateTest", heard: "wifiRateFail -1") {
        c.wifi.startRateTest(false, 512)
      }
    },
    on(.wifi, wifiCallbacks, #"`optional func wifiLogsFail(_ status: Int)`"#) { c in
      try await c.refusal("getDeviceLogs", heard: "wifiLogsFail -1") { c.wifi.getDeviceLogs(false) }
    },
    on(.wifi, wifiAgent, #"`func openLog(_ opened: Bool, _ backBlock: ((String) -> Void)? = nil)`"#)
    { c in
      let line = try await answer("openLog's line") { done in c.wifi.openLog(true) { done($0) } }
      try require(line.contains("RecorderKit does not forward its logs"), line)
      return .answered("the block heard: \(line)")
    },
    on(.wifi, wifiCallbacks, #"`optional func wifiPower(_ power: Int, _ voltage: Int)`"#) { c in
      c.neverFired("wifiPower", "a Wi-Fi session with transfers")
    },
    on(.wifi, wifiCallbacks, #"`optional func wifiClientFail()`"#) { c in
      c.neverFired("wifiClientFail", "a Wi-Fi session with transfers")
    },
    on(
      .wifi, wifiCallbacks,
      #"`optional func wifiRate(_ instantRate: Int, _ averageRate: Int, _ lossRate: Double)`"#
    ) { c in
      c.neverFired("wifiRate", "startRateTest")
    },
    on(.wifi, wifiCallbacks, #"`optional func wifiLogs(_ logData: Data?)`"#) { c in
      c.neverFired("wifiLogs", "getDeviceLogs")
    },
    on(.wifi, wifiCallbacks, #"`optional func wifiTips(_ tips: Int)`"#) { c in
      c.neverFired("wifiTips", "a Wi-Fi session with transfers")
    },
  ]

  static let wifiLast: [MemberCheck] = [
    on(.wifi, wifiAgent, #"`func disconnect()`"#) { c in
      let entry = try await c.call({ c.wifi.disconnect() }, heard: "wifiClose ")
      try require(entry == "wifiClose 0", entry)
      try require(!c.wifi.isConnected, "still connected")
      return .answered(entry)
    },
    on(.wifi, wifiCallbacks, #"`optional func wifiClose(_ status: Int)`"#) { c in
      let name = try hotspotName(c)
      let closing = c.log.all.filter {
        $0.hasPrefix("wifiConnectionStatus") || $0.hasPrefix("wifiClose")
      }
      try require(
        closing.suffix(2) == ["wifiConnectionStatus \(name) false", "wifiClose 0"], "\(closing)")
      return .answered("after wifiConnectionStatus false")
    },
    on(.wifi, wifiCallbacks, #"`optional func wifiFileListFail(_ status: Int)`"#) { c in
      // The session is closed now: the list is refused, then wifiCommonErr(11, status).
      let entry = try await c.call({ c.wifi.getFileList(1, 0, false) }, heard: "wifiFileListFail ")
      try require(entry == "wifiFileListFail -1", entry)
      try await c.heard("wifiCommonErr 11 ", after: 0)
      try require(c.agent.lastError == .wifiNotConnected, c.lastFailure)
      return .answered("\(entry), no session")
    },
    on(.wifi, agent, #"`func endWiFiTransfer()`"#) { c in
      c.agent.endWiFiTransfer()
      try await eventually("hotspot down") {
        await c.device.hotspotSSID == nil
      }
      try require(!c.agent.isWiFiTransferActive, "still active")
      return .answered("the device's hotspot is down")
    },
  ]
}
