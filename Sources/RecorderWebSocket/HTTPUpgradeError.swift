/// Why an HTTP/1.1 upgrade request (or the server's answer to one) was refused
/// (RFC 6455 §4.1, §4.2.1).
public enum HTTPUpgradeError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The head (start line and header fields) grew past the byte limit before its blank line.
  case headTooLarge(limit: Int)
  /// More header fields than the limit.
  case tooManyHeaderFields(limit: Int)
  /// Bytes that are not ASCII text where HTTP wants text (a NUL, a bare CR, 8-bit bytes).
  case invalidCharacters
  /// The request line is not `METHOD SP target SP HTTP/x.y`.
  case malformedRequestLine
  /// The status line is not `HTTP/x.y SP code SP reason`.
  case malformedStatusLine
  /// A header line without a colon, with an empty or invalid name, or an obsolete folded line.
  case malformedHeaderField
  /// The method is not GET.
  case methodNotGET
  /// Not HTTP/1.1 or later.
  case unsupportedHTTPVersion
  /// A header field the handshake needs is missing (or, for single-valued ones, repeated).
  case missingHeader(String)
  /// `Upgrade` does not name `websocket`.
  case notAWebSocketUpgrade
  /// `Connection` does not contain the `Upgrade` token.
  case connectionNotUpgrade
  /// `Sec-WebSocket-Key` is not base64 of 16 bytes.
  case invalidKey
  /// `Sec-WebSocket-Version` is not 13 (answered with 426 and the version we speak).
  case unsupportedWebSocketVersion
  /// The server answered with a status other than 101.
  case unexpectedStatus(Int)

  /// The HTTP status a server answers this error with.
  public var status: Int {
    switch self {
    case .headTooLarge: 431
    case .tooManyHeaderFields: 431
    case .methodNotGET: 405
    case .unsupportedHTTPVersion: 505
    case .unsupportedWebSocketVersion: 426
    default: 400
    }
  }

  public var description: String {
    switch self {
    case .headTooLarge(let limit): "HTTP head larger than \(limit) bytes"
    case .tooManyHeaderFields(let limit): "more than \(limit) header fields"
    case .invalidCharacters: "invalid characters in the HTTP head"
    case .malformedRequestLine: "malformed request line"
    case .malformedStatusLine: "malformed status line"
    case .malformedHeaderField: "malformed header field"
    case .methodNotGET: "method is not GET"
    case .unsupportedHTTPVersion: "HTTP version below 1.1"
    case .missingHeader(let name): "missing or repeated header \(name)"
    case .notAWebSocketUpgrade: "Upgrade does not name websocket"
    case .connectionNotUpgrade: "Connection does not contain Upgrade"
    case .invalidKey: "Sec-WebSocket-Key is not base64 of 16 bytes"
    case .unsupportedWebSocketVersion: "Sec-WebSocket-Version is not 13"
    case .unexpectedStatus(let status): "server answered \(status), not 101"
    }
  }
}
