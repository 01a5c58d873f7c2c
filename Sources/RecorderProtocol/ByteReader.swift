/// A bounds-checked little-endian reader over bytes that came from outside.
///
/// Every read checks the remaining length first and throws ``FrameError/truncated(field:needed:available:)``
/// instead of trapping, so a decoder built on it cannot crash on short input. It never
/// allocates in proportion to a length it has not checked against the bytes present.
public struct ByteReader: Sendable {
  let bytes: ArraySlice<UInt8>
  /// Index of the next unread byte in `bytes`.
  public private(set) var position: Int

  /// Reads `bytes` from their first element.
  public init<C: Collection>(_ bytes: C) where C.Element == UInt8 {
    self.bytes = ArraySlice(bytes)
    self.position = self.bytes.startIndex
  }

  /// How many bytes are left.
  public var remaining: Int { bytes.endIndex - position }
  /// True when every byte has been read.
  public var isAtEnd: Bool { position >= bytes.endIndex }

  /// Fails with `truncated` unless `count` bytes remain for `field`.

  public func require(_ count: Int, for field: String) throws(FrameError) {
    guard count >= 0, remaining >= count else {
      throw .truncated(field: field, needed: count, available: remaining)
    }
  }

  public mutating func u8(_ field: String) throws(FrameError) -> UInt8 {
    try require(1, for: field)
    defer { position += 1 }
    return bytes[position]
  }

  public mutating func i8(_ field: String) throws(FrameError) -> Int8 {
    Int8(bitPattern: try u8(field))
  }

  public mutating func u16(_ field: String) throws(FrameError) -> UInt16 {
    UInt16(truncatingIfNeeded: try unsigned(2, field))
  }

  /// A 24-bit little-endian unsigned integer (firmware version codes, Wi-Fi PDU totals).
  public mutating func u24(_ field: String) throws(FrameError) -> UInt32 {
    UInt32(truncatingIfNeeded: try unsigned(3, field))
  }

  public mutating func u32(_ field: String) throws(FrameError) -> UInt32 {
    UInt32(truncatingIfNeeded: try unsigned(4, field))
  }

  public mutating func u64(_ field: String) throws(FrameError) -> UInt64 {
    try unsigned(8, field)
  }

  /// Exactly `count` bytes, or `truncated`.
  public mutating func bytes(_ count: Int, _ field: String) throws(FrameError) -> [UInt8] {
    try require(count, for: field)
    defer { position += count }
    return Array(bytes[position..<position + count])
  }

  /// Everything not yet read.
  public mutating func rest() -> [UInt8] {
    defer { position = bytes.endIndex }
    return Array(bytes[position...])
  }

  /// Reads an optional trailing `u8`: nil when the frame ended before it.
  public mutating func optionalU8() -> UInt8? {
    guard remaining >= 1 else { return nil }
    defer { position += 1 }
    return bytes[position]
  }

  /// Reads an optional trailing `u32`: nil when fewer than 4 bytes remain.
  public mutating func optionalU32() -> UInt32? {
    guard remaining >= 4 else { return nil }
    return try? u32("optional")
  }

  /// Reads an optional trailing `u64`: nil when fewer than 8 bytes remain.
  public mutating func optionalU64() -> UInt64? {
    guard remaining >= 8 else { return nil }
    return try? u64("optional")
  }

  mutating func unsigned(_ width: Int, _ field: String) throws(FrameError) -> UInt64 {
    try require(width, for: field)
    var value: UInt64 = 0
    for i in 0..<width {
      value |= UInt64(bytes[position + i]) << (8 * UInt64(i))
    }
    position += width
    return value
  }
}
