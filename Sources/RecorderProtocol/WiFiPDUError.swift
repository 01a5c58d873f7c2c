/// Why bytes are not a §6 Wi-Fi PDU, or a PDU is not the message its type says.
///
/// Errors name the field and never carry values: a HELLO or handshake holds a token.
public enum WiFiPDUError: Error, Equatable, Sendable, CustomStringConvertible {
  /// Fewer bytes than the 8-byte header, or than the JSON length promises.
  case truncated(field: String, needed: Int, available: Int)
  /// The header's `total` is not the message's length (one PDU per WebSocket message).
  case totalMismatch(declared: Int, actual: Int)
  /// A PDU too large to encode: `total` is 24 bits, `jsonLength` 16.
  case tooLarge(field: String, size: Int)
  /// The JSON part is not valid JSON.
  case json(JSONParseError)
  /// The JSON part is valid but not an object.
  case jsonNotAnObject
  /// A type number this direction does not define.
  case unknownType(UInt16)
  /// A key the type requires is absent.
  case missingKey(type: UInt16, key: String)
  /// A key holds the wrong kind of value (text for a number, …).
  case wrongType(type: UInt16, key: String)
  /// A number outside its field's range (a negative offset, a session id above 32 bits).
  case valueOutOfRange(type: UInt16, key: String)
  /// A LIST payload whose length is not a whole number of 10-byte entries.
  case listPayloadNotEntries(size: Int)
  /// A content PDU whose `length` is not the size of its binary payload.
  case contentLengthMismatch(declared: Int64, actual: Int)
  /// A token that is not printable ASCII.
  case invalidToken(type: UInt16)

  public var description: String {
    switch self {
    case .truncated(let field, let needed, let available):
      "truncated at \(field): needs \(needed) bytes, \(available) present"
    case .totalMismatch(let declared, let actual):
      "total says \(declared) bytes, the message has \(actual)"
    case .tooLarge(let field, let size): "\(field) of \(size) bytes does not fit its field"
    case .json(let error): "JSON: \(error)"
    case .jsonNotAnObject: "JSON part is not an object"
    case .unknownType(let type): "unknown PDU type \(type)"
    case .missingKey(let type, let key): "type \(type): missing \"\(key)\""
    case .wrongType(let type, let key): "type \(type): \"\(key)\" has the wrong kind of value"
    case .valueOutOfRange(let type, let key): "type \(type): \"\(key)\" out of range"
    case .listPayloadNotEntries(let size): "LIST payload of \(size) bytes is not 10-byte entries"
    case .contentLengthMismatch(let declared, let actual):
      "content length says \(declared), payload has \(actual) bytes"
    case .invalidToken(let type): "type \(type): token is not printable ASCII"
    }
  }
}
