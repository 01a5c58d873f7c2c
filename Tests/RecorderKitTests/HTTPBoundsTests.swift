import Foundation
import RecorderConcurrency
import TestSupport
import Testing

@testable import RecorderKit

/// Issue 29 items 3, 6 and 7: the cloud client against hostile servers on loopback, through
/// both transports (the platform's, libcurl on Linux, and URLSession, the Apple one).
@Suite("Cloud client against hostile servers", .serialized)
struct HTTPBoundsTests {
  enum Transport: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case platform, urlSession
    var transport: any HTTPTransport {
      switch self {
      case .platform: HTTPTransports.platform
      case .urlSession: URLSessionTransport()
      }
    }
    var testDescription: String { rawValue }
  }

  static let serial = "8881234567890123"
  static let jwt =
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI0ZjFjLTIyYWEtOWQwMyJ9.c2lnbmF0dXJlLW5vdC1jaGVja2Vk"

  static func client(
    _ server: HostileHTTPServer, _ transport: Transport, deadline: Duration = .seconds(30),
    attempts: Int = 1
  ) throws -> CloudClient {
    var configuration = CloudClient.Configuration()
    configuration.transport = transport.transport
    configuration.requestDeadline = deadline
    configuration.downloadDeadline = deadline
    configuration.retry = RetryPolicy(
      maximumAttempts: attempts, baseDelay: .zero, maximumDelay: .zero,
      jitter: RetryPolicy.seeded(1))
    return try CloudClient(
      domain: server.url, userToken: UserToken(jwt: jwt), configuration: configuration)
  }

  @Test(
    "a redirect is never followed: the token stays home, the call fails typed",
    arguments: Transport.allCases)
  func redirectsAreNotFollowed(_ transport: Transport) async throws {
    // "Another host": a second loopback address, plain http.
    let elsewhere = try HostileHTTPServer(host: "127.0.0.2") { _, _ in
      .respond(status: 200, body: Array(#"{"code":0}"#.utf8))
    }
    defer { elsewhere.stop() }
    for status in [301, 302, 303, 307, 308] {
      let cloud = try HostileHTTPServer { _, request in
        .redirect(status: status, location: "http://127.0.0.2:\(elsewhere.port)\(request.target)")
      }
      defer { cloud.stop() }
      let client = try Self.client(cloud, transport)
      await #expect(throws: CloudError.redirected(status: status)) {
        try await withTimeout(60) { try await client.bind(serial: Self.serial) }
      }
      await #expect(throws: CloudError.redirected(status: status)) {
        try await withTimeout(60) {
          _ = try await client.serialSignature(serial: Self.serial)
        }
      }
      #expect(cloud.requests.count == 2)
    }
    #expect(elsewhere.requests.isEmpty, "nothing reached the other host")
  }

  @Test(
    "a firmware download that redirects is refused: the token and the request stay home",
    arguments: Transport.allCases)
  func downloadRedirectsAreNotFollowed(_ transport: Transport) async throws {
    let elsewhere = try HostileHTTPServer(host: "127.0.0.2") { _, _ in
      .respond(status: 200, body: [1, 2, 3])
    }
    defer { elsewhere.stop() }
    let cloud = try HostileHTTPServer { _, _ in
      .redirect(status: 307, location: "http://127.0.0.2:\(elsewhere.port)/firmware.bin")
    }
    defer { cloud.stop() }
    let client = try Self.client(cloud, transport)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "redirect-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let release = FirmwareRelease(
      hasUpdate: true, currentVersion: "V0095", latestVersion: "V0096", versionCode: 96,
      releaseNotes: "", downloadUrl: "/firmware.bin", md5: String(repeating: "0", count: 32),
      isForce: false)
    await #expect(throws: CloudError.redirected(status: 307)) {
      _ = try await withTimeout(60) {
        try await client.download(release, to: folder.appendingPathComponent("fw.bin").path)
      }
    }
    #expect(cloud.requests.first?.headers["authorization"] != nil, "same origin: token sent")
    #expect(elsewhere.requests.isEmpty, "nothing reached the other host")
  }

  @Test(
    "an endless or huge API answer is cut off at the JSON limit as it arrives",
    arguments: Transport.allCases)
  func answersAreBounded(_ transport: Transport) async throws {
    let endless = try HostileHTTPServer { _, _ in .endless() }
    defer { endless.stop() }
    let client = try Self.client(endless, transport)
    let limit = Int64(CloudClient.maximumAnswerSize)
    await #expect(throws: CloudError.responseTooLarge(limit: limit)) {
      try await withTimeout(60) { try await client.bind(serial: Self.serial) }
    }
    // A declared 600 MB body: refused before it is read.
    let declared = try HostileHTTPServer { _, _ in
      .respond(status: 200, headers: [("Content-Length", "600000000")])
    }
    defer { declared.stop() }
    let second = try Self.client(declared, transport)
    await #expect(throws: CloudError.responseTooLarge(limit: limit)) {
      try await withTimeout(60) { _ = try await second.isBound(serial: Self.serial) }
    }
  }

  @Test(
    "a slow-drip answer ends the call at the request deadline, bind and Mode B signature alike",
    arguments: Transport.allCases)
  func slowDripIsBoundedAsAWhole(_ transport: Transport) async throws {
    let answer = Array(#"{"code":0,"data":{"signature":"AAAA"}}"#.utf8)
    // A byte every 200 ms: never idle long enough for the per-byte timeout.
    let cloud = try HostileHTTPServer { _, _ in
      .drip(body: answer, interval: .milliseconds(200))
    }
    defer { cloud.stop() }
    let client = try Self.client(cloud, transport, deadline: .seconds(1), attempts: 2)
    await #expect(throws: CloudError.unavailable(status: nil, attempts: 2)) {
      try await withTimeout(60) { try await client.bind(serial: Self.serial) }
    }
    await #expect(throws: CloudError.unavailable(status: nil, attempts: 2)) {
      try await withTimeout(60) { _ = try await client.serialSignature(serial: Self.serial) }
    }
    #expect(cloud.requests.count == 4)
  }

  @Test(
    "an endless firmware download stops at the image limit and its partial file goes",
    arguments: Transport.allCases)
  func downloadsAreBounded(_ transport: Transport) async throws {
    let cloud = try HostileHTTPServer { _, _ in .endless() }
    defer { cloud.stop() }
    // 32 MiB must arrive within the deadline: room for FoundationNetworking under
    // ThreadSanitizer (it took over 30 s there).
    let client = try Self.client(cloud, transport, deadline: .seconds(600))
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "bounds-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let release = FirmwareRelease(
      hasUpdate: true, currentVersion: "V0095", latestVersion: "V0096", versionCode: 96,
      releaseNotes: "", downloadUrl: cloud.url + "/firmware.bin",
      md5: String(repeating: "0", count: 32),
      isForce: false)
    let path = folder.appendingPathComponent("firmware.bin").path
    let limit = Int64(FirmwareFile.maximumSize)
    await #expect(throws: CloudError.responseTooLarge(limit: limit)) {
      _ = try await withTimeout(900) { try await client.download(release, to: path) }
    }
    let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
    #expect(left.isEmpty, "no partial file left: \(left)")
  }
}
