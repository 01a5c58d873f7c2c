/// A Temperature Measurement value (characteristic 0x2A1C, Health Thermometer Service),
/// decoded per the GATT Specification Supplement, Temperature Measurement:
///
/// | field | size | present when |
/// |---|---|---|
/// | Flags | 1 | always |
/// | Temperature Measurement Value | 4, FLOAT | always; °C if flags bit 0 is 0, °F if 1 |
/// | Time Stamp | 7, Date Time | flags bit 1 |
/// | Temperature Type | 1 | flags bit 2 |
///
/// Flags bits 3–7 are reserved for future use (see ``ReservedFlagPolicy``); bytes after the
/// last field are kept in ``appendedBytes``.
public struct TemperatureMeasurement: Sendable, Hashable {
  /// Flags bit 0: the value is in degrees Fahrenheit rather than Celsius.
  static let fahrenheitFlag: UInt8 = 0x01
  /// Flags bit 1: a Time Stamp follows the value.
  static let timestampFlag: UInt8 = 0x02
  /// Flags bit 2: a Temperature Type follows.
  static let temperatureTypeFlag: UInt8 = 0x04
  static let knownFlags: UInt8 = 0x07

  /// The flags byte as sent.
  public var flags: UInt8
  /// The temperature, possibly one of the FLOAT special values.
  public var temperature: MedicalFloat
  /// ``HealthUnit/celsius`` or ``HealthUnit/fahrenheit`` (flags bit 0).
  public var unit: HealthUnit
  public var timestamp: MeasurementDateTime?
  public var temperatureType: TemperatureType?
  /// Bytes after the last field the flags announce (fields of a later revision).
  public var appendedBytes: [UInt8]

  /// The flag bits the supplement reserves, as sent (0 from a conforming sensor).
  public var reservedFlags: UInt8 { flags & ~Self.knownFlags }

  /// Decodes one value. Throws ``HealthProfileError/truncated(expected:got:)`` when shorter
  /// than its flags require, ``HealthProfileError/reservedFlags(flags:reserved:)`` only under
  /// ``ReservedFlagPolicy/reject``.
  public init(
    decoding bytes: [UInt8], reservedFlags policy: ReservedFlagPolicy = .tolerate
  ) throws(HealthProfileError) {
    let flags = try WireReader.flags(of: bytes, knownMask: Self.knownFlags, policy: policy)
    let hasTimestamp = flags & Self.timestampFlag != 0
    let hasType = flags & Self.temperatureTypeFlag != 0
    try WireReader.requireLength(
      FieldSize.flags + FieldSize.float + (hasTimestamp ? FieldSize.dateTime : 0)
        + (hasType ? FieldSize.uint8 : 0), in: bytes)
    var reader = WireReader(bytes)
    self.flags = flags
    temperature = reader.float()
    unit = flags & Self.fahrenheitFlag != 0 ? .fahrenheit : .celsius
    timestamp = hasTimestamp ? reader.dateTime() : nil
    temperatureType = hasType ? TemperatureType(rawValue: reader.uint8()) : nil
    appendedBytes = reader.rest
  }

  /// The fields in wire order, present ones only.
  public var fields: [HealthField] {
    var fields = [
      HealthField("flags", hexByte(flags)),
      HealthField("temperature", temperature, unit: unit),
    ]
    if let timestamp { fields.append(HealthField("timestamp", timestamp.description)) }
    if let temperatureType {
      fields.append(HealthField("temperatureType", temperatureType.description))
    }
    return fields
      + HealthField.trailer(reservedFlags: reservedFlags, appendedBytes: appendedBytes)
  }
}
