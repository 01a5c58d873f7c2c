import HealthProfiles

/// Builds the value a health peripheral indicates, byte for byte by the GATT Specification
/// Supplement's field tables (docs/health-profiles-vectors.md): the emulator's side of the
/// parsers in HealthProfiles, so a reading round-trips through them.
public enum HealthReading {
  /// A plausible reading for `kind`, varied by `sequence` (the power-on count), with the
  /// time stamp `time`. Every value is exact in its SFLOAT / FLOAT / integer form.
  public static func make(
    _ kind: HealthPeripheralKind, sequence: Int, time: MeasurementDateTime = defaultTime
  ) -> [UInt8] {
    let step = sequence % 10
    switch kind {
    case .thermometer:
      // Flags: timestamp (bit 1) and temperature type (bit 2); Celsius. 36.4 + 0.1 × step °C.
      return [0b0000_0110] + float(mantissa: 364 + step, exponent: -1) + dateTime(time) + [0x02]
    case .scale:
      // Flags: timestamp (bit 1); SI. Weight resolution 0.005 kg: 70.0 + 0.5 × step kg.
      let raw = UInt16((70_000 + 500 * step) / 5)
      return [0b0000_0010] + uint16(raw) + dateTime(time)
    case .bloodPressure:
      // Flags: timestamp (bit 1), pulse rate (bit 2); mmHg.
      return [0b0000_0110] + sfloat(120 + step) + sfloat(80 + step) + sfloat(93 + step)
        + dateTime(time) + sfloat(72 + step)
    case .pulseOximeter:
      // Flags: timestamp (bit 0). SpO2 98 − step % 3 %, pulse 65 + step /min.
      return [0b0000_0001] + sfloat(98 - step % 3) + sfloat(65 + step) + dateTime(time)
    }
  }

  /// 2024-03-05 14:07:09, the vectors' sample time.
  public static let defaultTime = MeasurementDateTime(
    year: 2024, month: 3, day: 5, hours: 14, minutes: 7, seconds: 9)

  /// The value of the pairing characteristic (`HealthPeripheralKind/pairingCharacteristicUUID`):
  /// Temperature Type "body" (2) for a thermometer, an all-zero feature field otherwise
  /// (no optional features).
  static func pairingValue(_ kind: HealthPeripheralKind) -> [UInt8] {
    switch kind {
    case .thermometer: [0x02]
    case .scale: [0, 0, 0, 0]
    case .bloodPressure: [0, 0]
    case .pulseOximeter: [0, 0]
    }
  }

  /// SFLOAT with exponent 0 (whole numbers up to 2045).
  static func sfloat(_ value: Int) -> [UInt8] { uint16(UInt16(value & 0xFFF)) }

  static func float(mantissa: Int, exponent: Int) -> [UInt8] {
    let bits = UInt32(truncatingIfNeeded: (exponent & 0xFF) << 24 | (mantissa & 0xFF_FFFF))
    return [
      UInt8(bits & 0xFF), UInt8(bits >> 8 & 0xFF), UInt8(bits >> 16 & 0xFF), UInt8(bits >> 24),
    ]
  }

  static func uint16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }

  static func dateTime(_ time: MeasurementDateTime) -> [UInt8] {
    uint16(UInt16(time.year ?? 0))
      + [time.month ?? 0, time.day ?? 0, time.hours, time.minutes, time.seconds].map {
        UInt8(clamping: $0)
      }
  }
}
