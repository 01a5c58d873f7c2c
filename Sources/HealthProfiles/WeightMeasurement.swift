/// A Weight Measurement value (characteristic 0x2A9D, Weight Scale Service), decoded per the
/// GATT Specification Supplement, Weight Measurement:
///
/// | field | size | present when |
/// |---|---|---|
/// | Flags | 1 | always |
/// | Weight | 2, uint16 | always; 0.005 kg (SI) or 0.01 lb steps; 0xFFFF = unsuccessful |
/// | Time Stamp | 7, Date Time | flags bit 1 |
/// | User ID | 1 | flags bit 2; 0xFF = unknown user |
/// | BMI | 2, uint16 | flags bit 3; 0.1 kg/m² steps |
/// | Height | 2, uint16 | flags bit 3; 0.001 m (SI) or 0.1 in (imperial) steps |
///
/// Flags bit 0 picks the unit system (0 SI, 1 imperial) for weight and height together. Bits
/// 4–7 are reserved for future use (see ``ReservedFlagPolicy``); bytes after the last field
/// are kept in ``appendedBytes``.
public struct WeightMeasurement: Sendable, Hashable {
  /// Flags bit 0: imperial units (lb, in) rather than SI (kg, m).
  static let imperialFlag: UInt8 = 0x01
  /// Flags bit 1: a Time Stamp follows the weight.
  static let timestampFlag: UInt8 = 0x02
  /// Flags bit 2: a User ID follows.
  static let userIDFlag: UInt8 = 0x04
  /// Flags bit 3: BMI and Height follow, always together.
  static let bmiAndHeightFlag: UInt8 = 0x08
  static let knownFlags: UInt8 = 0x0F
  /// The Weight value the supplement reserves for "Measurement Unsuccessful".
  static let measurementUnsuccessful: UInt16 = 0xFFFF
  /// The User ID the supplement reserves for "unknown user".
  public static let unknownUser: UInt8 = 0xFF

  /// The flags byte as sent.
  public var flags: UInt8
  /// The Weight field as sent, in steps of the unit's resolution.
  public var rawWeight: UInt16
  public var timestamp: MeasurementDateTime?
  /// The scale's user index; ``unknownUser`` (255) when the scale could not tell.
  public var userID: UInt8?
  /// The BMI field as sent, in 0.1 kg/m² steps.
  public var rawBMI: UInt16?
  /// The Height field as sent, in 0.001 m or 0.1 in steps.
  public var rawHeight: UInt16?
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
    let hasUserID = flags & Self.userIDFlag != 0
    let hasBMIAndHeight = flags & Self.bmiAndHeightFlag != 0
    try WireReader.requireLength(
      FieldSize.flags + FieldSize.uint16 + (hasTimestamp ? FieldSize.dateTime : 0)
        + (hasUserID ? FieldSize.uint8 : 0) + (hasBMIAndHeight ? 2 * FieldSize.uint16 : 0),
      in: bytes)
    var reader = WireReader(bytes)
    self.flags = flags
    rawWeight = reader.uint16()
    timestamp = hasTimestamp ? reader.dateTime() : nil
    userID = hasUserID ? reader.uint8() : nil
    rawBMI = hasBMIAndHeight ? reader.uint16() : nil
    rawHeight = hasBMIAndHeight ? reader.uint16() : nil
    appendedBytes = reader.rest
  }

  /// Whether the flags select imperial units (lb, in).
  public var isImperial: Bool { flags & Self.imperialFlag != 0 }
  /// ``HealthUnit/kilogram`` or ``HealthUnit/pound``.
  public var weightUnit: HealthUnit { isImperial ? .pound : .kilogram }
  /// ``HealthUnit/metre`` or ``HealthUnit/inch``.
  public var heightUnit: HealthUnit { isImperial ? .inch : .metre }
  /// The flag bits the supplement reserves, as sent (0 from a conforming sensor).
  public var reservedFlags: UInt8 { flags & ~Self.knownFlags }

  /// Whether the scale sent 0xFFFF, "Measurement Unsuccessful", instead of a weight.
  public var isMeasurementUnsuccessful: Bool { rawWeight == Self.measurementUnsuccessful }

  /// The weight in ``weightUnit``: raw × 0.005 kg or raw × 0.01 lb; nil when unsuccessful.
  public var weight: DecimalValue? {
    guard !isMeasurementUnsuccessful else { return nil }
    return isImperial
      ? DecimalValue(mantissa: Int(rawWeight), exponent: -2)
      : DecimalValue(mantissa: Int(rawWeight) * 5, exponent: -3)
  }

  /// The BMI in kg/m²: raw × 0.1.
  public var bmi: DecimalValue? {
    rawBMI.map { DecimalValue(mantissa: Int($0), exponent: -1) }
  }

  /// The height in ``heightUnit``: raw × 0.001 m or raw × 0.1 in.
  public var height: DecimalValue? {
    rawHeight.map { DecimalValue(mantissa: Int($0), exponent: isImperial ? -1 : -3) }
  }

  /// The fields in wire order, present ones only.
  public var fields: [HealthField] {
    var fields = [HealthField("flags", hexByte(flags))]
    if let weight {
      fields.append(HealthField("weight", weight.description, unit: weightUnit))
    } else {
      fields.append(HealthField("weight", "measurement unsuccessful"))
    }
    if let timestamp { fields.append(HealthField("timestamp", timestamp.description)) }
    if let userID {
      let text = userID == Self.unknownUser ? "\(userID) (unknown user)" : "\(userID)"
      fields.append(HealthField("userID", text))
    }
    if let bmi { fields.append(HealthField("bmi", bmi.description, unit: .kilogramPerSquareMetre)) }
    if let height { fields.append(HealthField("height", height.description, unit: heightUnit)) }
    return fields + HealthField.trailer(reservedFlags: reservedFlags, appendedBytes: appendedBytes)
  }
}
