import Foundation
import RecorderConcurrency
import RecorderEmulator
import RecorderProtocol
import RecorderWebSocket
import TestSupport
import Testing

@testable import RecorderKit

/// The same python3-websockets device as RecorderLinkTests' interop test, this time against
/// the real phone-side session: ``WiFiTransport`` runs HELLO (MD5 token check), the
/// handshake, PING/PONG, LIST, the ranged SYNC (last content PDU fragmented), the keep-alive
/// on its clock with the ERR 16 acknowledgement, and STOP; the device then closes with 1000.
/// The device: TestSupport's ``DeviceProcess`` running Tests/Interop/wifi_device.py.
@Suite("WiFiTransport interop with python3-websockets as the device", .serialized)
struct WiFiTransportInteropTests {
  @Test func pythonDeviceSyncsARangeThroughWiFiTransport() async throws {
    let python = try #require(
      pythonWithWebSockets(), "python3-websockets is not installed (make deps)")
    let server = try WebSocketServer()
    let device = try DeviceProcess(python: python, port: server.port, mode: "session")
    defer { device.kill() }
    let clock = ManualClock()
    let running = Task { try await device.run() }
    var iterator = server.connections.makeAsyncIterator()
    do {
      let connection = try #require(await iterator.next())
      let transport = try await WiFiTransport.open(
        connection: connection,
        configuration: WiFiTransport.Configuration(
          serial: "888317426911003", bleToken: DeviceToken("BLETOKEN42")!,
          keepAliveInterval: .seconds(30)),
        clock: AnyClock(clock))

      let recordings = try await transport.listRecordings()
      #expect(recordings.map(\.sessionId) == [1_700_000_001, 1_700_000_002])
      #expect(recordings.map(\.size) == [10240, 3000])
      let received = Locked([UInt8]())
      let tail = try await transport.stream(sessionId: 1_700_000_001, start: 1000, end: 5000) {
        frame in
        received.withLock { $0 += frame.data }
        return .continue
      }
      let expected = (1000..<5000).map { UInt8($0 % 256) }
      #expect(received.withLock { $0 } == expected)
      // §6 content has no checksum: the tail only marks the end (crc 0, not a device CRC).
      #expect(tail == SyncTail(sessionId: 1_700_000_001, crc: 0))

      // Only the keep-alive sleeps now: let its period pass on the clock.
      let start = ContinuousClock.now
      while clock.sleeperCount != 1 && ContinuousClock.now - start < .seconds(120) {
        await Task.yield()
      }
      clock.advance(by: .seconds(30))
      await transport.finish()
    } catch {
      device.kill()
      let (_, out, err) = try await running.value
      Issue.record("\(error); device said: \(out) \(err)")
      await server.stop()
      return
    }
    let (status, out, err) = try await running.value
    #expect(status == 0, "device script failed: \(err)")
    #expect(out.contains("OK"), "\(out) \(err)")
    await server.stop()
  }
}
