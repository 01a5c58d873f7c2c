import Foundation
import RecorderEmulator
import RecorderProtocol
import TestSupport
import Testing

/// LIST, SYNC_START, SYNC_STOP, DELETE (PROTOCOL.md §3.3).
@Suite(.timeLimit(.minutes(5)))
struct FileTests {
  @Test(arguments: [64, 100, 185, 247])
  func listComesInPagesSizedToTheMTU(mtu: Int) async throws {
    let bench = try TestBench()
    defer { bench.cleanUp() }
    for index in 0..<23 {
      try await bench.device.addRecording(
        duration: .milliseconds(200 * (index + 1)),
        sessionId: SessionID(1_775_000_000 + UInt32(index) * 100))
    }
    let expected = try await bench.device.recordings()
    let phone = try await bench.authenticatedPhone(mtu: mtu)
    try await phone.send(.list(ListRequest(requestTag: 1_775_395_282)))
    let perFrame = ListPage.entriesPerFrame(mtu: min(mtu, 247), portVersion: 10)
    var entries: [ListEntry] = []
    var pages = 0
    while entries.count < expected.count {
      let raw = try #require(await phone.nextValue())
      #expect(raw.count <= min(mtu, 247) - 3)
      guard case .control(let control) = try Frame(decoding: raw),
        case .listPage(let page) = try DeviceMessage(control)
      else {
        Issue.record("not a LIST page")
        return
      }
      #expect(page.requestTag == 1_775_395_282)
      #expect(page.total == 23)
      #expect(Int(page.index) == entries.count)
      #expect(page.entries.count == min(perFrame, 23 - entries.count))
      entries += page.entries
      pages += 1
    }
    #expect(pages == (23 + perFrame - 1) / perFrame)
    #expect(entries.map(\.sessionId) == expected.map(\.sessionId))
    #expect(entries.map { Int($0.size) } == expected.map(\.size))
    #expect(entries.allSatisfy { $0.scene == 1 && $0.attribute == 0 })

    // After a session, and only one.
    let after = try await phone.request(
      .list(ListRequest(requestTag: 2, afterSession: expected[20].sessionId)))
    guard case .listPage(let tail) = after else { return }
    #expect(tail.total == 2 && tail.entries.map(\.sessionId) == expected[21...].map(\.sessionId))
  }

  @Test func emptyFlashListsOnePageOfZero() async throws {
    let bench = try TestBench()
    defer { bench.cleanUp() }
    let phone = try await bench.authenticatedPhone()
    #expect(
      try await phone.request(.list(ListRequest(requestTag: 7)))
        == .listPage(ListPage(requestTag: 7, total: 0, index: 0, entries: [])))
  }

  @Test func fullSyncDeliversTheFileThenTerminalThenTail() async throws {
    let bench = try TestBench()
    defer { bench.cleanUp() }
    let info = try await bench.device.addRecording(duration: .seconds(7))
    let file = try [UInt8](Data(contentsOf: URL(fileURLWithPath: info.path)))
    let phone = try await bench.authenticatedPhone()
    let result = try await phone.sync(SyncStartRequest(sessionId: info.sessionId))
    #expect(result.head == SessionStatus(sessionId: info.sessionId, status: 0))
    #expect(result.dataFrames.count == 350)
    #expect(result.dataFrames.allSatisfy { $0.data.count == 80 && $0.sessionId == info.sessionId })
    #expect(result.dataFrames.map(\.offset) == (0..<350).map { UInt32($0 * 80) })
    #expect(result.bytes == file)
    #expect(result.terminal == .terminal(sessionId: info.sessionId))
    #expect(result.tail == SyncTail(sessionId: info.sessionId, crc: CRC16.checksum(file)))
  }

  @Test func rangedSyncAsCaptured() async throws {
    let bench = try TestBench()
    defer { bench.cleanUp() }
    let info = try await bench.device.addRecording(duration: .seconds(10))
    let file = try [UInt8](Data(contentsOf: URL(fileURLWithPath: info.path)))
    let phone = try await bench.authenticatedPhone()
    let result = try await phone.sync(
      SyncStartRequest(sessionId: info.sessionId, start: 26800, end: 30240))
    #expect(result.dataFrames.count == 43)
    #expect(result.dataFrames.first?.offset == 26800)
    #expect(result.bytes == Array(file[26800..<30240]))
    #expect(result.tail?.crc == CRC16.checksum(file[26800..<30240]))

    // An unaligned range ends with a short frame; a range past the end is cut at the end.
    let odd = try await phone.sync(
      SyncStartRequest(sessionId: info.sessionId, start: 1000, end: 1130))
    #expect(odd.dataFrames.map(\.data.count) == [80, 50])
    let past = try await phone.sync(
      SyncStartRequest(sessionId: info.sessionId, start: UInt32(file.count - 80), end: 99_999_999))
    #expect(past.bytes == Array(file.suffix(80)))

    // No such session, or nothing in range: status 1 and nothing else.
    let missing = try await phone.sync(SyncStartRequest(sessionId: 42))
    #expect(missing.head == SessionStatus(sessionId: 42, status: 1))
    let beyond = try await phone.sync(
      SyncStartRequest(sessionId: info.sessionId, start: UInt32(file.count)))
    #expect(beyond.head?.status == 1)
    #expect(try await phone.request(.ping) == .pong([]))
  }

  @Test func syncStopEndsTheStream() async throws {
    let bench = try TestBench()
    defer { bench.cleanUp() }
    let info = try await bench.device.addRecording(duration: .seconds(60))
    let phone = try await bench.authenticatedPhone()
    try await phone.send(.syncStart(SyncStartRequest(sessionId: info.sessionId)))
    var data = 0
    var stopped = false
    while !stopped {
      switch try await phone.nextFrame() {
      case .bulk(let frame):
        #expect(!frame.isTerminal)
        data += 1
        if data == 20 { try await phone.send(.syncStop) }
      case .control(let control):
        if case .syncStopped = try DeviceMessage(control) { stopped = true }
      default: break
      }
    }
    // The device may have run ahead of the phone by its consumer buffer and one connection
    // event's packets when the stop reached it (a busy phone reads late); then it sends no
    // more: 3,000 frames would follow in a 60 s recording.
    let link = bench.device.configuration.link
    let ahead = link.consumerBufferLimit + link.packetsPerConnectionEvent
    #expect(data >= 20 && data <= 20 + ahead, "\(data) frames for a stop after 20")
    try await bench.sleep(for: .seconds(2))
    #expect(await phone.disconnectAndDrain() == [.disconnected(.localRequest)])
  }

  @Test("the pause fault holds data after N bytes until the phone's next write; SYNC_STOP ends it")
  func pauseHoldsDataUntilThePhoneWrites() async throws {
    let bench = try TestBench()
    defer { bench.cleanUp() }
    let info = try await bench.device.addRecording(duration: .seconds(60))
    let phone = try await bench.authenticatedPhone()
    let paused = "emulator data paused"
    /// Reads data frames until `count` bytes came (a control frame between them fails):
    /// the bytes, and the last frame's size.
    func data(atLeast count: Int) async throws -> (bytes: Int, last: Int) {
      var bytes = 0
      var last = 0
      while bytes < count {
        guard case .bulk(let frame) = try await phone.nextFrame(), !frame.isTerminal else {
          throw TestFailure("not a data frame after \(bytes) bytes")
        }
        last = frame.data.count
        bytes += last
      }
      return (bytes, last)
    }

    // Data up to the end of the frame that reaches 2,000 bytes, then one frame more on a
    // step, then nothing until the PING, whose answer is the next frame; then data again.
    let before = await bench.device.counters.dataBytesSent
    await bench.device.setFaults(FaultPlan(pauseDataAfterBytes: 2_000))
    try await phone.send(.syncStart(SyncStartRequest(sessionId: info.sessionId)))
    #expect(
      try await phone.nextMessage()
        == .syncHead(SessionStatus(sessionId: info.sessionId, status: 0)))
    let first = try await data(atLeast: 2_000)
    #expect(first.bytes - first.last < 2_000)
    #expect(await bench.device.counters.dataBytesSent - before == first.bytes)
    #expect(bench.clock.activeHolds[paused] == 1)
    // A step lets one frame out, and the stream pauses again behind it.
    let sentBefore = await bench.device.counters.dataBytesSent
    await bench.device.stepData()
    let stepped = try await data(atLeast: 1)
    #expect(await bench.device.counters.dataBytesSent - sentBefore == stepped.bytes)
    #expect(stepped.bytes == stepped.last)
    #expect(bench.clock.activeHolds[paused] == 1)
    try await phone.send(.ping)
    guard case .control(let control) = try await phone.nextFrame(),
      try DeviceMessage(control, portVersion: phone.portVersion) == .pong([])
    else { throw TestFailure("data, not the PING's answer, followed the pause") }
    _ = try await data(atLeast: 2_000)
    #expect(bench.clock.activeHolds[paused] == nil)
    #expect(try await phone.request(.syncStop) == .syncStopped)

    // A new sync paused the same way: SYNC_STOP's answer is the next frame, and no data
    // follows it.
    await bench.device.setFaults(FaultPlan(pauseDataAfterBytes: 2_000))
    try await phone.send(.syncStart(SyncStartRequest(sessionId: info.sessionId)))
    #expect(
      try await phone.nextMessage()
        == .syncHead(SessionStatus(sessionId: info.sessionId, status: 0)))
    _ = try await data(atLeast: 2_000)
    #expect(bench.clock.activeHolds[paused] == 1)
    try await phone.send(.syncStop)
    guard case .control(let stop) = try await phone.nextFrame(),
      try DeviceMessage(stop, portVersion: phone.portVersion) == .syncStopped
    else { throw TestFailure("data, not SYNC_STOP's answer, followed the pause") }
    #expect(bench.clock.activeHolds[paused] == nil)
    try await phone.send(.ping)
    guard case .control(let pong) = try await phone.nextFrame(),
      try DeviceMessage(pong, portVersion: phone.portVersion) == .pong([])
    else { throw TestFailure("data followed SYNC_STOP's answer") }
  }

  @Test func deleteRemovesTheFileAndIsLogged() async throws {
    let bench = try TestBench()
    defer { bench.cleanUp() }
    let first = try await bench.device.addRecording(duration: .seconds(1), sessionId: 1_775_000_000)
    let second = try await bench.device.addRecording(
      duration: .seconds(1), sessionId: 1_775_000_100)
    let phone = try await bench.authenticatedPhone()
    try await phone.send(.delete(sessionId: first.sessionId))
    #expect(
      await phone.nextValue() == [0x01, 0x1f, 0x00] + le32(first.sessionId.rawValue) + [0x00])
    #expect(
      try await phone.request(.delete(sessionId: first.sessionId))
        == .deleted(SessionStatus(sessionId: first.sessionId, status: 1)))
    guard case .listPage(let page) = try await phone.request(.list(ListRequest(requestTag: 1)))
    else { return }
    #expect(page.entries.map(\.sessionId) == [second.sessionId])
    #expect(!FileManager.default.fileExists(atPath: first.path))
    let log = await bench.device.deleteLog
    #expect(log.map(\.sessionId) == [first.sessionId])
    #expect(log.first.map { $0.virtualTime > .zero } == true)
  }

  @Test func recordingsHaveDigestsAndTheDurationListImplies() async throws {
    let seed: UInt64 = 77
    let bench = try TestBench(seed: seed)
    defer { bench.cleanUp() }
    let made = try await bench.device.populate(count: 4)
    let listed = try await bench.device.recordings(includingDigests: true)
    #expect(listed.map(\.sessionId) == made.map(\.sessionId), "seed \(seed)")
    #expect(Set(listed.map(\.size)).count > 1, "varied lengths, seed \(seed)")
    for info in listed {
      #expect(info.sha256?.count == 64)
      #expect(info.durationMs == info.size / 80 * 20)
      let file = try [UInt8](Data(contentsOf: URL(fileURLWithPath: info.path)))
      #expect(file.count == info.size && file.count % 80 == 0, "seed \(seed)")
      let tocOK = stride(from: 0, to: file.count, by: 80).allSatisfy { file[$0] == 0xB8 }
      #expect(tocOK, "every 80-byte packet starts with TOC 0xB8, seed \(seed)")
    }
  }
}

func le32(_ value: UInt32) -> [UInt8] {
  (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
}
