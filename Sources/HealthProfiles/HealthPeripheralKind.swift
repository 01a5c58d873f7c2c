/// The four kinds of health peripheral read passively, each by its SIG service: what both the
/// reading side (RecorderKit's `PassiveReader`) and the emulated peripherals agree on, so the
/// two can never drift apart.
public enum HealthPeripheralKind: String, CaseIterable, Sendable, Hashable, Codable,
  CustomStringConvertible
{
  /// Health Thermometer service (0x1809).
  case thermometer
  /// Weight Scale service (0x181D).
  case scale
  /// Blood Pressure service (0x1810).
  case bloodPressure = "blood-pressure"
  /// Pulse Oximeter service (0x1822), spot-check measurements.
  case pulseOximeter = "pulse-oximeter"

  /// The measurement characteristic the peripheral indicates.
  public var measurement: HealthCharacteristic {
    switch self {
    case .thermometer: .temperatureMeasurement
    case .scale: .weightMeasurement
    case .bloodPressure: .bloodPressureMeasurement
    case .pulseOximeter: .plxSpotCheckMeasurement
    }
  }

  /// The 16-bit UUID of the service that holds ``measurement``.
  public var serviceUUID: UInt16 { measurement.serviceUUID }

  /// A readable characteristic of the same service that pairing reads: Temperature Type
  /// (0x2A1D), Weight Scale Feature (0x2A9E), Blood Pressure Feature (0x2A49), PLX Features
  /// (0x2A60). On a peripheral that requires bonding, reading it asks the OS to pair, as
  /// CoreBluetooth and BlueZ do for a characteristic that needs encryption.
  public var pairingCharacteristicUUID: UInt16 {
    switch self {
    case .thermometer: 0x2A1D
    case .scale: 0x2A9E
    case .bloodPressure: 0x2A49
    case .pulseOximeter: 0x2A60
    }
  }

  /// Whether the service specification requires a bond before measurements are indicated:
  /// the Weight Scale and Blood Pressure profiles require bonding (their service
  /// specifications make the measurement's Client Characteristic Configuration need
  /// an encrypted link); the Health Thermometer and Pulse Oximeter profiles leave it optional,
  /// and their emulated peripherals do without.
  public var requiresPairing: Bool {
    switch self {
    case .scale, .bloodPressure: true
    case .thermometer, .pulseOximeter: false
    }
  }

  /// The kind whose service has the 16-bit UUID `serviceUUID` (0x1809, 0x181D, 0x1810,
  /// 0x1822), nil for any other service.
  public init?(serviceUUID: UInt16) {
    guard let kind = Self.allCases.first(where: { $0.serviceUUID == serviceUUID }) else {
      return nil
    }
    self = kind
  }

  /// `thermometer`, `scale`, `blood-pressure` or `pulse-oximeter`: the CLI's spelling.
  public var description: String { rawValue }

  /// Looks a kind up by its CLI spelling, also accepting `bp`, `oximeter`, `pulseox`.
  public init?(name: String) {
    let aliases: [String: HealthPeripheralKind] = [
      "bp": .bloodPressure, "oximeter": .pulseOximeter, "pulseox": .pulseOximeter,
      "weight": .scale, "temperature": .thermometer,
    ]
    let key = name.lowercased()
    guard let kind = HealthPeripheralKind(rawValue: key) ?? aliases[key] else { return nil }
    self = kind
  }
}

extension HealthMeasurement {
  /// The time the peripheral says it took the measurement, when it sent one.
  public var timestamp: MeasurementDateTime? {
    switch self {
    case .temperature(let measurement): measurement.timestamp
    case .weight(let measurement): measurement.timestamp
    case .bloodPressure(let measurement): measurement.timestamp
    case .plxSpotCheck(let measurement): measurement.timestamp
    }
  }
}
