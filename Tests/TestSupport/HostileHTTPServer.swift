import Foundation
import RecorderConcurrency
import RecorderSockets

/// An HTTP/1.1 server on loopback that answers as a hostile or broken server would: redirects,
/// endless or huge bodies, answers dripped a byte at a time. Every request it read is kept
/// for the test to inspect.
public final class HostileHTTPServer: Sendable {
  /// How one request is answered.
  public enum Answer: Sendable {
    /// An answer with `Content-Length` (the body's, unless `headers` declare another).
    case respond(status: Int, headers: [(String, String)] = [], body: [UInt8] = [])
    /// A redirect to `location`.
    case redirect(status: Int, location: String)
    /// A complete answer after `delay` of real time (a slow server, not a hostile one).
    case late(delay: Duration, status: Int, body: [UInt8])
    /// A 200 head without a length, then zeros as fast as the client takes them, forever.
    case endless(status: Int = 200)
    /// The whole answer (head and `body`), one byte every `interval` of real time: the pacing
    /// of the hostile peer, never of the test.
    case drip(status: Int = 200, body: [UInt8], interval: Duration)
  }

  /// One request as it arrived.
  public struct Request: Sendable {
    public var method: String
    public var target: String
    /// Header fields, names lower-cased.
    public var headers: [String: String]
    public var body: [UInt8]
  }

  public let port: UInt16
  /// `http://127.0.0.1:PORT`.
  public var url: String { "http://127.0.0.1:\(port)" }
  private let listener: SocketListener
  private let state = Locked(State())
  private let acceptor = Locked<Task<Void, Never>?>(nil)

  private struct State {
    var requests: [Request] = []
    var connections: [SocketConnection] = []
    /// Bytes written by the endless and dripped answers.
    var sent: Int64 = 0
  }

  /// Starts listening on `host` (127.0.0.1, or 127.0.0.2 for "another host"); `answer` is
  /// asked for each request with its index (0 first).
  public init(
    host: String = "127.0.0.1", answer: @escaping @Sendable (Int, Request) -> Answer
  ) throws {
    listener = try SocketListener(host: host, port: 0)
    port = listener.port
    let listener = self.listener
    let state = self.state
    acceptor.withLock {
      $0 = Task.detached {
        while let connection = try? await listener.accept() {
          state.withLock { $0.connections.append(connection) }
          Task.detached { await Self.serve(connection, state: state, answer: answer) }
        }
      }
    }
  }

  deinit { stop() }

  /// The requests read so far.
  public var requests: [Request] { state.withLock { $0.requests } }
  /// Body bytes written by endless and dripped answers so far.
  public var bytesSent: Int64 { state.withLock { $0.sent } }

  public func stop() {
    listener.close()
    acceptor.withLock { $0?.cancel() }
    for connection in state.withLock({ $0.connections }) { connection.close() }
  }

  private static func serve(
    _ connection: SocketConnection, state: Locked<State>,
    answer: @Sendable (Int, Request) -> Answer
  ) async {
    defer { connection.close() }
    var buffer: [UInt8] = []
    while true {
      guard let request = await readRequest(connection, buffer: &buffer) else { return }
      let index = state.withLock { state -> Int in
        state.requests.append(request)
        return state.requests.count - 1
      }
      do {
        switch answer(index, request) {
        case .respond(let status, let headers, let body):
          let declared = headers.contains { $0.0.lowercased() == "content-length" }
          let length = declared ? [] : [("Content-Length", "\(body.count)")]
          try await connection.write(head(status, headers + length))
          try await connection.write(body)
        case .late(let delay, let status, let body):
          try await Task.sleep(for: delay)
          try await connection.write(head(status, [("Content-Length", "\(body.count)")]) + body)
        case .redirect(let status, let location):
          try await connection.write(
            head(status, [("Location", location), ("Content-Length", "0")]))
        case .endless(let status):
          try await connection.write(head(status, [("Connection", "close")]))
          let chunk = [UInt8](repeating: 0, count: 64 * 1024)
          while true {
            try await connection.write(chunk)
            state.withLock { $0.sent += Int64(chunk.count) }
          }
        case .drip(let status, let body, let interval):
          let bytes = head(status, [("Content-Length", "\(body.count)")]) + body
          for byte in bytes {
            try await connection.write([byte])
            state.withLock { $0.sent += 1 }
            try await Task.sleep(for: interval)
          }
        }
      } catch {
        return
      }
    }
  }

  private static func head(_ status: Int, _ headers: [(String, String)]) -> [UInt8] {
    var text = "HTTP/1.1 \(status) Status\r\n"
    for (name, value) in headers { text += "\(name): \(value)\r\n" }
    return Array((text + "\r\n").utf8)
  }

  /// Reads one request (head and a `Content-Length` body); nil at end of stream.
  private static func readRequest(_ connection: SocketConnection, buffer: inout [UInt8]) async
    -> Request?
  {
    let separator: [UInt8] = Array("\r\n\r\n".utf8)
    func headEnd() -> Int? {
      guard buffer.count >= 4 else { return nil }
      for index in 0...(buffer.count - 4) where Array(buffer[index..<index + 4]) == separator {
        return index
      }
      return nil
    }
    while headEnd() == nil {
      guard buffer.count < 64 * 1024, let bytes = try? await connection.read(upTo: 16 * 1024),
        !bytes.isEmpty
      else { return nil }
      buffer += bytes
    }
    guard let end = headEnd() else { return nil }
    let lines = String(decoding: buffer[..<end], as: UTF8.self).components(separatedBy: "\r\n")
    buffer.removeFirst(end + 4)
    let parts = lines.first?.split(separator: " ").map(String.init) ?? []
    guard parts.count >= 2 else { return nil }
    var headers: [String: String] = [:]
    for line in lines.dropFirst() {
      guard let colon = line.firstIndex(of: ":") else { continue }
      headers[line[..<colon].lowercased()] =
        line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    let length = headers["content-length"].flatMap { Int($0) } ?? 0
    while buffer.count < length {
      guard let bytes = try? await connection.read(upTo: 16 * 1024), !bytes.isEmpty else {
        return nil
      }
      buffer += bytes
    }
    let body = Array(buffer.prefix(length))
    buffer.removeFirst(length)
    return Request(method: parts[0], target: parts[1], headers: headers, body: body)
  }
}
