/// Where a temperature was taken: the Temperature Type characteristic's values (GATT
/// Specification Supplement, Temperature Type, 0x2A1D), also carried in a Temperature
/// Measurement when its flags bit 2 is set. 0 and 10…255 are reserved for future use and kept
/// as ``reserved(_:)``.
public enum TemperatureType: Sendable, Hashable, CustomStringConvertible {
  case armpit
  case body
  case ear
  case finger
  case gastrointestinalTract
  case mouth
  case rectum
  case toe
  case tympanum
  case reserved(UInt8)

  public init(rawValue: UInt8) {
    switch rawValue {
    case 1: self = .armpit
    case 2: self = .body
    case 3: self = .ear
    case 4: self = .finger
    case 5: self = .gastrointestinalTract
    case 6: self = .mouth
    case 7: self = .rectum
    case 8: self = .toe
    case 9: self = .tympanum
    default: self = .reserved(rawValue)
    }
  }

  public var rawValue: UInt8 {
    switch self {
    case .armpit: 1
    case .body: 2
    case .ear: 3
    case .finger: 4
    case .gastrointestinalTract: 5
    case .mouth: 6
    case .rectum: 7
    case .toe: 8
    case .tympanum: 9
    case .reserved(let value): value
    }
  }

  /// The SIG's wording: "armpit", "body (general)", "ear (usually earlobe)", …, or
  /// "reserved (12)".
  public var description: String {
    switch self {
    case .armpit: "armpit"
    case .body: "body (general)"
    case .ear: "ear (usually earlobe)"
    case .finger: "finger"
    case .gastrointestinalTract: "gastro-intestinal tract"
    case .mouth: "mouth"
    case .rectum: "rectum"
    case .toe: "toe"
    case .tympanum: "tympanum (ear drum)"
    case .reserved(let value): "reserved (\(value))"
    }
  }
}
