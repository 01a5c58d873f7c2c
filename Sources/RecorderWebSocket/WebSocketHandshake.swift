import Foundation
import RecorderCrypto

/// The WebSocket opening handshake (RFC 6455 §4): the server validates the client's HTTP/1.1
/// Upgrade request and answers 101 with Sec-WebSocket-Accept; the client builds the request
/// and checks that answer.
public enum WebSocketHandshake {
  /// The GUID every server appends to the client's key (§1.3).
  public static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
  /// The only protocol version (§4.1).
  public static let version = "13"

  /// A request the server accepted.
  public struct Request: Sendable, Equatable {
    /// The request target ("/", or whatever path the device asked for).
    public var target: String
    /// The client's Sec-WebSocket-Key, as sent.
    public var key: String
    /// The Host header.
    public var host: String
  }

  /// `base64(SHA-1(key + GUID))` (§4.2.2 point 5.4).
  public static func acceptValue(forKey key: String) -> String {
    Data(sha1(Array((key + guid).utf8))).base64EncodedString()
  }

  /// Checks a parsed request head against §4.2.1: GET, HTTP/1.1 or later, Host, Upgrade:
  /// websocket, Connection: Upgrade, a Sec-WebSocket-Key of 16 base64 bytes, version 13.
  public static func validate(_ head: HTTPUpgradeHead) throws(HTTPUpgradeError) -> Request {
    guard head.startLine.count == 3, !head.startLine[1].isEmpty,
      head.startLine.allSatisfy({ !$0.contains(" ") })
    else { throw .malformedRequestLine }
    guard head.startLine[0] == "GET" else { throw .methodNotGET }
    guard isHTTP11OrLater(head.startLine[2]) else { throw .unsupportedHTTPVersion }
    let hosts = head.values("Host")
    guard hosts.count == 1 else { throw .missingHeader("Host") }
    guard head.tokens("Upgrade").contains("websocket") else { throw .notAWebSocketUpgrade }
    guard head.tokens("Connection").contains("upgrade") else { throw .connectionNotUpgrade }
    let keys = head.values("Sec-WebSocket-Key")
    guard keys.count == 1 else { throw .missingHeader("Sec-WebSocket-Key") }
    guard keys[0].utf8.count == 24, let decoded = Data(base64Encoded: keys[0]), decoded.count == 16
    else { throw .invalidKey }
    guard head.values("Sec-WebSocket-Version") == [version] else {
      throw .unsupportedWebSocketVersion
    }
    return Request(target: head.startLine[1], key: keys[0], host: hosts[0])
  }

  /// The server's 101 answer to `request`. No subprotocol, no extensions.
  public static func response(to request: Request) -> [UInt8] {
    Array(
      ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Accept: \(acceptValue(forKey: request.key))\r\n\r\n").utf8)
  }

  /// The server's refusal of a request that failed `error`, then it closes the socket.
  /// A 426 names the version we speak (§4.4).
  public static func refusal(_ error: HTTPUpgradeError) -> [UInt8] {
    let reason: String
    switch error.status {
    case 405: reason = "Method Not Allowed"
    case 426: reason = "Upgrade Required"
    case 431: reason = "Request Header Fields Too Large"
    case 505: reason = "HTTP Version Not Supported"
    default: reason = "Bad Request"
    }
    var text = "HTTP/1.1 \(error.status) \(reason)\r\n"
    if error.status == 426 { text += "Sec-WebSocket-Version: \(version)\r\n" }
    text += "Connection: close\r\nContent-Length: 0\r\n\r\n"
    return Array(text.utf8)
  }

  /// A fresh client key: base64 of 16 random bytes (§4.1 point 7).
  public static func makeKey() -> String {
    var generator = SystemRandomNumberGenerator()
    return Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
      .base64EncodedString()
  }

  /// The client's Upgrade request for `host:port` and `target`.
  public static func request(host: String, port: UInt16, target: String, key: String) -> [UInt8] {
    Array(
      ("GET \(target) HTTP/1.1\r\nHost: \(host):\(port)\r\nUpgrade: websocket\r\n"
        + "Connection: Upgrade\r\nSec-WebSocket-Key: \(key)\r\n"
        + "Sec-WebSocket-Version: \(version)\r\n\r\n").utf8)
  }

  /// Checks the server's answer to a request sent with `key` (§4.1, the client's rules):
  /// status 101, Upgrade: websocket, Connection: Upgrade, the matching accept value.
  public static func validateResponse(_ head: HTTPUpgradeHead, key: String) throws(WebSocketError) {
    guard head.startLine.count >= 2, isHTTP11OrLater(head.startLine[0]),
      let status = Int(head.startLine[1])
    else { throw .handshake(.malformedStatusLine) }
    guard status == 101 else { throw .handshake(.unexpectedStatus(status)) }
    guard head.tokens("Upgrade").contains("websocket") else {
      throw .handshake(.notAWebSocketUpgrade)
    }
    guard head.tokens("Connection").contains("upgrade") else {
      throw .handshake(.connectionNotUpgrade)
    }
    guard head.values("Sec-WebSocket-Accept") == [acceptValue(forKey: key)] else {
      throw .acceptMismatch
    }
  }

  private static func isHTTP11OrLater(_ version: String) -> Bool {
    guard version.hasPrefix("HTTP/") else { return false }
    let numbers = version.dropFirst(5).split(separator: ".", omittingEmptySubsequences: false)
    guard numbers.count == 2, let major = Int(numbers[0]), let minor = Int(numbers[1]),
      numbers.allSatisfy({ $0.allSatisfy(\.isASCII) && !$0.isEmpty })
    else { return false }
    return major > 1 || (major == 1 && minor >= 1)
  }

  /// SHA-1 (what §4.2.2 mandates; it is not used for security here).
  static func sha1(_ bytes: [UInt8]) -> [UInt8] { Digest.sha1(bytes) }
}
