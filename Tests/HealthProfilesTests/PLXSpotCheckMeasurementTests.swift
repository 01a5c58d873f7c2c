import Testing

@testable import HealthProfiles

/// GATT Specification Supplement, PLX Spot-Check Measurement (0x2A5E). Vectors derived in
/// docs/health-profiles-vectors.md, "PLX Spot-Check Measurement".
@Suite("PLX Spot-Check Measurement")
struct PLXSpotCheckMeasurementTests {
  /// Flags bits 0–4, all 32 combinations.
  @Test("every flag combination")
  func everyFlagCombination() throws {
    for flags in UInt8(0)..<32 {
      var bytes =
        [flags] + SIGEncoding.sfloat(mantissa: 97, exponent: 0)
        + SIGEncoding.sfloat(mantissa: 65, exponent: 0)
      if flags & 0x01 != 0 { bytes += sampleTimestampBytes }
      if flags & 0x02 != 0 { bytes += SIGEncoding.uint16(0x0120) }
      if flags & 0x04 != 0 { bytes += SIGEncoding.uint24(0x00_8010) }
      if flags & 0x08 != 0 { bytes += SIGEncoding.sfloat(mantissa: 25, exponent: -1) }
      let expectedLength =
        5 + (flags & 0x01 != 0 ? 7 : 0) + (flags & 0x02 != 0 ? 2 : 0)
        + (flags & 0x04 != 0 ? 3 : 0) + (flags & 0x08 != 0 ? 2 : 0)
      #expect(bytes.count == expectedLength)

      let measurement = try PLXSpotCheckMeasurement(decoding: bytes)
      #expect(measurement.spO2 == .value(mantissa: 97, exponent: 0))
      #expect(measurement.pulseRate == .value(mantissa: 65, exponent: 0))
      #expect(measurement.timestamp == (flags & 0x01 != 0 ? sampleTimestamp : nil))
      #expect(measurement.measurementStatus?.bits == (flags & 0x02 != 0 ? 0x0120 : nil))
      #expect(measurement.deviceAndSensorStatus?.bits == (flags & 0x04 != 0 ? 0x00_8010 : nil))
      #expect(
        measurement.pulseAmplitudeIndex
          == (flags & 0x08 != 0 ? .value(mantissa: 25, exponent: -1) : nil))
      #expect(measurement.isDeviceClockNotSet == (flags & 0x10 != 0), "flags \(flags)")
      #expect(measurement.appendedBytes.isEmpty)
      #expect(measurement.reservedFlags == 0)
      for length in 0..<bytes.count {
        #expect(throws: HealthProfileError.truncated(expected: max(1, expectedLength), got: length))
        {
          _ = try PLXSpotCheckMeasurement(decoding: Array(bytes.prefix(length)))
        }
      }
    }
  }

  @Test("98 %, 72 bpm: 00 62 00 48 00")
  func minimal() throws {
    let measurement = try PLXSpotCheckMeasurement(decoding: SIGEncoding.hex("00 62 00 48 00"))
    #expect(
      measurement.fields.map(\.description) == [
        "flags: 0x00", "spO2: 98 %", "pulseRate: 72 bpm",
      ])
  }

  @Test("97 %, 65 bpm, everything: 1F 61 00 41 00 E8 07 03 05 0E 07 09 20 01 10 80 00 19 F0")
  func full() throws {
    let measurement = try PLXSpotCheckMeasurement(
      decoding: SIGEncoding.hex("1F 61 00 41 00 E8 07 03 05 0E 07 09 20 01 10 80 00 19 F0"))
    #expect(measurement.deviceAndSensorStatus?.sensorDisconnected == true)
    #expect(measurement.deviceAndSensorStatus?.equipmentMalfunctionDetected == false)
    #expect(measurement.measurementStatus?.measurementUnavailable == false)
    #expect(
      measurement.fields.map(\.description) == [
        "flags: 0x1F", "spO2: 97 %", "pulseRate: 65 bpm", "timestamp: 2024-03-05T14:07:09",
        "measurementStatus: 0x0120 measurementOngoing fullyQualifiedData",
        "deviceAndSensorStatus: 0x008010 poorSignalDetected sensorDisconnected",
        "pulseAmplitudeIndex: 2.5 %", "deviceClockNotSet: true",
      ])
  }

  /// Measurement Status bits 5–15 and Device and Sensor Status bits 0–15 each alone by name;
  /// the reserved bits reported.
  @Test("status bits by name")
  func statusBits() {
    for bit in 0..<16 {
      let status = PLXMeasurementStatus(bits: UInt16(1) << UInt16(bit))
      #expect(status.isSet(bit: bit))
      if bit < 5 {
        #expect(status.setNames.isEmpty)
        #expect(status.reservedBits == UInt16(1) << UInt16(bit))
      } else {
        #expect(status.setNames == [PLXMeasurementStatus.names.namedBits[bit - 5].name])
        #expect(status.reservedBits == 0)
      }
    }
    #expect(PLXMeasurementStatus(bits: 0x2000).measurementUnavailable)
    #expect(PLXMeasurementStatus(bits: 0x8000).invalidMeasurementDetected)
    for bit in 0..<24 {
      let status = PLXDeviceAndSensorStatus(bits: UInt32(1) << UInt32(bit))
      #expect(status.isSet(bit: bit))
      if bit < 16 {
        #expect(status.setNames == [PLXDeviceAndSensorStatus.names.namedBits[bit].name])
      } else {
        #expect(status.setNames.isEmpty)
        #expect(status.reservedBits == UInt32(1) << UInt32(bit))
      }
    }
    #expect(
      PLXDeviceAndSensorStatus(bits: 0x01_0002).description
        == "0x010002 equipmentMalfunctionDetected reserved=0x010000")
    #expect(!PLXDeviceAndSensorStatus(bits: 0).isSet(bit: 24))
    #expect(!PLXMeasurementStatus(bits: 0xFFFF).isSet(bit: 16))
  }

  @Test("NRes SpO2 and -INFINITY pulse rate print without units")
  func specials() throws {
    let measurement = try PLXSpotCheckMeasurement(decoding: SIGEncoding.hex("00 00 08 02 08"))
    #expect(measurement.spO2 == .nres)
    #expect(measurement.pulseRate == .negativeInfinity)
    #expect(
      measurement.fields.map(\.description) == [
        "flags: 0x00", "spO2: NRes", "pulseRate: -INFINITY",
      ])
  }

  /// Bits 5–7 are RFU: tolerated and reported by default, rejected on request.
  @Test("reserved flag bits")
  func reservedFlags() throws {
    for bit in 5..<8 {
      let flags = UInt8(1 << bit) | 0x10
      let bytes = [flags] + SIGEncoding.hex("62 00 48 00")
      let measurement = try PLXSpotCheckMeasurement(decoding: bytes)
      #expect(measurement.reservedFlags == UInt8(1 << bit))
      #expect(measurement.isDeviceClockNotSet)
      #expect(throws: HealthProfileError.reservedFlags(flags: flags, reserved: UInt8(1 << bit))) {
        _ = try PLXSpotCheckMeasurement(decoding: bytes, reservedFlags: .reject)
      }
    }
  }
}
