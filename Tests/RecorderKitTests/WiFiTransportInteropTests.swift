import Foundation
import RecorderLink
import RecorderProtocol
import Testing

@testable import RecorderKit

/// The same python3-websockets device as RecorderLinkTests' interop test, this time against
/// the real phone-side session: ``WiFiTransport`` runs HELLO (MD5 token check), the
/// handshake, PING/PONG, LIST, the ranged SYNC (last content PDU fragmented), the keep-alive
/// on its clock with the ERR 16 acknowledgement, and STOP; the device then closes with 1000.
private let deviceScript = #"""
  import asyncio, hashlib, json, struct, sys
  import websockets

  PORT, SERIAL, MODE = int(sys.argv[1]), sys.argv[2], sys.argv[3]
  RECORDINGS = {1700000001: (bytes(range(256)) * 40, 1), 1700000002: (b"xyz" * 1000, 2)}

  def pdu(kind, obj, payload=b"", version=1):
      body = json.dumps(obj, separators=(",", ":")).encode()
      total = 8 + len(body) + len(payload)
      return total.to_bytes(3, "little") + bytes([version]) + struct.pack("<HH", kind, len(body)) + body + payload

  def parse(message):
      assert isinstance(message, bytes), f"expected a binary message, got {type(message)}"
      total = int.from_bytes(message[0:3], "little")
      assert total == len(message), (total, len(message))
      kind, length = struct.unpack("<HH", message[4:8])
      return kind, json.loads(message[8:8 + length]), message[8 + length:]

  STASH = []

  async def expect(ws, kind):
      """The next PDU of `kind`; others are kept for later (the phone may send its next
      request before the answer to our PING: the order between them is not fixed)."""
      for index, item in enumerate(STASH):
          if item[0] == kind:
              return STASH.pop(index)
      while True:
          item = parse(await ws.recv())
          if item[0] == kind:
              return item
          STASH.append(item)

  async def session(ws):
      token = hashlib.md5(SERIAL.encode()).hexdigest().upper()
      await ws.send(pdu(2, {"token": token, "pVer": 1}))
      kind, obj, _ = await expect(ws, 1)
      assert kind == 1 and list(obj) == ["token", "stamp"], obj
      assert obj["token"] == "BLETOKEN42".ljust(32, "0"), "handshake token not padded"
      await ws.send(pdu(1, {"status": 0}))
      await ws.send(pdu(3, {"volume": 80, "voltage": 4000, "charging": 0}))
      kind, obj, _ = await expect(ws, 3)
      assert kind == 3 and obj == {}, (kind, obj)
      await asyncio.wait_for(await ws.ping(b"device"), 10)
      kind, obj, _ = await expect(ws, 11)
      assert kind == 11 and list(obj) == ["uid", "start", "single"], obj
      entries = b"".join(struct.pack("<IIH", sid, len(c), scene) for sid, (c, scene) in RECORDINGS.items())
      await ws.send(pdu(11, {"offset": 0, "count": len(RECORDINGS), "status": 0, "uid": obj["uid"]}, entries))
      kind, obj, _ = await expect(ws, 12)
      assert kind == 12 and list(obj) == ["session", "scene", "start", "end"], obj
      content, scene = RECORDINGS[obj["session"]]
      assert obj["scene"] == scene, "scene mismatch"
      await ws.send(pdu(12, {"session": obj["session"], "status": 0}))
      position, end = obj["start"], obj["end"]
      while position < end:
          n = min(1000, end - position)
          last = 1 if position + n == end else 0
          message = pdu(13, {"session": obj["session"], "offset": position, "length": n, "last": last},
                        content[position:position + n])
          await ws.send([message[:10], message[10:30], message[30:]] if last else message)
          position += n
      kind, obj, _ = await expect(ws, 16)
      assert kind == 16 and obj == {}, (kind, obj)
      await ws.send(pdu(0, {"cmd": 16, "status": 0}))
      kind, obj, _ = await expect(ws, 15)
      assert kind == 15, kind
      await ws.send(pdu(15, {"status": 0}))
      await ws.close(code=1000, reason="done")
      print("OK")

  async def main():
      async with websockets.connect(f"ws://127.0.0.1:{PORT}/", max_size=2**22) as ws:
          if MODE == "session":
              await session(ws)
              return
          try:
              if MODE == "oversize":
                  await ws.send(b"\0" * (2 * 1024 * 1024))
              await ws.recv()
              print("NOT CLOSED")
          except websockets.exceptions.ConnectionClosed as closed:
              print(f"CLOSED {closed.rcvd.code if closed.rcvd else 'none'}")

  asyncio.run(main())
  """#

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
    let script = FileManager.default.temporaryDirectory
      .appendingPathComponent("recorderkit-wifi-device-\(UUID().uuidString).py")
    try deviceScript.write(to: script, atomically: true, encoding: .utf8)
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
      #expect(tail == SyncTail(sessionId: 1_700_000_001, crc: CRC16.checksum(expected)))

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
