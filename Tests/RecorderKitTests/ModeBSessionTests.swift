import Foundation
import RecorderConcurrency
import RecorderCrypto
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import RecorderStore
import TestSupport
import Testing

/// Issue 16: the Mode B handshake and encrypted channel (PROTOCOL.md §9) against an emulated
/// portVersion-20 device, in virtual time.
@Suite("Mode B: handshake and encrypted channel")
struct ModeBSessionTests {
  static let seed: UInt64 = 0x16_0B

  static func template() async throws -> SyncFlashTemplate {
    try await SyncFlashTemplate.make(seed: seed, durations: [12, 5, 8].map { .seconds($0) })
  }

  @Test("a fresh Mode B device asks for the user key (FE11); a full sync runs sealed")
  func fullSync() async throws {
    let template = try await Self.template()
    defer { template.cleanUp() }
    let bench = try SyncBench(seed: Self.seed, template: template, portVersion: 20)
    defer { bench.cleanUp() }
    #expect(await bench.device.modeBUserKey == nil)
    let session = try await bench.connect()
    #expect(await session.isEncrypted)
    #expect(await session.info.portVersion == 20)
    #expect(await bench.device.modeBUserKey == (try bench.userKey.publicKey()))
    let report = try await bench.makeEngine().sync(using: BLETransport(session: session))
    #expect(await session.replayedFrames == 0)
    #expect(await session.unauthenticFrames == 0)
    await session.close()
    #expect(report.files.count == template.recordings.count)
    let records = try bench.journalRecords()
    for (id, digest) in template.digests {
      #expect(records[id]?.verification == .verified, "\(id)")
      #expect(sha256(ofFile: bench.rawPath(id)) == digest, "\(id)")
    }
    #expect(try await bench.device.recordings().isEmpty)
    #expect(await bench.device.counters.refusedSealedWrites == 0)
  }

  @Test("a replayed notification is dropped and counted; the session carries on")
  func replayedNotification() async throws {
    let bench = try SyncBench(seed: Self.seed, portVersion: 20)
    defer { bench.cleanUp() }
    _ = try await bench.device.populate(count: 3, seed: 5)
    // Sequence 2 is the reply to TIME_SYNC, sent twice byte for byte.
    await bench.device.setFaults(FaultPlan(replaySealedSequence: 2))
    let session = try await bench.connect()
    #expect(try await session.listRecordings().count == 3)
    #expect(await session.replayedFrames == 1)
    #expect(await session.unauthenticFrames == 0)
    await session.close()
  }

  /// A caller that gives up mid-stream (a background budget) has SYNC_STOP sent from the
  /// cancellation handler; the next request must not be sealed after it and written before
  /// it, or a device checking sequences strictly drops the stop (docs/mode-b.md).
  @Test("streams cancelled mid-file, each followed at once by a request: every SYNC_STOP lands")
  func cancelledStreamStopStaysInOrder() async throws {
    let template = try await Self.template()
    defer { template.cleanUp() }
    let bench = try SyncBench(
      seed: Self.seed, template: template, portVersion: 20,
      modeB: ModeBParameters(sequencePolicy: .strict))
    defer { bench.cleanUp() }
    let session = try await bench.connect()
    let id = try #require(try await session.listRecordings().first?.sessionId)
    await bench.device.recordWireTrace(true)
    let rounds = 12
    for _ in 0..<rounds {
      let (frames, arrived) = AsyncStream.makeStream(of: Void.self)
      let streaming = Task {
        try await session.streamRange(sessionId: id, start: 0) { _ in
          arrived.yield()
          return .continue
        }
      }
      var iterator = frames.makeAsyncIterator()
      _ = await iterator.next()
      streaming.cancel()
      _ = await streaming.result
      _ = try await session.listRecordings()
    }
    await session.close()
    let stops = await bench.device.wireTrace.filter { event in
      if case .written(let bytes) = event {
        WireTraceChecker.opcode(bytes) == 0x001D
      } else {
        false
      }
    }
    #expect(stops.count == rounds, "every SYNC_STOP opened and was taken")
    #expect(await bench.device.counters.refusedSealedWrites == 0)
  }

  /// The signature may take a cloud round trip; a device drops a central that has not
  /// authenticated within about a second, so it is asked for before the link is up.
  @Test("the serial signature is asked for before the link to the device is up")
  func signatureBeforeTheLink() async throws {
    let bench = try SyncBench(seed: Self.seed, portVersion: 20)
    defer { bench.cleanUp() }
    let device = bench.device
    let connectedWhenAsked = Locked<[Bool]>([])
    let credentials = ModeBCredentials(userKey: try TestUserKey.key()) { _ in
      let connected = await device.isConnected
      connectedWhenAsked.withLock { $0.append(connected) }
      return []
    }
    let session = try await bench.connect(modeB: credentials)
    await session.close()
    #expect(connectedWhenAsked.withLock { $0 } == [false])
  }

  /// Reading or making the user's key takes real time (RSA generation: seconds on a busy
  /// machine) that a device's authentication bound must not see: it is done before the
  /// link is up too, once.
  @Test("the user's key is read (or made) once, before the link to the device is up")
  func userKeyBeforeTheLink() async throws {
    let bench = try SyncBench(seed: Self.seed, portVersion: 20)
    defer { bench.cleanUp() }
    let device = bench.device
    let key = try TestUserKey.key()
    let steps = Locked<[String]>([])
    let credentials = ModeBCredentials(
      serialSignature: { _ in
        let connected = await device.isConnected
        steps.withLock { $0.append("signature asked, connected: \(connected)") }
        return []
      },
      loadUserKey: {
        steps.withLock { $0.append("key read") }
        return key
      })
    let session = try await bench.connect(modeB: credentials)
    await session.close()
    // The signature is asked for before the link is up, and the key was read before it.
    #expect(steps.withLock { $0 } == ["key read", "signature asked, connected: false"])
  }

  @Test("a tampered data notification is dropped and counted; the sync re-reads and completes")
  func tamperedNotification() async throws {
    let template = try await Self.template()
    defer { template.cleanUp() }
    let bench = try SyncBench(seed: Self.seed, template: template, portVersion: 20)
    defer { bench.cleanUp() }
    // Set-up and LIST take fewer than 12 notifications: 40 is a data frame of the first file.
    await bench.device.setFaults(FaultPlan(tamperSealedSequence: 40))
    let session = try await bench.connect()
    let report = try await bench.makeEngine().sync(using: BLETransport(session: session))
    #expect(await session.unauthenticFrames == 1)
    #expect(await session.replayedFrames == 0)
    await session.close()
    #expect(report.files.count == template.recordings.count)
    #expect(report.reissues >= 1)
    for (id, digest) in template.digests {
      #expect(sha256(ofFile: bench.rawPath(id)) == digest, "\(id)")
    }
  }

  @Test(
    "a device holding another user's key: the session key does not unwrap on one link; the front door calls it wrongUserKey after a second"
  )
  func wrongUserKey() async throws {
    let other = try RSAPrivateKey.generate(bits: 2048)
    let bench = try SyncBench(
      seed: Self.seed, portVersion: 20,
      modeB: ModeBParameters(provisionedUserKey: try other.publicKey()))
    defer { bench.cleanUp() }
    // One session cannot tell another user's key from a chunk changed on the way.
    await #expect(throws: DeviceError.modeB(.sessionKeyDidNotUnwrap)) {
      try await bench.connect()
    }
    #expect(DeviceError.modeB(.sessionKeyDidNotUnwrap).isRetryable)
    #expect(await bench.device.isAuthenticated == false)
    // Through the front door: a fresh link fails the same way, and that is final.
    let before = await bench.device.counters.connections
    await #expect(throws: DeviceError.modeB(.wrongUserKey)) {
      try await bench.recorders().connect(serial: bench.device.serial)
    }
    #expect(await bench.device.counters.connections - before == 2, "one fresh link, no more")
    #expect(await bench.device.isAuthenticated == false)
  }

  @Test(
    "one link's key material tampered: the front door connects on a fresh link; a sync and a one-attempt watch complete"
  )
  func tamperedKeyChunkIsALinkFault() async throws {
    let template = try await Self.template()
    defer { template.cleanUp() }
    let bench = try SyncBench(seed: Self.seed, template: template, portVersion: 20)
    defer { bench.cleanUp() }
    await bench.device.setFaults(FaultPlan(tamperKeyMaterialChunk: 1))
    let recorders = bench.recorders()
    let connection = try await recorders.connect(serial: bench.device.serial)
    #expect(await connection.session.isEncrypted)
    #expect(await bench.device.counters.connections == 2)
    await connection.close()

    // A sync of one attempt, then a watch of one attempt per run, each meeting a tampered
    // key material on its first link.
    await bench.device.setFaults(FaultPlan(tamperKeyMaterialChunk: 0))
    let engine = try bench.makeEngine()
    let report = try await recorders.runSync(
      serial: bench.device.serial, into: engine, options: SyncRunOptions(maximumAttempts: 1))
    #expect(report.files.count == template.recordings.count)
    await bench.device.setFaults(FaultPlan(tamperKeyMaterialChunk: 2))
    var synced = 0
    for try await event in recorders.watch(
      serial: bench.device.serial, into: engine, options: SyncRunOptions(maximumAttempts: 1),
      pause: .seconds(1), runs: 1)
    {
      if case .synced = event { synced += 1 }
    }
    #expect(synced == 1)
    #expect(await bench.device.counters.connections == 6)
    #expect(try await bench.device.recordings().isEmpty)
  }

  @Test(
    "every answer §9 leaves open: chunk index base 0 or 1, strict or increasing sequence check",
    arguments: ChunkIndexBase.allCases, SequencePolicy.allCases)
  func openChoices(indexBase: ChunkIndexBase, policy: SequencePolicy) async throws {
    let bench = try SyncBench(
      seed: Self.seed, portVersion: 20,
      modeB: ModeBParameters(chunkIndexBase: indexBase, sequencePolicy: policy))
    defer { bench.cleanUp() }
    _ = try await bench.device.populate(count: 2, seed: 9)
    let session = try await bench.connect()
    #expect(try await session.listRecordings().count == 2)
    await session.close()
    #expect(await bench.device.counters.refusedSealedWrites == 0)
    // A second session: the device holds the key now and skips FE11.
    let again = try await bench.connect()
    #expect(await again.isEncrypted)
    await again.close()
  }
}

@Suite("Mode B: recordings stored end-to-end encrypted")
struct ModeBE2EESyncTests {
  @Test("E2EE recordings sync as stored (raw copy encrypted) and export decrypted")
  func e2eeRecordingsSync() async throws {
    let key = try TestUserKey.key()
    let bench = try SyncBench(
      seed: 0xE2EE, portVersion: 20, modeB: ModeBParameters(e2eeUserKey: try key.publicKey()))
    defer { bench.cleanUp() }
    let made = [
      try await bench.device.addRecording(duration: .seconds(6)),
      try await bench.device.addRecording(duration: .seconds(3)),
    ]
    var options = SyncEngine.Options.fast
    options.format = .wav
    options.userKey = ModeBCredentials(userKey: key)
    let report = try await bench.syncOnce(try bench.makeEngine(options: options))
    #expect(report.files.count == 2)
    for recording in made {
      let raw = try #require(
        FileManager.default.contents(atPath: bench.rawPath(recording.sessionId)))
      #expect(raw.count == recording.size)
      #expect(Array(raw.prefix(8)) == Array("PLAUD.AI".utf8))
      let file = try #require(report.files.first { $0.sessionId == recording.sessionId })
      let export = try #require(file.exportPath)
      let frames = (recording.size - 512) / 80
      #expect(fileSize(export) == Int64(44 + frames * 320 * 2), "\(recording.sessionId)")
    }
    #expect(!bench.exportNames().contains { $0.contains(".plain") || $0.hasPrefix(".partial") })
  }

  @Test(
    "an E2EE recording re-exported in another format is decrypted too; without the key, refused")
  func e2eeReExport() async throws {
    let key = try TestUserKey.key()
    let bench = try SyncBench(
      seed: 0xE2EF, portVersion: 20, modeB: ModeBParameters(e2eeUserKey: try key.publicKey()))
    defer { bench.cleanUp() }
    let recording = try await bench.device.addRecording(duration: .seconds(4))
    let session = try await bench.connect()
    let transport = BLETransport(session: session)
    let workspace = try SyncWorkspace(root: bench.root, userKey: ModeBCredentials(userKey: key))
    let request = RecordingExport.Request(sessionId: recording.sessionId, format: .wav)
    let wav = try await workspace.exportRecording(
      request, over: transport, clock: bench.sessionClock)
    let frames = (recording.size - 512) / 80
    #expect(fileSize(wav.path) == Int64(44 + frames * 320 * 2))

    // From the stored (encrypted) raw copy, in another format: nothing asked of the device.
    let sent = await bench.device.counters.dataBytesSent
    var pcm = request
    pcm.format = .pcm
    let again = try await workspace.exportRecording(pcm, over: transport, clock: bench.sessionClock)
    #expect(fileSize(again.path) == Int64(frames * 320 * 2))
    #expect(await bench.device.counters.dataBytesSent == sent)
    #expect(!bench.exportNames().contains { $0.contains(".plain") || $0.hasPrefix(".partial") })

    // A workspace without the user key cannot decrypt it: a typed error, no file.
    let keyless = try SyncWorkspace(root: bench.root)
    var mp3 = request
    mp3.format = .mp3
    await #expect(throws: RecordingExportError.self) {
      try await keyless.exportRecording(mp3, over: transport, clock: bench.sessionClock)
    }
    #expect(!bench.exportNames().contains { $0.hasSuffix(".mp3") || $0.contains(".plain") })

    // A key store that fails says so: not "no key was given".
    let broken = try SyncWorkspace(
      root: bench.root,
      userKey: ModeBCredentials { () throws(ModeBError) -> RSAPrivateKey in
        throw .keyStore(.io(path: "/keys/user", reason: "locked"))
      })
    do {
      _ = try await broken.exportRecording(mp3, over: transport, clock: bench.sessionClock)
      Issue.record("exported without a readable key")
    } catch {
      #expect("\(error)".contains("user key: /keys/user"), "\(error)")
      #expect(!"\(error)".contains("no private key"), "\(error)")
    }
    await session.close()
  }
}
