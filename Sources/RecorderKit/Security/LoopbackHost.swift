import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Whether a host is this machine's own loopback interface: the one rule for where the
/// user's token may travel over plain http (``CloudClient``), which destinations never go
/// through a proxy (`CurlTransport`), and which Wi-Fi peer a loopback server trusts
/// (`WiFiLink`).
///
/// Decided by parsing, never by how the text starts (issue 39: `127.attacker.example` is a
/// name anyone can register). Loopback is:
/// - an IPv4 address in 127.0.0.0/8 written as a full dotted quad of decimal numbers
///   (`inet_pton`'s form: no shorthand such as `127.1`, no octal or hex such as `0177.0.0.1`,
///   no leading zeros, nothing around it);
/// - the IPv6 address `::1`, bare or in brackets (`[::1]`, as in a URL), in any spelling
///   `inet_pton` reads (`0:0:0:0:0:0:0:1`); an IPv4-mapped `::ffff:127.0.0.1` is not taken;
/// - the name `localhost`, exactly (any case): the one name kept, because what resolves it
///   never asks DNS or /etc/hosts — libcurl (7.78 and later) answers it with loopback
///   addresses itself, and our sockets bind `localhost` as 127.0.0.1. `localhost.`, a
///   subdomain, or anything longer is a name like any other.
package enum LoopbackHost {
  /// The one name taken as loopback.
  static let name = "localhost"

  /// Whether `host` (a URL's host, brackets allowed around IPv6) is loopback by the rule
  /// above.
  package static func isLoopback(_ host: String) -> Bool {
    // A C parse stops at a NUL: "127.0.0.1\0.evil.com" must not read as 127.0.0.1.
    guard !host.isEmpty, !host.utf8.contains(0) else { return false }
    if host.lowercased() == name { return true }
    if host.hasPrefix("[") || host.hasSuffix("]") {
      guard host.hasPrefix("["), host.hasSuffix("]"), host.count > 2 else { return false }
      return isIPv6Loopback(String(host.dropFirst().dropLast()))
    }
    return isIPv4Loopback(host) || isIPv6Loopback(host)
  }

  /// Whether `url`'s host, as it is sent (percent escapes kept: the text the transport
  /// reads, not a decoded one), is loopback.
  package static func isLoopback(_ url: URL) -> Bool {
    let host = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedHost
    return host.map { isLoopback($0) } ?? false
  }

  /// A dotted quad in 127.0.0.0/8.
  private static func isIPv4Loopback(_ text: String) -> Bool {
    var address = in_addr()
    guard inet_pton(AF_INET, text, &address) == 1 else { return false }
    return UInt32(bigEndian: address.s_addr) >> 24 == 127
  }

  /// `::1`, however spelled.
  private static func isIPv6Loopback(_ text: String) -> Bool {
    var address = in6_addr()
    guard inet_pton(AF_INET6, text, &address) == 1 else { return false }
    return withUnsafeBytes(of: &address) { bytes in
      bytes.dropLast().allSatisfy { $0 == 0 } && bytes.last == 1
    }
  }
}
