/// A JSON value whose objects keep their keys in the order written.
///
/// PROTOCOL.md §6 asks for compact JSON with keys in a fixed order, and Foundation's encoder
/// promises no order, so the protocol layer writes its own. Also used by the CLI's `--json`.
public enum JSONValue: Sendable, Equatable {
  case null
  case bool(Bool)
  case int(Int64)
  case uint(UInt64)
  case double(Double)
  case string(String)
  case array([JSONValue])
  /// Key–value pairs in output order.
  case object([(String, JSONValue)])

  public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
    switch (lhs, rhs) {
    case (.null, .null): true
    case (.bool(let a), .bool(let b)): a == b
    case (.int(let a), .int(let b)): a == b
    case (.uint(let a), .uint(let b)): a == b
    case (.double(let a), .double(let b)): a == b
    case (.string(let a), .string(let b)): a == b
    case (.array(let a), .array(let b)): a == b
    case (.object(let a), .object(let b)):
      a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
    default: false
    }
  }

  /// Compact JSON text (no spaces), keys in the order given.
  public var serialized: String {
    var out = ""
    write(to: &out)
    return out
  }

  func write(to out: inout String) {
    switch self {
    case .null: out += "null"
    case .bool(let value): out += value ? "true" : "false"
    case .int(let value): out += String(value)
    case .uint(let value): out += String(value)
    case .double(let value): out += value.isFinite ? String(value) : "null"
    case .string(let value): Self.writeString(value, to: &out)
    case .array(let values):
      out += "["
      for (i, value) in values.enumerated() {
        if i > 0 { out += "," }
        value.write(to: &out)
      }
      out += "]"
    case .object(let pairs):
      out += "{"
      for (i, (key, value)) in pairs.enumerated() {
        if i > 0 { out += "," }
        Self.writeString(key, to: &out)
        out += ":"
        value.write(to: &out)
      }
      out += "}"
    }
  }

  static func writeString(_ value: String, to out: inout String) {
    out += "\""
    for scalar in value.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case _ where scalar.value < 0x20:
        out += "\\u" + hex(UInt16(scalar.value))
      default: out.unicodeScalars.append(scalar)
      }
    }
    out += "\""
  }
}

extension Field {
  /// The field as a JSON value: integers as numbers, bytes as lower-case hex text.
  public var jsonValue: JSONValue {
    switch value {
    case .int(let number): .int(number)
    case .uint(let number): .uint(number)
    case .text(let text): .string(text)
    case .bytes(let bytes): .string(bytes.hexString)
    case .records(let records):
      .array(records.map { record in .object(record.map { ($0.name, $0.jsonValue) }) })
    }
  }
}

extension Collection where Element == UInt8 {
  /// Lower-case hex, two digits a byte, no separators.
  public var hexString: String {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(count * 2)
    for byte in self {
      out.append(digits[Int(byte >> 4)])
      out.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: out, as: UTF8.self)
  }
}

extension Array where Element == UInt8 {
  /// Parses hex text; spaces, colons, dashes and a `0x` prefix are ignored. Nil when a
  /// character is not a hex digit or the digit count is odd.
  public init?(hex text: String) {
    var cleaned = Substring(text)
    if cleaned.hasPrefix("0x") || cleaned.hasPrefix("0X") { cleaned = cleaned.dropFirst(2) }
    var nibbles: [UInt8] = []
    for char in cleaned.utf8 {
      switch char {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): nibbles.append(char - UInt8(ascii: "0"))
      case UInt8(ascii: "a")...UInt8(ascii: "f"): nibbles.append(char - UInt8(ascii: "a") + 10)
      case UInt8(ascii: "A")...UInt8(ascii: "F"): nibbles.append(char - UInt8(ascii: "A") + 10)
      case UInt8(ascii: " "), UInt8(ascii: ":"), UInt8(ascii: "-"), UInt8(ascii: "\t"): continue
      default: return nil
      }
    }
    guard nibbles.count % 2 == 0 else { return nil }
    self = stride(from: 0, to: nibbles.count, by: 2).map { nibbles[$0] << 4 | nibbles[$0 + 1] }
  }
}
