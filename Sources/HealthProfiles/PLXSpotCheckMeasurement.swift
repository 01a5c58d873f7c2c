/// A PLX Spot-Check Measurement value (characteristic 0x2A5E, Pulse Oximeter Service),
/// decoded per the GATT Specification Supplement, PLX Spot-Check Measurement:
///
/// | field | size | present when |
/// |---|---|---|
/// | Flags | 1 | always |
/// | SpO2 (percent), PR (beats per minute) | 2 × 2, SFLOAT | always (SpO2PR-Spot-Check) |
/// | Timestamp | 7, Date Time | flags bit 0 |
/// | Measurement Status | 2 | flags bit 1 (see ``PLXMeasurementStatus``) |
/// | Device and Sensor Status | 3 | flags bit 2 (see ``PLXDeviceAndSensorStatus``) |
/// | Pulse Amplitude Index | 2, SFLOAT, percent | flags bit 3 |
///
/// Flags bit 4, "Device Clock is Not Set", adds no field: it says the Timestamp (if any)
/// comes from a clock nobody set. Bits 5–7 are reserved for future use (see
/// ``ReservedFlagPolicy``); bytes after the last field are kept in ``appendedBytes``.
public struct PLXSpotCheckMeasurement: Sendable, Hashable {
  /// Flags bit 0: a Timestamp follows SpO2 and PR.
  static let timestampFlag: UInt8 = 0x01
  /// Flags bit 1: a Measurement Status follows.
  static let measurementStatusFlag: UInt8 = 0x02
  /// Flags bit 2: a Device and Sensor Status follows.
  static let deviceAndSensorStatusFlag: UInt8 = 0x04
  /// Flags bit 3: a Pulse Amplitude Index follows.
  static let pulseAmplitudeIndexFlag: UInt8 = 0x08
  /// Flags bit 4: the device clock is not set.
  static let deviceClockNotSetFlag: UInt8 = 0x10
  static let knownFlags: UInt8 = 0x1F

  /// The flags byte as sent.
  public var flags: UInt8
  /// Oxygen saturation, percent.
  public var spO2: MedicalFloat
  /// Pulse rate, beats per minute.
  public var pulseRate: MedicalFloat
  public var timestamp: MeasurementDateTime?
  public var measurementStatus: PLXMeasurementStatus?
  public var deviceAndSensorStatus: PLXDeviceAndSensorStatus?
  /// Pulse amplitude index, percent.
  public var pulseAmplitudeIndex: MedicalFloat?
  /// Bytes after the last field the flags announce (fields of a later revision).
  public var appendedBytes: [UInt8]

  /// Decodes one value. Throws ``HealthProfileError/truncated(expected:got:)`` when shorter
  /// than its flags require, ``HealthProfileError/reservedFlags(flags:reserved:)`` only under
  /// ``ReservedFlagPolicy/reject``.
  public init(
    decoding bytes: [UInt8], reservedFlags policy: ReservedFlagPolicy = .tolerate
  ) throws(HealthProfileError) {
    let flags = try WireReader.flags(of: bytes, knownMask: Self.knownFlags, policy: policy)
    let hasTimestamp = flags & Self.timestampFlag != 0
    let hasMeasurementStatus = flags & Self.measurementStatusFlag != 0
    let hasDeviceStatus = flags & Self.deviceAndSensorStatusFlag != 0
    let hasPulseAmplitudeIndex = flags & Self.pulseAmplitudeIndexFlag != 0
    try WireReader.requireLength(
      FieldSize.flags + 2 * FieldSize.sfloat + (hasTimestamp ? FieldSize.dateTime : 0)
        + (hasMeasurementStatus ? FieldSize.uint16 : 0)
        + (hasDeviceStatus ? FieldSize.uint24 : 0)
        + (hasPulseAmplitudeIndex ? FieldSize.sfloat : 0), in: bytes)
    var reader = WireReader(bytes)
    self.flags = flags
    spO2 = reader.sfloat()
    pulseRate = reader.sfloat()
    timestamp = hasTimestamp ? reader.dateTime() : nil
    measurementStatus = hasMeasurementStatus ? PLXMeasurementStatus(bits: reader.uint16()) : nil
    deviceAndSensorStatus =
      hasDeviceStatus ? PLXDeviceAndSensorStatus(bits: reader.uint24()) : nil
    pulseAmplitudeIndex = hasPulseAmplitudeIndex ? reader.sfloat() : nil
    appendedBytes = reader.rest
  }

  /// Flags bit 4: the device's clock was never set, so a Timestamp is not wall-clock time.
  public var isDeviceClockNotSet: Bool { flags & Self.deviceClockNotSetFlag != 0 }

  /// The flag bits the supplement reserves, as sent (0 from a conforming sensor).
  public var reservedFlags: UInt8 { flags & ~Self.knownFlags }

  /// The fields in wire order, present ones only; `deviceClockNotSet` only when set.
  public var fields: [HealthField] {
    var fields = [
      HealthField("flags", hexByte(flags)),
      HealthField("spO2", spO2, unit: .percent),
      HealthField("pulseRate", pulseRate, unit: .beatsPerMinute),
    ]
    if let timestamp { fields.append(HealthField("timestamp", timestamp.description)) }
    if let measurementStatus {
      fields.append(HealthField("measurementStatus", measurementStatus.description))
    }
    if let deviceAndSensorStatus {
      fields.append(HealthField("deviceAndSensorStatus", deviceAndSensorStatus.description))
    }
    if let pulseAmplitudeIndex {
      fields.append(HealthField("pulseAmplitudeIndex", pulseAmplitudeIndex, unit: .percent))
    }
    if isDeviceClockNotSet { fields.append(HealthField("deviceClockNotSet", "true")) }
    return fields + HealthField.trailer(reservedFlags: reservedFlags, appendedBytes: appendedBytes)
  }
}
