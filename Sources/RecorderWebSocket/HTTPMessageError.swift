/// Why a plain HTTP/1.1 request was refused by ``HTTPRequest/parse(_:limits:)``. Each case
/// maps to the status the small server answers with (``status``).
public enum HTTPMessageError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The head broke a rule of ``HTTPUpgradeHead/parse(_:limits:)`` (size, characters, fields).
  case head(HTTPUpgradeError)
  /// The request line is not `METHOD SP /target SP HTTP/1.x`.
  case malformedRequestLine
  /// `Content-Length` is repeated, not decimal digits, or does not fit.
  case invalidContentLength
  /// The declared body is larger than the limit.
  case bodyTooLarge(limit: Int)
  /// `Transfer-Encoding` (chunked bodies): not spoken by this small server.
  case transferEncodingNotSupported

  /// The status the server answers this error with.
  public var status: Int {
    switch self {
    case .head(let error): error.status
    case .malformedRequestLine, .invalidContentLength: 400
    case .bodyTooLarge: 413
    case .transferEncodingNotSupported: 501
    }
  }

  public var description: String {
    switch self {
    case .head(let error): error.description
    case .malformedRequestLine: "malformed request line"
    case .invalidContentLength: "invalid Content-Length"
    case .bodyTooLarge(let limit): "request body larger than \(limit) bytes"
    case .transferEncodingNotSupported: "Transfer-Encoding is not supported"
    }
  }
}
