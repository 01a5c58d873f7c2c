/// The cloud's device type for a serial (PROTOCOL.md §8): prefix 880 `notepin`, 881
/// `notepro`, 882 `notepins`, anything else `note` [sdk].
public enum CloudDeviceType: String, Sendable, CaseIterable {
  case note
  case notepin
  case notepro
  case notepins

  /// The type of the device with serial `serial`.
  public init(serial: String) {
    if serial.hasPrefix("880") {
      self = .notepin
    } else if serial.hasPrefix("881") {
      self = .notepro
    } else if serial.hasPrefix("882") {
      self = .notepins
    } else {
      self = .note
    }
  }
}
