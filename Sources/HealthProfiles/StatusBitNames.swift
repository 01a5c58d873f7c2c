/// The SIG's names for the single-bit flags of a status field, and the description shared by
/// ``BloodPressureMeasurementStatus``, ``PLXMeasurementStatus`` and
/// ``PLXDeviceAndSensorStatus``.
struct StatusBitNames: Sendable {
  /// (bit, lowerCamelCase name) for every single-bit flag the SIG defines.
  let namedBits: [(bit: Int, name: String)]
  /// The bits the SIG reserves for future use.
  let reservedMask: UInt32
  /// Hex digits of the field: 4 for 16 bits, 6 for 24.
  let hexDigits: Int

  /// The names of the bits set in `raw`, in bit order.
  func setNames(_ raw: UInt32) -> [String] {
    namedBits.filter { raw & (1 << UInt32($0.bit)) != 0 }.map(\.name)
  }

  /// `0x0021 bodyMovementDetected improperMeasurementPosition`: hex, the set bits' names,
  /// `extra` words, then `reserved=0x…` when reserved bits are set.
  func describe(_ raw: UInt32, extra: [String] = []) -> String {
    var words = [hexString(raw, digits: hexDigits)] + setNames(raw) + extra
    let reserved = raw & reservedMask
    if reserved != 0 { words.append("reserved=" + hexString(reserved, digits: hexDigits)) }
    return words.joined(separator: " ")
  }
}
