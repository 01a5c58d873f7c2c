/// A firmware version as the device sends it: a type letter and a 24-bit code, `V0095` =
/// `56 5f 00 00` [device][sdk]. Old firmware numbers its versions 95, 96, …; new firmware
/// encodes `major<<16 | minor<<8 | patch` (66055 = V1.2.7 on a NotePin S) [sdk-code][client].
public struct FirmwareVersion: Hashable, Sendable, CustomStringConvertible {
  /// The version type character as an ASCII byte (`V` = 0x56 on the Note).
  public var type: UInt8
  /// The version code (95 for V0095), 24 bits on the wire.
  public var code: UInt32

  public init(type: UInt8, code: UInt32) {
    self.type = type
    self.code = code & 0xFF_FFFF
  }

  /// Parses `V0095` or `V1.2.8` text by ``FirmwareVersionNumber``'s grammar (an ASCII
  /// letter, then 1–8 ASCII digits up to 16777215, or three dot-separated numbers each at
  /// most 255; nothing else); nil for anything else.
  public init?(_ text: String) {
    guard let version = try? FirmwareVersion(parsing: text) else { return nil }
    self = version
  }

  /// Parses `V0095` or `V1.2.8` text as ``init(_:)`` does.
  /// - Throws: ``FirmwareVersionError``; ``FirmwareVersionError/noDeviceEncoding`` for a
  ///   well-formed dotted version with a part above 255.
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

  /// The smallest code shown dotted: new firmware's `major<<16 | minor<<8 | patch` with a
  /// major of at least 1 (PROTOCOL.md §1) [sdk-code]. The vendor's iOS template switches
  /// from 255 up; the SDK's own rule and §1 take 65536.
  public static let dottedCodeThreshold: UInt32 = 0x1_0000

  /// `major<<16 | minor<<8 | patch`, or nil when a part does not fit its byte.
  public static func dottedCode(major: UInt16, minor: UInt16, patch: UInt16) -> UInt32? {
    guard major <= 0xFF, minor <= 0xFF, patch <= 0xFF else { return nil }
    return UInt32(major) << 16 | UInt32(minor) << 8 | UInt32(patch)
  }

  /// `V1.2.7` for a code of at least ``dottedCodeThreshold`` (66055), `V0095` below it.
  public var description: String {
    let printable = (0x20..<0x7F).contains(type) ? String(UnicodeScalar(type)) : "?"
    guard code < Self.dottedCodeThreshold else {
      return "\(printable)\(code >> 16).\((code >> 8) & 0xFF).\(code & 0xFF)"
    }
    let digits = String(code)
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
