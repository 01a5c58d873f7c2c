import Foundation
import RecorderProtocol

/// A user access token: the JWT the partner's backend obtained for one user (PROTOCOL.md §8),
/// sent as the bearer token of every cloud request, and the source of the device handshake
/// token.
///
/// The JWT is outside input and parsed defensively (DESIGN.md invariant 6): three
/// dot-separated parts, the payload base64url (padding optional) of a JSON object whose `sub`
/// is a non-empty string. **The signature is not verified**: the cloud judges the token, the
/// SDK only reads `sub` (and `exp`, for information) from it. The token never appears in a
/// description, a mirror or an error.
public struct UserToken: Sendable, Hashable, CustomStringConvertible,
  CustomDebugStringConvertible, CustomReflectable
{
  /// The JWT as given: only the HTTP layer reads it.
  let jwt: String
  /// The `sub` claim (the partner's user id, usually `client_user_<uuid>`).
  public let subject: String
  /// The `exp` claim (unix seconds) when present. Not enforced here: the cloud decides.
  public let expiresAt: Int64?
  /// The device handshake token (PROTOCOL.md §8): `sub` minus a leading `client_user_`, with
  /// every `-` removed.
  public let deviceToken: DeviceToken

  /// Parses `jwt`.
  /// - Throws: ``CloudError/malformedUserToken(reason:)`` saying which rule failed (never
  ///   quoting the token).
  public init(jwt: String) throws(CloudError) {
    let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3 else {
      throw .malformedUserToken(reason: "expected 3 dot-separated parts, found \(parts.count)")
    }
    guard jwt.utf8.count <= Self.maximumLength else {
      throw .malformedUserToken(reason: "longer than \(Self.maximumLength) bytes")
    }
    guard let payload = Self.base64URLDecode(parts[1]) else {
      throw .malformedUserToken(reason: "the payload is not base64url")
    }
    let claims: JSONValue
    do {
      claims = try JSONParser(maxSize: Self.maximumLength, maxDepth: 8).parse(payload)
    } catch {
      throw .malformedUserToken(reason: "the payload is not JSON")
    }
    guard case .object = claims else {
      throw .malformedUserToken(reason: "the payload is not a JSON object")
    }
    guard let subject = claims["sub"]?.stringValue, !subject.isEmpty else {
      throw .malformedUserToken(reason: "no `sub` claim")
    }
    deviceToken = try Self.deviceToken(fromSubject: subject)
    self.jwt = jwt
    self.subject = subject
    expiresAt = claims["exp"]?.integerValue
  }

  /// `sub` (or an app-supplied user id) → handshake token.
  /// - Throws: ``CloudError/malformedUserToken(reason:)`` when nothing printable is left.
  package static func deviceToken(fromSubject subject: String) throws(CloudError) -> DeviceToken {
    var text = Substring(subject)
    if text.hasPrefix(subjectPrefix) { text = text.dropFirst(subjectPrefix.count) }
    let cleaned = text.filter { $0 != "-" }
    guard !cleaned.isEmpty, let token = DeviceToken(String(cleaned)) else {
      throw .malformedUserToken(reason: "`sub` does not make a printable-ASCII device token")
    }
    return token
  }

  /// The prefix the vendor's `sub` carries [sdk].
  package static let subjectPrefix = "client_user_"
  /// Longest JWT accepted (a user JWT is a few hundred bytes).
  public static let maximumLength = 16 * 1024

  /// Strict base64url: the URL-safe alphabet, no padding or correct padding only.
  static func base64URLDecode(_ text: Substring) -> [UInt8]? {
    var base64 = ""
    base64.reserveCapacity(text.utf8.count + 3)
    var sawPadding = false
    for scalar in text.unicodeScalars {
      switch scalar {
      case "-": base64.append("+")
      case "_": base64.append("/")
      case "=": sawPadding = true
      case "A"..."Z", "a"..."z", "0"..."9":
        guard !sawPadding else { return nil }
        base64.unicodeScalars.append(scalar)
      default: return nil
      }
    }
    guard base64.count % 4 != 1 else { return nil }
    base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
    return Data(base64Encoded: base64).map { Array($0) }
  }

  public var description: String { "UserToken(redacted)" }
  public var debugDescription: String { description }
  public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
