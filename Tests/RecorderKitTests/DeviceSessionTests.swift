import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import RecorderTesting
import TestSupport
import Testing

@Suite("DeviceSession against a scripted device")
struct DeviceSessionTests {
  static let token = DeviceToken("0123456789abcdef0123456789abcdef")!

  /// A configuration on a clock that never moves unless the test moves it.
  static func configuration(clock: ManualClock = ManualClock()) -> DeviceSession.Configuration {
    var configuration = DeviceSession.Configuration(token: token)
    configuration.clock = AnyClock(clock)
    configuration.unixTime = { 1_775_395_281 }
    configuration.timeZoneSeconds = { 3 * 3600 }
    return configuration
  }

  static func connect(
    _ central: ScriptedCentral, clock: ManualClock = ManualClock()
  ) async throws -> DeviceSession {
    let device = try #require(RecorderScanner.recognise(central.advertisement))
    return try await DeviceSession.connect(
      to: device, using: central, configuration: configuration(clock: clock))
  }

  @Test("set-up follows PROTOCOL.md §4 and reads the V0095 replies")
  func setUpSequence() async throws {
    let central = ScriptedCentral(script: V0095Replies.standard)
    let session = try await Self.connect(central)
    let info = await session.info
    #expect(info.serial == "8881234567890123")
    #expect(info.model == .note)
    #expect(info.portVersion == 10)
    #expect(info.firmware?.description == "V0095")
    #expect(info.audioChannels == 1)
    #expect(info.supportsWiFi)
    #expect(info.battery.level == 100)
    #expect(info.name == "PLAUD_NOTE")
    #expect(info.storage.totalBytes == 62_537_596_928)
    #expect(info.state.keyState == 4)
    #expect(central.link.subscribedBeforeFirstWrite)
    let names = central.link.written.map(\.name)
    #expect(names == ["HANDSHAKE", "TIME_SYNC", "BATTERY", "GET_STATE", "GET_NAME", "STORAGE"])
    guard case .handshake(let handshake) = central.link.written.first else {
      Issue.record("first write was not HANDSHAKE")
      return
    }
    #expect(handshake.token == Self.token)
    guard case .timeSync(let sync) = central.link.written[1] else { return }
    #expect(sync == TimeSyncRequest(unixSeconds: 1_775_395_281, tzHours: 3, tzMinutes: 0))

    await session.close()
    #expect(central.link.written.last == .setActive(0))
    #expect(central.link.isDisconnected)
  }

  @Test("a wrong token is reported as rejected and the link is closed")
  func wrongToken() async throws {
    let central = ScriptedCentral { message in
      if case .handshake = message {
        return [V0095Replies.hex("01010001 0a000300 01010000 565f0000")]
      }
      return V0095Replies.standard(message)
    }
    await #expect(throws: DeviceError.tokenRejected) { try await Self.connect(central) }
    #expect(central.link.isDisconnected)
    #expect(central.link.written.map(\.name) == ["HANDSHAKE"])
  }

  @Test("a silent device times out on the injected clock, not a hang")
  func silentDeviceTimesOut() async throws {
    let clock = ManualClock()
    clock.startAutoAdvance()
    defer { clock.stopAutoAdvance() }
    let central = ScriptedCentral { _ in [] }
    await #expect(throws: DeviceError.timeout(operation: "HANDSHAKE")) {
      try await Self.connect(central, clock: clock)
    }
    #expect(clock.elapsed >= .seconds(10))
    #expect(clock.elapsed < .seconds(11))
  }

  @Test("malformed frames from the device are dropped and counted, the real reply still lands")
  func malformedFramesIgnored() async throws {
    let central = ScriptedCentral { message in
      var replies: [[UInt8]] = [[], [0x07, 0x01], [0x01, 0x09], [0x01, 0x06, 0x00, 0x01]]
      replies += V0095Replies.standard(message)
      return replies
    }
    let session = try await Self.connect(central)
    #expect(await session.info.battery.level == 100)
    #expect(await session.malformedFrames == 24)
    await session.close()
  }

  @Test("LIST gathers every page and sorts oldest first")
  func listPages() async throws {
    let entries = (0..<25).map { index in
      ListEntry(
        sessionId: SessionID(1_775_000_000 + UInt32(index) * 100), size: UInt32(index + 1) * 8_000,
        scene: 1,
        attribute: 0)
    }
    let central = ScriptedCentral { message in
      guard case .list(let request) = message else { return V0095Replies.standard(message) }
      return stride(from: 0, to: entries.count, by: 10).reversed().map { start in
        let page = ListPage(
          requestTag: request.requestTag, total: UInt16(entries.count), index: UInt16(start),
          entries: Array(entries[start..<min(start + 10, entries.count)]))
        return DeviceMessage.listPage(page).encoded()
      }
    }
    let session = try await Self.connect(central)
    let recordings = try await session.listRecordings()
    #expect(recordings.map(\.sessionId) == entries.map(\.sessionId))
    #expect(recordings.first?.durationMs == 2_000)
    await session.close()
  }

  /// Issue 12, finding 5 for BLE LIST: pages that repeat forever (here 100,000 copies of
  /// the first) end the listing with a typed error, not a spin that keeps the watchdog fed.
  @Test("a LIST that repeats its first page forever ends with a typed error")
  func listRepeatingForever() async throws {
    let central = ScriptedCentral { message in
      guard case .list(let request) = message else { return V0095Replies.standard(message) }
      let page = DeviceMessage.listPage(
        ListPage(
          requestTag: request.requestTag, total: 25, index: 0,
          entries: [ListEntry(sessionId: 1_775_000_000, size: 8_000, scene: 1, attribute: 0)])
      ).encoded()
      return Array(repeating: page, count: 100_000)
    }
    let session = try await Self.connect(central)
    let outcome = try await withTimeout(60) { () async -> DeviceError? in
      do throws(DeviceError) {
        _ = try await session.listRecordings()
        return nil
      } catch {
        return error
      }
    }
    guard case .malformedReply(operation: "LIST", let reason)? = outcome else {
      Issue.record("expected a malformed LIST, got \(String(describing: outcome))")
      return
    }
    #expect(reason.contains("repeats itself"), "\(reason)")
    await session.close()
  }

  @Test("an empty device lists nothing")
  func emptyList() async throws {
    let central = ScriptedCentral { message in
      guard case .list(let request) = message else { return V0095Replies.standard(message) }
      return [
        DeviceMessage.listPage(
          ListPage(requestTag: request.requestTag, total: 0, index: 0, entries: [])
        ).encoded()
      ]
    }
    let session = try await Self.connect(central)
    #expect(try await session.listRecordings().isEmpty)
    await session.close()
  }

  @Test("a link dropped mid-request fails that request with the reason")
  func dropMidRequest() async throws {
    let holder = Locked<ScriptedLink?>(nil)
    let central = ScriptedCentral { message in
      if case .list = message {
        holder.withLock { $0 }?.drop(.linkLoss)
        return []
      }
      return V0095Replies.standard(message)
    }
    holder.withLock { $0 = central.link }
    let session = try await Self.connect(central)
    await #expect(throws: DeviceError.disconnected(.linkLoss)) {
      try await session.listRecordings()
    }
    await #expect(throws: DeviceError.disconnected(.linkLoss)) { try await session.battery() }
  }

  @Test("unsolicited REC_* and battery frames arrive as events")
  func unsolicitedEvents() async throws {
    let central = ScriptedCentral(script: V0095Replies.standard)
    let session = try await Self.connect(central)
    central.link.notify(
      DeviceMessage.recordStarted(RecordStarted(sessionId: 42, start: 0, status: 0)).encoded())
    central.link.notify(
      DeviceMessage.recordStopped(
        RecordStopped(sessionId: 42, reason: 0, fileExists: 1, fileSize: 800)
      ).encoded())
    central.link.notify(V0095Replies.hex("01090032"))
    var iterator = session.events.makeAsyncIterator()
    #expect(
      await iterator.next() == .recordingStarted(RecordStarted(sessionId: 42, start: 0, status: 0)))
    #expect(
      await iterator.next()
        == .recordingStopped(RecordStopped(sessionId: 42, reason: 0, fileExists: 1, fileSize: 800)))
    #expect(await iterator.next() == .battery(BatteryStatus(level: 50)))
    await session.close()
  }

  @Test("concurrent calls go to the device one at a time")
  func oneRequestAtATime() async throws {
    let outstanding = Locked(0)
    let central = ScriptedCentral { message in
      outstanding.withLock { $0 += 1 }
      defer { outstanding.withLock { $0 -= 1 } }
      #expect(outstanding.withLock { $0 } == 1)
      return V0095Replies.standard(message)
    }
    let session = try await Self.connect(central)
    try await withThrowingTaskGroup(of: Void.self) { group in
      for _ in 0..<20 {
        group.addTask { _ = try await session.battery() }
        group.addTask { _ = try await session.storage() }
      }
      try await group.waitForAll()
    }
    #expect(central.link.written.count == 6 + 40)
    await session.close()
  }

  /// A device that answers SYNC_START with its head, `frames` data frames of 80 bytes
  /// (frame `n` all `n`), the terminal frame and the tail with their CRC.
  static func streaming(_ sessionId: SessionID, frames count: Int) -> ScriptedCentral {
    ScriptedCentral { message in
      guard case .syncStart(let request) = message else { return V0095Replies.standard(message) }
      var frames = [
        DeviceMessage.syncHead(SessionStatus(sessionId: request.sessionId, status: 0)).encoded()
      ]
      var crc = CRC16()
      for index in 0..<count {
        let data = [UInt8](repeating: UInt8(index), count: 80)
        crc.update(data)
        frames.append(
          Frame.bulk(BulkFrame(sessionId: sessionId, offset: UInt32(index * 80), data: data))
            .encoded())
      }
      frames.append(Frame.bulk(.terminal(sessionId: sessionId)).encoded())
      frames.append(
        DeviceMessage.syncTail(SyncTail(sessionId: sessionId, crc: crc.value)).encoded())
      return frames
    }
  }

  @Test("SYNC_START streams data frames then returns the tail")
  func streamRange() async throws {
    let sessionId: SessionID = 0x69D2_6658
    let central = Self.streaming(sessionId, frames: 10)
    let session = try await Self.connect(central)
    let received = Locked<[UInt32]>([])
    let tail = try await session.streamRange(sessionId: sessionId, start: 0) { frame in
      received.withLock { $0.append(frame.offset) }
      return .continue
    }
    #expect(received.withLock { $0 } == (0..<10).map { UInt32($0 * 80) })
    var expected = CRC16()
    for index in 0..<10 { expected.update([UInt8](repeating: UInt8(index), count: 80)) }
    #expect(tail == SyncTail(sessionId: sessionId, crc: expected.value))
    await session.close()
  }

  /// The silence watchdog counts the device's silence, not the reader's delay: the request's
  /// frames handed over and not yet handled mean the device spoke.
  @Test("a reader that falls behind is not a silent device: frames in hand keep the stream")
  func slowReaderIsNotASilentDevice() async throws {
    let clock = ManualClock()  // moved by this test only
    let sessionId: SessionID = 0x69D2_6658
    let central = Self.streaming(sessionId, frames: 3)
    let session = try await Self.connect(central, clock: clock)
    let holding = Locked(false)
    let finished = Locked(false)
    let (gate, opened) = AsyncStream.makeStream(of: Void.self)
    let streaming = Task {
      defer { finished.withLock { $0 = true } }
      return try await session.streamRange(
        sessionId: sessionId, start: 0, silenceTimeout: .seconds(5)
      ) { frame in
        if frame.offset == 0 {
          holding.withLock { $0 = true }
          for await _ in gate { break }
        }
        return .continue
      }
    }
    try await waitUntil("the reader holds the first frame") { holding.withLock { $0 } }
    // Five silence timeouts pass while the reader works on the first frame, the rest waiting.
    // Each time the watchdog looks and sleeps on (had it failed the stream, no deadline would
    // come back and the wait below would time out).
    try await waitUntil("the watchdog to sleep") { clock.nextDeadline != nil }
    for _ in 0..<5 {
      let deadline = try #require(clock.nextDeadline)
      clock.advance(to: deadline)
      try await waitUntil("the watchdog to sleep on") {
        clock.nextDeadline.map { $0 > deadline } ?? false
      }
    }
    #expect(!finished.withLock { $0 }, "the stream ended while the reader still held frames")
    opened.yield()
    opened.finish()
    let tail = try await streaming.value
    #expect(tail?.sessionId == sessionId)
    #expect(clock.elapsed >= .seconds(25))
    await session.close()
  }

  @Test("a refused SYNC_START head is a typed rejection")
  func syncRefused() async throws {
    let central = ScriptedCentral { message in
      guard case .syncStart(let request) = message else { return V0095Replies.standard(message) }
      return [
        DeviceMessage.syncHead(SessionStatus(sessionId: request.sessionId, status: 1)).encoded()
      ]
    }
    let session = try await Self.connect(central)
    await #expect(throws: DeviceError.rejected(operation: "SYNC_START", status: 1)) {
      _ = try await session.streamRange(sessionId: 7, start: 0) { _ in .continue }
    }
    await session.close()
  }

  @Test("portVersion 20 and up without a user key is refused before any command (Mode B)")
  func modeBRefused() async throws {
    let central = ScriptedCentral(portVersion: 20, script: V0095Replies.standard)
    await #expect(throws: DeviceError.modeB(.noUserKey)) {
      try await Self.connect(central)
    }
    #expect(central.link.written.isEmpty)
  }

  @Test("errors and descriptions never contain the token")
  func tokenNeverPrinted() {
    let text = "\(Self.token) \(String(reflecting: Self.token)) \(DeviceError.tokenRejected)"
    #expect(!text.contains("0123456789abcdef"))
  }
}
