import Foundation

/// The delegate of ``PlaudWiFiAgent``. Every member is optional (empty defaults below).
/// Until Wi-Fi Fast Transfer lands, only `wifiHandshake(-1)`, `wifiCommonErr` and
/// `wifiClose` fire, each reporting that the feature is not available yet.
public protocol PlaudWiFiAgentProtocol: AnyObject {
  /// `0` handshake complete, ready to list and transfer; `-1` not available.
  func wifiHandshake(_ status: Int)
  func wifiConnectionStatus(_ ssid: String, _ connected: Bool)
  func wifiFileList(_ files: [BleFile])
  func wifiSyncFile(_ sessionId: Int, _ status: Int)
  func wifiSyncFileData(_ sessionId: Int, _ offset: Int, _ count: Int, _ binData: Data)
  func wifiDataComplete()
  func wifiSyncFileStop(_ status: Int)
  func wifiDownloadAllProgress(
    _ totalFiles: Int, _ currentFileIndex: Int, _ currentFile: BleFile?, _ totalProgress: Float)
  func wifiDownloadAllCompleted(_ completedFiles: Int, _ failedFiles: Int)
  /// A command failed: `cmd` the Wi-Fi command, `status` -1 for "not available yet".
  func wifiCommonErr(_ cmd: Int, _ status: Int)
  func wifiClose(_ status: Int)
}

extension PlaudWiFiAgentProtocol {
  public func wifiHandshake(_ status: Int) {}
  public func wifiConnectionStatus(_ ssid: String, _ connected: Bool) {}
  public func wifiFileList(_ files: [BleFile]) {}
  public func wifiSyncFile(_ sessionId: Int, _ status: Int) {}
  public func wifiSyncFileData(_ sessionId: Int, _ offset: Int, _ count: Int, _ binData: Data) {}
  public func wifiDataComplete() {}
  public func wifiSyncFileStop(_ status: Int) {}
  public func wifiDownloadAllProgress(
    _ totalFiles: Int, _ currentFileIndex: Int, _ currentFile: BleFile?, _ totalProgress: Float
  ) {}
  public func wifiDownloadAllCompleted(_ completedFiles: Int, _ failedFiles: Int) {}
  public func wifiCommonErr(_ cmd: Int, _ status: Int) {}
  public func wifiClose(_ status: Int) {}
}

/// Wi-Fi Fast Transfer, declared as the vendor's reference has it. Wi-Fi arrives with a
/// later issue: until then every call answers through the delegate (or the export callback)
/// that Wi-Fi is not available yet, on the callback queue, never a silent no-op.
public final class PlaudWiFiAgent: Sendable {
  /// The one agent.
  public static let shared = PlaudWiFiAgent()

  /// Status given with every "not available yet" callback.
  public static let notAvailableStatus = -1
  /// Wi-Fi command numbers used in `wifiCommonErr` (RecorderKit's own numbering).
  public enum Command: Int, Sendable {
    case connect = 1, fileList = 2, syncFile = 3, stopSyncFile = 4, export = 5
  }

  private let delegateReference = Guarded(WeakReference<AnyObject>(nil))
  private let device = Guarded<BleDevice.Snapshot?>(nil)
  private let queue = DispatchQueue(label: "PlaudDeviceBasicSDK.wifi-callbacks")

  /// The delegate, held weakly.
  public var delegate: (any PlaudWiFiAgentProtocol)? {
    get { delegateReference.current.value as? any PlaudWiFiAgentProtocol }
    set { delegateReference.withLock { $0 = WeakReference(newValue) } }
  }

  /// The device to talk to (set it from `BleAgent.shared.bleDevice`).
  public var bleDevice: BleDevice? {
    get { device.current.map(BleDevice.init(snapshot:)) }
    set { device.withLock { $0 = newValue?.snapshot } }
  }

  /// Joins the device's hotspot and shakes hands. Not available yet: `wifiHandshake(-1)`
  /// then `wifiCommonErr(connect, -1)`.
  public func connectWifi(_ wholeName: String, _ wifiPass: String, _ timeout: Int = 60) {
    fail(.connect) { $0.wifiHandshake(Self.notAvailableStatus) }
  }

  /// Lists files over Wi-Fi. Not available yet: `wifiCommonErr(fileList, -1)`.
  public func getFileList(_ uid: Int, _ sessionId: Int, _ single: Bool) { fail(.fileList) }

  /// Streams one file over Wi-Fi. Not available yet: `wifiSyncFile(sessionId, -1)` then
  /// `wifiCommonErr(syncFile, -1)`.
  public func syncFile(_ sessionId: Int, _ start: Int, _ end: Int = 0, _ scene: Int = 1) {
    fail(.syncFile) { $0.wifiSyncFile(sessionId, Self.notAvailableStatus) }
  }

  /// Stops a Wi-Fi transfer. Not available yet: `wifiSyncFileStop(-1)`.
  public func stopSyncFile(_ sessionId: Int, _ scene: Int = 1) {
    fail(.stopSyncFile) { $0.wifiSyncFileStop(Self.notAvailableStatus) }
  }

  /// Exports a file over Wi-Fi. Not available yet: `callback.onError` says so.
  public func exportAudioViaWiFi(
    sessionId: Int, outputDir: String, format: AudioExportFormat, channels: Int = 1,
    callback: AudioExportCallback
  ) {
    let reference = WeakReference<AnyObject>(callback)
    queue.async {
      (reference.value as? any AudioExportCallback)?.onError(
        PlaudSDKError.notAvailableYet(feature: "Wi-Fi Fast Transfer").description)
    }
  }

  /// Closes the Wi-Fi session: `wifiClose(-1)` (there is none yet).
  public func close() {
    let reference = delegateReference.current
    queue.async {
      (reference.value as? any PlaudWiFiAgentProtocol)?.wifiClose(Self.notAvailableStatus)
    }
  }

  private func fail(
    _ command: Command,
    first: (@Sendable (any PlaudWiFiAgentProtocol) -> Void)? = nil
  ) {
    let reference = delegateReference.current
    queue.async {
      guard let delegate = reference.value as? any PlaudWiFiAgentProtocol else { return }
      first?(delegate)
      delegate.wifiCommonErr(command.rawValue, Self.notAvailableStatus)
    }
  }
}
