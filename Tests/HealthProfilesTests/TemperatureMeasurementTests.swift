import Testing

@testable import HealthProfiles

/// GATT Specification Supplement, Temperature Measurement (0x2A1C). Vectors derived in
/// docs/health-profiles-vectors.md, "Temperature Measurement".
@Suite("Temperature Measurement")
struct TemperatureMeasurementTests {
  /// Flags bits 0–2, all 8 combinations: the value from the field rules, then the parse.
  @Test("every flag combination")
  func everyFlagCombination() throws {
    for flags in UInt8(0)..<8 {
      var bytes = [flags] + SIGEncoding.float(mantissa: 364, exponent: -1)
      if flags & 0x02 != 0 { bytes += sampleTimestampBytes }
      if flags & 0x04 != 0 { bytes += [0x06] }
      let expectedLength = 5 + (flags & 0x02 != 0 ? 7 : 0) + (flags & 0x04 != 0 ? 1 : 0)
      #expect(bytes.count == expectedLength)

      let measurement = try TemperatureMeasurement(decoding: bytes)
      #expect(measurement.flags == flags)
      #expect(measurement.temperature == .value(mantissa: 364, exponent: -1))
      #expect(measurement.unit == (flags & 0x01 != 0 ? .fahrenheit : .celsius), "flags \(flags)")
      #expect(measurement.timestamp == (flags & 0x02 != 0 ? sampleTimestamp : nil))
      #expect(measurement.temperatureType == (flags & 0x04 != 0 ? .mouth : nil))
      #expect(measurement.appendedBytes.isEmpty)
      #expect(measurement.reservedFlags == 0)
      for length in 0..<bytes.count {
        #expect(throws: HealthProfileError.truncated(expected: max(1, expectedLength), got: length))
        {
          _ = try TemperatureMeasurement(decoding: Array(bytes.prefix(length)))
        }
      }
    }
  }

  @Test("36.4 °C, no optional fields: 00 6C 01 00 FF")
  func celsiusMinimal() throws {
    let measurement = try TemperatureMeasurement(decoding: SIGEncoding.hex("00 6C 01 00 FF"))
    #expect(measurement.temperature.doubleValue == 36.4)
    #expect(measurement.unit == .celsius)
    #expect(measurement.fields.map(\.description) == ["flags: 0x00", "temperature: 36.4 °C"])
  }

  @Test("98.6 °F, time stamp, mouth: 07 DA 03 00 FF E8 07 03 05 0E 07 09 06")
  func fahrenheitFull() throws {
    let measurement = try TemperatureMeasurement(
      decoding: SIGEncoding.hex("07 DA 03 00 FF E8 07 03 05 0E 07 09 06"))
    #expect(measurement.temperature == .value(mantissa: 986, exponent: -1))
    #expect(measurement.unit == .fahrenheit)
    #expect(measurement.timestamp?.description == "2024-03-05T14:07:09")
    #expect(measurement.temperatureType == .mouth)
    #expect(
      measurement.fields.map(\.description) == [
        "flags: 0x07", "temperature: 98.6 °F", "timestamp: 2024-03-05T14:07:09",
        "temperatureType: mouth",
      ])
  }

  /// Temperature Type 1…9 by name; 0 and 10…255 are reserved and kept.
  @Test("every temperature type")
  func temperatureTypes() throws {
    let names = [
      "armpit", "body (general)", "ear (usually earlobe)", "finger", "gastro-intestinal tract",
      "mouth", "rectum", "toe", "tympanum (ear drum)",
    ]
    for raw in UInt8(0)...255 {
      let measurement = try TemperatureMeasurement(
        decoding: [0x04] + SIGEncoding.float(mantissa: 370, exponent: -1) + [raw])
      let type = try #require(measurement.temperatureType)
      #expect(type.rawValue == raw)
      if (1...9).contains(raw) {
        #expect(type.description == names[Int(raw) - 1])
      } else {
        #expect(type == .reserved(raw))
        #expect(type.description == "reserved (\(raw))")
      }
    }
  }

  @Test("NaN temperature prints without a unit")
  func nanTemperature() throws {
    let measurement = try TemperatureMeasurement(decoding: SIGEncoding.hex("00 FF FF 7F 00"))
    #expect(measurement.temperature == .nan)
    #expect(measurement.fields.last == HealthField("temperature", "NaN"))
  }

  /// Bits 3–7 are RFU: tolerated and reported by default, rejected on request.
  @Test("reserved flag bits")
  func reservedFlags() throws {
    for bit in 3..<8 {
      let flags = UInt8(1 << bit)
      let bytes = [flags] + SIGEncoding.float(mantissa: 364, exponent: -1)
      let measurement = try TemperatureMeasurement(decoding: bytes)
      #expect(measurement.reservedFlags == flags)
      #expect(measurement.temperature == .value(mantissa: 364, exponent: -1))
      #expect(measurement.fields.last == HealthField("reservedFlags", hexByte(flags)))
      #expect(throws: HealthProfileError.reservedFlags(flags: flags, reserved: flags)) {
        _ = try TemperatureMeasurement(decoding: bytes, reservedFlags: .reject)
      }
    }
  }

  @Test("appended bytes are kept, not parsed")
  func appendedBytes() throws {
    let measurement = try TemperatureMeasurement(decoding: SIGEncoding.hex("00 6C 01 00 FF AA BB"))
    #expect(measurement.appendedBytes == [0xAA, 0xBB])
    #expect(measurement.fields.last == HealthField("appendedBytes", "AA BB"))
  }
}
