/// The handshake token: printable ASCII, padded with `'0'` or cut to 16 characters
/// (portVersion < 9) or 32 [sdk]. A secret: it never appears in a description, a log or
/// an error.
public struct DeviceToken: Hashable, Sendable, CustomStringConvertible,
  CustomDebugStringConvertible, CustomReflectable
{
  /// The token's ASCII bytes as given (before padding).
  public let bytes: [UInt8]

  /// Accepts printable ASCII only (0x20–0x7E); nil otherwise.
  public init?(_ text: String) {
    self.init(bytes: Array(text.utf8))
  }

  /// Accepts printable ASCII only (0x20–0x7E); nil otherwise.
  public init?(bytes: [UInt8]) {
    guard bytes.allSatisfy(Self.isPrintable) else { return nil }
    self.bytes = bytes
  }

  /// The token as it goes on the wire for `portVersion`: cut or right-padded with `'0'`.
  public func wireBytes(portVersion: UInt16) -> [UInt8] {
    let width = Self.wireLength(portVersion: portVersion)
    return Array(bytes.prefix(width))
      + Array(repeating: UInt8(ascii: "0"), count: max(0, width - bytes.count))
  }

  /// The same token in its wire form, so two spellings that the device sees as one compare equal.
  public func normalized(portVersion: UInt16) -> DeviceToken {
    DeviceToken(validated: wireBytes(portVersion: portVersion))
  }

  /// 16 characters below portVersion 9, 32 from 9 on [sdk].
  public static func wireLength(portVersion: UInt16) -> Int { portVersion < 9 ? 16 : 32 }

  /// The token text. Only for code that must send it on (the Wi-Fi handshake); never print it.
  public var revealed: String { String(decoding: bytes, as: UTF8.self) }

  public var description: String { "DeviceToken(\(bytes.count) chars, redacted)" }
  public var debugDescription: String { description }

  init(validated bytes: [UInt8]) { self.bytes = bytes }

  /// No children: `dump`, debuggers and reflection-based loggers see only the redacted text.
  public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }

  static func isPrintable(_ byte: UInt8) -> Bool { (0x20...0x7E).contains(byte) }
}
