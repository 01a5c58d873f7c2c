import RecorderConcurrency
import RecorderProtocol
import RecorderTesting
import Testing

@testable import RecorderKit

/// The request queue's rules (PROTOCOL.md §4), byte by byte against a scripted device.
@Suite("Request channel: one request at a time")
struct RequestChannelTests {
  /// Waits (by yielding, never by sleeping) until `count` requests wait at the gate.
  static func waitForQueue(_ session: DeviceSession, count: Int) async {
    while await session.channel.queuedRequests < count { await Task.yield() }
  }

  @Test("a request cancelled while it waits its turn never writes its command")
  func cancelledWhileQueuedNeverWrites() async throws {
    let storageAsked = Locked(0)
    let central = ScriptedCentral { message in
      // The second STORAGE (after set-up) gets no answer until the test sends one.
      if case .storage = message,
        storageAsked.withLock({
          $0 += 1; return $0
        }) == 2
      {
        return []
      }
      return V0095Replies.standard(message)
    }
    let session = try await DeviceSessionTests.connect(central)
    let slow = Task { try await session.storage() }
    while !central.link.written.dropFirst(6).contains(.storage) { await Task.yield() }
    let queued = Task { try await session.battery() }
    await Self.waitForQueue(session, count: 1)
    queued.cancel()
    central.link.notify(
      V0095Replies.hex("010600 0000868f0e000000 0000888f0e000000 90abce3600000000"))
    _ = try await slow.value
    await #expect(throws: DeviceError.cancelled) { try await queued.value }
    #expect(central.link.written.map(\.name).dropFirst(6) == ["STORAGE"])
    // The queue still works afterwards.
    _ = try await session.battery()
    #expect(central.link.written.map(\.name).dropFirst(6) == ["STORAGE", "BATTERY"])
    await session.close()
  }

  @Test("a request queued behind a stream goes out only after SYNC_STOP's reply")
  func nothingBetweenSyncStartAndItsStop() async throws {
    let sessionId: SessionID = 0x69D2_6658
    let central = ScriptedCentral { message in
      switch message {
      case .syncStart(let request):
        return [
          DeviceMessage.syncHead(SessionStatus(sessionId: request.sessionId, status: 0)).encoded()
        ]
          + (0..<4).map { index in
            Frame.bulk(
              BulkFrame(
                sessionId: sessionId, offset: UInt32(index * 80),
                data: [0xB8] + [UInt8](repeating: 1, count: 79))
            ).encoded()
          }
      case .syncStop: return [DeviceMessage.syncStopped.encoded()]
      case .delete(let id):
        return [DeviceMessage.deleted(SessionStatus(sessionId: id, status: 0)).encoded()]
      default: return V0095Replies.standard(message)
      }
    }
    let session = try await DeviceSessionTests.connect(central)
    let deletion = Locked<Task<Void, any Error>?>(nil)
    let tail = try await session.streamRange(sessionId: sessionId, start: 0) { frame in
      guard frame.offset == 160 else { return .continue }
      // The app asks for a DELETE while the stream runs; the stream then stops on a gap.
      deletion.withLock { $0 = Task { try await session.deleteRecording(1) } }
      await Self.waitForQueue(session, count: 1)
      return .stop
    }
    #expect(tail == nil)
    try await deletion.withLock { $0 }?.value
    #expect(
      central.link.written.map(\.name).dropFirst(6) == ["SYNC_START", "SYNC_STOP", "DELETE"])
    await session.close()
  }

  /// The caller of a stream gives up (a background budget): the cancellation handler sends
  /// SYNC_STOP from a task of its own. Here that write is held until the next request is
  /// either waiting at the gate (right) or written (wrong); the next request must come after
  /// it (in Mode B a later-sealed write that overtook it would make the device drop the stop
  /// as a sequence gone backwards).
  @Test("a cancelled stream's SYNC_STOP is on the link before the next request's command")
  func cancelledStreamStopsBeforeTheNextRequest() async throws {
    let sessionId: SessionID = 0x69D2_6658
    let (held, release) = AsyncStream.makeStream(of: Void.self)
    let stopWriting = Locked(false)
    let central = ScriptedCentral(
      beforeWrite: { message in
        guard case .syncStop = message else { return }
        stopWriting.withLock { $0 = true }
        var iterator = held.makeAsyncIterator()
        _ = await iterator.next()
      },
      script: { message in
        switch message {
        case .syncStart(let request):
          return [
            DeviceMessage.syncHead(SessionStatus(sessionId: request.sessionId, status: 0))
              .encoded(),
            Frame.bulk(
              BulkFrame(
                sessionId: sessionId, offset: 0, data: [0xB8] + [UInt8](repeating: 1, count: 79))
            ).encoded(),
          ]
        case .syncStop: return [DeviceMessage.syncStopped.encoded()]
        default: return V0095Replies.standard(message)
        }
      })
    let session = try await DeviceSessionTests.connect(central)
    let (frames, arrived) = AsyncStream.makeStream(of: Void.self)
    let streaming = Task {
      try await session.streamRange(sessionId: sessionId, start: 0) { _ in
        arrived.yield()
        return .continue
      }
    }
    var iterator = frames.makeAsyncIterator()
    _ = await iterator.next()
    streaming.cancel()
    let battery = Task { try await session.battery() }
    // SYNC_STOP's write has begun and BATTERY waits its turn, or (wrongly) went out already.
    while true {
      let queued = await session.channel.queuedRequests
      let batteryOut = central.link.written.contains { $0.name == "BATTERY" }
      if stopWriting.withLock({ $0 }), queued >= 1 || batteryOut { break }
      await Task.yield()
    }
    release.yield()
    release.finish()
    _ = await streaming.result
    _ = try await battery.value
    #expect(
      central.link.written.map(\.name).dropFirst(6) == ["SYNC_START", "SYNC_STOP", "BATTERY"])
    await session.close()
  }
}
