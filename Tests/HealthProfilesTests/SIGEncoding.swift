import HealthProfiles

/// Test-side encoders written from the field rules of the GATT Specification Supplement and
/// IEEE 11073-20601, independent of the parsers: the every-flag tests build their byte vectors
/// with these and check that the parsers read back the values that went in.
enum SIGEncoding {
  /// SFLOAT: 4-bit two's-complement exponent in the high nibble, 12-bit mantissa below,
  /// little-endian.
  static func sfloat(mantissa: Int, exponent: Int) -> [UInt8] {
    uint16(UInt16((exponent & 0xF) << 12 | (mantissa & 0xFFF)))
  }

  /// The SFLOAT special values, by their 16-bit pattern.
  static func sfloat(bits: UInt16) -> [UInt8] { uint16(bits) }

  /// FLOAT: 8-bit two's-complement exponent in the high byte, 24-bit mantissa below,
  /// little-endian.
  static func float(mantissa: Int, exponent: Int) -> [UInt8] {
    uint32(UInt32((exponent & 0xFF) << 24 | (mantissa & 0xFF_FFFF)))
  }

  static func uint16(_ value: UInt16) -> [UInt8] {
    [UInt8(value & 0xFF), UInt8(value >> 8)]
  }

  static func uint24(_ value: UInt32) -> [UInt8] {
    [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF), UInt8((value >> 16) & 0xFF)]
  }

  static func uint32(_ value: UInt32) -> [UInt8] {
    uint24(value) + [UInt8(value >> 24)]
  }

  /// Date Time: year u16 little-endian, then month, day, hours, minutes, seconds.
  static func dateTime(
    year: UInt16, month: UInt8, day: UInt8, hours: UInt8, minutes: UInt8, seconds: UInt8
  ) -> [UInt8] {
    uint16(year) + [month, day, hours, minutes, seconds]
  }

  /// "6C 01 00 FF" → bytes, for vectors copied from docs/health-profiles-vectors.md.
  static func hex(_ text: String) -> [UInt8] {
    text.split(separator: " ").compactMap { UInt8($0, radix: 16) }
  }
}

/// The time stamp most vectors carry: 2024-03-05 14:07:09.
let sampleTimestampBytes = SIGEncoding.dateTime(
  year: 2024, month: 3, day: 5, hours: 14, minutes: 7, seconds: 9)
let sampleTimestamp = MeasurementDateTime(
  year: 2024, month: 3, day: 5, hours: 14, minutes: 7, seconds: 9)
