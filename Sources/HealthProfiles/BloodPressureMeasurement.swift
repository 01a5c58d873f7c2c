/// A Blood Pressure Measurement value (characteristic 0x2A35, Blood Pressure Service),
/// decoded per the GATT Specification Supplement, Blood Pressure Measurement:
///
/// | field | size | present when |
/// |---|---|---|
/// | Flags | 1 | always |
/// | Systolic, Diastolic, Mean Arterial Pressure | 3 × 2, SFLOAT | always; bit 0: mmHg/kPa |
/// | Time Stamp | 7, Date Time | flags bit 1 |
/// | Pulse Rate | 2, SFLOAT, beats per minute | flags bit 2 |
/// | User ID | 1 | flags bit 3; 0xFF = unknown user |
/// | Measurement Status | 2 | flags bit 4 (see ``BloodPressureMeasurementStatus``) |
///
/// Flags bits 5–7 are reserved for future use (see ``ReservedFlagPolicy``); bytes after the
/// last field are kept in ``appendedBytes``. A monitor that could not measure one of the three
/// pressures sends NaN for it (Blood Pressure Service specification).
public struct BloodPressureMeasurement: Sendable, Hashable {
  /// Flags bit 0: pressures in kPa rather than mmHg.
  static let kilopascalFlag: UInt8 = 0x01
  /// Flags bit 1: a Time Stamp follows the pressures.
  static let timestampFlag: UInt8 = 0x02
  /// Flags bit 2: a Pulse Rate follows.
  static let pulseRateFlag: UInt8 = 0x04
  /// Flags bit 3: a User ID follows.
  static let userIDFlag: UInt8 = 0x08
  /// Flags bit 4: a Measurement Status follows.
  static let measurementStatusFlag: UInt8 = 0x10
  static let knownFlags: UInt8 = 0x1F
  /// The User ID the supplement reserves for "unknown user".
  public static let unknownUser: UInt8 = 0xFF

  /// The flags byte as sent.
  public var flags: UInt8
  public var systolic: MedicalFloat
  public var diastolic: MedicalFloat
  public var meanArterialPressure: MedicalFloat
  public var timestamp: MeasurementDateTime?
  /// Beats per minute.
  public var pulseRate: MedicalFloat?
  /// The monitor's user index; ``unknownUser`` (255) when it could not tell.
  public var userID: UInt8?
  public var measurementStatus: BloodPressureMeasurementStatus?
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
    let hasPulseRate = flags & Self.pulseRateFlag != 0
    let hasUserID = flags & Self.userIDFlag != 0
    let hasStatus = flags & Self.measurementStatusFlag != 0
    try WireReader.requireLength(
      FieldSize.flags + 3 * FieldSize.sfloat + (hasTimestamp ? FieldSize.dateTime : 0)
        + (hasPulseRate ? FieldSize.sfloat : 0) + (hasUserID ? FieldSize.uint8 : 0)
        + (hasStatus ? FieldSize.uint16 : 0), in: bytes)
    var reader = WireReader(bytes)
    self.flags = flags
    systolic = reader.sfloat()
    diastolic = reader.sfloat()
    meanArterialPressure = reader.sfloat()
    timestamp = hasTimestamp ? reader.dateTime() : nil
    pulseRate = hasPulseRate ? reader.sfloat() : nil
    userID = hasUserID ? reader.uint8() : nil
    measurementStatus = hasStatus ? BloodPressureMeasurementStatus(bits: reader.uint16()) : nil
    appendedBytes = reader.rest
  }

  /// ``HealthUnit/millimetreOfMercury`` or ``HealthUnit/kilopascal`` (flags bit 0).
  public var pressureUnit: HealthUnit {
    flags & Self.kilopascalFlag != 0 ? .kilopascal : .millimetreOfMercury
  }

  /// The flag bits the supplement reserves, as sent (0 from a conforming sensor).
  public var reservedFlags: UInt8 { flags & ~Self.knownFlags }

  /// The fields in wire order, present ones only.
  public var fields: [HealthField] {
    var fields = [
      HealthField("flags", hexByte(flags)),
      HealthField("systolic", systolic, unit: pressureUnit),
      HealthField("diastolic", diastolic, unit: pressureUnit),
      HealthField("meanArterialPressure", meanArterialPressure, unit: pressureUnit),
    ]
    if let timestamp { fields.append(HealthField("timestamp", timestamp.description)) }
    if let pulseRate { fields.append(HealthField("pulseRate", pulseRate, unit: .beatsPerMinute)) }
    if let userID {
      let text = userID == Self.unknownUser ? "\(userID) (unknown user)" : "\(userID)"
      fields.append(HealthField("userID", text))
    }
    if let measurementStatus {
      fields.append(HealthField("measurementStatus", measurementStatus.description))
    }
    return fields + HealthField.trailer(reservedFlags: reservedFlags, appendedBytes: appendedBytes)
  }
}
