/// The units the four health measurements are reported in, each chosen by a flag bit of the
/// measurement (GATT Specification Supplement, the Flags field of each characteristic).
public enum HealthUnit: String, CaseIterable, Sendable, Hashable, CustomStringConvertible {
  case celsius
  case fahrenheit
  case kilogram
  case pound
  case metre
  case inch
  case kilogramPerSquareMetre
  case millimetreOfMercury
  case kilopascal
  case percent
  case beatsPerMinute

  /// The symbol printed after a value: "°C", "kg", "mmHg", "bpm", ….
  public var symbol: String {
    switch self {
    case .celsius: "°C"
    case .fahrenheit: "°F"
    case .kilogram: "kg"
    case .pound: "lb"
    case .metre: "m"
    case .inch: "in"
    case .kilogramPerSquareMetre: "kg/m²"
    case .millimetreOfMercury: "mmHg"
    case .kilopascal: "kPa"
    case .percent: "%"
    case .beatsPerMinute: "bpm"
    }
  }

  public var description: String { symbol }
}
