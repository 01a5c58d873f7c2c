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

  /// Parses `V0095`-style text by ``FirmwareVersionNumber``'s grammar (an ASCII letter, then
  /// 1–8 ASCII digits up to 16777215; nothing else); nil for anything else, the dotted form
  /// included (it has no device encoding).
  public init?(_ text: String) {
    guard let version = try? FirmwareVersion(parsing: text) else { return nil }
    self = version
  }

  /// Parses `V0095`-style text as ``init(_:)`` does.
  /// - Throws: ``FirmwareVersionError``; ``FirmwareVersionError/noDeviceEncoding`` for a
  ///   well-formed dotted version (`V1.2.8`).
  public init(parsing text: String) throws(FirmwareVersionError) {
    guard let version = try FirmwareVersionNumber(parsing: text).deviceVersion else {
      throw .noDeviceEncoding
    }
    self = version
  }

  /// How `self` stands against `other`: by code when both have the same type byte; nil
  /// (no order) when their type bytes differ.
  public func order(relativeTo other: FirmwareVersion) -> FirmwareVersionOrder? {
    guard type == other.type else { return nil }
    return .comparing(code, other.code)
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
