import Testing

@testable import RecorderWebSocket

private func request(_ lines: [String]) -> [UInt8] {
  Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
}

private let goodLines = [
  "GET /chat HTTP/1.1", "Host: server.example.com", "Upgrade: websocket",
  "Connection: keep-alive, Upgrade", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
  "Sec-WebSocket-Version: 13",
]

private func replacing(_ prefix: String, with line: String?) -> [String] {
  goodLines.compactMap { $0.hasPrefix(prefix) ? line : $0 }
}

/// Parses and validates `bytes`; the error, or nil when they make a valid upgrade.
private func refusal(_ bytes: [UInt8], limits: HTTPUpgradeHead.Limits = .init())
  -> HTTPUpgradeError?
{
  do throws(HTTPUpgradeError) {
    guard let (head, _) = try HTTPUpgradeHead.parse(bytes, limits: limits) else {
      return .malformedRequestLine
    }
    _ = try WebSocketHandshake.validate(head)
    return nil
  } catch {
    return error
  }
}

@Suite("WebSocket opening handshake (RFC 6455 §4): HTTP/1.1 Upgrade, limits, accept key")
struct WebSocketHandshakeTests {
  /// RFC 6455 §1.3's example key and answer.
  @Test func acceptValueMatchesTheRFC() {
    #expect(
      WebSocketHandshake.acceptValue(forKey: "dGhlIHNhbXBsZSBub25jZQ==")
        == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
  }

  @Test func validRequestIsAcceptedAndLeftoverKept() throws {
    let bytes = request(goodLines) + [0x81, 0x80]
    let (head, consumed) = try #require(try HTTPUpgradeHead.parse(bytes))
    #expect(Array(bytes[consumed...]) == [0x81, 0x80])
    let accepted = try WebSocketHandshake.validate(head)
    #expect(accepted.target == "/chat" && accepted.host == "server.example.com")
    let response = String(decoding: WebSocketHandshake.response(to: accepted), as: UTF8.self)
    #expect(response.hasPrefix("HTTP/1.1 101 Switching Protocols\r\n"))
    #expect(response.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"))
    // Header names are case-insensitive, tokens too, and HTTP/1.2 is "1.1 or later".
    let odd = request([
      "GET / HTTP/1.2", "host: h", "UPGRADE: WebSocket", "connection: UPGRADE",
      "sec-websocket-key:   dGhlIHNhbXBsZSBub25jZQ==  ", "SEC-WEBSOCKET-VERSION: 13",
    ])
    #expect(refusal(odd) == nil)
  }

  @Test func incompleteHeadWaitsForMore() throws {
    let bytes = request(goodLines)
    for cut in [0, 1, 10, bytes.count - 1] {
      #expect(try HTTPUpgradeHead.parse(Array(bytes.prefix(cut))) == nil)
    }
  }

  @Test func limitsOnSizeAndFieldCount() {
    let limits = HTTPUpgradeHead.Limits(maxHeadBytes: 256, maxFields: 8)
    // No blank line within the limit: refused without waiting for more.
    let endless = Array("GET / HTTP/1.1\r\nX: ".utf8) + [UInt8](repeating: 0x61, count: 300)
    #expect(refusal(endless, limits: limits) == .headTooLarge(limit: 256))
    let long = request(goodLines + ["X-Pad: " + String(repeating: "a", count: 200)])
    #expect(refusal(long, limits: limits) == .headTooLarge(limit: 256))
    let many = request(goodLines + (0..<4).map { "X-\($0): 1" })
    #expect(refusal(many, limits: limits) == .tooManyHeaderFields(limit: 8))
    #expect(HTTPUpgradeError.headTooLarge(limit: 1).status == 431)
  }

  @Test func malformedHeadsAreRefused() {
    #expect(refusal(request(["GET / HTTP/1.1", "Host: a\u{0}b"])) == .invalidCharacters)
    #expect(refusal(Array("GET / HTTP/1.1\rHost: x\r\n\r\n".utf8)) == .invalidCharacters)
    #expect(refusal(Array("GET / HTTP/1.1\nHost: x\r\n\r\n".utf8)) == .invalidCharacters)
    #expect(refusal(request(["GET / HTTP/1.1", "Host: caf\u{e9}"])) == .invalidCharacters)
    #expect(refusal(request(["GET /  HTTP/1.1"] + goodLines.dropFirst())) == .malformedRequestLine)
    #expect(refusal(request(["GET"] + goodLines.dropFirst())) == .malformedRequestLine)
    #expect(refusal(request(goodLines + ["NoColon"])) == .malformedHeaderField)
    #expect(refusal(request(goodLines + [": empty name"])) == .malformedHeaderField)
    #expect(refusal(request(goodLines + [" folded: line"])) == .malformedHeaderField)
    #expect(refusal(request(goodLines + ["Bad Name: x"])) == .malformedHeaderField)
  }

  @Test func handshakeRulesAreEnforced() {
    #expect(refusal(request(["POST /chat HTTP/1.1"] + goodLines.dropFirst())) == .methodNotGET)
    #expect(
      refusal(request(["GET /chat HTTP/1.0"] + goodLines.dropFirst())) == .unsupportedHTTPVersion)
    #expect(
      refusal(request(["GET /chat HTTQ/1.1"] + goodLines.dropFirst())) == .unsupportedHTTPVersion)
    #expect(refusal(request(replacing("Host", with: nil))) == .missingHeader("Host"))
    #expect(refusal(request(goodLines + ["Host: again"])) == .missingHeader("Host"))
    #expect(refusal(request(replacing("Upgrade", with: nil))) == .notAWebSocketUpgrade)
    #expect(refusal(request(replacing("Upgrade", with: "Upgrade: h2c"))) == .notAWebSocketUpgrade)
    #expect(
      refusal(request(replacing("Connection", with: "Connection: keep-alive")))
        == .connectionNotUpgrade)
    #expect(
      refusal(request(replacing("Sec-WebSocket-Key", with: nil)))
        == .missingHeader("Sec-WebSocket-Key"))
    #expect(
      refusal(request(goodLines + ["Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=="]))
        == .missingHeader("Sec-WebSocket-Key"))
    for key in [
      "short", "dGhlIHNhbXBsZSBub25jZQ", "dGhlIHNhbXBsZSBub25j!Q==", "AAAAAAAAAAAAAAAAAAAAAAAA",
    ] {
      #expect(
        refusal(request(replacing("Sec-WebSocket-Key", with: "Sec-WebSocket-Key: \(key)")))
          == .invalidKey, "\(key)")
    }
    #expect(
      refusal(request(replacing("Sec-WebSocket-Version", with: "Sec-WebSocket-Version: 8")))
        == .unsupportedWebSocketVersion)
    #expect(
      refusal(request(replacing("Sec-WebSocket-Version", with: nil)))
        == .unsupportedWebSocketVersion)
  }

  @Test func refusalsCarryTheRightStatus() {
    let text = String(
      decoding: WebSocketHandshake.refusal(.unsupportedWebSocketVersion), as: UTF8.self)
    #expect(text.hasPrefix("HTTP/1.1 426 Upgrade Required\r\n"))
    #expect(text.contains("Sec-WebSocket-Version: 13\r\n"))
    #expect(
      String(decoding: WebSocketHandshake.refusal(.invalidKey), as: UTF8.self)
        .hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
    #expect(HTTPUpgradeError.methodNotGET.status == 405)
  }

  @Test func clientChecksTheServersAnswer() throws {
    let key = WebSocketHandshake.makeKey()
    let accepted = WebSocketHandshake.Request(target: "/", key: key, host: "h")
    let (good, _) = try #require(
      try HTTPUpgradeHead.parse(WebSocketHandshake.response(to: accepted)))
    try WebSocketHandshake.validateResponse(good, key: key)
    #expect(throws: WebSocketError.acceptMismatch) {
      try WebSocketHandshake.validateResponse(good, key: WebSocketHandshake.makeKey())
    }
    let (refused, _) = try #require(
      try HTTPUpgradeHead.parse(WebSocketHandshake.refusal(.invalidKey)))
    #expect(throws: WebSocketError.handshake(.unexpectedStatus(400))) {
      try WebSocketHandshake.validateResponse(refused, key: key)
    }
    let (garbled, _) = try #require(try HTTPUpgradeHead.parse(Array("HTTP/1.1 abc\r\n\r\n".utf8)))
    #expect(throws: WebSocketError.handshake(.malformedStatusLine)) {
      try WebSocketHandshake.validateResponse(garbled, key: key)
    }
    // A fresh key is 16 random bytes in base64 and differs each time.
    #expect(key.utf8.count == 24 && key != WebSocketHandshake.makeKey())
  }
}
