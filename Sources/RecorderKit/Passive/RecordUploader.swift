import Foundation
import RecorderConcurrency
import RecorderStore

/// Why one upload attempt failed.
public enum UploadError: Error, Sendable, Equatable, CustomStringConvertible {
  /// No HTTP answer (refused, reset, timed out), with the system's words.
  case transport(String)
  /// The endpoint answered with this status (not 2xx, not 409).
  case status(Int)
  /// The outbox could not be read or written.
  case journal(String)

  public var description: String {
    switch self {
    case .transport(let text): "no answer: \(text)"
    case .status(let code): "HTTP \(code)"
    case .journal(let text): "journal: \(text)"
    }
  }
}

/// Sends one HTTP POST and returns the status code: the uploader's only contact with the
/// network, injected so tests can count attempts.
public protocol HTTPPoster: Sendable {
  func post(_ body: [UInt8], to url: URL, headers: [String: String], timeout: Duration)
    async throws(UploadError) -> Int
}

/// The default ``HTTPPoster``: libcurl on Linux, URLSession on Apple platforms.
///
/// - A redirect is never followed: its 3xx status is the answer, so a record counts as
///   delivered only when the endpoint it was posted to acknowledged it.
/// - `timeout` bounds the whole exchange, connect to status line, however slowly the server
///   answers; the body of the answer is not read (only its status matters).
public struct PlatformHTTPPoster: HTTPPoster {
  private let transport: any HTTPTransport

  public init() { transport = HTTPTransports.platform }

  init(transport: any HTTPTransport) { self.transport = transport }

  public func post(_ body: [UInt8], to url: URL, headers: [String: String], timeout: Duration)
    async throws(UploadError) -> Int
  {
    let request = HTTPRequestSpec(
      method: "POST", url: url,
      headers: headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
      body: body)
    let bounds = HTTPBounds(deadline: timeout, idle: timeout, maximumBody: 0)
    switch await transport.exchange(request, bounds: bounds, sink: .discard) {
    case .success(let exchange): return exchange.status
    case .failure(.timedOut): throw .transport("timed out after \(timeout)")
    case .failure(.connectionLost): throw .transport("connection lost")
    case .failure(.tooLarge): throw .transport("answer too large")
    case .failure(.cancelled): throw .transport("cancelled")
    case .failure(.fatal(let reason)): throw .transport(reason)
    }
  }
}

/// What the uploader did.
public enum UploadEvent: Sendable, Equatable {
  /// The endpoint acknowledged the record with this key; the outbox committed it.
  case delivered(idempotencyKey: String)
  /// An attempt failed; it is retried after a back-off.
  case failed(idempotencyKey: String, UploadError)
}

/// Uploads the journal's outbox to an HTTP endpoint, exactly once per record as far as the
/// endpoint can tell.
///
/// Each record is POSTed as JSON with the header `Idempotency-Key: <key>`, the key chosen
/// when the record was made and kept in the outbox: every attempt, across restarts, carries
/// the same key. A record leaves the outbox only when the endpoint answered 2xx (or 409,
/// "this key was already used": it has the record) and that answer was committed. A process
/// killed after the endpoint received a record but before the commit sends it again on
/// restart with the same key, so an endpoint that keeps one record per key counts it once.
///
/// Only a 2xx or 409 from the endpoint itself counts: a redirect (3xx) is a failed attempt,
/// never followed. Each attempt is bounded by ``Options/requestTimeout`` as a whole, so a
/// server that answers slowly delays the records behind it by at most that.
///
/// Failures are retried with exponential back-off (``Options/initialBackoff`` doubling up to
/// ``Options/maximumBackoff``) on the injected clock.
public actor RecordUploader {
  public struct Options: Sendable {
    public var endpoint: URL
    public var initialBackoff: Duration = .seconds(1)
    public var maximumBackoff: Duration = .seconds(60)
    public var requestTimeout: Duration = .seconds(30)
    /// With nothing to send, the outbox is looked at again this often (besides ``RecordUploader/poke()``).
    public var pollInterval: Duration = .seconds(30)
    /// How many of the newest ``RecordUploader/events`` are kept for a consumer that falls
    /// behind or never listens; older ones are dropped (the outbox is the record). Bounds
    /// what a long run holds when nobody reads the events.
    public var eventBuffer = 1024
    public init(endpoint: URL) { self.endpoint = endpoint }
  }

  /// The header that carries the key.
  public static let idempotencyHeader = "Idempotency-Key"

  public let options: Options
  /// What the uploader did; the newest ``Options/eventBuffer`` are kept for a consumer that
  /// falls behind or never listens.
  public nonisolated let events: AsyncStream<UploadEvent>
  private let eventContinuation: AsyncStream<UploadEvent>.Continuation
  private let journal: Journal
  private let poster: any HTTPPoster
  private let clock: AnyClock
  private let wake: AsyncStream<Void>.Continuation
  private let wakeUps: AsyncStream<Void>

  public init(
    journal: Journal, options: Options, poster: any HTTPPoster = PlatformHTTPPoster(),
    clock: AnyClock = .continuous
  ) {
    self.journal = journal
    self.options = options
    self.poster = poster
    self.clock = clock
    (events, eventContinuation) = AsyncStream.makeStream(
      of: UploadEvent.self, bufferingPolicy: .bufferingNewest(max(options.eventBuffer, 1)))
    (wakeUps, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
  }

  deinit {
    eventContinuation.finish()
    wake.finish()
  }

  /// Something was enqueued: ``run()`` looks at the outbox now.
  public nonisolated func poke() { wake.yield() }

  /// One pass over the outbox: each pending record is sent once, oldest first.
  /// - Returns: the keys delivered in this pass, and whether any attempt failed.
  @discardableResult
  public func uploadPending() async -> (delivered: [String], failures: Int) {
    let pending: [OutboxEntry]
    do {
      pending = try journal.read { try $0.pendingOutbox() }
    } catch {
      eventContinuation.yield(.failed(idempotencyKey: "", .journal("\(error)")))
      return ([], 1)
    }
    var delivered: [String] = []
    var failures = 0
    for entry in pending {
      if Task.isCancelled { break }
      do throws(UploadError) {
        try await send(entry)
        delivered.append(entry.idempotencyKey)
        eventContinuation.yield(.delivered(idempotencyKey: entry.idempotencyKey))
      } catch {
        failures += 1
        try? journal.write {
          try $0.recordOutboxFailure(idempotencyKey: entry.idempotencyKey, reason: "\(error)")
        }
        eventContinuation.yield(.failed(idempotencyKey: entry.idempotencyKey, error))
      }
    }
    return (delivered, failures)
  }

  /// Uploads until the calling task is cancelled: a pass, then after a failure a back-off
  /// before the next, otherwise a wait for ``poke()`` or ``Options/pollInterval``.
  public func run() async {
    var backoff = options.initialBackoff
    var iterator = wakeUps.makeAsyncIterator()
    while !Task.isCancelled {
      let (_, failures) = await uploadPending()
      if failures > 0 {
        try? await clock.sleep(for: backoff)
        backoff = min(backoff * 2, options.maximumBackoff)
        continue
      }
      backoff = options.initialBackoff
      let poll = options.pollInterval
      let clock = self.clock
      let waker = Task { [wake] in
        try? await clock.sleep(for: poll)
        wake.yield()
      }
      _ = await iterator.next()
      waker.cancel()
    }
  }

  private func send(_ entry: OutboxEntry) async throws(UploadError) {
    let status = try await poster.post(
      entry.body, to: options.endpoint,
      headers: [
        "Content-Type": "application/json", Self.idempotencyHeader: entry.idempotencyKey,
      ], timeout: options.requestTimeout)
    guard (200..<300).contains(status) || status == 409 else { throw .status(status) }
    do {
      try journal.write { try $0.markOutboxDelivered(idempotencyKey: entry.idempotencyKey) }
    } catch {
      throw .journal("\(error)")
    }
  }
}
