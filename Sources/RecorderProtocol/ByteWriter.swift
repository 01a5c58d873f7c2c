/// Builds frames little-endian, in wire order.
public struct ByteWriter: Sendable {
  /// The bytes written so far.
  public private(set) var bytes: [UInt8]

  public init(capacity: Int = 32) {
    bytes = []
    bytes.reserveCapacity(capacity)
  }

  public mutating func u8(_ value: UInt8) { bytes.append(value) }
  public mutating func i8(_ value: Int8) { bytes.append(UInt8(bitPattern: value)) }
  public mutating func u16(_ value: UInt16) { unsigned(UInt64(value), width: 2) }
  public mutating func u24(_ value: UInt32) { unsigned(UInt64(value), width: 3) }
  public mutating func u32(_ value: UInt32) { unsigned(UInt64(value), width: 4) }
  public mutating func u64(_ value: UInt64) { unsigned(value, width: 8) }
  public mutating func bytes<C: Collection>(_ value: C) where C.Element == UInt8 {
    bytes.append(contentsOf: value)
  }

  /// Writes `value` cut or zero-padded to exactly `width` bytes.
  public mutating func fixed<C: Collection>(_ value: C, width: Int, pad: UInt8 = 0)
  where C.Element == UInt8 {
    let head = value.prefix(width)
    bytes.append(contentsOf: head)
    bytes.append(contentsOf: repeatElement(pad, count: width - head.count))
  }

  /// Appends the optional trailing values in order, stopping at the first `nil`: trailing
  /// optional fields only exist when all fields before them do.
  public mutating func optionalTail(_ values: [UInt8?]) {
    for case let value? in values.prefix(while: { $0 != nil }) { u8(value) }
  }

  mutating func unsigned(_ value: UInt64, width: Int) {
    for i in 0..<width { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))) }
  }
}
