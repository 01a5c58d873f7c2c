/// Reads the little-endian fields of one characteristic value in order.
///
/// Each parser first checks the value's length against the fields its flags announce (see
/// ``requireLength(_:in:)``), so the reads here stay in bounds by construction; reading past
/// the end would be a programmer error in that length sum, which the every-flag tests and the
/// fuzz target exercise.
struct WireReader {
  private let bytes: [UInt8]
  private(set) var index = 1

  /// A reader positioned just after the flags byte.
  init(_ bytes: [UInt8]) {
    self.bytes = bytes
  }

  /// The flags byte (byte 0), after checking the value has one and applying `policy` to the
  /// bits outside `knownMask`.
  static func flags(
    of bytes: [UInt8], knownMask: UInt8, policy: ReservedFlagPolicy
  ) throws(HealthProfileError) -> UInt8 {
    guard let flags = bytes.first else { throw .truncated(expected: 1, got: 0) }
    let reserved = flags & ~knownMask
    if policy == .reject, reserved != 0 { throw .reservedFlags(flags: flags, reserved: reserved) }
    return flags
  }

  /// Throws ``HealthProfileError/truncated(expected:got:)`` unless `bytes` holds `count`.
  static func requireLength(_ count: Int, in bytes: [UInt8]) throws(HealthProfileError) {
    guard bytes.count >= count else { throw .truncated(expected: count, got: bytes.count) }
  }

  mutating func uint8() -> UInt8 {
    defer { index += 1 }
    return bytes[index]
  }

  mutating func uint16() -> UInt16 {
    UInt16(uint8()) | UInt16(uint8()) << 8
  }

  mutating func uint24() -> UInt32 {
    UInt32(uint16()) | UInt32(uint8()) << 16
  }

  mutating func sfloat() -> MedicalFloat {
    MedicalFloat(sfloatBits: uint16())
  }

  mutating func float() -> MedicalFloat {
    MedicalFloat(floatBits: uint24() | UInt32(uint8()) << 24)
  }

  mutating func dateTime() -> MeasurementDateTime {
    defer { index += 7 }
    return MeasurementDateTime(bytes, at: index)
  }

  /// What follows the last known field: fields a later profile revision appended.
  var rest: [UInt8] {
    Array(bytes[index...])
  }
}

/// Field sizes in bytes (GATT Specification Supplement data types).
enum FieldSize {
  static let flags = 1
  static let uint8 = 1
  static let uint16 = 2
  static let uint24 = 3
  static let sfloat = 2
  static let float = 4
  static let dateTime = 7
}

extension Array where Element == UInt8 {
  /// "AA BB CC", for appended bytes in fields.
  var spacedHex: String {
    map { byte in
      let text = String(byte, radix: 16, uppercase: true)
      return text.count == 1 ? "0" + text : text
    }.joined(separator: " ")
  }
}
