/// A firmware version as the device sends it: a type letter and a 24-bit code, `V0095` =
/// `56 5f 00 00` [device][sdk].
public struct FirmwareVersion: Hashable, Sendable, CustomStringConvertible {
  /// The version type character as an ASCII byte (`V` = 0x56 on the Note).
  public var type: UInt8
  /// The version code (95 for V0095), 24 bits on the wire.
  public var code: UInt32

  public init(type: UInt8, code: UInt32) {
    self.type = type
    self.code = code & 0xFF_FFFF
  }

  /// Parses `V0095`-style text: one ASCII letter, then decimal digits.
  public init?(_ text: String) {
    guard let first = text.utf8.first, first < 0x80, first != 0,
      let code = UInt32(text.dropFirst()), code <= 0xFF_FFFF
    else { return nil }
    self.init(type: first, code: code)
  }

  public var description: String {
    let digits = String(code)
    let printable = (0x20..<0x7F).contains(type) ? String(UnicodeScalar(type)) : "?"
    return printable + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
  }

  init(from reader: inout ByteReader, field: String) throws(FrameError) {
    let type = try reader.u8(field)
    self.init(type: type, code: try reader.u24(field))
  }

  func write(to writer: inout ByteWriter) {
    writer.u8(type)
    writer.u24(code)
  }
}
