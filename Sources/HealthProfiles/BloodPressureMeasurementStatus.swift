/// The Measurement Status field of a Blood Pressure Measurement (GATT Specification
/// Supplement, Blood Pressure Measurement, Measurement Status; 16 bits):
///
/// | bits | meaning when set |
/// |---|---|
/// | 0 | body movement detected during measurement |
/// | 1 | cuff too loose (cuff fit detection) |
/// | 2 | irregular pulse detected |
/// | 3–4 | pulse rate range: 0 within, 1 above upper limit, 2 below lower limit, 3 reserved |
/// | 5 | improper measurement position |
/// | 6–15 | reserved for future use |
public struct BloodPressureMeasurementStatus: Sendable, Hashable, CustomStringConvertible {
  /// Bits 3–4 of the status.
  public enum PulseRateRange: UInt8, Sendable, Hashable, CustomStringConvertible {
    case withinRange = 0
    case exceedsUpperLimit = 1
    case belowLowerLimit = 2
    case reserved = 3

    public var description: String {
      switch self {
      case .withinRange: "withinRange"
      case .exceedsUpperLimit: "exceedsUpperLimit"
      case .belowLowerLimit: "belowLowerLimit"
      case .reserved: "reserved"
      }
    }
  }

  static let names = StatusBitNames(
    namedBits: [
      (0, "bodyMovementDetected"), (1, "cuffTooLoose"), (2, "irregularPulseDetected"),
      (5, "improperMeasurementPosition"),
    ],
    reservedMask: 0xFFC0, hexDigits: 4)

  /// The 16-bit field as sent.
  public var bits: UInt16

  public init(bits: UInt16) {
    self.bits = bits
  }

  /// Bit 0.
  public var bodyMovementDetected: Bool { bits & 0x0001 != 0 }
  /// Bit 1.
  public var cuffTooLoose: Bool { bits & 0x0002 != 0 }
  /// Bit 2.
  public var irregularPulseDetected: Bool { bits & 0x0004 != 0 }
  /// Bit 5.
  public var improperMeasurementPosition: Bool { bits & 0x0020 != 0 }

  /// Bits 3–4.
  public var pulseRateRange: PulseRateRange {
    PulseRateRange(rawValue: UInt8((bits >> 3) & 0x3)) ?? .reserved
  }

  /// The names of the set single-bit flags, in bit order.
  public var setNames: [String] { Self.names.setNames(UInt32(bits)) }

  /// Reserved bits 6–15 as sent (0 from a conforming sensor).
  public var reservedBits: UInt16 { bits & UInt16(Self.names.reservedMask) }

  /// `0x0029 bodyMovementDetected pulseRateRange=exceedsUpperLimit`.
  public var description: String {
    Self.names.describe(UInt32(bits), extra: ["pulseRateRange=\(pulseRateRange)"])
  }
}
