import Foundation
import TestSupport
import Testing

/// Issue 39, items 4 and 5: where the user's JWT may go. Plain http only to a host that
/// parses as a loopback address (never a name that merely starts with `127.`), and a
/// loopback cloud never through a proxy from the environment, while any other destination
/// keeps the proxy a gateway's administrator set. Every "proxy" here is a recording server
/// on loopback; nothing is sent to any other address (a proxied request names its host to
/// the proxy, so the host is never resolved).
extension ProcessTests {
  /// A JWT the cloud client accepts (a `sub` claim); its signature is never checked here.
  static let cloudJWT =
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjbGllbnRfdXNlcl9wcm94eSJ9.c2VjcmV0LXNpZ25hdHVyZS0zOQ"

  /// A 0600 file holding `jwt`.
  static func userTokenFile(in directory: TemporaryDirectory, _ jwt: String = cloudJWT) throws
    -> String
  {
    let path = directory.file("user-token")
    try Data((jwt + "\n").utf8).write(to: URL(fileURLWithPath: path))
    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
    return path
  }

  /// Every proxy variable libcurl reads, pointed at `proxy`, and no exception list.
  static func proxyEnvironment(_ proxy: HostileHTTPServer) -> [String: String] {
    let url = proxy.url
    return [
      "http_proxy": url, "HTTP_PROXY": url, "https_proxy": url, "HTTPS_PROXY": url,
      "ALL_PROXY": url, "all_proxy": url, "no_proxy": "", "NO_PROXY": "",
    ]
  }

  @Test(
    "--cloud http://127.attacker.example:PORT is not loopback: plain http refused before any connection, the JWT unsent"
  )
  func cloudNameStartingWith127IsNotLoopback() throws {
    let directory = try TemporaryDirectory("cloud-127-name")
    // Stands in for the attacker's host: whatever reaches it through the proxy variables.
    let proxy = try HostileHTTPServer { _, _ in .respond(status: 200, body: Array("{}".utf8)) }
    defer { proxy.stop() }
    let tokenFile = try Self.userTokenFile(in: directory)
    let port = try unusedPort()
    for host in ["127.attacker.example", "127.0.0.1.evil.example", "0177.0.0.1", "127.1"] {
      let result = try RecorderProcess.run(
        [
          "bind", "--cloud", "http://\(host):\(port)", "--user-token-file", tokenFile,
          "--serial", "8881234567890123",
        ], in: directory, label: "bind-\(host)", timeout: .seconds(60),
        environment: Self.proxyEnvironment(proxy))
      #expect(result.status == 64, "\(host): \(result.stderr)")
      #expect(result.stderr.contains("refusing plain http"), "\(host): \(result.stderr)")
      #expect(!result.stdout.contains(Self.cloudJWT) && !result.stderr.contains(Self.cloudJWT))
    }
    // The other commands that take --cloud refuse it the same way, before any device.
    let cloud = ["--cloud", "http://127.attacker.example:\(port)", "--user-token-file", tokenFile]
    let device = ["--device", "tcp://127.0.0.1:\(port)"]
    for command in ["ota", "unbind", "sync", "ls", "info"] {
      let extra = command == "sync" ? ["--out", directory.file("out")] : []
      let result = try RecorderProcess.run(
        [command] + cloud + device + extra, in: directory, label: "\(command)-127-name",
        timeout: .seconds(60), environment: Self.proxyEnvironment(proxy))
      #expect(result.status == 64, "\(command): \(result.stderr)")
      #expect(result.stderr.contains("refusing plain http"), "\(command): \(result.stderr)")
      #expect(!result.stdout.contains(Self.cloudJWT) && !result.stderr.contains(Self.cloudJWT))
    }
    #expect(proxy.requests.isEmpty, "sent: \(proxy.requests.map { "\($0.method) \($0.target)" })")
  }

  @Test("a loopback cloud is reached directly: http_proxy and ALL_PROXY see nothing, bind succeeds")
  func loopbackCloudBypassesProxy() throws {
    let directory = try TemporaryDirectory("cloud-no-proxy")
    let proxy = try HostileHTTPServer { _, _ in .respond(status: 502) }
    defer { proxy.stop() }
    let tokenFile = directory.file("cloud-token")
    let emulator = try EmulatorProcess(
      in: directory, token: "partneruser1", minutes: [0.1], timeScale: 5,
      extra: ["--cloud", "--cloud-token-file", tokenFile])
    defer { emulator.stop() }
    let url = try emulator.cloud()
    let jwt = try String(contentsOfFile: tokenFile, encoding: .utf8)
      .trimmingCharacters(in: .whitespacesAndNewlines)
    let result = try RecorderProcess.run(
      ["bind", "--cloud", url, "--user-token-file", tokenFile, "--serial", "8881234567890123"],
      in: directory, label: "bind-direct", timeout: .seconds(60),
      environment: Self.proxyEnvironment(proxy))
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("bound 8881234567890123"), "\(result.stdout)")
    #expect(proxy.requests.isEmpty, "sent: \(proxy.requests.map { "\($0.method) \($0.target)" })")
    #expect(!result.stdout.contains(jwt) && !result.stderr.contains(jwt))
  }

  @Test(
    "a non-loopback https cloud still goes through HTTPS_PROXY / ALL_PROXY (a CONNECT for its host)"
  )
  func remoteCloudKeepsProxy() throws {
    let directory = try TemporaryDirectory("cloud-proxy")
    // Refuses the tunnel: nothing past the CONNECT line, and the JWT is inside TLS anyway.
    let proxy = try HostileHTTPServer { _, _ in .respond(status: 403) }
    defer { proxy.stop() }
    let tokenFile = try Self.userTokenFile(in: directory)
    let result = try RecorderProcess.run(
      [
        "bind", "--cloud", "https://cloud.example.invalid", "--user-token-file", tokenFile,
        "--serial", "8881234567890123",
      ], in: directory, label: "bind-proxied", timeout: .seconds(120),
      environment: Self.proxyEnvironment(proxy))
    #expect(result.status == 69, "\(result.stderr)")
    let requests = proxy.requests
    #expect(!requests.isEmpty)
    #expect(
      requests.allSatisfy { $0.method == "CONNECT" && $0.target == "cloud.example.invalid:443" },
      "\(requests.map { "\($0.method) \($0.target)" })")
    #expect(requests.allSatisfy { $0.headers["authorization"] == nil })
    #expect(!result.stdout.contains(Self.cloudJWT) && !result.stderr.contains(Self.cloudJWT))
  }
}
