import Testing

@testable import HealthProfiles

/// IEEE 11073-20601 SFLOAT and FLOAT: every special value, sign and exponent extension, and
/// the neighbours of the specials that are ordinary numbers. Derivations:
/// docs/health-profiles-vectors.md, "SFLOAT" and "FLOAT".
@Suite("IEEE 11073 SFLOAT and FLOAT")
struct MedicalFloatTests {
  /// Every SFLOAT special value: exponent 0 and the five reserved mantissas.
  @Test(
    "SFLOAT special values",
    arguments: [
      (UInt16(0x07FF), MedicalFloat.nan), (0x0800, .nres), (0x07FE, .positiveInfinity),
      (0x0802, .negativeInfinity), (0x0801, .reserved),
    ])
  func sfloatSpecials(bits: UInt16, expected: MedicalFloat) throws {
    #expect(MedicalFloat(sfloatBits: bits) == expected)
    // Through the wire: the PLX SpO2 field is an SFLOAT, little-endian.
    let bytes =
      [0x00] + SIGEncoding.sfloat(bits: bits) + SIGEncoding.sfloat(mantissa: 72, exponent: 0)
    let measurement = try PLXSpotCheckMeasurement(decoding: bytes)
    #expect(measurement.spO2 == expected)
  }

  /// Every FLOAT special value: exponent 0 and the five reserved mantissas.
  @Test(
    "FLOAT special values",
    arguments: [
      (UInt32(0x007F_FFFF), MedicalFloat.nan), (0x0080_0000, .nres),
      (0x007F_FFFE, .positiveInfinity), (0x0080_0002, .negativeInfinity),
      (0x0080_0001, .reserved),
    ])
  func floatSpecials(bits: UInt32, expected: MedicalFloat) throws {
    #expect(MedicalFloat(floatBits: bits) == expected)
    // Through the wire: the Temperature Measurement value is a FLOAT, little-endian.
    let measurement = try TemperatureMeasurement(decoding: [0x00] + SIGEncoding.uint32(bits))
    #expect(measurement.temperature == expected)
  }

  @Test("special values: Double accessor and stable names")
  func specialNames() {
    #expect(MedicalFloat.nan.doubleValue == nil)
    #expect(MedicalFloat.nres.doubleValue == nil)
    #expect(MedicalFloat.reserved.doubleValue == nil)
    #expect(MedicalFloat.positiveInfinity.doubleValue == .infinity)
    #expect(MedicalFloat.negativeInfinity.doubleValue == -.infinity)
    #expect(MedicalFloat.nan.description == "NaN")
    #expect(MedicalFloat.nres.description == "NRes")
    #expect(MedicalFloat.positiveInfinity.description == "+INFINITY")
    #expect(MedicalFloat.negativeInfinity.description == "-INFINITY")
    #expect(MedicalFloat.reserved.description == "reserved")
    #expect(MedicalFloat.nan.decimal == nil)
  }

  /// The special mantissas with a non-zero exponent, and the mantissas next to them, are
  /// numbers.
  @Test("neighbours of the special values are numbers")
  func specialNeighbours() {
    // SFLOAT: exponent 1 with the NaN and NRes mantissas.
    #expect(MedicalFloat(sfloatBits: 0x17FF) == .value(mantissa: 2047, exponent: 1))
    #expect(MedicalFloat(sfloatBits: 0x1800) == .value(mantissa: -2048, exponent: 1))
    #expect(MedicalFloat(sfloatBits: 0x07FD) == .value(mantissa: 2045, exponent: 0))
    #expect(MedicalFloat(sfloatBits: 0x0803) == .value(mantissa: -2045, exponent: 0))
    // FLOAT: exponent -1 (0xFF) with the NaN and NRes mantissas.
    #expect(MedicalFloat(floatBits: 0xFF7F_FFFF) == .value(mantissa: 8_388_607, exponent: -1))
    #expect(MedicalFloat(floatBits: 0xFF80_0000) == .value(mantissa: -8_388_608, exponent: -1))
    #expect(MedicalFloat(floatBits: 0x007F_FFFD) == .value(mantissa: 8_388_605, exponent: 0))
    #expect(MedicalFloat(floatBits: 0x0080_0003) == .value(mantissa: -8_388_605, exponent: 0))
  }

  @Test("SFLOAT sign and exponent extension")
  func sfloatExtension() {
    // 72 = 0x048, exponent 0.
    #expect(MedicalFloat(sfloatBits: 0x0048) == .value(mantissa: 72, exponent: 0))
    // 16.0 kPa = 160 × 10^-1: exponent 0xF, mantissa 0x0A0.
    #expect(MedicalFloat(sfloatBits: 0xF0A0) == .value(mantissa: 160, exponent: -1))
    // -1 × 10^-8: exponent 0x8, mantissa 0xFFF.
    #expect(MedicalFloat(sfloatBits: 0x8FFF) == .value(mantissa: -1, exponent: -8))
    // 2047 × 10^7: the largest SFLOAT.
    #expect(MedicalFloat(sfloatBits: 0x77FF) == .value(mantissa: 2047, exponent: 7))
    #expect(MedicalFloat(sfloatBits: 0x77FF).doubleValue == 2047e7)
    #expect(MedicalFloat(sfloatBits: 0x0000) == .value(mantissa: 0, exponent: 0))
  }

  @Test("FLOAT sign and exponent extension")
  func floatExtension() {
    // 36.4 = 364 × 10^-1: bytes 6C 01 00 FF.
    #expect(MedicalFloat(floatBits: 0xFF00_016C) == .value(mantissa: 364, exponent: -1))
    #expect(MedicalFloat(floatBits: 0xFF00_016C).doubleValue == 36.4)
    #expect(MedicalFloat(floatBits: 0xFF00_016C).description == "36.4")
    // -0.5 = -5 × 10^-1: mantissa 0xFFFFFB.
    #expect(MedicalFloat(floatBits: 0xFFFF_FFFB) == .value(mantissa: -5, exponent: -1))
    #expect(MedicalFloat(floatBits: 0xFFFF_FFFB).description == "-0.5")
    // The exponent extremes.
    #expect(MedicalFloat(floatBits: 0x7F00_0001) == .value(mantissa: 1, exponent: 127))
    #expect(MedicalFloat(floatBits: 0x8000_0001) == .value(mantissa: 1, exponent: -128))
    #expect(MedicalFloat(floatBits: 0x8000_0001).doubleValue == 1e-128)
  }

  @Test("exact decimal text")
  func decimalText() {
    #expect(DecimalValue(mantissa: 364, exponent: -1).description == "36.4")
    #expect(DecimalValue(mantissa: 14000, exponent: -3).description == "14.000")
    #expect(DecimalValue(mantissa: 5, exponent: 2).description == "500")
    #expect(DecimalValue(mantissa: -12, exponent: -3).description == "-0.012")
    #expect(DecimalValue(mantissa: 0, exponent: 3).description == "0")
    #expect(DecimalValue(mantissa: 0, exponent: -2).description == "0.00")
    #expect(DecimalValue(mantissa: -5, exponent: 0).description == "-5")
    #expect(DecimalValue(mantissa: -12, exponent: -3).doubleValue == -0.012)
  }
}
