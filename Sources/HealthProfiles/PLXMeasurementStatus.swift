/// The Measurement Status field of a PLX Spot-Check Measurement (GATT Specification
/// Supplement, PLX Spot-Check Measurement, Measurement Status; 16 bits). Bits 0–4 are
/// reserved for future use; bits 5–15 are single flags, named in `names`.
public struct PLXMeasurementStatus: Sendable, Hashable, CustomStringConvertible {
  static let names = StatusBitNames(
    namedBits: [
      (5, "measurementOngoing"), (6, "earlyEstimatedData"), (7, "validatedData"),
      (8, "fullyQualifiedData"), (9, "dataFromMeasurementStorage"),
      (10, "dataForDemonstration"), (11, "dataForTesting"), (12, "calibrationOngoing"),
      (13, "measurementUnavailable"), (14, "questionableMeasurementDetected"),
      (15, "invalidMeasurementDetected"),
    ],
    reservedMask: 0x001F, hexDigits: 4)

  /// The 16-bit field as sent.
  public var bits: UInt16

  public init(bits: UInt16) {
    self.bits = bits
  }

  /// Whether the flag at `bit` (5…15) is set.
  public func isSet(bit: Int) -> Bool {
    (0..<16).contains(bit) && bits & (1 << UInt16(bit)) != 0
  }

  /// Bit 13: the SpO2 and PR values carry no measurement.
  public var measurementUnavailable: Bool { isSet(bit: 13) }
  /// Bit 15: the device flags the measurement as invalid.
  public var invalidMeasurementDetected: Bool { isSet(bit: 15) }

  /// The names of the set flags, in bit order.
  public var setNames: [String] { Self.names.setNames(UInt32(bits)) }

  /// Reserved bits 0–4 as sent (0 from a conforming sensor).
  public var reservedBits: UInt16 { bits & UInt16(Self.names.reservedMask) }

  /// `0x2020 measurementOngoing measurementUnavailable`.
  public var description: String { Self.names.describe(UInt32(bits)) }
}
