import Foundation
import RecorderConcurrency
import RecorderEmulator
import RecorderSockets
import TestSupport
import Testing

@testable import RecorderWebSocket

/// A server on loopback with a manual clock, and the first connection it hands out.
private struct ServerRig {
  let clock = ManualClock()
  let server: WebSocketServer
  let configuration: WebSocketConfiguration

  init(_ configuration: WebSocketConfiguration = WebSocketConfiguration()) throws {
    self.configuration = configuration
    server = try WebSocketServer(configuration: configuration, clock: AnyClock(clock))
  }

  func nextConnection() async throws -> WebSocketConnection {
    var iterator = server.connections.makeAsyncIterator()
    return try #require(await iterator.next())
  }

  /// A raw client that has completed the opening handshake, and the server's side of it.
  func rawSession() async throws -> (RawWebSocketClient, WebSocketConnection) {
    var client = try await RawWebSocketClient.connect(port: server.port)
    let head = try await client.upgrade()
    #expect(head.hasPrefix("HTTP/1.1 101 "))
    return (client, try await nextConnection())
  }
}

private func receiveError(_ connection: WebSocketConnection) async -> WebSocketError? {
  do {
    _ = try await connection.receive()
    return nil
  } catch {
    return error
  }
}

@Suite("WebSocket server on loopback: sessions, faults, clean closes", .serialized)
struct WebSocketServerTests {
  @Test func ourClientAndServerExchangeMessagesPingAndClose() async throws {
    try await withTimeout {
      let rig = try ServerRig()
      let client = try await WebSocketConnection.connect(
        host: "127.0.0.1", port: rig.server.port,
        configuration: WebSocketConfiguration(outgoingFragmentSize: 1000))
      let server = try await rig.nextConnection()
      #expect(rig.server.hasActiveSession)
      let big = (0..<100_000).map { UInt8(truncatingIfNeeded: $0) }
      try await client.send(binary: big)  // 100 fragments
      try await client.send(.text("héllo"))
      try await client.ping([9])
      #expect(try await server.receive() == .binary(big))
      #expect(try await server.receive() == .text("héllo"))
      try await server.send(.binary([1, 2, 3]))
      #expect(try await client.receive() == .binary([1, 2, 3]))  // the pong is swallowed
      let serverEnd = Task { await receiveError(server) }
      await client.close(code: .normalClosure, reason: "done")
      #expect(await serverEnd.value == .closedByPeer(code: .normalClosure, reason: "done"))
      #expect(server.isClosed && client.isClosed)
      #expect(!rig.server.hasActiveSession)
      await rig.server.stop()
    }
  }

  @Test func pingIsAnsweredWithTheSamePayloadAndCloseWithoutStatusIsEchoed() async throws {
    try await withTimeout {
      let rig = try ServerRig()
      var (client, server) = try await rig.rawSession()
      let receiving = Task { await receiveError(server) }
      try await client.send(WebSocketFrame(opcode: .ping, payload: Array("are you there".utf8)))
      #expect(try await client.next() == .pong(Array("are you there".utf8)))
      try await client.send(WebSocketFrame(opcode: .close))
      #expect(try await client.next() == .close(code: .noStatusReceived, reason: ""))
      #expect(try await client.readsEndOfStream())
      #expect(await receiving.value == .closedByPeer(code: .noStatusReceived, reason: ""))
      await rig.server.stop()
    }
  }

  /// Each malformed input: the server sends a close frame with the right code, closes TCP,
  /// and its receive() throws the typed error.
  @Test(arguments: [
    (
      [0x82, 0x01, 0x00] as [UInt8], WebSocketError.unmaskedClientFrame,
      WebSocketCloseCode.protocolError
    ),
    (
      WebSocketFrame(opcode: .binary).encoded(maskingKey: [1, 2, 3, 4]).with(first: 0xC2),
      .reservedBitsSet(4), .protocolError
    ),
    (
      WebSocketFrame(opcode: .binary).encoded(maskingKey: [1, 2, 3, 4]).with(first: 0x83),
      .unknownOpcode(3), .protocolError
    ),
    (
      WebSocketFrame(fin: false, opcode: .ping).encoded(maskingKey: [1, 2, 3, 4]),
      .fragmentedControlFrame, .protocolError
    ),
    (
      WebSocketFrame(opcode: .continuation).encoded(maskingKey: [1, 2, 3, 4]),
      .unexpectedContinuation, .protocolError
    ),
    (
      WebSocketFrame(opcode: .text, payload: [0xFF]).encoded(maskingKey: [1, 2, 3, 4]),
      .invalidUTF8Text, .invalidPayload
    ),
    (
      WebSocketFrame(opcode: .close, payload: [0x03, 0xED]).encoded(maskingKey: [1, 2, 3, 4]),
      .invalidCloseCode(1005), .protocolError
    ),
    (
      [0x82, 0xFF, 0, 0, 0, 0, 0, 0x10, 0, 0, 1, 2, 3, 4],
      .messageTooBig(declared: 1 << 20, limit: 4096), .messageTooBig
    ),
  ])
  func malformedClientInputGetsACleanClose(
    _ bytes: [UInt8], _ error: WebSocketError, _ code: WebSocketCloseCode
  ) async throws {
    try await withTimeout {
      let rig = try ServerRig(WebSocketConfiguration(maxMessageSize: 4096))
      var (client, server) = try await rig.rawSession()
      try await client.send(bytes)
      #expect(await receiveError(server) == error)
      let event = try await client.next()
      guard case .close(let sent, _)? = event else {
        Issue.record("expected a close frame, got \(String(describing: event))")
        return
      }
      #expect(sent == code)
      #expect(try await client.readsEndOfStream())
      #expect(await receiveError(server) == error)  // and stays so
      #expect(!rig.server.hasActiveSession)
      await rig.server.stop()
    }
  }

  /// A client that stops in the middle of a frame is closed with 1008 once the frame timeout
  /// passes on the injected clock, and not a moment before.
  @Test func clientStallingMidFrameIsClosedOnTheClock() async throws {
    try await withTimeout {
      let rig = try ServerRig(WebSocketConfiguration(frameTimeout: .seconds(10)))
      var (client, server) = try await rig.rawSession()
      let receiving = Task { await receiveError(server) }
      let frame = WebSocketFrame(opcode: .binary, payload: [1, 2, 3, 4, 5]).encoded(maskingKey: [
        9, 9, 9, 9,
      ])
      try await client.send(Array(frame.prefix(4)))
      #expect(await eventually { rig.clock.sleeperCount == 1 })
      rig.clock.advance(by: .seconds(9))
      #expect(!server.isClosed)
      rig.clock.advance(by: .seconds(1))
      #expect(await receiving.value == .stalledMidFrame)
      let event = try await client.next()
      guard case .close(let code, _)? = event else {
        Issue.record("expected a close frame, got \(String(describing: event))")
        return
      }
      #expect(code == .policyViolation)
      #expect(try await client.readsEndOfStream())
      await rig.server.stop()
    }
  }

  /// The same inside a fragmented message: the first fragment arrived, the rest never does.
  @Test func clientStallingBetweenFragmentsIsClosedOnTheClock() async throws {
    try await withTimeout {
      let rig = try ServerRig(WebSocketConfiguration(frameTimeout: .seconds(10)))
      var (client, server) = try await rig.rawSession()
      let receiving = Task { await receiveError(server) }
      try await client.send(WebSocketFrame(fin: false, opcode: .binary, payload: [1]))
      #expect(await eventually { rig.clock.sleeperCount == 1 })
      rig.clock.advance(by: .seconds(10))
      #expect(await receiving.value == .stalledMidFrame)
      #expect(try await client.readsEndOfStream())
      await rig.server.stop()
    }
  }

  /// Between messages nobody owes anything: with no idle timeout, time passing is harmless;
  /// with one, the connection is closed with 1008 when it expires.
  @Test func idleTimeoutOnlyWhenConfigured() async throws {
    try await withTimeout {
      let rig = try ServerRig(WebSocketConfiguration(idleTimeout: .seconds(120)))
      var (client, server) = try await rig.rawSession()
      let receiving = Task { await receiveError(server) }
      #expect(await eventually { rig.clock.sleeperCount == 1 })
      rig.clock.advance(by: .seconds(120))
      #expect(await receiving.value == .idleTimeout)
      #expect(try await client.readsEndOfStream())
      await rig.server.stop()
    }
  }

  @Test func handshakeStallIsDroppedOnTheClock() async throws {
    try await withTimeout {
      let rig = try ServerRig(WebSocketConfiguration(handshakeTimeout: .seconds(5)))
      let client = try await RawWebSocketClient.connect(port: rig.server.port)
      try await client.send(Array("GET / HTTP/1.1\r\nHost: x\r\n".utf8))
      #expect(await eventually { rig.clock.sleeperCount == 1 })
      rig.clock.advance(by: .seconds(5))
      #expect(try await client.socket.read(upTo: 100) == [])
      await rig.server.stop()
    }
  }

  @Test func badUpgradeRequestsGetAnHTTPErrorAndAreDisconnected() async throws {
    try await withTimeout {
      let rig = try ServerRig(
        WebSocketConfiguration(headLimits: .init(maxHeadBytes: 512, maxFields: 16)))
      let cases: [(String, String)] = [
        ("POST / HTTP/1.1\r\nHost: x\r\n\r\n", "HTTP/1.1 405 "),
        (
          "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 8\r\n\r\n",
          "HTTP/1.1 426 "
        ),
        (
          "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: nope\r\nSec-WebSocket-Version: 13\r\n\r\n",
          "HTTP/1.1 400 "
        ),
        ("GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 600), "HTTP/1.1 431 "),
        ("\u{16}\u{3}\u{1}\u{0}garbage that is not HTTP\r\n\r\n", "HTTP/1.1 400 "),
      ]
      for (text, status) in cases {
        var client = try await RawWebSocketClient.connect(port: rig.server.port)
        let head = try await client.upgrade(Array(text.utf8))
        #expect(head.hasPrefix(status), "\(head)")
        #expect(try await client.socket.read(upTo: 100) == [])
      }
      #expect(!rig.server.hasActiveSession)
      await rig.server.stop()
    }
  }

  /// One device at a time: a second client is upgraded and closed with 1013 while the first
  /// is served undisturbed; once the first ends, the next client gets the slot.
  @Test func secondClientIsClosedWithTryAgainLater() async throws {
    try await withTimeout {
      let rig = try ServerRig()
      var iterator = rig.server.connections.makeAsyncIterator()
      var first = try await RawWebSocketClient.connect(port: rig.server.port)
      _ = try await first.upgrade()
      let served = try #require(await iterator.next())

      var second = try await RawWebSocketClient.connect(port: rig.server.port)
      #expect(try await second.upgrade().hasPrefix("HTTP/1.1 101 "))
      guard case .close(let code, _)? = try await second.next() else {
        Issue.record("second client got no close frame")
        return
      }
      #expect(code == .tryAgainLater)
      try await second.send(WebSocketFrame(opcode: .close, payload: [0x03, 0xF5]))
      #expect(try await second.readsEndOfStream())

      try await first.send(WebSocketFrame(opcode: .binary, payload: [7]))
      #expect(try await served.receive() == .binary([7]))
      try await first.send(WebSocketFrame(opcode: .close, payload: [0x03, 0xE8]))
      #expect(await receiveError(served) == .closedByPeer(code: .normalClosure, reason: ""))

      var third = try await RawWebSocketClient.connect(port: rig.server.port)
      _ = try await third.upgrade()
      let next = try #require(await iterator.next())
      try await third.send(WebSocketFrame(opcode: .text, payload: Array("again".utf8)))
      #expect(try await next.receive() == .text("again"))
      let stopping = Task { await rig.server.stop() }
      guard case .close(let going, _)? = try await third.next() else {
        Issue.record("no close on stop")
        return
      }
      #expect(going == .goingAway)
      try await third.send(WebSocketFrame(opcode: .close, payload: [0x03, 0xE9]))
      await stopping.value
      #expect(try await third.readsEndOfStream())
    }
  }

  @Test func droppedTCPIsConnectionLostAndFreesTheSlot() async throws {
    try await withTimeout {
      let rig = try ServerRig()
      let (client, server) = try await rig.rawSession()
      try await client.send(
        Array(
          WebSocketFrame(opcode: .binary, payload: [1, 2]).encoded(maskingKey: [1, 1, 1, 1]).prefix(
            3)))
      client.socket.close()
      #expect(await receiveError(server) == .connectionLost)
      #expect(!rig.server.hasActiveSession)
      await rig.server.stop()
    }
  }

  @Test func concurrentReceiveIsRefused() async throws {
    try await withTimeout {
      // The idle timeout makes the first receive visible as a sleeper on the clock.
      let rig = try ServerRig(WebSocketConfiguration(idleTimeout: .seconds(60)))
      let (client, server) = try await rig.rawSession()
      let first = Task { try await server.receive() }
      #expect(await eventually { rig.clock.sleeperCount == 1 })
      #expect(await receiveError(server) == .concurrentReceive)
      try await client.send(WebSocketFrame(opcode: .binary, payload: [5]))
      #expect(try await first.value == .binary([5]))
      client.socket.close()
      await rig.server.stop()
    }
  }

  @Test func clientRefusesAServerThatIsNotWebSocket() async throws {
    try await withTimeout {
      let listener = try SocketListener()
      let serving = Task {
        let socket = try await listener.accept()
        _ = try await socket.read(upTo: 4096)
        try await socket.write(Array("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".utf8))
      }
      await #expect(throws: WebSocketError.handshake(.unexpectedStatus(200))) {
        _ = try await WebSocketConnection.connect(host: "127.0.0.1", port: listener.port)
      }
      try await serving.value
      listener.close()
    }
  }
}

extension Array where Element == UInt8 {
  fileprivate func with(first: UInt8) -> [UInt8] {
    var copy = self
    copy[0] = first
    return copy
  }
}
