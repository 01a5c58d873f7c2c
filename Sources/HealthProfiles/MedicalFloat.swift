/// A number in the IEEE 11073-20601 formats the health profiles use: SFLOAT (16 bits) and
/// FLOAT (32 bits), both `mantissa × 10^exponent` with signed two's-complement parts.
///
/// IEEE 11073-20601 §F.8 (FLOAT-Type) and §F.9 (SFLOAT-Type), as the GATT Specification
/// Supplement's `medfloat16` / `medfloat32` types refer to them:
/// - SFLOAT: exponent is the high 4 bits (−8…7), mantissa the low 12 bits (−2048…2047).
/// - FLOAT: exponent is the high 8 bits (−128…127), mantissa the low 24 bits.
/// - With exponent 0, five mantissas are special values, not numbers: NaN (SFLOAT 0x07FF,
///   FLOAT 0x7FFFFF), NRes "not at this resolution" (0x0800 / 0x800000), +INFINITY (0x07FE /
///   0x7FFFFE), −INFINITY (0x0802 / 0x800002) and one reserved for future use (0x0801 /
///   0x800001). The same mantissas with another exponent are ordinary numbers.
/// Bytes arrive little-endian (GATT Specification Supplement, "all multi-octet fields are
/// transmitted least significant octet first").
public enum MedicalFloat: Sendable, Hashable, CustomStringConvertible {
  /// An ordinary number, `mantissa × 10^exponent`, kept as sent (2.0 may come as 20e-1).
  case value(mantissa: Int32, exponent: Int8)
  /// Not a Number: the device has no valid result.
  case nan
  /// Not at this Resolution: the value exists but cannot be shown with this format.
  case nres
  /// +INFINITY: above the device's range.
  case positiveInfinity
  /// −INFINITY: below the device's range.
  case negativeInfinity
  /// The special value IEEE 11073-20601 reserves for future use.
  case reserved

  /// Decodes SFLOAT bits (already assembled from the two little-endian bytes).
  public init(sfloatBits bits: UInt16) {
    let exponentBits = Int8(truncatingIfNeeded: bits >> 12)
    let mantissaBits = Int32(bits & 0x0FFF)
    if exponentBits == 0, let special = Self.special(mantissaBits, nan: 0x07FF, width: 12) {
      self = special
      return
    }
    self = .value(
      mantissa: mantissaBits >= 0x0800 ? mantissaBits - 0x1000 : mantissaBits,
      exponent: exponentBits >= 8 ? exponentBits - 16 : exponentBits)
  }

  /// Decodes FLOAT bits (already assembled from the four little-endian bytes).
  public init(floatBits bits: UInt32) {
    let exponent = Int8(bitPattern: UInt8(truncatingIfNeeded: bits >> 24))
    let mantissaBits = Int32(bits & 0x00FF_FFFF)
    if exponent == 0, let special = Self.special(mantissaBits, nan: 0x7F_FFFF, width: 24) {
      self = special
      return
    }
    self = .value(
      mantissa: mantissaBits >= 0x80_0000 ? mantissaBits - 0x100_0000 : mantissaBits,
      exponent: exponent)
  }

  /// The special value for an unsigned mantissa field of `width` bits, whose NaN is the
  /// largest positive mantissa: NaN, then +INF one below, NRes at the most negative, then
  /// reserved and −INF above it.
  private static func special(_ mantissa: Int32, nan: Int32, width: Int) -> MedicalFloat? {
    let mostNegative = Int32(1) << (width - 1)
    switch mantissa {
    case nan: return .nan
    case nan - 1: return .positiveInfinity
    case mostNegative: return .nres
    case mostNegative + 1: return .reserved
    case mostNegative + 2: return .negativeInfinity
    default: return nil
    }
  }

  /// The exact number, or nil for the special values.
  public var decimal: DecimalValue? {
    guard case .value(let mantissa, let exponent) = self else { return nil }
    return DecimalValue(mantissa: Int(mantissa), exponent: Int(exponent))
  }

  /// The value as a `Double`: the number, `±.infinity` for the infinities, nil for NaN, NRes
  /// and reserved (they carry no magnitude to compute with).
  public var doubleValue: Double? {
    switch self {
    case .value: decimal?.doubleValue
    case .positiveInfinity: .infinity
    case .negativeInfinity: -.infinity
    case .nan, .nres, .reserved: nil
    }
  }

  /// "36.4", or the IEEE 11073 name of a special value: "NaN", "NRes", "+INFINITY",
  /// "-INFINITY", "reserved". Stable: the CLI prints it as text and JSON.
  public var description: String {
    switch self {
    case .value: decimal?.description ?? ""
    case .nan: "NaN"
    case .nres: "NRes"
    case .positiveInfinity: "+INFINITY"
    case .negativeInfinity: "-INFINITY"
    case .reserved: "reserved"
    }
  }
}
