import RecorderBluetooth
import RecorderProtocol

/// An error that says whether the same work, tried again on a fresh connection, may
/// succeed. The front door (``Recorders``) retries exactly the errors whose
/// ``isRetryable`` is true, and treats an error that does not conform as retryable (a
/// radio or a transport it does not know may well come back).
public protocol RetryableError: Error {
  /// True when another attempt may succeed (the link dropped, the device went quiet or out
  /// of range); false when it cannot (a rejected token, a missing key, a full disk, a
  /// hostile device, the caller's cancellation).
  var isRetryable: Bool { get }
}

extension DeviceError: RetryableError {
  /// False for what no reconnection mends: the token or the Mode B user key is wrong or
  /// missing, the device speaks a protocol generation RecorderKit does not, the device
  /// refused the session for a lasting reason (HANDSHAKE status 1 token mismatch, 3 refused
  /// on the device, 4 serial; PROTOCOL.md §3.1 [sdk]), or the caller cancelled. Everything
  /// else may pass: a drop, a timeout, a device out of range or busy recording (status 2)
  /// or not in connect mode (255),
  /// a radio switched off, a garbled reply, a failed Wi-Fi join.
  public var isRetryable: Bool {
    switch self {
    case .tokenRejected, .unsupportedPortVersion, .cancelled, .depairClearRefused,
      .boundToAnotherAccount:
      false
    case .handshakeRefused(let status):
      status == HandshakeStatus.recording.rawValue
        || status == HandshakeStatus.notInConnectMode.rawValue
    case .modeB(let error): error.isRetryable
    default: true
    }
  }
}

extension ModeBError {
  /// False when the user key is missing, malformed, encrypted, unreadable or wrong (rejected
  /// on two fresh links in a row); true for the rest, among them a key material that did not
  /// unwrap on one link (``sessionKeyDidNotUnwrap``).
  var isRetryable: Bool {
    switch self {
    case .noUserKey, .wrongUserKey, .invalidUserKey, .encryptedUserKey, .keyStore: false
    default: true
    }
  }
}

extension SyncError: RetryableError {
  /// False for a storage or journal failure (a full disk, say), a serial that is no safe
  /// folder name, a recording that cannot be exported, a folder lock that no longer holds
  /// and the caller's cancellation; a device error as ``DeviceError/isRetryable``.
  public var isRetryable: Bool {
    switch self {
    case .device(let error): error.isRetryable
    case .recordingUnreadable: true
    case .storage, .journal, .export, .unsafeSerial, .folderLockLost, .cancelled: false
    }
  }
}
