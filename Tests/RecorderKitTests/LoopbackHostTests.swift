import Foundation
import RecorderKit
import Testing

/// Issue 39, item 4: a host is loopback when it parses as an address in 127.0.0.0/8 or as
/// ::1 (or is the name `localhost`), never because its text starts with `127.`. The rule
/// decides where the user's JWT may go over plain http and which Wi-Fi peer is trusted.
@Suite("Loopback hosts, parsed")
struct LoopbackHostTests {
  @Test("addresses in 127.0.0.0/8 and ::1 (bracketed or not), and localhost, are loopback")
  func loopback() {
    let hosts = [
      "127.0.0.1", "127.255.255.254", "127.0.0.2", "127.1.2.3", "::1", "[::1]",
      "0:0:0:0:0:0:0:1", "[0000::0001]", "localhost", "LocalHost",
    ]
    for host in hosts {
      #expect(LoopbackHost.isLoopback(host), "\(host)")
    }
  }

  @Test("names that start like loopback, other forms and other addresses are not")
  func notLoopback() {
    let hosts = [
      // Names, however they start.
      "127.attacker.example", "127.0.0.1.evil.com", "127.0.0.1.", "127.", "127", "localhost.",
      "localhost.evil.com", "evil-localhost", "[localhost]", "",
      // Shorthand and octal or hex forms: inet_aton would read some as 127.0.0.1; the
      // numeric parse of a dotted quad does not, and neither do we.
      "127.1", "127.0.1", "0177.0.0.1", "0x7f.0.0.1", "2130706433", "0x7f000001", "127.00.0.1",
      // Out of range, padded, or with a NUL that a C parse would stop at.
      "127.0.0.256", " 127.0.0.1", "127.0.0.1 ", "127.0.0.1\u{0}.evil.com",
      // Other addresses; IPv4-mapped loopback is not taken either (conservative).
      "128.0.0.1", "126.255.255.255", "10.0.0.1", "0.0.0.0", "::", "::2", "[::2]",
      "::ffff:127.0.0.1", "[::ffff:127.0.0.1]", "::127.0.0.1", "fe80::1", "[::1", "::1]",
      "[[::1]]", "[127.0.0.1]", "::1%lo",
    ]
    for host in hosts {
      #expect(!LoopbackHost.isLoopback(host), "\(host.debugDescription)")
    }
  }

  @Test("the cloud's domain rule: plain http only to a parsed loopback host")
  func cloudDomainRule() throws {
    #expect(
      try CloudClient.apiBase(forDomain: "127.0.0.1:8080") == "http://127.0.0.1:8080/developer/api")
    #expect(
      try CloudClient.apiBase(forDomain: "http://127.2.3.4:80")
        == "http://127.2.3.4:80/developer/api")
    #expect(try CloudClient.apiBase(forDomain: "http://[::1]:9") == "http://[::1]:9/developer/api")
    for domain in [
      "http://127.attacker.example:8080", "http://127.0.0.1.evil.com", "http://127.1:80",
      "http://0177.0.0.1:80", "http://[::ffff:127.0.0.1]:80",
    ] {
      #expect(throws: CloudError.insecureURL(domain), "\(domain)") {
        try CloudClient.apiBase(forDomain: domain)
      }
    }
    // Without a scheme, a name that starts with 127. is https, never plain http.
    #expect(
      try CloudClient.apiBase(forDomain: "127.attacker.example:8080")
        == "https://127.attacker.example:8080/developer/api")
  }
}
