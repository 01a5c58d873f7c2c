import Foundation

/// A finish step that POSTs each recording's description (``FinishedRecording/json()``) to a
/// URL, with its ``FinishAttempt/idempotencyKey`` as the `Idempotency-Key` header, until an
/// answer is 2xx; after that it is never sent again for that recording. Any other answer, no
/// answer within ``timeout``, or a redirect (never followed) is a failed attempt, tried again
/// with backoff. The receiver keeps each key once.
public struct WebhookStep: FinishStep {
  public let name = "webhook"
  /// Where the descriptions go: `https`, or `http` to this machine only (a loopback host).
  public let url: URL
  /// The bound of one attempt, connecting to the status line.
  public let timeout: Duration
  private let poster: any HTTPPoster

  /// - Parameters:
  ///   - url: `https://…`, or `http://` to a loopback host.
  ///   - timeout: the bound of one attempt (default 30 s).
  ///   - poster: how the POST is sent (default: libcurl on Linux, URLSession elsewhere).
  /// - Throws: ``FinishStepError`` for any other URL (plain HTTP would carry the
  ///   descriptions, and any secret in the URL, in the clear).
  public init(
    url: URL, timeout: Duration = .seconds(30), poster: any HTTPPoster = PlatformHTTPPoster()
  ) throws(FinishStepError) {
    let scheme = url.scheme?.lowercased()
    guard url.host != nil, scheme == "https" || (scheme == "http" && LoopbackHost.isLoopback(url))
    else {
      throw FinishStepError(
        "a webhook URL must be https://, or http:// to this machine (127.0.0.1, ::1, localhost)")
    }
    self.url = url
    self.timeout = timeout
    self.poster = poster
  }

  public func run(_ recording: FinishedRecording, attempt: FinishAttempt)
    async throws(FinishStepError)
  {
    let status: Int
    do {
      status = try await poster.post(
        recording.json(), to: url,
        headers: ["Content-Type": "application/json", "Idempotency-Key": attempt.idempotencyKey],
        timeout: timeout)
    } catch {
      throw FinishStepError("webhook: \(error)")
    }
    guard (200..<300).contains(status) else { throw FinishStepError("webhook: HTTP \(status)") }
  }
}
