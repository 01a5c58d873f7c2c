import Testing

@testable import HealthProfiles

/// The entry point the CLI calls: characteristic lookup, dispatch, errors, and the
/// never-trap contract over the fully-populated vectors of docs/health-profiles-vectors.md.
@Suite("HealthMeasurement.decode")
struct HealthMeasurementTests {
  /// Every field of every characteristic present (flags 0x07, 0x0F, 0x1F, 0x1F).
  static let fullVectors: [(HealthCharacteristic, String)] = [
    (.temperatureMeasurement, "07 DA 03 00 FF E8 07 03 05 0E 07 09 06"),
    (.weightMeasurement, "0F 48 3C E8 07 03 05 07 1E 00 02 E5 00 B2 02"),
    (.bloodPressureMeasurement, "1F A0 F0 6B F0 7C F0 E8 07 03 05 0E 07 09 48 00 01 0D 00"),
    (.plxSpotCheckMeasurement, "1F 61 00 41 00 E8 07 03 05 0E 07 09 20 01 10 80 00 19 F0"),
  ]

  @Test("characteristic and service UUIDs, all indicated")
  func characteristicTable() {
    let table = HealthCharacteristic.allCases.map { ($0.uuid, $0.serviceUUID, $0.isIndicated) }
    #expect(table.map(\.0) == [0x2A1C, 0x2A9D, 0x2A35, 0x2A5E])
    #expect(table.map(\.1) == [0x1809, 0x181D, 0x1810, 0x1822])
    #expect(table.allSatisfy(\.2))
    #expect(
      HealthCharacteristic.temperatureMeasurement.description
        == "Temperature Measurement (0x2A1C)")
    #expect(HealthCharacteristic.plxSpotCheckMeasurement.serviceName == "Pulse Oximeter")
  }

  @Test("characteristic identifiers as a user types them")
  func identifiers() throws {
    for text in ["2A1C", "2a1c", "0x2A1C", "0X2a1c", "00002A1C-0000-1000-8000-00805F9B34FB"] {
      #expect(try HealthCharacteristic(identifier: text) == .temperatureMeasurement, "\(text)")
    }
    #expect(try HealthCharacteristic(identifier: "2A5E") == .plxSpotCheckMeasurement)
    for text in [
      "2A37", "", "2A1", "2A1C0", "zzzz", "+2A1", "0x", "00002A37-0000-1000-8000-00805F9B34FB",
    ] {
      #expect(throws: HealthProfileError.unknownCharacteristic(text)) {
        _ = try HealthCharacteristic(identifier: text)
      }
    }
    #expect(
      HealthProfileError.unknownCharacteristic("2A37").description
        == "unknown characteristic '2A37' (known: 2A1C, 2A9D, 2A35, 2A5E)")
  }

  @Test("dispatches to the typed measurement")
  func dispatch() throws {
    for (characteristic, hex) in Self.fullVectors {
      let measurement = try HealthMeasurement.decode(
        characteristic: characteristic, bytes: SIGEncoding.hex(hex))
      #expect(measurement.characteristic == characteristic)
      #expect(measurement.fields.first?.value == characteristic.description)
      let bytes = SIGEncoding.hex(hex)
      switch measurement {
      case .temperature(let value):
        #expect(try value == TemperatureMeasurement(decoding: bytes))
      case .weight(let value): #expect(try value == WeightMeasurement(decoding: bytes))
      case .bloodPressure(let value):
        #expect(try value == BloodPressureMeasurement(decoding: bytes))
      case .plxSpotCheck(let value):
        #expect(try value == PLXSpotCheckMeasurement(decoding: bytes))
      }
    }
  }

  /// Every proper prefix of every fully-populated vector throws `truncated`, naming the full
  /// length; the whole vector decodes.
  @Test("truncation at every length throws, never traps")
  func truncationAtEveryLength() throws {
    for (characteristic, hex) in Self.fullVectors {
      let bytes = SIGEncoding.hex(hex)
      for length in 0..<bytes.count {
        #expect(
          throws: HealthProfileError.truncated(expected: length == 0 ? 1 : bytes.count, got: length)
        ) {
          _ = try HealthMeasurement.decode(
            characteristic: characteristic, bytes: Array(bytes.prefix(length)))
        }
      }
      _ = try HealthMeasurement.decode(characteristic: characteristic, bytes: bytes)
    }
    #expect(
      HealthProfileError.truncated(expected: 13, got: 9).description
        == "truncated: the flags need 13 bytes, got 9")
  }

  /// Appended bytes (a later revision's fields) are kept and listed last; the known fields
  /// are unchanged.
  @Test("appended bytes are tolerated")
  func appendedBytes() throws {
    for (characteristic, hex) in Self.fullVectors {
      let bytes = SIGEncoding.hex(hex)
      let plain = try HealthMeasurement.decode(characteristic: characteristic, bytes: bytes)
      let longer = try HealthMeasurement.decode(
        characteristic: characteristic, bytes: bytes + [0x01, 0x02, 0x03])
      #expect(longer.fields.dropLast() == plain.fields[...])
      #expect(longer.fields.last == HealthField("appendedBytes", "01 02 03"))
    }
  }

  @Test("reserved flags: tolerated by default, rejected on request")
  func reservedFlagPolicy() throws {
    for (characteristic, hex) in Self.fullVectors {
      var bytes = SIGEncoding.hex(hex)
      bytes[0] |= 0x80
      let measurement = try HealthMeasurement.decode(characteristic: characteristic, bytes: bytes)
      #expect(measurement.fields.last == HealthField("reservedFlags", "0x80"))
      #expect(throws: HealthProfileError.reservedFlags(flags: bytes[0], reserved: 0x80)) {
        _ = try HealthMeasurement.decode(
          characteristic: characteristic, bytes: bytes, reservedFlags: .reject)
      }
    }
    #expect(
      HealthProfileError.reservedFlags(flags: 0x87, reserved: 0x80).description
        == "reserved flag bits 0x80 set in flags 0x87")
  }

  @Test("description: one name: value unit line per field")
  func description() throws {
    let measurement = try HealthMeasurement.decode(
      characteristic: .temperatureMeasurement, bytes: SIGEncoding.hex("00 6C 01 00 FF"))
    #expect(
      measurement.description == """
        characteristic: Temperature Measurement (0x2A1C)
        flags: 0x00
        temperature: 36.4 °C
        """)
    #expect(measurement.fields[2] == HealthField("temperature", "36.4", unit: .celsius))
    #expect(measurement.fields[2].unit == "°C")
  }

  /// Date Time: 0 in year, month or day is "not known"; out-of-range parts are kept and
  /// flagged.
  @Test("Date Time unknown and out-of-range parts")
  func dateTime() throws {
    let unknown = try TemperatureMeasurement(
      decoding: SIGEncoding.hex("02 6C 01 00 FF 00 00 00 00 0C 00 00"))
    #expect(
      unknown.timestamp
        == MeasurementDateTime(
          year: nil, month: nil, day: nil, hours: 12, minutes: 0, seconds: 0))
    #expect(unknown.timestamp?.description == "????-??-??T12:00:00")
    #expect(unknown.timestamp?.isWithinSpecifiedRanges == true)
    let outOfRange = try TemperatureMeasurement(
      decoding: SIGEncoding.hex("02 6C 01 00 FF FF FF 0D 20 18 3C 3C"))
    #expect(outOfRange.timestamp?.year == 65535)
    #expect(outOfRange.timestamp?.isWithinSpecifiedRanges == false)
    #expect(outOfRange.timestamp?.description == "65535-13-32T24:60:60 (out of range)")
    let earliest = MeasurementDateTime(
      year: 1582, month: 1, day: 1, hours: 0, minutes: 0, seconds: 0)
    #expect(earliest.isWithinSpecifiedRanges)
    #expect(earliest.description == "1582-01-01T00:00:00")
    #expect(
      !MeasurementDateTime(year: 1581, month: 1, day: 1, hours: 0, minutes: 0, seconds: 0)
        .isWithinSpecifiedRanges)
  }
}
