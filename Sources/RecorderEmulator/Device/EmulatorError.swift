import RecorderProtocol

/// Why an emulator operation on the host failed (these are host problems, never protocol
/// behaviour: the device side answers the phone with status codes instead).
public enum EmulatorError: Error, Sendable, Equatable, CustomStringConvertible {
  /// A flash file could not be created, read, written or removed.
  case flashIO(path: String, operation: String, errno: Int32)
  /// The audio encoder failed (its words).
  case audio(String)
  /// A recording with this session id already exists.
  case duplicateSession(SessionID)
  /// The flash has no room for the requested recording.
  case flashFull(neededBytes: UInt64, freeBytes: UInt64)
  /// Storing a recording end-to-end encrypted failed (the crypto library's words).
  case encryption(String)
  /// ``RecordingDamage`` cannot be written into that recording (none, too short, not Ogg).
  case damage(String)

  public var description: String {
    switch self {
    case .flashIO(let path, let operation, let errno):
      "flash \(operation) failed for \(path) (errno \(errno))"
    case .audio(let text): "audio encoder: \(text)"
    case .duplicateSession(let id): "session \(id) already exists"
    case .flashFull(let needed, let free): "flash full: need \(needed) bytes, \(free) free"
    case .encryption(let text): "E2EE storage: \(text)"
    case .damage(let text): "damage: \(text)"
    }
  }
}
