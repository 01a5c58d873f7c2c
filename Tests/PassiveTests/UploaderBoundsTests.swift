import Foundation
import RecorderConcurrency
import RecorderStore
import TestSupport
import Testing

@testable import RecorderKit

/// Issue 29 items 1, 2 and 6: the uploader's default poster against hostile endpoints on
/// loopback, through both transports (the platform's and URLSession).
@Suite("Uploader against hostile endpoints", .serialized)
struct UploaderBoundsTests {
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

  /// `timeout` bounds each attempt; tests that are not about it give it room for a busy
  /// machine.
  func uploader(
    _ bench: PassiveBench, _ endpoint: HostileHTTPServer, _ transport: Transport,
    timeout: Duration = .seconds(30)
  ) throws -> (RecordUploader, Journal) {
    let journal = try bench.journal()
    var options = RecordUploader.Options(
      endpoint: try #require(URL(string: endpoint.url + "/records")))
    options.requestTimeout = timeout
    let uploader = RecordUploader(
      journal: journal, options: options,
      poster: PlatformHTTPPoster(transport: transport.transport), clock: bench.anyClock)
    return (uploader, journal)
  }

  @Test(
    "a redirected upload is not delivered: the record stays in the outbox, the other host gets nothing",
    arguments: Transport.allCases)
  func redirectIsNotDelivery(_ transport: Transport) async throws {
    let elsewhere = try HostileHTTPServer(host: "127.0.0.2") { _, _ in .respond(status: 200) }
    defer { elsewhere.stop() }
    for status in [301, 302, 303, 307, 308] {
      let bench = try PassiveBench([])
      let endpoint = try HostileHTTPServer { _, _ in
        .redirect(status: status, location: "http://127.0.0.2:\(elsewhere.port)/records")
      }
      defer { endpoint.stop() }
      let (uploader, journal) = try uploader(bench, endpoint, transport)
      try journal.write { _ = try $0.enqueueOutbox(idempotencyKey: "k1", body: Array("{}".utf8)) }
      let pass = try await withTimeout(60) { await uploader.uploadPending() }
      #expect(pass.delivered.isEmpty)
      #expect(pass.failures == 1)
      #expect(try journal.read { try $0.pendingOutbox() }.map(\.idempotencyKey) == ["k1"])
      #expect(endpoint.requests.count == 1)
    }
    #expect(elsewhere.requests.isEmpty, "nothing reached the other host")
  }

  @Test(
    "a slow-drip answer costs one attempt its timeout; the records behind it go",
    arguments: Transport.allCases)
  func slowDripDoesNotBlockTheOutbox(_ transport: Transport) async throws {
    let bench = try PassiveBench([])
    let endpoint = try HostileHTTPServer { index, _ in
      index == 0
        ? .drip(
          status: 201, body: Array(repeating: 0x20, count: 1000), interval: .milliseconds(300))
        : .respond(status: 201)
    }
    defer { endpoint.stop() }
    let (uploader, journal) = try uploader(bench, endpoint, transport, timeout: .seconds(2))
    try journal.write {
      _ = try $0.enqueueOutbox(idempotencyKey: "k1", body: Array("{}".utf8))
      _ = try $0.enqueueOutbox(idempotencyKey: "k2", body: Array("{}".utf8))
    }
    // The first pass ends although the first answer would take five minutes: that attempt
    // fails at its timeout (a busy machine may fail the second one too; it is retried).
    let first = try await withTimeout(60) { await uploader.uploadPending() }
    #expect(first.failures >= 1)
    #expect(!first.delivered.contains("k1"))
    let already = Set(first.delivered)
    let delivered = try await withTimeout(120) {
      var more = already
      while more.count < 2 { more.formUnion(await uploader.uploadPending().delivered) }
      return more
    }
    #expect(delivered == ["k1", "k2"])
  }

  @Test(
    "an endless answer body is not read: the status is the answer", arguments: Transport.allCases)
  func answerBodyIsNotRead(_ transport: Transport) async throws {
    let bench = try PassiveBench([])
    let endpoint = try HostileHTTPServer { _, _ in .endless(status: 201) }
    defer { endpoint.stop() }
    let (uploader, journal) = try uploader(bench, endpoint, transport)
    try journal.write { _ = try $0.enqueueOutbox(idempotencyKey: "k1", body: Array("{}".utf8)) }
    let pass = try await withTimeout(60) { await uploader.uploadPending() }
    #expect(pass.delivered == ["k1"])
    // The body never ends: the pass returned, so it was not read to its end (how much the
    // server pushed before the client closed depends on the machine, not on the rule).
  }
}
