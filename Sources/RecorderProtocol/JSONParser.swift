/// Why bytes are not an acceptable JSON text (RFC 8259), with the byte offset where the
/// parser gave up.
public enum JSONParseError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The text is longer than the parser's size limit.
  case tooLarge(size: Int, limit: Int)
  /// Arrays and objects nest deeper than the limit.
  case tooDeep(limit: Int)
  /// The text ended inside a value.
  case unexpectedEnd
  /// A byte that cannot start or continue the value at `offset`.
  case unexpectedByte(UInt8, offset: Int)
  /// Bytes after the top-level value.
  case trailingBytes(offset: Int)
  /// A string with invalid UTF-8, a raw control character, a bad escape or a lone surrogate.
  case invalidString(offset: Int)
  /// A number that is not JSON's grammar (leading zeros, a bare sign or dot, …).
  case invalidNumber(offset: Int)
  /// An object that names the same key twice: which one would win is ambiguous, so neither.
  case duplicateKey(String)

  public var description: String {
    switch self {
    case .tooLarge(let size, let limit): "JSON of \(size) bytes exceeds the limit of \(limit)"
    case .tooDeep(let limit): "JSON nests deeper than \(limit)"
    case .unexpectedEnd: "JSON ends inside a value"
    case .unexpectedByte(let byte, let offset): "unexpected byte 0x\(hex(byte)) at \(offset)"
    case .trailingBytes(let offset): "bytes after the JSON value at \(offset)"
    case .invalidString(let offset): "invalid string at \(offset)"
    case .invalidNumber(let offset): "invalid number at \(offset)"
    case .duplicateKey(let key): "duplicate key \"\(key)\""
    }
  }
}

/// A defensive JSON parser for bytes from outside (the §6 Wi-Fi PDUs): bounded size and
/// depth, strict RFC 8259 grammar, strict UTF-8, typed errors, no recursion deeper than the
/// depth limit. Objects keep their keys in the order received, so callers can look keys up
/// in any order (``JSONValue/subscript(_:)``).
///
/// Integers without fraction or exponent become ``JSONValue/int(_:)`` (or
/// ``JSONValue/uint(_:)`` above `Int64.max`); everything else ``JSONValue/double(_:)``.
public struct JSONParser: Sendable {
  /// Largest text accepted, in bytes.
  public var maxSize: Int
  /// Deepest nesting of arrays and objects accepted.
  public var maxDepth: Int

  /// 64 KiB and 32 levels by default: a §6 JSON part is at most 65 535 bytes and flat.
  public init(maxSize: Int = 64 << 10, maxDepth: Int = 32) {
    self.maxSize = maxSize
    self.maxDepth = maxDepth
  }

  /// Parses one complete JSON text.
  public func parse<C: Collection>(_ text: C) throws(JSONParseError) -> JSONValue
  where C.Element == UInt8 {
    guard text.count <= maxSize else { throw .tooLarge(size: text.count, limit: maxSize) }
    var cursor = Cursor(bytes: Array(text), maxDepth: maxDepth)
    cursor.skipWhitespace()
    let value = try cursor.value(depth: 0)
    cursor.skipWhitespace()
    guard cursor.index == cursor.bytes.count else { throw .trailingBytes(offset: cursor.index) }
    return value
  }

  private struct Cursor {
    let bytes: [UInt8]
    let maxDepth: Int
    var index = 0

    init(bytes: [UInt8], maxDepth: Int) {
      self.bytes = bytes
      self.maxDepth = maxDepth
    }

    mutating func skipWhitespace() {
      while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    func peek() throws(JSONParseError) -> UInt8 {
      guard index < bytes.count else { throw .unexpectedEnd }
      return bytes[index]
    }

    mutating func expect(_ byte: UInt8) throws(JSONParseError) {
      let next = try peek()
      guard next == byte else { throw .unexpectedByte(next, offset: index) }
      index += 1
    }

    mutating func literal(_ word: String, _ value: JSONValue) throws(JSONParseError) -> JSONValue {
      for byte in word.utf8 { try expect(byte) }
      return value
    }

    mutating func value(depth: Int) throws(JSONParseError) -> JSONValue {
      let first = try peek()
      switch first {
      case UInt8(ascii: "{"): return try object(depth: depth + 1)
      case UInt8(ascii: "["): return try array(depth: depth + 1)
      case UInt8(ascii: "\""): return .string(try string())
      case UInt8(ascii: "t"): return try literal("true", .bool(true))
      case UInt8(ascii: "f"): return try literal("false", .bool(false))
      case UInt8(ascii: "n"): return try literal("null", .null)
      case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
      default: throw .unexpectedByte(first, offset: index)
      }
    }

    mutating func object(depth: Int) throws(JSONParseError) -> JSONValue {
      guard depth <= maxDepth else { throw .tooDeep(limit: maxDepth) }
      index += 1
      var pairs: [(String, JSONValue)] = []
      var seen: Set<String> = []
      skipWhitespace()
      if try peek() == UInt8(ascii: "}") {
        index += 1
        return .object(pairs)
      }
      while true {
        skipWhitespace()
        guard try peek() == UInt8(ascii: "\"") else {
          throw .unexpectedByte(bytes[index], offset: index)
        }
        let key = try string()
        guard seen.insert(key).inserted else { throw .duplicateKey(key) }
        skipWhitespace()
        try expect(UInt8(ascii: ":"))
        skipWhitespace()
        pairs.append((key, try value(depth: depth)))
        skipWhitespace()
        let next = try peek()
        index += 1
        if next == UInt8(ascii: "}") { return .object(pairs) }
        guard next == UInt8(ascii: ",") else { throw .unexpectedByte(next, offset: index - 1) }
      }
    }

    mutating func array(depth: Int) throws(JSONParseError) -> JSONValue {
      guard depth <= maxDepth else { throw .tooDeep(limit: maxDepth) }
      index += 1
      var values: [JSONValue] = []
      skipWhitespace()
      if try peek() == UInt8(ascii: "]") {
        index += 1
        return .array(values)
      }
      while true {
        skipWhitespace()
        values.append(try value(depth: depth))
        skipWhitespace()
        let next = try peek()
        index += 1
        if next == UInt8(ascii: "]") { return .array(values) }
        guard next == UInt8(ascii: ",") else { throw .unexpectedByte(next, offset: index - 1) }
      }
    }

    mutating func string() throws(JSONParseError) -> String {
      let start = index
      index += 1  // the opening quote
      var out: [UInt8] = []
      while true {
        guard index < bytes.count else { throw .unexpectedEnd }
        let byte = bytes[index]
        switch byte {
        case UInt8(ascii: "\""):
          index += 1
          guard validUTF8(out) else { throw .invalidString(offset: start) }
          return String(decoding: out, as: UTF8.self)
        case UInt8(ascii: "\\"):
          index += 1
          try escape(into: &out, stringStart: start)
        case 0x00..<0x20:
          throw .invalidString(offset: index)
        default:
          out.append(byte)
          index += 1
        }
      }
    }

    mutating func escape(into out: inout [UInt8], stringStart: Int) throws(JSONParseError) {
      let code = try peek()
      index += 1
      switch code {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(code)
      case UInt8(ascii: "b"): out.append(0x08)
      case UInt8(ascii: "f"): out.append(0x0C)
      case UInt8(ascii: "n"): out.append(0x0A)
      case UInt8(ascii: "r"): out.append(0x0D)
      case UInt8(ascii: "t"): out.append(0x09)
      case UInt8(ascii: "u"):
        var scalar = UInt32(try hex4())
        if (0xD800...0xDBFF).contains(scalar) {
          // A high surrogate must be followed by an escaped low one.
          guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
            bytes[index + 1] == UInt8(ascii: "u")
          else { throw .invalidString(offset: stringStart) }
          index += 2
          let low = UInt32(try hex4())
          guard (0xDC00...0xDFFF).contains(low) else { throw .invalidString(offset: stringStart) }
          scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let value = Unicode.Scalar(scalar) else { throw .invalidString(offset: stringStart) }
        out.append(contentsOf: Array(String(Character(value)).utf8))
      default: throw .invalidString(offset: index - 1)
      }
    }

    mutating func hex4() throws(JSONParseError) -> UInt16 {
      guard index + 4 <= bytes.count else { throw .unexpectedEnd }
      var value: UInt16 = 0
      for _ in 0..<4 {
        let byte = bytes[index]
        let digit: UInt8
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
        default: throw .invalidString(offset: index)
        }
        value = value << 4 | UInt16(digit)
        index += 1
      }
      return value
    }

    mutating func number() throws(JSONParseError) -> JSONValue {
      let start = index
      if bytes[index] == UInt8(ascii: "-") { index += 1 }
      guard index < bytes.count else { throw .unexpectedEnd }
      if bytes[index] == UInt8(ascii: "0") {
        index += 1
        if index < bytes.count, isDigit(bytes[index]) { throw .invalidNumber(offset: start) }
      } else {
        guard isDigit(bytes[index]) else { throw .invalidNumber(offset: start) }
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
      }
      var integral = true
      if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
        integral = false
        index += 1
        guard index < bytes.count, isDigit(bytes[index]) else {
          throw .invalidNumber(offset: start)
        }
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
      }
      if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")
      {
        integral = false
        index += 1
        if index < bytes.count,
          bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")
        {
          index += 1
        }
        guard index < bytes.count, isDigit(bytes[index]) else {
          throw .invalidNumber(offset: start)
        }
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
      }
      let text = String(decoding: bytes[start..<index], as: UTF8.self)
      if integral {
        if let value = Int64(text) { return .int(value) }
        if let value = UInt64(text) { return .uint(value) }
      }
      guard let value = Double(text), value.isFinite else { throw .invalidNumber(offset: start) }
      return .double(value)
    }

    func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
  }
}

/// Strict UTF-8 (no overlong forms, surrogates, or scalars above U+10FFFF).
private func validUTF8(_ bytes: [UInt8]) -> Bool {
  var iterator = bytes.makeIterator()
  var codec = UTF8()
  while true {
    switch codec.decode(&iterator) {
    case .scalarValue: continue
    case .emptyInput: return true
    case .error: return false
    }
  }
}

extension JSONValue {
  /// The value of `key` when this is an object (first match), else nil. Lets decoders read
  /// keys in whatever order the sender wrote them.
  public subscript(key: String) -> JSONValue? {
    guard case .object(let pairs) = self else { return nil }
    return pairs.first { $0.0 == key }?.1
  }

  /// The value as an integer when it is one (an integral double too, and a bool as 0/1, which
  /// some firmware writes for flags), else nil.
  public var integerValue: Int64? {
    switch self {
    case .int(let value): value
    case .uint(let value): Int64(exactly: value)
    case .double(let value): Int64(exactly: value)
    case .bool(let value): value ? 1 : 0
    default: nil
    }
  }

  /// The text when this is a string, else nil.
  public var stringValue: String? {
    guard case .string(let text) = self else { return nil }
    return text
  }
}
