import Foundation
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import TestSupport
import Testing

/// The front door (`Recorders`): the retry rule, the attempt loop that resumes after a drop,
/// final failures that stop at once, attempts used up, and the watch.
struct FrontDoorTests {
  @Test("the retry rule: what a reconnection may mend, and what it cannot")
  func retryRule() {
    let retryable: [DeviceError] = [
      .disconnected(.linkLoss), .timeout(operation: "LIST"), .deviceNotFound(serial: "1"),
      .noRecorderHeard(within: .seconds(1)), .bluetoothUnavailable(.poweredOff),
      .handshakeRefused(status: HandshakeStatus.recording.rawValue),
      .handshakeRefused(status: HandshakeStatus.notInConnectMode.rawValue),
      .malformedReply(operation: "LIST", reason: "short"), .wifiUnavailable("join failed"),
      .modeB(.unexpectedMessage(type: 7)), .modeB(.sessionKeyDidNotUnwrap),
    ]
    let final: [DeviceError] = [
      .tokenRejected, .unsupportedPortVersion(6), .cancelled,
      .handshakeRefused(status: HandshakeStatus.tokenMismatch.rawValue),
      .handshakeRefused(status: HandshakeStatus.refusedOnDevice.rawValue),
      .modeB(.noUserKey), .modeB(.wrongUserKey), .modeB(.invalidUserKey),
      .modeB(.encryptedUserKey),
    ]
    for error in retryable { #expect(error.isRetryable, "\(error)") }
    for error in final { #expect(!error.isRetryable, "\(error)") }
    #expect(SyncError.device(.disconnected(.linkLoss)).isRetryable)
    #expect(!SyncError.device(.tokenRejected).isRetryable)
    #expect(!SyncError.storage(.noSpace(path: "/x")).isRetryable)
    #expect(!SyncError.journal("locked").isRetryable)
    #expect(!SyncError.unsafeSerial("\"../x\"").isRetryable)
    #expect(!SyncError.export(sessionId: 1, reason: "bad").isRetryable)
    #expect(!SyncError.cancelled.isRetryable)
    // An error that does not say is worth another try (a radio the door does not know).
    struct Unknown: Error {}
    #expect(Recorders.isRetryable(Unknown()))
    #expect(!Recorders.isRetryable(DeviceError.tokenRejected))
  }

  @Test("a link dropped mid-sync: the next attempt reconnects by serial and resumes; nothing lost")
  func resumesAfterDrop() async throws {
    let bench = try SyncBench(seed: 41)
    defer { bench.cleanUp() }
    for _ in 0..<2 { try await bench.device.addRecording(duration: .seconds(60)) }
    let made = try await bench.device.recordings(includingDigests: true)
    let total = made.reduce(0) { $0 + $1.size }
    let engine = try bench.makeEngine()
    // Once, a little into the first transfer.
    await bench.device.setFaults(FaultPlan(dropLinkAt: bench.sessionClock.elapsed + .seconds(3)))
    let recorders = bench.recorders()

    var events: [SyncRunEvent] = []
    for try await event in recorders.sync(serial: bench.device.serial, into: engine) {
      events.append(event)
    }
    let connected = events.compactMap { event -> Int? in
      if case .connected(let attempt, let serial) = event, serial == bench.device.serial {
        return attempt
      }
      return nil
    }
    let interrupted = events.compactMap { event -> Int? in
      if case .interrupted(let attempt, _) = event { return attempt }
      return nil
    }
    #expect(connected == [1, 2], "\(events)")
    #expect(interrupted == [1], "\(events)")
    guard case .finished(let report)? = events.last else {
      Issue.record("no report: \(events)")
      return
    }
    #expect(report.files.map(\.sessionId) == made.map(\.sessionId))
    #expect(report.files.allSatisfy { $0.verified && $0.deletedFromDevice })
    #expect(try await bench.device.recordings().isEmpty)
    for recording in made {
      #expect(
        try FileDigest.sha256Hex(ofFile: bench.rawPath(recording.sessionId)) == recording.sha256)
    }
    // Resumed, not restarted: well under twice the bytes.
    let sent = await bench.device.counters.dataBytesSent
    #expect(sent < total + total / 2, "\(sent) bytes sent for \(total)")
  }

  @Test("one stream: the pipeline's events of the run come in order with the attempt's")
  func pipelineEventsInTheRunStream() async throws {
    let bench = try SyncBench(seed: 45)
    defer { bench.cleanUp() }
    try await bench.device.addRecording(duration: .seconds(20))
    let id = try #require(try await bench.device.recordings().first?.sessionId)
    let engine = try bench.makeEngine()
    var names: [String] = []
    for try await event in bench.recorders().sync(serial: bench.device.serial, into: engine) {
      switch event {
      case .connected: names.append("connected")
      case .pipeline(.listed(let files, _)): names.append("listed \(files)")
      case .pipeline(.fileStored(let stored, true)) where stored == id: names.append("stored")
      case .pipeline(.fileExported(let exported, _)) where exported == id:
        names.append("exported")
      case .pipeline(.fileDeleted(let deleted)) where deleted == id: names.append("deleted")
      case .finished: names.append("finished")
      default: break
      }
    }
    #expect(names == ["connected", "listed 1", "stored", "exported", "deleted", "finished"])
  }

  @Test("a rejected token ends the sync at once: one attempt, no retry")
  func finalFailureStopsAtOnce() async throws {
    let bench = try SyncBench(seed: 42)
    defer { bench.cleanUp() }
    try await bench.device.addRecording(duration: .seconds(5))
    let engine = try bench.makeEngine()
    let recorders = bench.recorders(token: DeviceToken("not-this-devices-token"))
    var events: [SyncRunEvent] = []
    do {
      for try await event in recorders.sync(serial: bench.device.serial, into: engine) {
        events.append(event)
      }
      Issue.record("the sync completed with a wrong token")
    } catch let error as DeviceError {
      #expect(error == .tokenRejected)
    }
    #expect(events.isEmpty, "\(events)")
    #expect(try await bench.device.recordings().count == 1)
  }

  @Test("a recorder never heard: every attempt is used, then the sync gives up saying why")
  func attemptsUsedUp() async throws {
    let bench = try SyncBench(seed: 43)
    defer { bench.cleanUp() }
    let engine = try bench.makeEngine()
    let recorders = bench.recorders(findTimeout: .seconds(2))
    var failed: [Int] = []
    do {
      for try await event in recorders.sync(
        serial: "0000000000000000", into: engine, options: SyncRunOptions(maximumAttempts: 3))
      {
        if case .connectFailed(let attempt, let error) = event {
          #expect(error as? DeviceError == .deviceNotFound(serial: "0000000000000000"))
          failed.append(attempt)
        }
      }
      Issue.record("a sync of a missing recorder completed")
    } catch let error as SyncAttemptsExhausted {
      #expect(error.attempts == 3)
      #expect(error.description.hasPrefix("gave up after 3 attempts: no device with serial"))
    }
    #expect(failed == [1, 2, 3])
  }

  @Test("watch: waits for the recorder, syncs it, and stops after the runs asked for")
  func watchRuns() async throws {
    let bench = try SyncBench(seed: 44)
    defer { bench.cleanUp() }
    try await bench.device.addRecording(duration: .seconds(10))
    let engine = try bench.makeEngine()
    var heard = 0
    var synced: [Int] = []
    var reports: [SyncReport] = []
    for try await event in bench.recorders().watch(
      serial: nil, into: engine, pause: .seconds(5), runs: 2)
    {
      switch event {
      case .heard: heard += 1
      case .synced(let count): synced.append(count)
      case .run(.finished(let report)): reports.append(report)
      default: break
      }
    }
    #expect(heard == 2)
    #expect(synced == [1, 2])
    #expect(reports.map(\.files.count) == [1, 1], "the journal's record in each report")
    #expect(reports.map { $0.bytesReceived > 0 } == [true, false], "the second moves nothing")
    #expect(try await bench.device.recordings().isEmpty)
  }
}

extension SyncBench {
  /// The front door over the bench's central, with the device's token (or `token`).
  func recorders(token: DeviceToken? = nil, findTimeout: Duration = .seconds(10)) -> Recorders {
    var session = DeviceSession.Configuration(token: token ?? device.configuration.token)
    session.clock = sessionClock
    session.modeB = ModeBCredentials(userKey: userKey)
    return Recorders(
      radio: .shared(central), configuration: .init(session: session, findTimeout: findTimeout))
  }
}
