import RecorderBluetooth
import RecorderProtocol

/// What can go wrong talking to a recorder, in terms a user can act on. Never carries a
/// token or frame bytes.
public enum DeviceError: Error, Sendable, Equatable, CustomStringConvertible {
  /// Bluetooth is off, unauthorised or unsupported.
  case bluetoothUnavailable(CentralState)
  /// No device with this serial was heard before the timeout.
  case deviceNotFound(serial: String)
  /// No recorder at all was heard before the timeout (a search for any recorder).
  case noRecorderHeard(within: Duration)
  /// The radio could not connect or lost the device while connecting.
  case connectFailed(LinkError)
  /// The device answered HANDSHAKE with status 1: the token is not this device's. The link
  /// stays up but the device ignores every further command [device].
  case tokenRejected
  /// The device refused the handshake for another reason (PROTOCOL.md §3.1 statuses).
  case handshakeRefused(status: UInt8)
  /// The device speaks a protocol generation RecorderKit does not (below 7: no session ids).
  case unsupportedPortVersion(UInt16)
  /// Mode B security (portVersion 20 and up) could not be set up: no user key, the wrong
  /// one, or a malformed pre-handshake.
  case modeB(ModeBError)
  /// No answer within the timeout.
  case timeout(operation: String)
  /// The link went down.
  case disconnected(DisconnectReason)
  /// A reply did not fit its opcode's layout.
  case malformedReply(operation: String, reason: String)
  /// The device answered with a failure status.
  case rejected(operation: String, status: UInt8)
  /// The session was closed by this side.
  case closed
  /// The calling task was cancelled.
  case cancelled
  /// Wi-Fi Fast Transfer cannot be used: the device has none, refused its hotspot, or the
  /// network could not be joined or served. The BLE session is unaffected.
  case wifiUnavailable(String)
  /// DEPAIR clearing all connections was not sent: the device still holds `recordings`
  /// recordings, and what firmware does with DEPAIR's clear byte is not known (PROTOCOL.md
  /// names it `clearFiles`): sync them off the device first.
  case depairClearRefused(recordings: Int)
  /// A Mode B recorder (portVersion ≥ 20) dropped the link before its HANDSHAKE answered
  /// status 0: what a recorder bound to another account does instead of refusing the token
  /// (PROTOCOL.md §3.1, §4 [sdk-code]). Not retried: the account it is bound to must unbind
  /// it, or its binding must be cleared. The link's own words are kept.
  case boundToAnotherAccount(DisconnectReason)

  public var description: String {
    switch self {
    case .bluetoothUnavailable(let state): "Bluetooth is unavailable (\(state))"
    case .deviceNotFound(let serial): "no device with serial \(serial) in range"
    case .noRecorderHeard(let timeout): "no recorder heard within \(timeout)"
    case .connectFailed(let error): "could not connect: \(error)"
    case .tokenRejected: "the device rejected the token (it belongs to another account or device)"
    case .handshakeRefused(let status): "the device refused the session (status \(status))"
    case .unsupportedPortVersion(let version):
      "device protocol version \(version) is not supported (RecorderKit speaks 7 and up)"
    case .modeB(let error): "Mode B security: \(error)"
    case .timeout(let operation): "\(operation): the device did not answer in time"
    case .disconnected(let reason): "disconnected: \(reason)"
    case .malformedReply(let operation, let reason): "\(operation): malformed reply (\(reason))"
    case .rejected(let operation, let status): "\(operation): the device answered status \(status)"
    case .closed: "the session is closed"
    case .cancelled: "cancelled"
    case .wifiUnavailable(let reason): "Wi-Fi unavailable: \(reason)"
    case .depairClearRefused(let count):
      "DEPAIR clearing all connections was not sent: the device still holds \(count) "
        + "recording\(count == 1 ? "" : "s") (sync them first; the clear byte may erase them)"
    case .boundToAnotherAccount(let reason):
      "the recorder dropped the link before its handshake (\(reason)): a Mode B recorder does "
        + "that when it is bound to another account; that account must unbind it (or its "
        + "binding be cleared) before this one can connect"
    }
  }
}
