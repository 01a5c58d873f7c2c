import Foundation
// The template's own import: PlaudBleSDK names BleAgent, BleDevice, BleFile and, through it,
// the rest of PlaudDeviceBasicSDK.
import PlaudBleSDK
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import TestSupport
import Testing

/// The vendor's template app, as a client: its device manager and sync manager rewritten in
/// our words from what `plaud-template-app/ios/.../DeviceManager.swift` does (vendor calls
/// only). Scan results are filtered to 881/882 and the last device is reconnected from them;
/// `recentConnectDevice` is read in `bleBind` and `blePenState`; a BLE drop while Wi-Fi is
/// active is swallowed; after Wi-Fi, the device's hotspot close is owed
/// (`pendingDeviceWiFiClose`) when BLE is down, and sent on the next successful `bleBind`.
final class TemplateApp: PlaudDeviceAgentProtocol, PlaudWiFiAgentProtocol, Sendable {
  struct State {
    var log: [String] = []
    var scanned: [String: BleDevice] = [:]
    var scanning = false
    var lastSN: String?
    var bleDroppedDuringWiFi = false
    var pendingDeviceWiFiClose = false
    var populated: [String] = []
    var wifiFiles: [Int] = []
    var current: Int?
    var received: [Int: [UInt8]] = [:]
    var hotspot: (name: String, password: String)?
    var syncing = false
  }
  let agent: PlaudDeviceAgent
  let userId: String
  let state = Locked(State())

  init(agent: PlaudDeviceAgent, userId: String) {
    self.agent = agent
    self.userId = userId
    agent.delegate = self
    agent.wifiAgent.delegate = self
  }

  var log: [String] { state.withLock { $0.log } }
  func has(_ entry: String) -> Bool { log.contains(entry) }
  private func note(_ entry: String) { state.withLock { $0.log.append(entry) } }

  // MARK: The device manager

  func configure() {
    agent.initSDK(userAccessToken: FacadeBench.userToken, customDomain: FacadeBench.offlineDomain)
    PlaudLogUploadManager.shared.setAutoUploadEnabled(false)
    PlaudLogConfig.shared.updateFileConfiguration(
      maxFileCount: 25, maxFileAge: 7 * 24 * 60 * 60, maxFileSize: 20 * 1024 * 1024)
  }

  func startScan() {
    state.withLock {
      $0.scanned = [:]
      $0.scanning = true
    }
    agent.startScan()
  }

  func bleScanResult(bleDevices: [BleDevice]) {
    let supported = bleDevices.filter {
      $0.serialNumber.hasPrefix("881") || $0.serialNumber.hasPrefix("882")
    }
    let match = state.withLock { state -> BleDevice? in
      state.scanned = Dictionary(supported.map { ($0.serialNumber, $0) }) { $1 }
      guard state.scanning, let last = state.lastSN, let device = state.scanned[last] else {
        return nil
      }
      state.scanning = false
      return device
    }
    if let match {
      agent.stopScan()
      agent.connectBleDevice(bleDevice: match, deviceToken: userId)
    }
  }

  /// The user picks `serial` from the scan list.
  func connect(serial: String) -> Bool {
    guard let device = state.withLock({ $0.scanned[serial] }) else { return false }
    state.withLock {
      $0.lastSN = serial
      $0.scanning = false
    }
    agent.stopScan()
    agent.connectBleDevice(bleDevice: device, deviceToken: userId)
    return true
  }

  func bleConnectState(state connectState: Int) {
    note("bleConnectState \(connectState)")
    guard connectState == 0 else { return }
    if agent.isWiFiTransferActive {
      // Real devices drop BLE while their hotspot is up: not a disconnect for the UI.
      state.withLock { $0.bleDroppedDuringWiFi = true }
      note("BLE drop swallowed")
    }
  }

  func bleBind(sn: String?, status: Int, protVersion: Int, timezone: Int) {
    note("bleBind \(status)")
    guard status == 0, sn != nil else { return }
    let closeOwed = state.withLock { state -> Bool in
      defer { state.pendingDeviceWiFiClose = false }
      return state.pendingDeviceWiFiClose
    }
    if closeOwed {
      agent.setDeviceWiFi(open: false)
      note("owed Wi-Fi close sent")
    }
    populate("bleBind")
    agent.getState()
    agent.getStorage()
    let start = state.withLock { state -> Bool in
      defer { state.syncing = true }
      return !state.syncing
    }
    if start { agent.getFileList(startSessionId: 0) }
  }

  func blePenState(
    state: Int, privacy: Int, keyState: Int, uDisk: Int, findMyToken: Int, hasSndpKey: Int,
    deviceAccessToken: Int
  ) { populate("blePenState") }

  /// What the template reads from `recentConnectDevice` for its device card.
  private func populate(_ from: String) {
    guard let raw = agent.recentConnectDevice else {
      note("\(from): no recentConnectDevice")
      return
    }
    let version = "\(raw.versionTypeStr)\(Self.formatVersionCode(raw.versionCode))"
    let card =
      "\(raw.serialNumber) \(raw.name) \(raw.power)% \(raw.isCharging) wifi:\(raw.supportWiFi) \(version)"
    state.withLock { $0.populated.append("\(from): \(card)") }
  }

  /// The template's version formatting: codes under 255 as four digits, else major.minor.patch.
  static func formatVersionCode(_ code: Int) -> String {
    if code <= 0 { return "unknown" }
    if code < 255 { return String(format: "%04d", code) }
    return "\((code >> 16) & 0xFF).\((code >> 8) & 0xFF).\(code & 0xFF)"
  }

  // MARK: The sync manager: a backlog goes over Wi-Fi

  func bleFileList(bleFiles: [BleFile]) {
    note("bleFileList \(bleFiles.count)")
    guard !bleFiles.isEmpty, agent.recentConnectDevice?.supportWiFi == true else { return }
    agent.setDeviceWiFi(open: true)
  }

  func bleWiFiOpen(_ status: Int, _ wifiName: String, _ wholeName: String, _ wifiPass: String) {
    note("bleWiFiOpen \(status)")
    guard status == 0 else { return }
    state.withLock { $0.hotspot = (wholeName, wifiPass) }
    // The template passes `BleAgent.shared.bleDevice`: the process's one agent. Tests run
    // several agents at once, so this one's connected device stands in for it.
    agent.wifiAgent.bleDevice = agent.recentConnectDevice
    agent.wifiAgent.connectWifi(wholeName, wifiPass)
  }

  func wifiHandshake(_ status: Int) {
    note("wifiHandshake \(status)")
    if status == 0 { agent.wifiAgent.getFileList(1, 0, false) }
  }

  func wifiFileList(_ files: [BleFile]) {
    note("wifiFileList \(files.count)")
    state.withLock { $0.wifiFiles = files.map(\.sessionId) }
    syncNext()
  }

  private func syncNext() {
    let next = state.withLock { state -> Int? in
      state.current = state.wifiFiles.isEmpty ? nil : state.wifiFiles.removeFirst()
      return state.current
    }
    guard let next else {
      finishWiFi()
      return
    }
    agent.wifiAgent.syncFile(next, 0)
  }

  func wifiSyncFileData(_ sessionId: Int, _ offset: Int, _ count: Int, _ binData: Data) {
    state.withLock { state in
      var bytes = state.received[sessionId] ?? []
      if offset == bytes.count { bytes += binData }
      state.received[sessionId] = bytes
    }
  }

  func wifiDataComplete() {
    guard let current = state.withLock({ $0.current }) else { return }
    note("wifiDataComplete")
    agent.wifiAgent.deleteFile(current)
  }

  func bleWiFiClose(_ status: Int) { note("bleWiFiClose \(status)") }
  func wifiClose(_ status: Int) { note("wifiClose \(status)") }
  func wifiConnectionStatus(_ ssid: String, _ connected: Bool) {
    note("wifiConnectionStatus \(connected)")
  }

  func wifiFileDelete(_ sessionId: Int, _ status: Int) {
    note("wifiFileDelete \(status)")
    syncNext()
  }

  /// The template's end of a transfer: `endWiFiTransfer`, then the close is owed when BLE is
  /// down; a BLE link lost during Wi-Fi is brought back by scanning for the last device.
  private func finishWiFi() {
    agent.endWiFiTransfer()
    let dropped = state.withLock { state -> Bool in
      state.pendingDeviceWiFiClose = !agent.isConnected()
      state.syncing = false
      defer { state.bleDroppedDuringWiFi = false }
      return state.bleDroppedDuringWiFi
    }
    note("Wi-Fi done, close owed: \(state.withLock { $0.pendingDeviceWiFiClose })")
    if dropped && !agent.isConnected() { startScan() }
  }
}

@Suite("The vendor's template app against the emulator", .timeLimit(.minutes(3)))
struct TemplateFlowTests {
  @Test(
    "connect → bind → recentConnectDevice → auto-sync → Wi-Fi hand-off → owed Wi-Fi close",
    arguments: [true, false])
  func templateFlow(deviceDropsBLE: Bool) async throws {
    let bench = try FacadeBench(seed: 41, wifi: true) { configuration in
      configuration.serial = "8821234567890123"
      configuration.model = .notePinS
      configuration.wifi.dropsBLEOnOpen = deviceDropsBLE
    }
    defer { bench.cleanUp() }
    let device = bench.device
    var made: [RecordingInfo] = []
    for seconds in [20.0, 45] {
      made.append(try await device.addRecording(duration: .seconds(seconds)))
    }
    let flash = try Dictionary(
      uniqueKeysWithValues: made.map {
        (Int($0.sessionId.rawValue), [UInt8](try Data(contentsOf: URL(fileURLWithPath: $0.path))))
      })
    let app = TemplateApp(
      agent: bench.agent, userId: "client_user_01234567-89ab-cdef-0123-456789abcdef")
    app.configure()
    app.startScan()
    try await eventually("scan result") { app.state.withLock { !$0.scanned.isEmpty } }
    #expect(app.connect(serial: device.serial))
    try await eventually("Wi-Fi transfer done") {
      app.log.contains { $0.hasPrefix("Wi-Fi done") }
    }
    let state = app.state.withLock { $0 }
    // recentConnectDevice was there for bleBind and blePenState, with the device's card.
    let cards = state.populated
    #expect(cards.count >= 2, "\(cards)")
    #expect(
      cards.allSatisfy {
        $0.contains(device.serial) && $0.contains("wifi:true") && $0.contains("V0095")
      }, "\(cards)")
    #expect(!app.log.contains { $0.hasSuffix("no recentConnectDevice") })
    // Every recording came over Wi-Fi byte for byte and was deleted there.
    #expect(state.received == flash)
    #expect(app.log.filter { $0 == "wifiFileDelete 0" }.count == made.count)
    #expect(try await device.recordings().isEmpty)
    if deviceDropsBLE {
      #expect(app.has("BLE drop swallowed"))
      #expect(app.has("Wi-Fi done, close owed: true"), "\(app.log)")
      // BLE comes back: on the next bleBind the template sends the owed close.
      try await eventually("owed close sent") { app.has("owed Wi-Fi close sent") }
      try await eventually("hotspot down") { await device.hotspotSSID == nil }
      #expect(bench.agent.isConnected())
    } else {
      #expect(!app.has("BLE drop swallowed"))
      #expect(app.has("Wi-Fi done, close owed: false"), "\(app.log)")
      try await eventually("hotspot down") { await device.hotspotSSID == nil }
      #expect(!app.has("owed Wi-Fi close sent"))
    }
    #expect(!bench.agent.isWiFiTransferActive)
  }
}
