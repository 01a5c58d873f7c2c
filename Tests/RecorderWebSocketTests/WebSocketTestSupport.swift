import Foundation
import RecorderSockets
import TestSupport

@testable import RecorderWebSocket

/// A hand-driven WebSocket client over a plain socket: it sends whatever bytes a test wants
/// (unmasked frames, half frames, garbage) and reads the server's frames with a client-role
/// parser, so a test sees exactly which close code the server sent before TCP ended.
struct RawWebSocketClient {
  let socket: SocketConnection
  var parser = WebSocketParser(role: .client)

  static let key = "dGhlIHNhbXBsZSBub25jZQ=="

  static func connect(port: UInt16) async throws -> RawWebSocketClient {
    RawWebSocketClient(socket: try await SocketConnection.connect(host: "127.0.0.1", port: port))
  }

  /// Sends `request` (a valid upgrade by default) and returns the server's HTTP head as text
  /// (empty when the server closed before answering). Frame bytes after the head stay queued.
  mutating func upgrade(_ request: [UInt8]? = nil) async throws -> String {
    try await socket.write(
      request
        ?? WebSocketHandshake.request(host: "127.0.0.1", port: 1, target: "/", key: Self.key))
    var bytes: [UInt8] = []
    while true {
      if let end = bytes.indices.dropFirst(3).first(where: {
        bytes[$0 - 3...$0].elementsEqual([13, 10, 13, 10])
      }) {
        parser.append(bytes[(end + 1)...])
        return String(decoding: bytes[...end], as: UTF8.self)
      }
      let chunk = try await socket.read(upTo: 4096)
      if chunk.isEmpty { return String(decoding: bytes, as: UTF8.self) }
      bytes += chunk
    }
  }

  /// The server's next event, or nil at end of stream.
  mutating func next() async throws -> WebSocketEvent? {
    while true {
      if let event = try parser.next() { return event }
      let chunk = try await socket.read(upTo: 65536)
      if chunk.isEmpty { return nil }
      parser.append(chunk)
    }
  }

  /// True when the server has closed TCP (after whatever frames are still queued).
  mutating func readsEndOfStream() async throws -> Bool {
    while true {
      if try parser.next() != nil { continue }
      let chunk = try await socket.read(upTo: 65536)
      if chunk.isEmpty { return true }
      parser.append(chunk)
    }
  }

  func send(_ bytes: [UInt8]) async throws { try await socket.write(bytes) }

  func send(_ frame: WebSocketFrame) async throws {
    try await socket.write(frame.encoded(maskingKey: [1, 2, 3, 4]))
  }
}

/// Waits (yielding, never sleeping) until `condition` holds; gives up after `limit` real
/// seconds so a broken test fails rather than hangs.
func eventually(
  _ limit: Double = 10, _ condition: @Sendable () async -> Bool
) async -> Bool {
  let start = ContinuousClock.now
  while ContinuousClock.now - start < .seconds(limit) {
    if await condition() { return true }
    await Task.yield()
  }
  return false
}
