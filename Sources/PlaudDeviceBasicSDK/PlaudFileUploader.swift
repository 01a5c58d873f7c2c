import Foundation
import RecorderConcurrency
import RecorderKit

/// The vendor's cloud helper: device binding in the cloud over RecorderKit's `CloudClient`
/// (PROTOCOL.md §8), the device-type rule, and, not supported by RecorderKit, recording
/// and log upload (no source of ours describes the upload API).
///
/// Requests go to the agent's domain (``PlaudDomainManager``) with the agent's user
/// access token; results arrive on the agent's callback queue.
public final class PlaudFileUploader: NSObject, Sendable {
  /// The uploader of `PlaudDeviceAgent.shared`.
  public static let shared = PlaudFileUploader(agent: nil)

  /// The agent whose token and domain are used (nil: `PlaudDeviceAgent.shared`, looked up
  /// at each call so ``PlaudDeviceAgent/configure(_:)`` still applies).
  private let fixedAgent: PlaudDeviceAgent?
  private let storedDevice = Locked<BleDevice.Snapshot?>(nil)

  init(agent: PlaudDeviceAgent?) {
    fixedAgent = agent
    super.init()
  }

  private var agent: PlaudDeviceAgent { fixedAgent ?? .shared }

  /// The device the app works with (kept for the app; the calls below take a serial).
  public var device: BleDevice? {
    get { storedDevice.current.map { BleDevice(snapshot: $0) } }
    set { storedDevice.withLock { $0 = newValue?.snapshot } }
  }

  /// The cloud's device type for a serial number (PROTOCOL.md §8): the type of the model the
  /// serial's prefix names (RecorderProtocol's `ModelCapabilities`), anything else `note`.
  public static func calculateSnType(sn: String) -> String {
    CloudDeviceType(serial: sn).rawValue
  }

  // MARK: - Binding

  /// Binds the device `sn` to the user of the access token: `POST
  /// /open/partner/sdk/bind {type, sn}` (idempotent for the same user). `ownerId` is not
  /// sent: the token names the user. Success carries `["sn": sn, "type": type]`; failure a
  /// ``PlaudSDKError`` (no token; the cloud's reason, e.g. bound to another account).
  public func bindDevice(
    ownerId: String, sn: String,
    completion: @escaping (Result<[String: Any], any Error>) -> Void
  ) {
    binding(bind: true, sn: sn, completion: completion)
  }

  /// Removes the device `sn` from the user: `POST /open/partner/sdk/unbind {type, sn}`
  /// (idempotent). As ``bindDevice(ownerId:sn:completion:)`` otherwise.
  public func unbindDevice(
    ownerId: String, sn: String,
    completion: @escaping (Result<[String: Any], any Error>) -> Void
  ) {
    binding(bind: false, sn: sn, completion: completion)
  }

  private func binding(
    bind: Bool, sn: String, completion: @escaping (Result<[String: Any], any Error>) -> Void
  ) {
    let closure = AppClosure(completion)
    let agent = self.agent
    let core = agent.core
    let queue = agent.callbackQueue
    let type = Self.calculateSnType(sn: sn)
    Task {
      let failure = await core.cloudBinding(bind: bind, serial: sn)
      queue.async {
        if let failure {
          closure.body(.failure(failure))
        } else {
          closure.body(.success(["sn": sn, "type": type]))
        }
      }
    }
  }

  // MARK: - Not supported by RecorderKit

  /// Not supported by RecorderKit: no source of ours describes the recording upload API.
  /// `onFailure` gets the reason (on the callback queue); nothing is uploaded.
  public func uploadRecording(
    sn: String, sessionId: Int, duration: Double, onProgress: @escaping (Double) -> Void,
    onSuccess: @escaping ([String: Any]) -> Void, onFailure: @escaping (any Error) -> Void
  ) {
    refuse("uploadRecording", because: "the recording upload API is unknown", onFailure)
  }

  /// Not supported by RecorderKit: no source of ours describes the log upload API.
  /// `onFailure` gets the reason; nothing is uploaded.
  public func uploadLogFile(
    filePath: String, sn: String, onProgress: @escaping (Double) -> Void,
    onSuccess: @escaping ([String: Any]) -> Void, onFailure: @escaping (any Error) -> Void
  ) {
    refuse("uploadLogFile", because: "the log upload API is unknown", onFailure)
  }

  // MARK: - Downloaded recordings (the sync journal)

  /// Whether recording `sessionId` of ``device`` (else the agent's connected or last
  /// device) is downloaded: the agent's storage root holds it whole, stored and checked,
  /// its raw copy still the bytes the journal vouches for (size and SHA-256). False for a
  /// session id out of range, no device, or a journal that cannot be read.
  public func checkRecordingExist(sessionId: Int) -> Bool {
    downloadedCopy(sessionId: sessionId) != nil
  }

  /// The downloaded recording `sessionId` (see ``checkRecordingExist(sessionId:)``): the
  /// device's bytes as moved (an E2EE recording stays encrypted; `exportAudio` converts).
  /// With an empty `desiredPath`, the path of the copy in the storage root; otherwise the
  /// bytes are copied to `desiredPath` (a temporary beside it, then a rename, so the file
  /// is whole or absent; an existing file is replaced) and `desiredPath` is answered. The
  /// empty string when it is not downloaded or cannot be copied (the reason in
  /// `lastError`).
  public func getDownloadedRecordingPath(sessionId: Int, desiredPath: String) -> String {
    guard let held = downloadedCopy(sessionId: sessionId) else { return "" }
    guard !desiredPath.isEmpty else { return held }
    let temporary = StorageLayout.temporary(of: desiredPath)
    do {
      try? FileManager.default.removeItem(atPath: temporary)
      try FileManager.default.copyItem(atPath: held, toPath: temporary)
      if rename(temporary, desiredPath) != 0 {
        throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
      }
      return desiredPath
    } catch {
      try? FileManager.default.removeItem(atPath: temporary)
      agent.core.fail(
        .operationFailed("cannot copy recording \(sessionId) to the path asked: \(error)"))
      return ""
    }
  }

  /// The raw copy of `sessionId` the storage root holds for the app's device, if whole.
  private func downloadedCopy(sessionId: Int) -> String? {
    guard let id = UInt32(exactly: sessionId),
      let serial = device?.serialNumber ?? agent.recentConnectDevice?.serialNumber,
      let workspace = try? SyncWorkspace(root: agent.configuration.storageRoot)
    else { return nil }
    return (try? workspace.storedCopy(serial: serial, sessionId: SessionID(id))) ?? nil
  }

  private func refuse(
    _ member: String, because reason: String, _ onFailure: @escaping (any Error) -> Void
  ) {
    let closure = AppClosure<any Error>(onFailure)
    let error = PlaudSDKError.notSupported(member: member, reason: reason)
    agent.core.fail(error)
    agent.callbackQueue.async { closure.body(error) }
  }
}
