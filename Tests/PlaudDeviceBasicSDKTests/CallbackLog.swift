import Foundation
import PlaudDeviceBasicSDK
import RecorderConcurrency

/// Every callback the reference (002) and the guide (000) name, implemented with its exact
/// signature (a drift in the facade fails to compile here), each logging its name and
/// arguments.
final class CallbackLog: PlaudDeviceAgentProtocol, AudioExportCallback, PlaudWiFiAgentProtocol,
  Sendable
{
  let entries = Locked<[String]>([])
  /// The hotspot `bleWiFiOpen` reported (names and password are kept here, not in `entries`).
  let hotspot = Locked<(wifiName: String, wholeName: String, password: String)?>(nil)
  /// `wifiSyncFileData` chunks per recording, in arrival order.
  let chunks = Locked<[Int: [(offset: Int, data: Data)]]>([:])
  /// Whether the delegate calls ever ran on the main thread (they must not).
  let sawMainThread = Locked(false)

  /// Called with every entry after it is logged, on the callback queue (a test reacting to
  /// a callback the way an app would, say stopping a transfer at its first data).
  let reaction = Locked<(@Sendable (String) -> Void)?>(nil)

  func log(_ entry: String) {
    if Thread.isMainThread { sawMainThread.withLock { $0 = true } }
    entries.withLock { $0.append(entry) }
    reaction.withLock { $0 }?(entry)
  }
  func count(_ prefix: String) -> Int {
    entries.withLock { $0.filter { $0.hasPrefix(prefix) }.count }
  }
  func has(_ entry: String) -> Bool { entries.withLock { $0.contains(entry) } }
  var all: [String] { entries.withLock { $0 } }

  /// The bytes `wifiSyncFileData` delivered for `sessionId` since the last call, starting at
  /// `start`; nil when the chunks were not contiguous from there.
  func takeBytes(_ sessionId: Int, from start: Int) -> [UInt8]? {
    let delivered = chunks.withLock { $0.removeValue(forKey: sessionId) } ?? []
    var bytes: [UInt8] = []
    for chunk in delivered {
      guard chunk.offset == start + bytes.count else { return nil }
      bytes += chunk.data
    }
    return bytes
  }

  // PlaudDeviceAgentProtocol
  func blePenState(
    state: Int, privacy: Int, keyState: Int, uDisk: Int, findMyToken: Int, hasSndpKey: Int,
    deviceAccessToken: Int
  ) { log("blePenState state=\(state) privacy=\(privacy) keyState=\(keyState)") }
  func bleConnectState(state: Int) { log("bleConnectState \(state)") }
  func bleScanResult(bleDevices: [BleDevice]) {
    log("bleScanResult \(bleDevices.map(\.serialNumber).joined(separator: ","))")
  }
  func bleScanOverTime() { log("bleScanOverTime") }
  func bleBind(sn: String?, status: Int, protVersion: Int, timezone: Int) {
    log("bleBind \(sn ?? "nil") status=\(status) port=\(protVersion) tz=\(timezone)")
  }
  func bleStorage(total: Int, free: Int, duration: Int) { log("bleStorage total=\(total)") }
  func bleChargingState(isCharging: Bool, level: Int) { log("bleChargingState \(level)") }
  func bleRecordStart(
    sessionId: Int, start: Int, status: Int, scene: Int, startTime: Int, reason: Int
  ) {
    log("bleRecordStart status=\(status)")
  }
  func bleRecordStop(sessionId: Int, reason: Int, fileExist: Bool, fileSize: Int) {
    log("bleRecordStop \(sessionId) size=\(fileSize)")
  }
  func bleRecordPause(sessionId: Int, reason: Int, fileExist: Bool, fileSize: Int) {
    log("bleRecordPause")
  }
  func bleRecordResume(sessionId: Int, start: Int, status: Int, scene: Int, startTime: Int) {
    log("bleRecordResume status=\(status)")
  }
  func blePcmData(sessionId: Int, millsec: Int, pcmData: Data, isMusic: Bool) { log("blePcmData") }
  func bleFileList(bleFiles: [BleFile]) {
    log("bleFileList \(bleFiles.map { "\($0.sessionId):\($0.size):\($0.offset):\($0.scenes)" })")
  }
  func bleData(sessionId: Int, start: Int, data: Data) { log("bleData") }
  func bleDataComplete() { log("bleDataComplete") }
  func bleDeleteFile(sessionId: Int, status: Int) { log("bleDeleteFile status=\(status)") }
  func bleDepair(_ status: Int) { log("bleDepair \(status)") }
  func bleWiFiOpen(_ status: Int, _ wifiName: String, _ wholeName: String, _ wifiPass: String) {
    if status == 0 { hotspot.withLock { $0 = (wifiName, wholeName, wifiPass) } }
    log("bleWiFiOpen \(status)")
  }
  func bleFotaResult(uid: Int, status: Int, errmsg: String?) { log("bleFotaResult \(status)") }
  func bleIBeaconWakeupTriggered(sn: String) { log("bleIBeaconWakeupTriggered \(sn)") }

  // AudioExportCallback
  func onProgress(_ progress: Int, message: String) { log("onProgress \(progress)") }
  func onComplete(outputPath: String) { log("onComplete \(outputPath)") }
  func onError(_ error: String) { log("onError \(error)") }

  // PlaudWiFiAgentProtocol
  func wifiHandshake(_ status: Int) { log("wifiHandshake \(status)") }
  func wifiConnectionStatus(_ ssid: String, _ connected: Bool) {
    log("wifiConnectionStatus \(ssid) \(connected)")
  }
  func bleFotaPackReq(uid: Int, start: Int, end: Int) { log("bleFotaPackReq \(start) \(end)") }
  func bleFotaPackFin(uid: Int, status: Int, errmsg: String?) { log("bleFotaPackFin \(status)") }
  func wifiFileList(_ files: [BleFile]) {
    log("wifiFileList \(files.map { "\($0.sessionId):\($0.size):\($0.offset):\($0.scenes)" })")
  }
  func wifiFileListFail(_ status: Int) { log("wifiFileListFail \(status)") }
  func wifiSyncFile(_ sessionId: Int, _ status: Int) { log("wifiSyncFile \(status)") }
  func wifiSyncFileData(_ sessionId: Int, _ offset: Int, _ count: Int, _ binData: Data) {
    if count != binData.count { log("wifiSyncFileData count mismatch") }
    chunks.withLock { $0[sessionId, default: []].append((offset, binData)) }
    log("wifiSyncFileData")
  }
  func wifiFileDelete(_ sessionId: Int, _ status: Int) {
    log("wifiFileDelete \(sessionId) \(status)")
  }
  func wifiDataComplete() { log("wifiDataComplete") }
  func wifiSyncFileStop(_ status: Int) { log("wifiSyncFileStop \(status)") }
  func wifiDownloadAllProgress(
    _ totalFiles: Int, _ currentFileIndex: Int, _ currentFile: BleFile?, _ totalProgress: Double
  ) {
    let file = currentFile.map { "\($0.sessionId)" } ?? "nil"
    log("wifiDownloadAllProgress \(totalFiles) \(currentFileIndex) \(file) \(totalProgress)")
  }
  func wifiDownloadAllCompleted(_ completedFiles: Int, _ failedFiles: Int) {
    log("wifiDownloadAllCompleted \(completedFiles) \(failedFiles)")
  }
  func wifiCommonErr(_ cmd: Int, _ status: Int) { log("wifiCommonErr \(cmd) \(status)") }
  func wifiClose(_ status: Int) { log("wifiClose \(status)") }
}

/// The background guide's app, in our words: list → export each as mp3 → on completion
/// delete it and export the next, on error move on; sync one second after a recording stops;
/// on a beacon wake-up connect by serial and sync three seconds after the bind.
final class SyncApp: PlaudDeviceAgentProtocol, AudioExportCallback, Sendable {
  private struct State {
    var pending: [Int] = []
    var current: Int?
    var beaconWakePending = false
    var runs = 0
    var idle = true
    /// When each sync started, in `clock`'s elapsed time.
    var syncStarts: [Duration] = []
  }
  let agent: PlaudDeviceAgent
  let outputDir: String
  let clock: AnyClock
  let log = CallbackLog()
  private let state = Locked(State())

  init(agent: PlaudDeviceAgent, outputDir: String, clock: AnyClock) {
    self.agent = agent
    self.outputDir = outputDir
    self.clock = clock
  }

  var runs: Int { state.withLock { $0.runs } }
  var idle: Bool { state.withLock { $0.idle } }
  var syncStarts: [Duration] { state.withLock { $0.syncStarts } }

  func startSync() {
    let now = clock.elapsed
    state.withLock {
      $0.runs += 1
      $0.idle = false
      $0.syncStarts.append(now)
    }
    agent.getFileList(startSessionId: 0)
  }

  private func downloadNext() {
    let next: Int? = state.withLock { state in
      guard !state.pending.isEmpty else {
        state.current = nil
        state.idle = true
        return nil
      }
      state.current = state.pending.removeFirst()
      return state.current
    }
    guard let next else { return }
    agent.exportAudio(
      sessionId: next, outputDir: outputDir, format: .mp3, channels: 1, callback: self)
  }

  private func after(_ delay: Duration, _ body: @escaping @Sendable () -> Void) {
    let clock = self.clock
    Task {
      try? await clock.sleep(for: delay)
      body()
    }
  }

  func blePenState(
    state: Int, privacy: Int, keyState: Int, uDisk: Int, findMyToken: Int, hasSndpKey: Int,
    deviceAccessToken: Int
  ) { log.log("blePenState") }
  func bleConnectState(state: Int) { log.log("bleConnectState \(state)") }
  func bleFileList(bleFiles: [BleFile]) {
    log.log("bleFileList \(bleFiles.count)")
    state.withLock { $0.pending = bleFiles.map(\.sessionId) }
    downloadNext()
  }
  func bleRecordStop(sessionId: Int, reason: Int, fileExist: Bool, fileSize: Int) {
    log.log("bleRecordStop")
    after(.seconds(1)) { self.startSync() }
  }
  func bleIBeaconWakeupTriggered(sn: String) {
    log.log("bleIBeaconWakeupTriggered")
    state.withLock { $0.beaconWakePending = true }
    agent.connectBySN(sn)
  }
  func bleBind(sn: String?, status: Int, protVersion: Int, timezone: Int) {
    log.log("bleBind \(status)")
    guard status == 0, sn != nil else { return }
    let woken = state.withLock { state -> Bool in
      defer { state.beaconWakePending = false }
      return state.beaconWakePending
    }
    if woken { after(.seconds(3)) { self.startSync() } }
  }
  func bleData(sessionId: Int, start: Int, data: Data) { log.log("bleData") }
  func bleDeleteFile(sessionId: Int, status: Int) { log.log("bleDeleteFile \(status)") }

  func onProgress(_ progress: Int, message: String) {}
  func onComplete(outputPath: String) {
    log.log("onComplete \(outputPath)")
    if let finished = state.withLock({ $0.current }) { agent.deleteFile(sessionId: finished) }
    downloadNext()
  }
  func onError(_ error: String) {
    log.log("onError \(error)")
    downloadNext()
  }
}
