/// The Device and Sensor Status field of a PLX Spot-Check Measurement (GATT Specification
/// Supplement, PLX Spot-Check Measurement, Device and Sensor Status; 24 bits). Bits 0–15 are
/// single flags, named in `names`; bits 16–23 are reserved for future use.
public struct PLXDeviceAndSensorStatus: Sendable, Hashable, CustomStringConvertible {
  static let names = StatusBitNames(
    namedBits: [
      (0, "extendedDisplayUpdateOngoing"), (1, "equipmentMalfunctionDetected"),
      (2, "signalProcessingIrregularityDetected"), (3, "inadequateSignalDetected"),
      (4, "poorSignalDetected"), (5, "lowPerfusionDetected"), (6, "erraticSignalDetected"),
      (7, "nonpulsatileSignalDetected"), (8, "questionablePulseDetected"),
      (9, "signalAnalysisOngoing"), (10, "sensorInterferenceDetected"),
      (11, "sensorUnconnectedToUser"), (12, "unknownSensorConnected"), (13, "sensorDisplaced"),
      (14, "sensorMalfunctioning"), (15, "sensorDisconnected"),
    ],
    reservedMask: 0xFF_0000, hexDigits: 6)

  /// The 24-bit field as sent, in the low 24 bits.
  public var bits: UInt32

  public init(bits: UInt32) {
    self.bits = bits & 0xFF_FFFF
  }

  /// Whether the flag at `bit` (0…15) is set.
  public func isSet(bit: Int) -> Bool {
    (0..<24).contains(bit) && bits & (1 << UInt32(bit)) != 0
  }

  /// Bit 1.
  public var equipmentMalfunctionDetected: Bool { isSet(bit: 1) }
  /// Bit 15.
  public var sensorDisconnected: Bool { isSet(bit: 15) }

  /// The names of the set flags, in bit order.
  public var setNames: [String] { Self.names.setNames(bits) }

  /// Reserved bits 16–23 as sent (0 from a conforming sensor).
  public var reservedBits: UInt32 { bits & Self.names.reservedMask }

  /// `0x008000 sensorDisconnected`.
  public var description: String { Self.names.describe(bits) }
}
