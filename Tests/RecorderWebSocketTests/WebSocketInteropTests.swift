import Foundation
import RecorderProtocol
import TestSupport
import Testing

@testable import RecorderWebSocket

/// Plays the device with Debian's python3-websockets (a client we did not write), over real
/// loopback TCP: HELLO with the MD5 token, the handshake, PING/PONG, a WebSocket-level ping,
/// LIST, a ranged SYNC whose last content PDU arrives fragmented, keep-alive and its ERR
/// acknowledgement, STOP, and the device's close 1000. Other modes: an oversize message and
/// a second device.
/// The device: TestSupport's ``DeviceProcess`` running Tests/Interop/wifi_device.py.
/// The phone side of §6 in miniature: just enough to answer the device in order.
private struct PhoneResponder {
  let connection: WebSocketConnection

  func receive() async throws -> WiFiDeviceMessage {
    guard case .binary(let bytes) = try await connection.receive() else {
      throw WiFiPDUError.jsonNotAnObject
    }
    return try WiFiDeviceMessage(decoding: bytes)
  }

  func send(_ message: WiFiPhoneMessage) async throws {
    try await connection.send(binary: message.encoded())
  }
}

@Suite("WebSocket interop with python3-websockets as the device", .serialized)
struct WebSocketInteropTests {
  @Test func deviceCompletesHelloHandshakeListAndRangedSync() async throws {
    let python = try #require(
      pythonWithWebSockets(), "python3-websockets is not installed (make deps)")
    let server = try WebSocketServer()
    let device = try DeviceProcess(python: python, port: server.port, mode: "session")
    defer { device.kill() }
    try await withTimeout(60) {
      let running = Task { try await device.run() }
      var iterator = server.connections.makeAsyncIterator()
      let phone = PhoneResponder(connection: try #require(await iterator.next()))

      guard case .hello(let token, let version) = try await phone.receive() else {
        Issue.record("first PDU is not HELLO")
        return
      }
      // MD5("888317426911003"), upper-case hex: the phone checks it.
      #expect(token.revealed == "4A62025500822F2FAC0E56B1BB5FCBC4" && version == 1)
      try await phone.send(.handshake(token: DeviceToken("BLETOKEN42")!, stamp: 1_775_395_282))
      #expect(try await phone.receive() == .handshakeResult(status: 0))
      #expect(try await phone.receive() == .ping(volume: 80, voltage: 4000, charging: 0))
      try await phone.send(.pong)

      try await phone.send(.list(uid: 77, start: 0, single: 0))
      guard case .list(let page) = try await phone.receive() else {
        Issue.record("no LIST page")
        return
      }
      #expect(page.uid == 77 && page.count == 2)
      #expect(
        page.entries == [
          WiFiListEntry(sessionId: 1_700_000_001, size: 10240, scene: 1),
          WiFiListEntry(sessionId: 1_700_000_002, size: 3000, scene: 2),
        ])

      let (start, end): (UInt32, UInt32) = (1000, 5000)
      try await phone.send(.sync(session: 1_700_000_001, scene: 1, start: start, end: end))
      #expect(try await phone.receive() == .syncStatus(session: 1_700_000_001, status: 0))
      var received = [UInt8](repeating: 0, count: Int(end))
      var covered = 0
      while true {
        guard case .content(let content) = try await phone.receive() else {
          Issue.record("expected content")
          return
        }
        #expect(content.session == 1_700_000_001)
        let offset = Int(content.offset)
        try #require(offset >= Int(start) && offset + content.data.count <= Int(end))
        received.replaceSubrange(offset..<offset + content.data.count, with: content.data)
        covered += content.data.count
        if content.last { break }
      }
      #expect(covered == Int(end - start))
      #expect(Array(received[Int(start)...]) == (Int(start)..<Int(end)).map { UInt8($0 % 256) })

      try await phone.send(.keepAlive)
      let acknowledgement = try await phone.receive()
      #expect(acknowledgement.isKeepAliveAcknowledgement)
      try await phone.send(.stop(session: 1, scene: 1))
      #expect(try await phone.receive() == .stopResult(status: 0))
      await #expect(throws: WebSocketError.closedByPeer(code: .normalClosure, reason: "done")) {
        _ = try await phone.receive()
      }
      let (status, out, err) = try await running.value
      #expect(status == 0, "device script failed: \(err)")
      #expect(out.contains("OK"), "\(out) \(err)")
    }
    await server.stop()
  }

  @Test func oversizeMessageFromTheDeviceIsClosedWith1009() async throws {
    let python = try #require(
      pythonWithWebSockets(), "python3-websockets is not installed (make deps)")
    let server = try WebSocketServer(configuration: WebSocketConfiguration(maxMessageSize: 1 << 20))
    let device = try DeviceProcess(python: python, port: server.port, mode: "oversize")
    defer { device.kill() }
    try await withTimeout(60) {
      let running = Task { try await device.run() }
      var iterator = server.connections.makeAsyncIterator()
      let connection = try #require(await iterator.next())
      await #expect(throws: WebSocketError.messageTooBig(declared: 2 << 20, limit: 1 << 20)) {
        _ = try await connection.receive()
      }
      let (status, out, err) = try await running.value
      #expect(status == 0, "\(err)")
      #expect(out.contains("CLOSED 1009"), "\(out) \(err)")
    }
    await server.stop()
  }

  @Test func secondDeviceIsClosedWith1013() async throws {
    let python = try #require(
      pythonWithWebSockets(), "python3-websockets is not installed (make deps)")
    let server = try WebSocketServer()
    let holder = try await WebSocketConnection.connect(host: "127.0.0.1", port: server.port)
    var iterator = server.connections.makeAsyncIterator()
    let first = try #require(await iterator.next())
    let device = try DeviceProcess(python: python, port: server.port, mode: "busy")
    defer { device.kill() }
    try await withTimeout(60) {
      let (status, out, err) = try await device.run()
      #expect(status == 0, "\(err)")
      #expect(out.contains("CLOSED 1013"), "\(out) \(err)")
    }
    #expect(!first.isClosed)
    let firstEnds = Task { try? await first.receive() }
    await holder.close()
    _ = await firstEnds.value
    await server.stop()
  }
}
