/// Why bytes could not be decoded as a frame (PROTOCOL.md §2).
///
/// Every case names the field so a user staring at a capture knows which byte was wrong.
/// Errors never carry the frame's bytes: a handshake frame holds a token.
public enum FrameError: Error, Equatable, Sendable, CustomStringConvertible {
  /// No bytes at all.
  case empty
  /// Byte 0 is not a known frame kind.
  case unknownKind(UInt8)
  /// The frame ended before `field`: `needed` more bytes, `available` present.
  case truncated(field: String, needed: Int, available: Int)
  /// A length byte promises more data than the frame holds.
  case lengthPastEnd(field: String, declared: Int, available: Int)
  /// A field's value is outside what the protocol allows.
  case invalidField(field: String, reason: String)

  public var description: String {
    switch self {
    case .empty: "empty frame"
    case .unknownKind(let byte): "unknown frame kind 0x\(hex(byte))"
    case .truncated(let field, let needed, let available):
      "truncated at \(field): needs \(needed) byte\(needed == 1 ? "" : "s"), \(available) left"
    case .lengthPastEnd(let field, let declared, let available):
      "\(field) declares \(declared) bytes but only \(available) follow"
    case .invalidField(let field, let reason): "invalid \(field): \(reason)"
    }
  }
}

func hex<T: FixedWidthInteger>(_ value: T) -> String {
  let digits = String(value, radix: 16)
  return String(repeating: "0", count: max(0, T.bitWidth / 4 - digits.count)) + digits
}
