import Foundation
import RecorderConcurrency
import RecorderCrypto
import RecorderProtocol
import RecorderWebSocket
import Testing

@testable import RecorderKit

/// Issue 29 items 4 and 12: what a firmware download sends, and where its bytes go, against
/// real loopback HTTP servers.
@Suite("Firmware downloads: the token's origin and the scratch file", .serialized)
struct FirmwareDownloadSafetyTests {
  static let image: [UInt8] = (0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
  static let jwt = makeJWT(sub: "client_user_4f1c-22aa-9d03")

  static func makeJWT(sub: String) -> String {
    func b64(_ text: String) -> String {
      Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
        .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
    return "\(b64(#"{"alg":"none"}"#)).\(b64("{\"sub\":\"\(sub)\"}")).c2ln"
  }

  /// A loopback server that serves ``image`` at `/firmware/fw.bin` and records the
  /// `Authorization` header of every request (nil when absent).
  final class ImageServer: Sendable {
    let server: HTTPServer
    let authorizations = Locked<[String?]>([])

    init() throws {
      let authorizations = self.authorizations
      server = try HTTPServer { request in
        authorizations.withLock { $0.append(request.header("Authorization")) }
        guard request.path == "/firmware/fw.bin" else {
          return .json(404, #"{"code":404,"msg":"no such file"}"#)
        }
        return HTTPResponse(
          status: 200, fields: [("Content-Type", "application/octet-stream")],
          body: FirmwareDownloadSafetyTests.image)
      }
    }

    var origin: String { "http://127.0.0.1:\(server.port)" }
    /// Requests that carried the user's JWT in any header value.
    var sawToken: Bool {
      authorizations.withLock {
        $0.contains { $0?.contains(FirmwareDownloadSafetyTests.jwt) == true }
      }
    }
    var requests: Int { authorizations.withLock { $0.count } }
  }

  static func release(_ url: String) -> FirmwareRelease {
    FirmwareRelease(
      hasUpdate: true, currentVersion: "V0095", latestVersion: "V0096", versionCode: 96,
      releaseNotes: "", downloadUrl: url, md5: Digest.md5(image).hexDigits(), isForce: false)
  }

  static func client(domain: String) throws -> CloudClient {
    var configuration = CloudClient.Configuration()
    configuration.retry = RetryPolicy(maximumAttempts: 1, jitter: RetryPolicy.seeded(7))
    // The servers are on loopback and answer at once: the idle bound is only a hang guard,
    // generous for a loaded machine (its 20 s default ran out once in a loaded run).
    configuration.requestTimeout = .seconds(120)
    return try CloudClient(
      domain: domain, userToken: try UserToken(jwt: jwt), configuration: configuration)
  }

  static func scratchDirectory(_ label: String) throws -> String {
    let directory = NSTemporaryDirectory() + "\(label)-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    return directory
  }

  @Test("the JWT goes to a download_url on the API's origin, never to another listener")
  func tokenOnlyToTheAPIOrigin() async throws {
    let api = try ImageServer()
    let other = try ImageServer()
    defer {
      api.server.stop()
      other.server.stop()
    }
    let client = try Self.client(domain: api.origin)
    let directory = try Self.scratchDirectory("fw-origin")
    defer { try? FileManager.default.removeItem(atPath: directory) }

    // Same origin, as a path and as an absolute URL: the token goes.
    for (index, url) in ["/firmware/fw.bin", api.origin + "/firmware/fw.bin"].enumerated() {
      let file = try await client.download(Self.release(url), to: directory + "/same\(index).bin")
      #expect(file.size == Self.image.count)
    }
    #expect(api.requests == 2)
    #expect(api.authorizations.withLock { $0 } == Array(repeating: "Bearer \(Self.jwt)", count: 2))

    // Another port on the same host, and URLs that merely start with the API's origin
    // (userinfo): the token never goes.
    let hostile = [
      other.origin + "/firmware/fw.bin",
      "http://127.0.0.1:\(api.server.port)@127.0.0.1:\(other.server.port)/firmware/fw.bin",
      "http://127.0.0.1:\(api.server.port):x@127.0.0.1:\(other.server.port)/firmware/fw.bin",
      "http://@127.0.0.1:\(api.server.port)/firmware/fw.bin",
    ]
    for (index, url) in hostile.enumerated() {
      _ = try? await client.download(Self.release(url), to: directory + "/other\(index).bin")
    }
    #expect(other.requests >= 3, "the other listener was reached")
    #expect(!other.sawToken, "\(other.authorizations.withLock { $0 })")
    // The last URL reached the API's own port with (empty) userinfo: still no token (the
    // transport may send that userinfo as Basic credentials; never the Bearer JWT).
    let later = api.authorizations.withLock { Array($0.dropFirst(2)) }
    #expect(later.count == 1 && later.allSatisfy { $0?.contains(Self.jwt) != true }, "\(later)")
  }

  @Test("origins compare parsed scheme, host and port; userinfo is never the same origin")
  func originTable() throws {
    let api = "https://platform-us.plaud.ai"
    let same = [
      "https://platform-us.plaud.ai/fw.bin", "https://platform-us.plaud.ai:443/fw.bin",
      "HTTPS://PLATFORM-US.Plaud.AI/fw.bin", "https://platform-us.plaud.ai",
    ]
    let other = [
      "https://platform-us.plaud.ai.evil/fw.bin", "https://platform-us.plaud.ai:8443/fw.bin",
      "http://platform-us.plaud.ai/fw.bin", "https://platform-us.plaud.ai@evil.example/fw.bin",
      "https://evil@platform-us.plaud.ai/fw.bin", "https://a:b@platform-us.plaud.ai/fw.bin",
      "https://platform-us.plaud.ai%2eevil/fw.bin", "https://platform-us.plaud.aix/fw.bin",
      "ftp://platform-us.plaud.ai/fw.bin", "https://evil.example/platform-us.plaud.ai",
    ]
    for text in same {
      let url = try #require(URL(string: text))
      #expect(CloudOrigin.isSameOrigin(url, as: api), "\(text)")
    }
    for text in other {
      guard let url = URL(string: text) else { continue }
      #expect(!CloudOrigin.isSameOrigin(url, as: api), "\(text)")
    }
    let loopback = "http://127.0.0.1:8080"
    #expect(CloudOrigin.isSameOrigin(URL(string: "http://127.0.0.1:8080/x")!, as: loopback))
    #expect(!CloudOrigin.isSameOrigin(URL(string: "http://127.0.0.1:80801/x")!, as: loopback))
    #expect(
      !CloudOrigin.isSameOrigin(URL(string: "http://127.0.0.1:8080@127.0.0.1:9/x")!, as: loopback))
    #expect(CloudOrigin.isSameOrigin(URL(string: "http://[::1]:8080/x")!, as: "http://[::1]:8080"))
    #expect(CloudOrigin.isSameOrigin(URL(string: "http://h/x")!, as: "http://h:80"))
  }

  /// `client.download` of the image at `/firmware/fw.bin` to `path`, its outcome kept;
  /// `progress` runs on each progress report.
  static func downloading(
    _ client: CloudClient, to path: String, progress: @escaping @Sendable () -> Void
  ) async -> Result<FirmwareFile, CloudError> {
    do {
      return .success(
        try await client.download(release("/firmware/fw.bin"), to: path) { _, _ in progress() })
    } catch {
      return .failure(error)
    }
  }

  @Test("a symlink planted at the old .part name (or the final name) is never written through")
  func plantedSymlinks() async throws {
    let api = try ImageServer()
    defer { api.server.stop() }
    let client = try Self.client(domain: api.origin)
    let directory = try Self.scratchDirectory("fw-scratch")
    let outside = try Self.scratchDirectory("fw-victim")
    defer {
      try? FileManager.default.removeItem(atPath: directory)
      try? FileManager.default.removeItem(atPath: outside)
    }
    let precious = Data("precious bytes outside the download folder".utf8)
    let victimPart = outside + "/victim-part"
    let victimFinal = outside + "/victim-final"
    try precious.write(to: URL(fileURLWithPath: victimPart))
    try precious.write(to: URL(fileURLWithPath: victimFinal))
    let final = directory + "/fw.bin"
    try FileManager.default.createSymbolicLink(
      atPath: final + ".part", withDestinationPath: victimPart)
    try FileManager.default.createSymbolicLink(atPath: final, withDestinationPath: victimFinal)

    // While bytes arrive, the scratch is a private directory holding a 0600 file.
    let modes = Locked<[String: Int]>([:])
    let outcome = await Self.downloading(client, to: final) {
      let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
      for name in names where name.hasPrefix(".fw.bin.download-") {
        var info = stat()
        if lstat(directory + "/" + name, &info) == 0 {
          modes.withLock { $0["directory"] = Int(info.st_mode) }
        }
        if lstat(directory + "/" + name + "/part", &info) == 0 {
          modes.withLock { $0["part"] = Int(info.st_mode) }
        }
      }
    }
    // The files outside the folder first: whatever the download did, they are untouched.
    #expect(try Data(contentsOf: URL(fileURLWithPath: victimPart)) == precious)
    #expect(try Data(contentsOf: URL(fileURLWithPath: victimFinal)) == precious)
    let file = try outcome.get()
    #expect(file.path == final)
    let type = try FileManager.default.attributesOfItem(atPath: final)[.type] as? FileAttributeType
    #expect(type == .typeRegular)
    #expect(try Data(contentsOf: URL(fileURLWithPath: final)) == Data(Self.image))
    let seen = modes.withLock { $0 }
    #expect(seen["directory"].map { $0 & 0o7777 } == 0o700, "\(seen)")
    #expect(seen["directory"].map { $0 & Int(S_IFMT) } == Int(S_IFDIR), "\(seen)")
    #expect(seen["part"].map { $0 & 0o7777 } == 0o600, "\(seen)")
    #expect(seen["part"].map { $0 & Int(S_IFMT) } == Int(S_IFREG), "\(seen)")
    // The scratch is gone; the planted link at the old name is left as it was.
    let left = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
    #expect(left == ["fw.bin", "fw.bin.part"], "\(left)")
    #expect(
      try FileManager.default.destinationOfSymbolicLink(atPath: final + ".part") == victimPart)
  }
}
