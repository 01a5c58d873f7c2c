import Foundation
import RecorderLink
import RecorderProtocol
import Testing

@testable import RecorderKit

/// The same python3-websockets device as RecorderLinkTests' interop test, this time against
/// the real phone-side session: ``WiFiTransport`` runs HELLO (MD5 token check), the
/// handshake, PING/PONG, LIST, the ranged SYNC (last content PDU fragmented), the keep-alive
/// on its clock with the ERR 16 acknowledgement, and STOP; the device then closes with 1000.
/// The device script, shared with RecorderLinkTests's interop test: Tests/Interop/wifi_device.py.
private let deviceScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .deletingLastPathComponent().appendingPathComponent("Interop/wifi_device.py")

/// A python3 with the websockets module: Debian's lives in /usr/bin, and a pyenv or venv
/// python3 earlier on PATH may not have it.
private func pythonWithWebSockets() -> String? {
  for candidate in ["/usr/bin/python3", "/usr/local/bin/python3"] {
    guard FileManager.default.isExecutableFile(atPath: candidate) else { continue }
    let probe = Process()
    probe.executableURL = URL(fileURLWithPath: candidate)
    probe.arguments = ["-c", "import websockets"]
    probe.standardOutput = FileHandle.nullDevice
    probe.standardError = FileHandle.nullDevice
    guard (try? probe.run()) != nil else { continue }
    probe.waitUntilExit()
    if probe.terminationStatus == 0 { return candidate }
  }
  return nil
}

/// The device process: started, awaited without polling, always killed if still running.
private final class DeviceProcess: Sendable {
  let process = Process()
  let output = Pipe()
  let errors = Pipe()

  init(python: String, port: UInt16, mode: String) throws {
    let script = deviceScript
    process.executableURL = URL(fileURLWithPath: python)
    process.arguments = [script.path, "\(port)", "888317426911003", mode]
    process.standardOutput = output
    process.standardError = errors
  }

  /// Runs to the end; returns (status, stdout, stderr).
  func run() async throws -> (Int32, String, String) {
    try await withCheckedThrowingContinuation {
      (continuation: CheckedContinuation<Void, any Error>) in
      process.terminationHandler = { _ in continuation.resume() }
      do { try process.run() } catch {
        process.terminationHandler = nil
        continuation.resume(throwing: error)
      }
    }
    let out = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let err = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    return (process.terminationStatus, out, err)
  }

  func kill() { if process.isRunning { process.terminate() } }
}

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
      while clock.sleeperCount != 1 && ContinuousClock.now - start < .seconds(10) {
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
