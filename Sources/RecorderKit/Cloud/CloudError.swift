/// What can go wrong talking to the vendor cloud (PROTOCOL.md §8), in terms a user can act
/// on. Never carries a user token, a JWT, a device token or a request header.
public enum CloudError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The user access token is not a JWT whose payload carries a usable `sub` claim.
  case malformedUserToken(reason: String)
  /// The domain is not a host name (or URL) the client can use.
  case invalidDomain(String)
  /// Plain `http` to a host that is not loopback: refused (only tests may use plain HTTP).
  case insecureURL(String)
  /// 401: the user token has expired or was revoked. Refresh it
  /// (``CloudClient/setUserToken(_:)``) and try again.
  case tokenExpired
  /// 403 on bind/unbind: the device is bound to another account. It must be unbound there
  /// first; the BLE connection stays usable.
  case boundToAnotherAccount(serial: String)
  /// The server kept failing (5xx) or timing out; `attempts` were made.
  case unavailable(status: Int?, attempts: Int)
  /// The server answered a status this client has no meaning for.
  case unexpectedStatus(Int)
  /// The server answered a redirect (3xx). Redirects are never followed: the request and its
  /// token go only to the domain the client was made for.
  case redirected(status: Int)
  /// The answer was larger than `limit` bytes; it was cut off as it arrived (and a
  /// download's partial file deleted).
  case responseTooLarge(limit: Int64)
  /// The server answered 2xx with a business error code (`{"code": N, "msg": …}`).
  case rejected(code: Int64, message: String)
  /// A response body that is not the JSON this client expects (or not JSON at all).
  case malformedResponse(reason: String)
  /// The network failed in a way retries did not fix (no route, DNS, TLS).
  case network(String)
  /// A downloaded file did not match its published checksum; it was deleted.
  case checksumMismatch(algorithm: String)
  /// A local file could not be written or read.
  case io(path: String, reason: String)
  /// The calling task was cancelled.
  case cancelled

  public var description: String {
    switch self {
    case .malformedUserToken(let reason): "the user access token is malformed: \(reason)"
    case .invalidDomain(let domain): "\"\(EchoedValue(domain))\" is not a usable cloud domain"
    case .insecureURL(let url):
      "refusing plain http to \(EchoedValue(url)): only https (or http to a loopback address, "
        + "for tests)"
    case .tokenExpired: "the user access token has expired: refresh it and try again"
    case .boundToAnotherAccount(let serial):
      "device \(serial) is bound to another account: unbind it there first"
    case .unavailable(let status, let attempts):
      "the cloud is unavailable (\(status.map { "HTTP \($0)" } ?? "timed out") after \(attempts) attempts)"
    case .unexpectedStatus(let status): "the cloud answered HTTP \(status)"
    case .redirected(let status):
      "the cloud answered a redirect (HTTP \(status)); redirects are not followed"
    case .responseTooLarge(let limit): "the cloud's answer is larger than \(limit) bytes"
    case .rejected(let code, let message):
      "the cloud refused the request (code \(code): \(message))"
    case .malformedResponse(let reason): "the cloud's answer is malformed: \(reason)"
    case .network(let reason): "network error: \(reason)"
    case .checksumMismatch(let algorithm): "the download does not match its \(algorithm)"
    case .io(let path, let reason): "\(path): \(reason)"
    case .cancelled: "cancelled"
    }
  }
}
