/// One named field of a decoded frame, with the PROTOCOL.md §2 names (`opcode`, `sessionId`,
/// `offset`, `length`, `code`, `status` and the camelCase names of §3).
///
/// This is how a frame explains itself to a person: `recorder decode` prints these, and
/// tests compare them. Secrets are never put in a field (a token shows as its length).
public struct Field: Sendable, Equatable {
  public var name: String
  public var value: FieldValue

  public init(_ name: String, _ value: FieldValue) {
    self.name = name
    self.value = value
  }

  /// An integer field; unsigned values keep their full 64-bit range.
  public init<T: BinaryInteger>(_ name: String, _ value: T) {
    if value < 0 {
      self.init(name, .int(Int64(truncatingIfNeeded: value)))
    } else {
      self.init(name, .uint(UInt64(truncatingIfNeeded: value)))
    }
  }
}

/// The value of a ``Field``.
public enum FieldValue: Sendable, Equatable {
  /// A negative integer (time-zone hours).
  case int(Int64)
  /// A non-negative integer, up to a u64 (storage sizes).
  case uint(UInt64)
  case text(String)
  case bytes([UInt8])
  /// A list of records, such as the entries of a LIST page.
  case records([[Field]])
}

/// A value that can list its fields for display.
public protocol FieldDescribable {
  /// The fields in wire order.
  var fields: [Field] { get }
}

extension Array where Element == Field {
  /// Appends `name` only when `value` is present: absent optional tails are not printed.
  mutating func optional<T: BinaryInteger>(_ name: String, _ value: T?) {
    if let value { append(Field(name, value)) }
  }
}
