import Foundation
import RecorderConcurrency
import RecorderSockets
import RecorderWebSocket
import Testing

/// Issue 15: the plain HTTP/1.1 request parser and the small server under the cloud emulator.
@Suite("HTTP requests and the small HTTP server")
struct HTTPRequestTests {
  @Test("a request with a body parses; partial input waits; path and query decode")
  func parses() throws {
    let text =
      "POST /developer/api/x?sn=88%2012&type=note+pro HTTP/1.1\r\nHost: a\r\n"
      + "Content-Length: 5\r\nAuthorization: Bearer t\r\n\r\nhelloEXTRA"
    let bytes = Array(text.utf8)
    let (request, consumed) = try #require(try HTTPRequest.parse(bytes))
    #expect(request.method == "POST")
    #expect(request.path == "/developer/api/x")
    #expect(request.query == ["sn": "88 12", "type": "note pro"])
    #expect(request.body == Array("hello".utf8))
    #expect(request.header("authorization") == "Bearer t")
    #expect(consumed == bytes.count - "EXTRA".utf8.count)
    for cut in [0, 10, text.utf8.count - 10] {
      #expect(try HTTPRequest.parse(Array(bytes.prefix(cut))) == nil, "cut \(cut)")
    }
  }

  @Test("malformed requests are typed errors with their status")
  func malformed() {
    let cases: [(String, HTTPMessageError)] = [
      (
        "GET /x HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nab", .invalidContentLength
      ),
      ("GET /x HTTP/1.1\r\nContent-Length: -1\r\n\r\n", .invalidContentLength),
      ("GET /x HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n", .invalidContentLength),
      ("GET /x HTTP/1.1\r\nContent-Length: 1e3\r\n\r\n", .invalidContentLength),
      ("GET /x HTTP/1.1\r\nContent-Length: 70000\r\n\r\n", .bodyTooLarge(limit: 65536)),
      ("GET /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", .transferEncodingNotSupported),
      ("get /x HTTP/1.1\r\n\r\n", .malformedRequestLine),
      ("GET x HTTP/1.1\r\n\r\n", .malformedRequestLine),
      ("GET /x HTTP/2\r\n\r\n", .malformedRequestLine),
      ("GET /x\r\n\r\n", .malformedRequestLine),
      ("GET /x HTTP/1.1\r\nBad Header\r\n\r\n", .head(.malformedHeaderField)),
      ("GET /x HTTP/1.1\r\nA: \u{1}\r\n\r\n", .head(.invalidCharacters)),
    ]
    for (text, error) in cases {
      #expect(throws: error, "\(text.debugDescription)") { try HTTPRequest.parse(Array(text.utf8)) }
    }
    #expect(HTTPMessageError.bodyTooLarge(limit: 1).status == 413)
    #expect(HTTPMessageError.transferEncodingNotSupported.status == 501)
    #expect(throws: HTTPMessageError.head(.headTooLarge(limit: 8192))) {
      try HTTPRequest.parse(Array(repeating: UInt8(ascii: "a"), count: 9000))
    }
  }

  @Test("seeded garbage never traps: a request, nil, or a typed error")
  func garbage() {
    var state: UInt64 = 0x15_4854
    for _ in 0..<2000 {
      state = state &* 6_364_136_223_846_793_005 &+ 1
      let count = Int(state >> 56)
      var bytes = Array("POST /a HTTP/1.1\r\nContent-Length: 3\r\n\r\n".utf8)
      for index in 0..<count {
        state = state &* 6_364_136_223_846_793_005 &+ 1
        let position = Int(state >> 33) % bytes.count
        bytes[position] = UInt8(truncatingIfNeeded: state >> 17 &+ UInt64(index))
      }
      _ = try? HTTPRequest.parse(bytes)
    }
  }

  @Test(
    "the server answers, refuses malformed requests with their status, and cuts truncated bodies")
  func server() async throws {
    let server = try HTTPServer { request in
      if request.path == "/cut" {
        return HTTPResponse(
          status: 200, body: Array(repeating: 7, count: 100),
          delivery: .truncated(afterBodyBytes: 10))
      }
      return .json(200, #"{"echo":"\#(request.method)"}"#)
    }
    defer { server.stop() }
    func exchange(_ text: String) async throws -> String {
      let socket = try await SocketConnection.connect(host: "127.0.0.1", port: server.port)
      defer { socket.close() }
      try await socket.write(Array(text.utf8))
      var answer: [UInt8] = []
      while true {
        let chunk = try await socket.read(upTo: 4096)
        if chunk.isEmpty { break }
        answer += chunk
      }
      return String(decoding: answer, as: UTF8.self)
    }
    let ok = try await exchange("GET /x HTTP/1.1\r\nHost: a\r\n\r\n")
    #expect(ok.hasPrefix("HTTP/1.1 200 OK\r\n") && ok.hasSuffix(#"{"echo":"GET"}"#))
    #expect(ok.contains("Connection: close\r\n"))
    let chunked = try await exchange("POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n")
    #expect(chunked.hasPrefix("HTTP/1.1 501 "))
    let bad = try await exchange("GET /x HTTP/1.1\r\nContent-Length: x\r\n\r\n")
    #expect(bad.hasPrefix("HTTP/1.1 400 "))
    let cut = try await exchange("GET /cut HTTP/1.1\r\n\r\n")
    #expect(cut.contains("Content-Length: 100\r\n"))
    #expect(cut.split(separator: "\r\n\r\n").last?.utf8.count == 10)
  }
}
