import Foundation
import RecorderKit

/// The handshake token inside a user access token (PROTOCOL.md §8): the JWT's `sub` claim,
/// minus a leading `client_user_`, with every `-` removed.
///
/// The JWT comes from outside and is parsed defensively (DESIGN.md invariant 6): three
/// dot-separated parts, the payload base64url (padding optional), a JSON object, `sub` a
/// non-empty string that makes a printable-ASCII token. The signature is not checked: the
/// device and the cloud judge the token, the SDK only derives from it. Neither the JWT nor
/// the token ever appears in an error or a log.
enum UserAccessToken {
  /// The handshake token of `jwt`.
  static func handshakeToken(fromJWT jwt: String) throws(PlaudSDKError) -> RecorderDeviceToken {
    let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3 else {
      throw .malformedUserToken(reason: "expected 3 dot-separated parts, found \(parts.count)")
    }
    guard let payload = base64URLDecode(String(parts[1])) else {
      throw .malformedUserToken(reason: "the payload is not base64url")
    }
    let object: Any
    do {
      object = try JSONSerialization.jsonObject(with: payload)
    } catch {
      throw .malformedUserToken(reason: "the payload is not JSON")
    }
    guard let claims = object as? [String: Any] else {
      throw .malformedUserToken(reason: "the payload is not a JSON object")
    }
    guard let subject = claims["sub"] as? String, !subject.isEmpty else {
      throw .malformedUserToken(reason: "no `sub` claim")
    }
    return try handshakeToken(fromSubject: subject)
  }

  /// `sub` (or an app-supplied device token) → handshake token.
  static func handshakeToken(fromSubject subject: String) throws(PlaudSDKError)
    -> RecorderDeviceToken
  {
    var text = Substring(subject)
    if text.hasPrefix("client_user_") { text = text.dropFirst("client_user_".count) }
    let cleaned = text.filter { $0 != "-" }
    guard !cleaned.isEmpty, let token = RecorderDeviceToken(String(cleaned)) else {
      throw .malformedUserToken(reason: "`sub` does not make a printable-ASCII device token")
    }
    return token
  }

  static func base64URLDecode(_ text: String) -> Data? {
    var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(
      of: "_", with: "/")
    guard !base64.contains("="), base64.count % 4 != 1 else { return nil }
    base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
    return Data(base64Encoded: base64)
  }
}
