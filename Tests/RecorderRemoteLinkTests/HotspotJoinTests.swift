import Foundation
import RecorderConcurrency
import RecorderRemoteLink
import RecorderSockets
import Testing

/// The hotspot join port (docs/tcp-link.md): the request line's parser against malformed
/// input, and the exchange over real loopback TCP, accepted, refused and garbled.
@Suite("Hotspot join port")
struct HotspotJoinTests {
  @Test func wellFormedLineRoundTrips() throws {
    let request = try #require(
      HotspotJoinRequest(line: "JOIN PLAUD0123 pass1234 8081", phoneHost: "10.0.0.2"))
    #expect(request.ssid == "PLAUD0123")
    #expect(request.password == "pass1234")
    #expect(request.serverPort == 8081)
    #expect(request.phoneHost == "10.0.0.2")
    #expect(request.line == "JOIN PLAUD0123 pass1234 8081\n")
  }

  @Test(
    "malformed request lines are refused",
    arguments: [
      "", "JOIN", "JOIN a b", "JOIN a b c", "JOIN a b 0", "JOIN a b 65536", "JOIN a b -1",
      "JOIN  b 80", "JOIN a  80", "join a b 80", "JOIN a b 80 extra", "JOIN a b 8O",
      "LEAVE a b 80", "JOIN a b 80 ", " JOIN a b 80", "JOIN\ta b 80", "JOIN a b +4",
      "JOIN a b 080", "JOIN a b ８０",
    ])
  func malformedLines(line: String) {
    #expect(HotspotJoinRequest(line: line, phoneHost: "127.0.0.1") == nil)
  }

  @Test("accepted, refused with a reason, and a garbled request, over loopback TCP")
  func exchange() async throws {
    let seen = Locked<[HotspotJoinRequest]>([])
    let server = try HotspotJoinServer { request in
      seen.withLock { $0.append(request) }
      return request.password == "right123" ? nil : "wrong password"
    }
    defer { server.stop() }
    try await HotspotJoinClient.join(
      host: "127.0.0.1", port: server.port, ssid: "PLAUD0123", password: "right123",
      serverPort: 9000)
    #expect(seen.withLock { $0 }.map(\.serverPort) == [9000])
    #expect(seen.withLock { $0 }.first?.phoneHost == "127.0.0.1")
    await #expect(throws: HotspotJoinError.refused("wrong password")) {
      try await HotspotJoinClient.join(
        host: "127.0.0.1", port: server.port, ssid: "PLAUD0123", password: "wrong123",
        serverPort: 9000)
    }
    await #expect(throws: HotspotJoinError.refused("the SSID and password cannot contain spaces")) {
      try await HotspotJoinClient.join(
        host: "127.0.0.1", port: server.port, ssid: "PLAUD 0123", password: "right123",
        serverPort: 9000)
    }
    // A client that sends garbage gets one error line, and the handler never sees it.
    let raw = try await SocketConnection.connect(host: "127.0.0.1", port: server.port)
    try await raw.write(Array("HELLO THERE\n".utf8))
    var answer: [UInt8] = []
    while !answer.contains(0x0A) {
      let chunk = try await raw.read(upTo: 256)
      if chunk.isEmpty { break }
      answer += chunk
    }
    raw.close()
    #expect(String(decoding: answer, as: UTF8.self) == "ERR malformed request\n")
    #expect(seen.withLock { $0 }.count == 2)
  }

  @Test("a lost answer: the device took the join, the phone hears only the close")
  func lostAnswers() async throws {
    let seen = Locked(0)
    let server = try HotspotJoinServer(losingFirstAnswers: 1) { request in
      seen.withLock { $0 += 1 }
      return request.password == "right123" ? nil : "wrong password"
    }
    defer { server.stop() }
    func join(_ password: String) async throws(HotspotJoinError) {
      try await HotspotJoinClient.join(
        host: "127.0.0.1", port: server.port, ssid: "PLAUD0123", password: password,
        serverPort: 9000)
    }
    // A refusal is answered and does not use up the lost answer; the first acceptance is
    // lost, the next one answered.
    await #expect(throws: HotspotJoinError.refused("wrong password")) { try await join("wrong123") }
    await #expect(throws: HotspotJoinError.unanswered) { try await join("right123") }
    try await join("right123")
    #expect(seen.withLock { $0 } == 3, "the device decided every join")
  }

  @Test("an answer without a newline within the line limit is malformed, a close unanswered")
  func overlongAnswer() async throws {
    let listener = try SocketListener(host: "127.0.0.1", port: 0)
    defer { listener.close() }
    let answers = [
      String(repeating: "O", count: HotspotJoinRequest.maximumLineLength), "OK (no newline)",
    ]
    let peer = Task {
      for answer in answers {
        let connection = try await listener.accept()
        _ = try await connection.read(upTo: HotspotJoinRequest.maximumLineLength)
        try await connection.write(Array(answer.utf8))
        connection.close()
      }
    }
    for expected in [HotspotJoinError.malformedAnswer, .unanswered] {
      await #expect(throws: expected) {
        try await HotspotJoinClient.join(
          host: "127.0.0.1", port: listener.port, ssid: "PLAUD0123", password: "right123",
          serverPort: 9000)
      }
    }
    try await peer.value
  }

  @Test func unreachableJoinPortIsASocketError() async {
    let listener = try? SocketListener(host: "127.0.0.1", port: 0)
    let port = listener?.port ?? 1
    listener?.close()
    await #expect(throws: HotspotJoinError.self) {
      try await HotspotJoinClient.join(
        host: "127.0.0.1", port: port, ssid: "PLAUD0123", password: "right123", serverPort: 9000,
        timeout: .seconds(5))
    }
  }
}
