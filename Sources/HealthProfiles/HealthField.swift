/// One named value of a decoded measurement, for the CLI's `name: value` lines and JSON.
///
/// Names are stable lowerCamelCase keys ("temperature", "timestamp", "userID"); values are
/// text, numbers in exact decimal ("36.4") or the IEEE 11073 special names ("NaN", "NRes", …);
/// `unit` is the symbol of ``HealthUnit`` for values that have one.
public struct HealthField: Sendable, Hashable, Codable, CustomStringConvertible {
  public var name: String
  public var value: String
  public var unit: String?

  public init(_ name: String, _ value: String, unit: HealthUnit? = nil) {
    self.name = name
    self.value = value
    self.unit = unit?.symbol
  }

  /// A measured value: the unit is shown only after a number, not after "NaN".
  init(_ name: String, _ value: MedicalFloat, unit: HealthUnit) {
    self.init(name, value.description, unit: value.decimal == nil ? nil : unit)
  }

  /// `temperature: 36.4 °C`.
  public var description: String {
    "\(name): \(value)" + (unit.map { " \($0)" } ?? "")
  }
}

extension HealthField {
  /// The `reservedFlags` and `appendedBytes` fields, listed only when non-empty.
  static func trailer(reservedFlags: UInt8, appendedBytes: [UInt8]) -> [HealthField] {
    var fields: [HealthField] = []
    if reservedFlags != 0 { fields.append(HealthField("reservedFlags", hexByte(reservedFlags))) }
    if !appendedBytes.isEmpty {
      fields.append(HealthField("appendedBytes", appendedBytes.spacedHex))
    }
    return fields
  }
}
