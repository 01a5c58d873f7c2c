import Foundation
import RecorderBluetooth
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import RecorderRemoteLink
import TestSupport
import Testing

/// An emulated device on a manual clock, with the SDK's view of it.
struct EmulatorBench {
  let clock = ManualClock()
  let device: EmulatedDevice
  let central: EmulatorCentral
  let directory: String

  init(seed: UInt64 = 1, configuration: DeviceConfiguration? = nil) throws {
    directory = NSTemporaryDirectory() + "recorderkit-e2e-\(UUID().uuidString)"
    device = try EmulatedDevice(
      configuration: configuration ?? DeviceConfiguration(seed: seed), flashDirectory: directory,
      time: .manual(clock))
    central = EmulatorCentral(device: device)
    clock.startAutoAdvance()
  }

  func configuration(token: DeviceToken = DeviceConfiguration.exampleToken)
    -> DeviceSession.Configuration
  {
    var configuration = DeviceSession.Configuration(token: token)
    configuration.clock = AnyClock(clock)
    configuration.unixTime = { 1_775_395_281 }
    configuration.timeZoneSeconds = { 3 * 3600 }
    // For a Mode B device (portVersion ≥ 20); a plain one never reads it.
    configuration.modeB = try? TestUserKey.credentials()
    return configuration
  }

  /// Finds the device by serial (its address rotates) and opens a session.
  func connect(token: DeviceToken = DeviceConfiguration.exampleToken) async throws -> DeviceSession
  {
    let found = try await RecorderScanner(central: central, clock: AnyClock(clock)).find(
      serial: device.serial, timeout: .seconds(10))
    return try await DeviceSession.connect(
      to: found, using: central, configuration: configuration(token: token))
  }

  func cleanUp() {
    clock.stopAutoAdvance()
    try? FileManager.default.removeItem(atPath: directory)
  }
}

@Suite("DeviceSession against the emulator (in process, virtual time)")
struct DeviceSessionEmulatorTests {
  @Test("the §4 set-up reads the emulated V0095 Note, and LIST matches its flash")
  func endToEnd() async throws {
    let bench = try EmulatorBench()
    defer { bench.cleanUp() }
    let made = try await bench.device.populate(count: 12, seed: 7)
    let session = try await bench.connect()
    let info = await session.info
    #expect(info.serial == "8881234567890123")
    #expect(info.model == .note)
    #expect(info.firmware?.description == "V0095")
    #expect(info.portVersion == 10)
    #expect(info.name == "PLAUD_NOTE")
    #expect(info.storage.totalBytes == 62_537_596_928)
    #expect(info.battery.level == 100)

    let listed = try await session.listRecordings()
    #expect(listed.map(\.sessionId) == made.map(\.sessionId).sorted())
    #expect(listed.map { Int($0.size) } == made.sorted { $0.sessionId < $1.sessionId }.map(\.size))
    #expect(
      listed.map(\.durationMs) == made.sorted { $0.sessionId < $1.sessionId }.map(\.durationMs))

    try await session.writeSetting(23, value: 3)
    #expect(try await session.readSetting(23) == 3)
    #expect(await bench.device.setting(23) == 3)

    await session.close()
    #expect(await bench.device.isConnected == false)
  }

  @Test("a wrong token is reported as rejected, never a hang")
  func wrongToken() async throws {
    let bench = try EmulatorBench()
    defer { bench.cleanUp() }
    let wrong = DeviceToken("ffffffffffffffffffffffffffffffff")!
    await #expect(throws: DeviceError.tokenRejected) { try await bench.connect(token: wrong) }
    // The right token still works afterwards.
    let session = try await bench.connect()
    await session.close()
  }

  @Test(
    "a link dropped in the middle of a LIST fails it with the reason; reconnecting by serial lists all"
  )
  func dropMidList() async throws {
    let bench = try EmulatorBench()
    defer { bench.cleanUp() }
    let made = try await bench.device.populate(count: 60, seed: 3)
    let session = try await bench.connect()
    // The first LIST page is 11 + 23 × 10 bytes at MTU 247: drop inside the second page.
    let before = await bench.device.counters.bytesNotified
    await bench.device.setFaults(FaultPlan(dropLinkAfterNotifiedBytes: 300))
    await #expect(throws: DeviceError.disconnected(.linkLoss)) {
      try await session.listRecordings()
    }
    #expect(await bench.device.counters.bytesNotified - before <= 300)

    await bench.device.setFaults(.none)
    let again = try await bench.connect()
    #expect(try await again.listRecordings().count == made.count)
    await again.close()
  }

  @Test("a reboot mid-session drops the link, rotates the address, and reconnection goes by serial")
  func rebootAndReconnectBySerial() async throws {
    let bench = try EmulatorBench()
    defer { bench.cleanUp() }
    try await bench.device.addRecording(duration: .seconds(10))
    let session = try await bench.connect()
    let oldAddress = await bench.device.peripheralID
    var events = session.events.makeAsyncIterator()
    await bench.device.reboot()
    #expect(await events.next() == .disconnected(.linkLoss))
    await #expect(throws: DeviceError.disconnected(.linkLoss)) { try await session.battery() }

    let newAddress = await bench.device.peripheralID
    #expect(newAddress != oldAddress)
    // The old address is gone: connecting to it fails; the serial finds the device.
    await #expect(throws: LinkError.self) {
      _ = try await bench.central.connect(oldAddress, timeout: .seconds(2))
    }
    let again = try await bench.connect()
    #expect(await again.info.serial == bench.device.serial)
    #expect(try await again.listRecordings().count == 1)
    await again.close()
  }

  @Test("the device's own REC_* notifications arrive as session events")
  func recordingEvents() async throws {
    let bench = try EmulatorBench()
    defer { bench.cleanUp() }
    let session = try await bench.connect()
    var events = session.events.makeAsyncIterator()
    let id = await bench.device.startRecordingOnDevice()
    let started = await events.next()
    guard case .recordingStarted(let value) = started else {
      Issue.record("expected a REC_START event, got \(String(describing: started))")
      return
    }
    #expect(value.sessionId == id)
    await bench.device.stopRecordingOnDevice()
    let stopped = await events.next()
    guard case .recordingStopped(let stop) = stopped else {
      Issue.record("expected a REC_STOP event, got \(String(describing: stopped))")
      return
    }
    #expect(stop.sessionId == id)
    await session.close()
  }

  @Test("a SYNC_START stream through the session takes the radio's time in virtual time")
  func oneHourStream() async throws {
    let bench = try EmulatorBench()
    defer { bench.cleanUp() }
    // Ten minutes of audio through the SDK's session (the emulator's own test streams a full
    // hour at frame level, and the sync utilization test a full hour through the engine);
    // three minutes under `make tsan` (RECORDER_TEST_SCALE=small).
    let small = ProcessInfo.processInfo.environment["RECORDER_TEST_SCALE"] == "small"
    let recording = try await bench.device.addRecording(duration: .seconds(small ? 180 : 600))
    let session = try await bench.connect()
    let received = Locked((bytes: 0, nextOffset: UInt32(0), inOrder: true))
    let crc = Locked(CRC16())
    let virtualStart = bench.clock.elapsed
    let realStart = ContinuousClock.now
    let tail = try await session.streamRange(sessionId: recording.sessionId, start: 0) { frame in
      received.withLock {
        $0.inOrder = $0.inOrder && frame.offset == $0.nextOffset
        $0.nextOffset = frame.offset + UInt32(frame.data.count)
        $0.bytes += frame.data.count
      }
      crc.withLock { $0.update(frame.data) }
      return .continue
    }
    let virtual = bench.clock.elapsed - virtualStart
    let real = ContinuousClock.now - realStart
    let state = received.withLock { $0 }
    #expect(state.bytes == recording.size)
    #expect(state.inOrder)
    #expect(tail?.crc == crc.withLock { $0.value })
    // Capacity at the defaults: 5 frames of 80 data bytes per 15 ms connection event.
    let radio = Double(recording.size) / (5.0 * 80.0 / 0.015)
    print(
      "session stream: \(recording.size) bytes, virtual \(virtual.seconds) s (radio \(radio) s), "
        + "real \(real.seconds) s")
    #expect(virtual.seconds >= radio * 0.99)
    #expect(virtual.seconds <= radio * 1.02)
    await session.close()
  }

  @Test("over TCP: the SDK in one place, the emulator behind TCPCentralServer")
  func overTCP() async throws {
    let directory = NSTemporaryDirectory() + "recorderkit-tcp-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: directory) }
    // A scaled clock speeds the radio up; the unauthenticated-central timeout is set to ten
    // real seconds so TCP round trips fit in it on a loaded machine.
    var configuration = DeviceConfiguration()
    configuration.authenticationTimeout = .seconds(200)
    let device = try EmulatedDevice(
      configuration: configuration, flashDirectory: directory, time: .real(.scaled(20)))
    try await device.populate(count: 3, seed: 5)
    let server = TCPCentralServer(central: EmulatorCentral(device: device))
    let port = try await server.start()
    defer { server.stop() }
    let central = TCPCentral(host: "127.0.0.1", port: port)
    defer { central.close() }
    let found = try await RecorderScanner(central: central, clock: .continuous).find(
      serial: device.serial, timeout: .seconds(20))
    let session = try await DeviceSession.connect(
      to: found, using: central,
      configuration: DeviceSession.Configuration(token: DeviceConfiguration.exampleToken))
    #expect(await session.info.firmware?.description == "V0095")
    #expect(try await session.listRecordings().count == 3)
    await session.close()
  }
}
