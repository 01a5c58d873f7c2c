import Testing

@testable import HealthProfiles

/// GATT Specification Supplement, Weight Measurement (0x2A9D). Vectors derived in
/// docs/health-profiles-vectors.md, "Weight Measurement".
@Suite("Weight Measurement")
struct WeightMeasurementTests {
  /// Flags bits 0–3, all 16 combinations.
  @Test("every flag combination")
  func everyFlagCombination() throws {
    for flags in UInt8(0)..<16 {
      let imperial = flags & 0x01 != 0
      var bytes = [flags] + SIGEncoding.uint16(14000)
      if flags & 0x02 != 0 { bytes += sampleTimestampBytes }
      if flags & 0x04 != 0 { bytes += [0x03] }
      if flags & 0x08 != 0 { bytes += SIGEncoding.uint16(229) + SIGEncoding.uint16(1750) }
      let expectedLength =
        3 + (flags & 0x02 != 0 ? 7 : 0) + (flags & 0x04 != 0 ? 1 : 0)
        + (flags & 0x08 != 0 ? 4 : 0)
      #expect(bytes.count == expectedLength)

      let measurement = try WeightMeasurement(decoding: bytes)
      #expect(measurement.rawWeight == 14000)
      #expect(measurement.isImperial == imperial, "flags \(flags)")
      // 14000 × 0.005 kg = 70 kg; 14000 × 0.01 lb = 140 lb.
      #expect(measurement.weight?.doubleValue == (imperial ? 140 : 70))
      #expect(measurement.weightUnit == (imperial ? .pound : .kilogram))
      #expect(measurement.heightUnit == (imperial ? .inch : .metre))
      #expect(measurement.timestamp == (flags & 0x02 != 0 ? sampleTimestamp : nil))
      #expect(measurement.userID == (flags & 0x04 != 0 ? 3 : nil))
      #expect(measurement.bmi?.doubleValue == (flags & 0x08 != 0 ? 22.9 : nil))
      // 1750 × 0.001 m = 1.75 m; 1750 × 0.1 in = 175 in.
      let height: Double? = flags & 0x08 != 0 ? (imperial ? 175 : 1.75) : nil
      #expect(measurement.height?.doubleValue == height)
      #expect(measurement.appendedBytes.isEmpty)
      #expect(measurement.reservedFlags == 0)
      for length in 0..<bytes.count {
        #expect(throws: HealthProfileError.truncated(expected: max(1, expectedLength), got: length))
        {
          _ = try WeightMeasurement(decoding: Array(bytes.prefix(length)))
        }
      }
    }
  }

  @Test("70.000 kg, no optional fields: 00 B0 36")
  func siMinimal() throws {
    let measurement = try WeightMeasurement(decoding: SIGEncoding.hex("00 B0 36"))
    #expect(measurement.weight?.description == "70.000")
    #expect(measurement.fields.map(\.description) == ["flags: 0x00", "weight: 70.000 kg"])
  }

  @Test("154.32 lb, everything: 0F 48 3C E8 07 03 05 07 1E 00 02 E5 00 B2 02")
  func imperialFull() throws {
    let measurement = try WeightMeasurement(
      decoding: SIGEncoding.hex("0F 48 3C E8 07 03 05 07 1E 00 02 E5 00 B2 02"))
    #expect(
      measurement.fields.map(\.description) == [
        "flags: 0x0F", "weight: 154.32 lb", "timestamp: 2024-03-05T07:30:00", "userID: 2",
        "bmi: 22.9 kg/m²", "height: 69.0 in",
      ])
  }

  @Test("70.000 kg, unknown user, 1.750 m: 0E B0 36 E8 07 03 05 07 1E 00 FF E5 00 D6 06")
  func siFullUnknownUser() throws {
    let measurement = try WeightMeasurement(
      decoding: SIGEncoding.hex("0E B0 36 E8 07 03 05 07 1E 00 FF E5 00 D6 06"))
    #expect(measurement.userID == WeightMeasurement.unknownUser)
    #expect(
      measurement.fields.map(\.description) == [
        "flags: 0x0E", "weight: 70.000 kg", "timestamp: 2024-03-05T07:30:00",
        "userID: 255 (unknown user)", "bmi: 22.9 kg/m²", "height: 1.750 m",
      ])
  }

  /// 0xFFFF is "Measurement Unsuccessful", in either unit system.
  @Test("measurement unsuccessful: 00 FF FF and 01 FF FF")
  func unsuccessful() throws {
    for flags: UInt8 in [0x00, 0x01] {
      let measurement = try WeightMeasurement(decoding: [flags, 0xFF, 0xFF])
      #expect(measurement.isMeasurementUnsuccessful)
      #expect(measurement.weight == nil)
      #expect(measurement.fields.last == HealthField("weight", "measurement unsuccessful"))
    }
    // One step below is a weight: 65534 × 0.005 = 327.670 kg.
    let heaviest = try WeightMeasurement(decoding: [0x00, 0xFE, 0xFF])
    #expect(heaviest.weight?.description == "327.670")
  }

  /// Bits 4–7 are RFU: tolerated and reported by default, rejected on request.
  @Test("reserved flag bits")
  func reservedFlags() throws {
    for bit in 4..<8 {
      let flags = UInt8(1 << bit) | 0x01
      let bytes = [flags] + SIGEncoding.uint16(100)
      let measurement = try WeightMeasurement(decoding: bytes)
      #expect(measurement.reservedFlags == UInt8(1 << bit))
      #expect(measurement.weight?.description == "1.00")
      #expect(throws: HealthProfileError.reservedFlags(flags: flags, reserved: UInt8(1 << bit))) {
        _ = try WeightMeasurement(decoding: bytes, reservedFlags: .reject)
      }
    }
  }
}
