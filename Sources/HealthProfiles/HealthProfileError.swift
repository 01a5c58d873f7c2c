/// Why a health characteristic value could not be decoded. Each case says what to change:
/// capture the whole value, pick the right characteristic, or decode with
/// ``ReservedFlagPolicy/tolerate``.
public enum HealthProfileError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The value is shorter than its flags say: `expected` bytes are needed for the fields the
  /// flags announce (1 for an empty value, which lacks even the flags), `got` arrived. A value
  /// cut short by a small ATT MTU or a partial capture lands here.
  case truncated(expected: Int, got: Int)
  /// Flag bits the GATT Specification Supplement marks "Reserved for Future Use" are set and
  /// the caller asked for ``ReservedFlagPolicy/reject``. `reserved` holds just those bits.
  case reservedFlags(flags: UInt8, reserved: UInt8)
  /// The characteristic named is not one of the four ``HealthCharacteristic`` values (text as
  /// given, e.g. "2A37").
  case unknownCharacteristic(String)

  public var description: String {
    switch self {
    case .truncated(let expected, let got):
      return "truncated: the flags need \(expected) bytes, got \(got)"
    case .reservedFlags(let flags, let reserved):
      return "reserved flag bits \(hexByte(reserved)) set in flags \(hexByte(flags))"
    case .unknownCharacteristic(let text):
      let known = HealthCharacteristic.allCases.map(\.uuidString).joined(separator: ", ")
      return "unknown characteristic '\(text)' (known: \(known))"
    }
  }
}

/// `0x0F`-style text for one byte, used in descriptions and fields.
func hexByte(_ value: UInt8) -> String {
  hexString(UInt32(value), digits: 2)
}

/// `0x002A`-style text, zero padded to `digits` hex digits.
func hexString(_ value: UInt32, digits: Int) -> String {
  let text = String(value, radix: 16, uppercase: true)
  return "0x" + String(repeating: "0", count: max(0, digits - text.count)) + text
}
