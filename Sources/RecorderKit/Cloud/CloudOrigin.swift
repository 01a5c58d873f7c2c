import Foundation

/// An HTTP origin (RFC 6454): scheme, host and port, parsed and normalised (lower-case
/// scheme and host, IPv6 without brackets, the default port 443 for https and 80 for http
/// when none is written). Two URLs are the same origin only when all three are equal; a URL
/// with userinfo (`user@`, `user:password@`) has no origin here, so it is never the API's.
///
/// What the user's token may be sent to is decided with it (docs/cloud.md, "Origins"):
/// never by comparing URL text.
struct CloudOrigin: Equatable, Sendable {
  /// `https` or `http`.
  let scheme: String
  /// Lower-case, as written in the URL (percent escapes kept), IPv6 without brackets.
  let host: String
  let port: Int

  /// The origin of `url`; nil when it has userinfo, no host, a scheme other than http(s), or
  /// a port outside 1–65535.
  init?(_ url: URL) {
    guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
      return nil
    }
    // Userinfo, however written (even empty: `http://@host/`), is never the same origin.
    guard components.percentEncodedUser == nil, components.percentEncodedPassword == nil,
      !Self.authority(of: url.absoluteString).contains("@")
    else { return nil }
    guard let scheme = components.scheme?.lowercased(), scheme == "https" || scheme == "http",
      let host = components.percentEncodedHost, !host.isEmpty
    else { return nil }
    let port = components.port ?? (scheme == "https" ? 443 : 80)
    guard (1...65535).contains(port) else { return nil }
    self.scheme = scheme
    self.host = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
    self.port = port
  }

  /// The origin of the URL `text`; nil as for a `URL`, or when `text` is no URL.
  init?(_ text: String) {
    guard let url = URL(string: text) else { return nil }
    self.init(url)
  }

  /// Whether `url` is on the origin `origin` (a `scheme://host[:port]` text): false when
  /// either has no origin.
  static func isSameOrigin(_ url: URL, as origin: String) -> Bool {
    guard let mine = CloudOrigin(url), let theirs = CloudOrigin(origin) else { return false }
    return mine == theirs
  }

  /// The text between `scheme://` and the first `/`, `?` or `#` after it (empty without
  /// `://`).
  private static func authority(of text: String) -> Substring {
    guard let start = text.range(of: "://")?.upperBound else { return "" }
    let rest = text[start...]
    let end = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
    return rest[..<end]
  }
}
