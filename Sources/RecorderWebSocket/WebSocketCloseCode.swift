/// A WebSocket close status code (RFC 6455 §7.4).
///
/// A struct rather than an enum: peers may send any code in the application ranges
/// 3000–4999, and a closed enum could not carry them.
public struct WebSocketCloseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  /// The code as sent on the wire (big-endian there).
  public let rawValue: UInt16
  /// Any code; ``isValidOnWire`` says whether it may be sent.
  public init(rawValue: UInt16) { self.rawValue = rawValue }

  /// 1000: the purpose of the connection was fulfilled (the device's "done").
  public static let normalClosure = WebSocketCloseCode(rawValue: 1000)
  /// 1001: the endpoint is going away (server shutting down).
  public static let goingAway = WebSocketCloseCode(rawValue: 1001)
  /// 1002: the peer broke the protocol (a malformed or unmasked frame).
  public static let protocolError = WebSocketCloseCode(rawValue: 1002)
  /// 1003: a data type this endpoint cannot accept.
  public static let unsupportedData = WebSocketCloseCode(rawValue: 1003)
  /// 1005: no status code was present. Reported locally, never sent.
  public static let noStatusReceived = WebSocketCloseCode(rawValue: 1005)
  /// 1006: the connection ended without a close frame. Reported locally, never sent.
  public static let abnormalClosure = WebSocketCloseCode(rawValue: 1006)
  /// 1007: a text message or close reason that is not valid UTF-8.
  public static let invalidPayload = WebSocketCloseCode(rawValue: 1007)
  /// 1008: a generic policy violation (here: a peer that stalls mid-frame).
  public static let policyViolation = WebSocketCloseCode(rawValue: 1008)
  /// 1009: a message larger than the configured limit.
  public static let messageTooBig = WebSocketCloseCode(rawValue: 1009)
  /// 1010: the client needed an extension the server did not offer.
  public static let mandatoryExtension = WebSocketCloseCode(rawValue: 1010)
  /// 1011: the server hit an unexpected condition.
  public static let internalError = WebSocketCloseCode(rawValue: 1011)
  /// 1013 (IANA registry): try again later; sent to a second device while one is served.
  public static let tryAgainLater = WebSocketCloseCode(rawValue: 1013)

  /// Whether the code may appear in a close frame on the wire: 1000–1003, 1007–1014
  /// (the RFC's and the IANA registry's), and the application ranges 3000–4999. 1004–1006
  /// and 1015 are reserved or local-only; everything else below 3000 is unassigned.
  public var isValidOnWire: Bool {
    switch rawValue {
    case 1000...1003, 1007...1014, 3000...4999: true
    default: false
    }
  }

  public var description: String { "\(rawValue)" }
}
