import Foundation
import PlaudDeviceBasicSDK
import PlaudWiFiSDK
import RecorderConcurrency
import RecorderCrypto
import TestSupport
import Testing

/// The E2EE known-answer file on disk.
private func fixtureFile() throws -> String {
  let path = NSTemporaryDirectory() + "plaud-e2ee-\(UUID().uuidString).bin"
  let hex = E2EEFixture.fileHex
  var bytes: [UInt8] = []
  var index = hex.startIndex
  while index < hex.endIndex {
    let next = hex.index(index, offsetBy: 2)
    bytes.append(UInt8(hex[index..<next], radix: 16)!)
    index = next
  }
  _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
  return path
}

@Suite("PlaudDeviceBasicSDK's E2EE helpers on BleAgent")
struct E2EEHelperTests {
  @Test("the known-answer file: header fields, and decryption to the plain audio's SHA-256")
  func knownAnswer() throws {
    let path = try fixtureFile()
    let output = path + ".plain"
    defer {
      try? FileManager.default.removeItem(atPath: path)
      try? FileManager.default.removeItem(atPath: output)
    }
    #expect(BleAgent.shared.isE2EEEncryptedFile(path: path))
    let header = try #require(BleAgent.shared.getE2EEFileHeader(path: path))
    #expect(header.isEncrypted && header.userIdString == "user-1")
    #expect(header.headerSizeValue == 512 && header.version == 1)
    #expect(
      header.keyCipher.count == 256 && header.nonce.count == 12 && header.reserved.count == 70)
    #expect(PlaudEncryptHeader.headerSize == 512 && PlaudEncryptHeader.magicString == "PLAUD.AI")
    let written = try BleAgent.shared.decryptE2EEAudioFile(
      inputPath: path, outputPath: output, privateKeyPem: E2EEFixture.userKeyPEM)
    #expect(written == output)
    #expect(try FileDigest.sha256Hex(ofFile: output) == E2EEFixture.plainSHA256)
  }

  @Test("a wrong key, a cut header and foreign bytes fail with a typed error or nil, never a trap")
  func malformed() throws {
    let path = try fixtureFile()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let other = try RSAPrivateKey.generate(bits: 1024).pem()
    #expect(throws: (any Error).self) {
      try BleAgent.shared.decryptE2EEAudioFile(inputPath: path, privateKeyPem: other)
    }
    #expect(throws: (any Error).self) {
      try BleAgent.shared.decryptE2EEAudioFile(inputPath: path, privateKeyPem: "not a key")
    }
    let bytes = try #require(FileManager.default.contents(atPath: path))
    #expect(PlaudEncryptHeader(data: bytes.prefix(511)) == nil)
    #expect(PlaudEncryptHeader(data: Data(repeating: 0x50, count: 512)) == nil)
    var seed: UInt64 = 41
    print("malformed E2EE header seed \(seed)")
    for _ in 0..<200 {
      var random = [UInt8](repeating: 0, count: 600)
      for index in random.indices {
        seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        random[index] = UInt8(truncatingIfNeeded: seed >> 56)
      }
      #expect(PlaudEncryptHeader(data: Data(random)) == nil)
      let withMagic = Data(Array("PLAUD.AI".utf8) + random)
      #expect(PlaudEncryptHeader(data: withMagic)?.isEncrypted ?? false)
    }
    #expect(BleAgent.shared.getE2EEFileHeader(path: path + ".missing") == nil)
    #expect(!BleAgent.shared.isE2EEEncryptedFile(path: path + ".missing"))
  }

  @Test("decryptFileData: ChaCha20-Poly1305 with the key given; each missing part its error")
  func decryptFileData() throws {
    let key = Data(repeating: 7, count: 32)
    let nonce = Data(repeating: 9, count: 12)
    let ad = Data("ad".utf8)
    let box = Data(
      try ChaChaPoly.seal(
        Array("audio".utf8), key: Array(key), nonce: Array(nonce), authenticating: Array(ad)))
    #expect(
      try BleAgent.shared.decryptFileData(box, key: key, nonce: nonce, ad: ad) == Data("audio".utf8)
    )
    #expect(throws: EncryptionError.noKey) { try BleAgent.shared.decryptFileData(box) }
    #expect(throws: EncryptionError.noNonce) { try BleAgent.shared.decryptFileData(box, key: key) }
    #expect(throws: EncryptionError.noAD) {
      try BleAgent.shared.decryptFileData(box, key: key, nonce: nonce)
    }
    #expect(throws: EncryptionError.dataTooShort) {
      try BleAgent.shared.decryptFileData(Data(count: 15), key: key, nonce: nonce, ad: ad)
    }
    #expect(throws: EncryptionError.decryptionFailed) {
      try BleAgent.shared.decryptFileData(box, key: key, nonce: nonce, ad: Data("other".utf8))
    }
    #expect(throws: EncryptionError.decryptionFailed) {
      try BleAgent.shared.decryptFileData(box, key: Data(count: 5), nonce: nonce, ad: ad)
    }
    #expect(EncryptionError.noKey.rawValue == 1 && EncryptionError.decryptionFailed.rawValue == 5)
    #expect(EncryptionError.noKey.localizedDescription.contains("not supported by RecorderKit"))
    #expect(BleAgent.shared.getEncryptionKey() == nil)
    #expect(BleAgent.shared.getEncryptionProtocolInfo()["channelKeyExported"] as? Bool == false)
  }
}

@Suite("PlaudDeviceBasicSDK's log rotation")
struct LogRotationTests {
  @Test(
    "a file past the size limit rotates to .1, older ones shift, the oldest beyond the count goes")
  func rotation() throws {
    let dir = NSTemporaryDirectory() + "plaud-rot-\(UUID().uuidString)/"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let log = dir + "sdk.log"
    let limit = PlaudLogConfig.shared.maxFileSize
    _ = FileManager.default.createFile(atPath: log, contents: Data("first".utf8))
    let manager = PlaudLogFileRotationManager.shared
    #expect(!manager.checkAndRotateIfNeeded(filePath: log, additionalSize: 10))
    #expect(manager.checkAndRotateIfNeeded(filePath: log, additionalSize: limit))
    #expect(!FileManager.default.fileExists(atPath: log))
    #expect(FileManager.default.contents(atPath: log + ".1") == Data("first".utf8))
    _ = FileManager.default.createFile(atPath: log, contents: Data("second".utf8))
    #expect(manager.checkAndRotateIfNeeded(filePath: log, additionalSize: limit))
    #expect(FileManager.default.contents(atPath: log + ".2") == Data("first".utf8))
    #expect(FileManager.default.contents(atPath: log + ".1") == Data("second".utf8))
    #expect(!manager.checkAndRotateIfNeeded(filePath: dir + "missing.log", additionalSize: limit))
    #expect(manager.getCurrentLogFilePath() == "")
  }
}

/// Records WiFiAgentProtocol callbacks.
final class WiFiLowerLog: WiFiAgentProtocol, Sendable {
  let entries = Locked<[String]>([])
  private func log(_ entry: String) { entries.withLock { $0.append(entry) } }
  func wifiCommonErr(_ cmd: Int, _ status: Int) { log("wifiCommonErr \(cmd) \(status)") }
  func wifiHandshake(_ status: Int) { log("wifiHandshake \(status)") }
  func wifiPower(_ power: Int, _ voltage: Int) { log("wifiPower") }
  func wifiFileListFail(_ status: Int) { log("wifiFileListFail \(status)") }
  func wifiFileList(_ files: [BleFile]) { log("wifiFileList \(files.count)") }
  func wifiSyncFile(_ sessionId: Int, _ status: Int) { log("wifiSyncFile \(status)") }
  func wifiSyncFileData(_ sessionId: Int, _ offset: Int, _ count: Int, _ binData: Data) {}
  func wifiDataComplete() { log("wifiDataComplete") }
  func wifiSyncFileStop(_ status: Int) { log("wifiSyncFileStop \(status)") }
  func wifiFileDelete(_ sessionId: Int, _ status: Int) { log("wifiFileDelete \(status)") }
  func wifiClientFail() { log("wifiClientFail") }
  func wifiClose(_ status: Int) { log("wifiClose \(status)") }
  func wifiRateFail(_ status: Int) { log("wifiRateFail \(status)") }
  func wifiRate(_ instantRate: Int, _ averageRate: Int, _ lossRate: Double) { log("wifiRate") }
  func wifiLogsFail(_ status: Int) { log("wifiLogsFail \(status)") }
  func wifiLogs(_ logData: Data?) { log("wifiLogs") }
  func wifiTips(_ tips: Int) { log("wifiTips \(tips)") }
  func penRequestOTAData(start: Int, end: Int, payloadSize: Int, uid: Int, sendRatePPS: Int) {}
  func wifiOTAStatus(_ status: Int, _ uid: Int) { log("wifiOTAStatus \(status) \(uid)") }
}

extension BleAgentFlowTests {
  @Test("the Wi-Fi session end to end through WiFiAgent: hotspot, handshake, list, close")
  func wifiFlow() async throws {
    let bench = try FacadeBench(wifi: true)
    let lower = LowerLog()
    let wifiLog = WiFiLowerLog()
    BleAgent.shared.pin(bench.agent)
    BleAgent.shared.delegate = lower
    WiFiAgent.shared.delegate = wifiLog
    defer {
      WiFiAgent.shared.delegate = nil
      BleAgent.shared.delegate = nil
      BleAgent.shared.pin(nil)
      bench.cleanUp()
    }
    bench.agent.initSDK(
      userAccessToken: FacadeBench.userToken, customDomain: FacadeBench.offlineDomain)
    BleAgent.shared.connectBleDevice(bleDevice: BleDevice(sn: bench.device.serial), nil, nil, false)
    try await eventually("connected") { lower.has("bleConnectState state=1") }
    BleAgent.shared.operateWiFi(open: true, isOTA: false)
    try await eventually("bleWiFiOpen") { lower.has("bleWiFiOpen") }
    #expect(lower.first("bleWiFiOpen")?.hasPrefix("bleWiFiOpen 0 ") == true)
    let hotspot = try #require(lower.hotspot.current)
    WiFiAgent.shared.connectWifi(hotspot.ssid, hotspot.password)
    try await eventually("wifiHandshake") {
      wifiLog.entries.current.contains { $0.hasPrefix("wifiHandshake") }
    }
    #expect(wifiLog.entries.current.contains("wifiHandshake 0"))
    #expect(WiFiAgent.shared.isHandshakeOk && WiFiAgent.shared.isWebSocketConnected())
    Agent.shared.getFileList(1, 0)
    try await eventually("wifiFileList") {
      wifiLog.entries.current.contains { $0.hasPrefix("wifiFileList") }
    }
    WiFiAgent.shared.startPushOTA(5, 100, crc: 0, 96)
    try await eventually("wifiOTAStatus") { wifiLog.entries.current.contains("wifiOTAStatus -1 5") }
    #expect(
      WiFiAgent.shared.lastError?.description.contains("not supported by RecorderKit") == true)
    WiFiAgent.shared.disconnect()
    try await eventually("wifiClose") {
      wifiLog.entries.current.contains { $0.hasPrefix("wifiClose") }
    }
    #expect(!WiFiAgent.shared.isClientOpen)
  }

  @Test("GCDTool runs labelled work; a cancelled label does not run")
  func gcdTool() async {
    let ran = Locked<[String]>([])
    let gate = DispatchSemaphore(value: 0)
    _ = GCDTool.shared.execute(label: "block") { gate.wait() }
    _ = GCDTool.shared.execute(label: "a") { ran.withLock { $0.append("a") } }
    let cancel = GCDTool.shared.execute(label: "b") { ran.withLock { $0.append("b") } }
    cancel()
    gate.signal()
    await withCheckedContinuation { continuation in
      _ = GCDTool.shared.execute(label: "end") { continuation.resume() }
    }
    #expect(ran.current == ["a"])
  }
}
