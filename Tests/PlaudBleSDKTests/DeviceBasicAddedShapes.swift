import Foundation
import PlaudDeviceBasicSDK
import Testing

// The 41 PlaudDeviceBasicSDK members shared/VENDOR-API.md adds to the checklist (from the
// vendor's 7bbcb844 interface) and the corrected shapes, each with its exact type: compiling
// is the check. This file imports PlaudDeviceBasicSDK alone.

/// A subclass outside the module: compiles only while BleDevice and BleFile are `open`.
final class AppDevice: BleDevice {}
final class AppFile: BleFile {}

func deviceBasicAddedShapes() {
  // BleAgent's E2EE helpers (13).
  let _: KeyPath<BleAgent, Bool> = \BleAgent.isSecureChannelEstablished
  let _: (BleAgent) -> () -> Data? = BleAgent.getEncryptionKey
  let _: (BleAgent) -> () -> Data? = BleAgent.getEncryptionNonce
  let _: (BleAgent) -> () -> Data? = BleAgent.getEncryptionAD
  let _: (BleAgent) -> () -> [String: String]? = BleAgent.getEncryptionParameters
  let _: (BleAgent) -> (Data, Data?, Data?, Data?) throws -> Data =
    BleAgent.decryptFileData(_:key:nonce:ad:)
  let _: (BleAgent) -> (String, String, Data?, Data?, Data?) -> Bool =
    BleAgent.decryptFile(inputPath:outputPath:key:nonce:ad:)
  let _: (BleAgent) -> (String, Int, Data?, Data?, Data?) -> String? =
    BleAgent.decryptAndPrepareOggFile(encryptedFilePath:channel:key:nonce:ad:)
  let _: (BleAgent) -> (String, String?, String) throws -> String =
    BleAgent.decryptE2EEAudioFile(inputPath:outputPath:privateKeyPem:)
  let _: (BleAgent) -> (String) -> Bool = BleAgent.isE2EEEncryptedFile(path:)
  let _: (BleAgent) -> (String) -> PlaudEncryptHeader? = BleAgent.getE2EEFileHeader(path:)
  let _: KeyPath<BleAgent, Bool> = \BleAgent.isEncryptionSupported
  let _: (BleAgent) -> () -> [String: Any] = BleAgent.getEncryptionProtocolInfo
  // The defaults: key, nonce, ad and outputPath may be left out.
  _ = { (agent: BleAgent, data: Data) in
    _ = try? agent.decryptFileData(data)
    _ = agent.decryptFile(inputPath: "", outputPath: "")
    _ = agent.decryptAndPrepareOggFile(encryptedFilePath: "", channel: 1)
    _ = try? agent.decryptE2EEAudioFile(inputPath: "", privateKeyPem: "")
  }

  // PlaudEncryptHeader (22).
  let _: NSObject = PlaudEncryptHeader(data: Data())!
  let _: Int = PlaudEncryptHeader.headerSize
  let _: String = PlaudEncryptHeader.magicString
  let _: KeyPath<PlaudEncryptHeader, Data> = \.magic
  let _: KeyPath<PlaudEncryptHeader, Data> = \.userId
  let _: KeyPath<PlaudEncryptHeader, Data> = \.reserved
  let _: KeyPath<PlaudEncryptHeader, Data> = \.nonce
  let _: KeyPath<PlaudEncryptHeader, Data> = \.algParams
  let _: KeyPath<PlaudEncryptHeader, Data> = \.keyCipher
  let _: KeyPath<PlaudEncryptHeader, UInt16> = \.version
  let _: KeyPath<PlaudEncryptHeader, UInt16> = \.headerSizeValue
  let _: KeyPath<PlaudEncryptHeader, UInt16> = \.fileType
  let _: KeyPath<PlaudEncryptHeader, UInt16> = \.channel
  let _: KeyPath<PlaudEncryptHeader, UInt16> = \.encryptType
  let _: KeyPath<PlaudEncryptHeader, UInt32> = \.crc
  let _: KeyPath<PlaudEncryptHeader, UInt32> = \.duration
  let _: KeyPath<PlaudEncryptHeader, UInt32> = \.counter
  let _: KeyPath<PlaudEncryptHeader, UInt32> = \.segment
  let _: (Data) -> PlaudEncryptHeader? = PlaudEncryptHeader.init(data:)
  let _: (String) -> PlaudEncryptHeader? = PlaudEncryptHeader.fromFile(path:)
  let _: KeyPath<PlaudEncryptHeader, Bool> = \.isEncrypted
  let _: KeyPath<PlaudEncryptHeader, String> = \.userIdString

  // EncryptionError (1): an Int-backed Error with the vendor's raw values.
  let _: any Error = EncryptionError.noKey
  let _: Int = EncryptionError.noNonce.rawValue
  let _: [EncryptionError] = [.noKey, .noNonce, .noAD, .dataTooShort, .decryptionFailed]
  let _: String = EncryptionError.noAD.localizedDescription

  // PlaudLogFileRotationManager (5).
  let _: NSObject = PlaudLogFileRotationManager.shared
  let _: (PlaudLogFileRotationManager) -> () -> Void =
    PlaudLogFileRotationManager.forceRotateCurrentLogFile
  let _: (PlaudLogFileRotationManager) -> (String, Int64) -> Bool =
    PlaudLogFileRotationManager.checkAndRotateIfNeeded(filePath:additionalSize:)
  let _: (PlaudLogFileRotationManager) -> () -> String =
    PlaudLogFileRotationManager.getCurrentLogFilePath
  let _: (PlaudLogFileRotationManager) -> () -> Void =
    PlaudLogFileRotationManager.notifyUploadCompleted

  // The corrected shapes.
  let _: ReferenceWritableKeyPath<BleDevice, Float> = \.rssi
  let _: ReferenceWritableKeyPath<BleDevice, Character> = \.versionType
  let _: ReferenceWritableKeyPath<BleDevice, String> = \.versionTypeStr
  let _: ReferenceWritableKeyPath<BleDevice, Int> = \.versionCode
  let _: KeyPath<BleAgent, Bool> = \.isRecording
  let _: KeyPath<BleAgent, Int> = \.sessionId
  let _: NSObject = AppDevice(sn: "881")
  let _: NSObject = AppFile()

  // The connect stages and their callback, an optional member of the facade's delegate.
  let _: (String) -> BleAgent.ConnectStage? = BleAgent.ConnectStage.init(rawValue:)
  let _: [BleAgent.ConnectStage] = [
    .start, .gattConnect, .setNotify, .setBatteryNotify, .readBattery, .setDataNotify,
    .preHandshake, .sendRSAPublic, .firstHandshake, .twoHandshake, .handshakeGetSSN,
    .changeHandshakeTimeout, .syncTime,
  ]
  _ = { (delegate: any PlaudDeviceAgentProtocol) in
    delegate.bleConnectStage(sn: nil, stage: "start", detail: nil)
  }
  let _: (PlaudDeviceAgent) -> (BleDevice, String) -> Void =
    PlaudDeviceAgent.recoveryConnectBleDevice(bleDevice:historicalUserId:)
}

@Suite("PlaudDeviceBasicSDK: the vendor's added members and corrected shapes")
struct DeviceBasicAddedShapeTests {
  @Test("ConnectStage raw values are the case names, as the vendor's String enum")
  func stageNames() {
    #expect(BleAgent.ConnectStage.firstHandshake.rawValue == "firstHandshake")
    #expect(BleAgent.ConnectStage(rawValue: "syncTime") == .syncTime)
    #expect(BleAgent.ConnectStage(rawValue: "other") == nil)
  }
}
