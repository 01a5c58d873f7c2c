import HealthProfiles
import RecorderBluetooth

/// Why a passive operation (pair, read, a recorder's sync) or a registration failed. Each
/// case says what to do next.
public enum PassiveError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The controller runs one operation at a time and `running` is under way: wait for it to
  /// finish or ``PeripheralController/cancel()`` it, then ask again.
  case busy(running: PeripheralOperation)
  /// The running operation was cancelled (``PeripheralController/cancel()`` or the calling
  /// task).
  case cancelled
  /// The peripheral refused to indicate because it is not bonded: pair it first.
  case notPaired(identifier: String)
  /// Pairing did not complete (refused, or the bond is missing afterwards).
  case pairingFailed(identifier: String, reason: String)
  /// Connected and subscribed, but no measurement arrived within the timeout (the reading
  /// of this power-on was already taken, or the user has not finished measuring).
  case noMeasurement(identifier: String)
  /// The peripheral's bytes do not decode (the typed reason from HealthProfiles).
  case malformedMeasurement(HealthProfileError)
  /// The radio failed (connect timeout, link loss, Bluetooth off, …).
  case link(LinkError)
  /// No registered peripheral has this identifier.
  case notRegistered(String)
  /// The peripheral's kind cannot do what was asked (reading a recorder, pairing one).
  case unsupported(String)
  /// The journal could not be read or written (its words).
  case journal(String)
  /// A registered recorder appeared and its sync failed (the sync's words).
  case recorderSync(String)

  public var description: String {
    switch self {
    case .busy(let running): "busy: \(running) is running (cancel it or wait)"
    case .cancelled: "cancelled"
    case .notPaired(let id): "\(id) is not paired: pair it first"
    case .pairingFailed(let id, let reason): "pairing \(id) failed: \(reason)"
    case .noMeasurement(let id): "no measurement from \(id) in time"
    case .malformedMeasurement(let error): "malformed measurement: \(error)"
    case .link(let error): "Bluetooth: \(error)"
    case .notRegistered(let id): "\(id) is not registered"
    case .unsupported(let text): "unsupported: \(text)"
    case .journal(let text): "journal: \(text)"
    case .recorderSync(let text): "recorder sync: \(text)"
    }
  }

  /// A link error as the passive side reports it: cancellation stays cancellation.
  static func from(_ error: LinkError) -> PassiveError {
    error == .cancelled ? .cancelled : .link(error)
  }
}

/// The operation a ``PeripheralController`` is running.
public enum PeripheralOperation: Sendable, Equatable, CustomStringConvertible {
  case pair(identifier: String)
  case read(identifier: String)
  /// A registered recorder's new recordings are being synced.
  case syncRecorder(serial: String)

  public var description: String {
    switch self {
    case .pair(let id): "pairing \(id)"
    case .read(let id): "reading \(id)"
    case .syncRecorder(let serial): "syncing recorder \(serial)"
    }
  }
}
