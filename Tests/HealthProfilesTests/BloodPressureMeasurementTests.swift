import Testing

@testable import HealthProfiles

/// GATT Specification Supplement, Blood Pressure Measurement (0x2A35). Vectors derived in
/// docs/health-profiles-vectors.md, "Blood Pressure Measurement".
@Suite("Blood Pressure Measurement")
struct BloodPressureMeasurementTests {
  /// Flags bits 0–4, all 32 combinations.
  @Test("every flag combination")
  func everyFlagCombination() throws {
    for flags in UInt8(0)..<32 {
      var bytes =
        [flags] + SIGEncoding.sfloat(mantissa: 120, exponent: 0)
        + SIGEncoding.sfloat(mantissa: 80, exponent: 0)
        + SIGEncoding.sfloat(mantissa: 93, exponent: 0)
      if flags & 0x02 != 0 { bytes += sampleTimestampBytes }
      if flags & 0x04 != 0 { bytes += SIGEncoding.sfloat(mantissa: 72, exponent: 0) }
      if flags & 0x08 != 0 { bytes += [0x01] }
      if flags & 0x10 != 0 { bytes += SIGEncoding.uint16(0x000D) }
      let expectedLength =
        7 + (flags & 0x02 != 0 ? 7 : 0) + (flags & 0x04 != 0 ? 2 : 0)
        + (flags & 0x08 != 0 ? 1 : 0) + (flags & 0x10 != 0 ? 2 : 0)
      #expect(bytes.count == expectedLength)

      let measurement = try BloodPressureMeasurement(decoding: bytes)
      #expect(measurement.systolic == .value(mantissa: 120, exponent: 0))
      #expect(measurement.diastolic == .value(mantissa: 80, exponent: 0))
      #expect(measurement.meanArterialPressure == .value(mantissa: 93, exponent: 0))
      #expect(
        measurement.pressureUnit == (flags & 0x01 != 0 ? .kilopascal : .millimetreOfMercury),
        "flags \(flags)")
      #expect(measurement.timestamp == (flags & 0x02 != 0 ? sampleTimestamp : nil))
      #expect(
        measurement.pulseRate == (flags & 0x04 != 0 ? .value(mantissa: 72, exponent: 0) : nil))
      #expect(measurement.userID == (flags & 0x08 != 0 ? 1 : nil))
      #expect(measurement.measurementStatus?.bits == (flags & 0x10 != 0 ? 0x000D : nil))
      #expect(measurement.appendedBytes.isEmpty)
      #expect(measurement.reservedFlags == 0)
      for length in 0..<bytes.count {
        #expect(throws: HealthProfileError.truncated(expected: max(1, expectedLength), got: length))
        {
          _ = try BloodPressureMeasurement(decoding: Array(bytes.prefix(length)))
        }
      }
    }
  }

  @Test("120/80 mmHg, MAP 93: 00 78 00 50 00 5D 00")
  func mmHgMinimal() throws {
    let measurement = try BloodPressureMeasurement(
      decoding: SIGEncoding.hex("00 78 00 50 00 5D 00"))
    #expect(
      measurement.fields.map(\.description) == [
        "flags: 0x00", "systolic: 120 mmHg", "diastolic: 80 mmHg",
        "meanArterialPressure: 93 mmHg",
      ])
  }

  @Test("16.0/10.7 kPa, everything: 1F A0 F0 6B F0 7C F0 E8 07 03 05 0E 07 09 48 00 01 0D 00")
  func kilopascalFull() throws {
    let measurement = try BloodPressureMeasurement(
      decoding: SIGEncoding.hex("1F A0 F0 6B F0 7C F0 E8 07 03 05 0E 07 09 48 00 01 0D 00"))
    let status = try #require(measurement.measurementStatus)
    #expect(status.bodyMovementDetected)
    #expect(!status.cuffTooLoose)
    #expect(status.irregularPulseDetected)
    #expect(status.pulseRateRange == .exceedsUpperLimit)
    #expect(!status.improperMeasurementPosition)
    #expect(
      measurement.fields.map(\.description) == [
        "flags: 0x1F", "systolic: 16.0 kPa", "diastolic: 10.7 kPa",
        "meanArterialPressure: 12.4 kPa", "timestamp: 2024-03-05T14:07:09",
        "pulseRate: 72 bpm", "userID: 1",
        "measurementStatus: 0x000D bodyMovementDetected irregularPulseDetected"
          + " pulseRateRange=exceedsUpperLimit",
      ])
  }

  /// A monitor that could not measure a pressure sends NaN in its place.
  @Test("NaN mean arterial pressure: 00 78 00 50 00 FF 07")
  func nanPressure() throws {
    let measurement = try BloodPressureMeasurement(
      decoding: SIGEncoding.hex("00 78 00 50 00 FF 07"))
    #expect(measurement.meanArterialPressure == .nan)
    #expect(measurement.fields.last == HealthField("meanArterialPressure", "NaN"))
  }

  /// Each status bit alone, every pulse-rate range, and a reserved bit.
  @Test("measurement status bits")
  func statusBits() {
    let single: [(UInt16, KeyPath<BloodPressureMeasurementStatus, Bool>, String)] = [
      (0x0001, \.bodyMovementDetected, "bodyMovementDetected"),
      (0x0002, \.cuffTooLoose, "cuffTooLoose"),
      (0x0004, \.irregularPulseDetected, "irregularPulseDetected"),
      (0x0020, \.improperMeasurementPosition, "improperMeasurementPosition"),
    ]
    for (bits, keyPath, name) in single {
      let status = BloodPressureMeasurementStatus(bits: bits)
      #expect(status[keyPath: keyPath], "\(name)")
      #expect(status.setNames == [name])
      #expect(status.pulseRateRange == .withinRange)
      for (other, otherPath, _) in single where other != bits {
        #expect(!status[keyPath: otherPath])
      }
    }
    let ranges: [(UInt16, BloodPressureMeasurementStatus.PulseRateRange)] = [
      (0x0000, .withinRange), (0x0008, .exceedsUpperLimit), (0x0010, .belowLowerLimit),
      (0x0018, .reserved),
    ]
    for (bits, range) in ranges {
      let status = BloodPressureMeasurementStatus(bits: bits)
      #expect(status.pulseRateRange == range)
      #expect(status.setNames.isEmpty)
      #expect(status.description.hasSuffix("pulseRateRange=\(range)"))
    }
    let reserved = BloodPressureMeasurementStatus(bits: 0x8001)
    #expect(reserved.reservedBits == 0x8000)
    #expect(
      reserved.description
        == "0x8001 bodyMovementDetected pulseRateRange=withinRange reserved=0x8000")
  }

  /// Bits 5–7 are RFU: tolerated and reported by default, rejected on request.
  @Test("reserved flag bits")
  func reservedFlags() throws {
    for bit in 5..<8 {
      let flags = UInt8(1 << bit)
      let bytes = [flags] + SIGEncoding.hex("78 00 50 00 5D 00")
      let measurement = try BloodPressureMeasurement(decoding: bytes)
      #expect(measurement.reservedFlags == flags)
      #expect(measurement.systolic == .value(mantissa: 120, exponent: 0))
      #expect(throws: HealthProfileError.reservedFlags(flags: flags, reserved: flags)) {
        _ = try BloodPressureMeasurement(decoding: bytes, reservedFlags: .reject)
      }
    }
  }
}
