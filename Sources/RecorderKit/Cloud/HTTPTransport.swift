import Foundation

/// One HTTP request as RecorderKit sends it to the cloud or an upload endpoint.
struct HTTPRequestSpec: Sendable {
  var method: String
  var url: URL
  /// Header fields in order; a name or value holding a line break is refused.
  var headers: [(name: String, value: String)] = []
  var body: [UInt8]?
}

/// The bounds every exchange runs under. A server can make an exchange fail; it cannot make
/// one last longer than ``deadline`` nor hold more than ``maximumBody`` bytes of its answer.
struct HTTPBounds: Sendable {
  /// The whole exchange, from connecting to the last byte (real time).
  var deadline: Duration
  /// The longest wait for the next byte (real time, whole seconds, at least one).
  var idle: Duration
  /// The most body bytes taken. For a ``HTTPBodySink/file(path:)`` sink it bounds the file,
  /// bytes from an earlier attempt included.
  var maximumBody: Int64
}

/// Where an answer's body goes.
enum HTTPBodySink: Sendable {
  /// Collected into ``HTTPExchange/body``.
  case memory
  /// A 200 body replaces the file at `path`, a 206 body is appended to it; the file is
  /// created 0600 and never opened through a symbolic link. Any other status leaves the
  /// file alone and its body, up to ``HTTPTransportLimits/errorBody`` bytes, comes back in
  /// the exchange.
  case file(path: String)
  /// Only the status and header fields matter: the exchange ends at the first body byte.
  case discard
}

/// What one HTTP exchange produced.
struct HTTPExchange: Sendable {
  var status: Int
  /// Header fields of the final answer, names lower-cased.
  var headers: [String: String]
  var body: [UInt8]
}

/// Why an exchange produced no answer; the first two may pass with a retry.
enum HTTPTransportFailure: Error, Sendable, Equatable {
  /// The deadline passed, or no byte came for the idle timeout.
  case timedOut
  /// The connection was refused, reset or cut mid-answer.
  case connectionLost
  /// The answer's body (or its header fields) went past the bound.
  case tooLarge(limit: Int64)
  /// DNS, TLS, a malformed URL or header, a local write: retrying will not help.
  case fatal(String)
  case cancelled
}

enum HTTPTransportLimits {
  /// The most bytes of a non-2xx body kept by a file sink.
  static let errorBody = 4096
  /// The most bytes of header fields an answer may carry.
  static let headerBytes = 64 * 1024
}

/// Sends one request and receives its answer. Redirects are never followed: a 3xx comes
/// back as the answer (the user token goes only where the caller sent it, and an upload is
/// acknowledged only by the endpoint it was posted to).
protocol HTTPTransport: Sendable {
  /// - Parameter received: told the bytes a file sink's file holds after each write.
  func exchange(
    _ request: HTTPRequestSpec, bounds: HTTPBounds, sink: HTTPBodySink,
    received: @escaping @Sendable (Int64) -> Void
  ) async -> Result<HTTPExchange, HTTPTransportFailure>
}

extension HTTPTransport {
  func exchange(_ request: HTTPRequestSpec, bounds: HTTPBounds, sink: HTTPBodySink = .memory)
    async -> Result<HTTPExchange, HTTPTransportFailure>
  {
    await exchange(request, bounds: bounds, sink: sink, received: { _ in })
  }
}

/// The platform's transport: libcurl on Linux (it sleeps while it waits; FoundationNetworking
/// polls), URLSession on Apple platforms.
enum HTTPTransports {
  static var platform: any HTTPTransport {
    #if canImport(CCurl)
      CurlTransport()
    #else
      URLSessionTransport()
    #endif
  }

  /// A header field safe to put on the wire: no line breaks, no NUL, a token for a name.
  static func isSafe(_ field: (name: String, value: String)) -> Bool {
    let forbidden: Set<UInt8> = [0x0D, 0x0A, 0x00]
    return !field.name.isEmpty
      && !field.name.utf8.contains(where: { forbidden.contains($0) || $0 == 0x3A || $0 == 0x20 })
      && !field.value.utf8.contains(where: forbidden.contains)
  }
}

/// Writes a file sink's body: opened without following a symbolic link, created 0600.
/// Used from one thread at a time (the transfer's).
final class HTTPFileWriter {
  private var descriptor: Int32 = -1
  private(set) var size: Int64 = 0

  /// Opens `path` for a `status` 200 (truncated) or 206 (appended) body.
  func open(_ path: String, status: Int) -> String? {
    let flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | (status == 200 ? O_TRUNC : 0)
    descriptor = Foundation.open(path, flags, 0o600)
    guard descriptor >= 0 else { return "cannot open for writing (errno \(errno))" }
    let end = lseek(descriptor, 0, SEEK_END)
    guard end >= 0 else { return "cannot seek (errno \(errno))" }
    size = Int64(end)
    return nil
  }

  var isOpen: Bool { descriptor >= 0 }

  /// Appends `bytes`; nil on success, else the reason.
  func write(_ bytes: UnsafeRawBufferPointer) -> String? {
    var offset = 0
    while offset < bytes.count {
      let written = Foundation.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
      if written < 0 {
        if errno == EINTR { continue }
        return "cannot write (errno \(errno))"
      }
      offset += written
    }
    size += Int64(bytes.count)
    return nil
  }

  /// Flushes to disk and closes; nil on success.
  func close() -> String? {
    guard descriptor >= 0 else { return nil }
    defer { descriptor = -1 }
    let synced = fsync(descriptor) == 0
    let closed = Foundation.close(descriptor) == 0
    return synced && closed ? nil : "cannot flush the file"
  }

  deinit { _ = close() }
}
