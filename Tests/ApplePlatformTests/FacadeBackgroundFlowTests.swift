import Foundation
import PlaudDeviceBasicSDK
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import RecorderStore
import RecorderTesting
import TestSupport
import Testing

/// An app's delegate as the vendor's background guide writes it: a beacon wake-up connects
/// by serial; each callback is also sent to `events` so a test can wait for it.
final class WakeUpApp: PlaudDeviceAgentProtocol, Sendable {
  let events: AsyncStream<String>
  private let continuation: AsyncStream<String>.Continuation
  let agent: PlaudDeviceAgent

  init(agent: PlaudDeviceAgent) {
    self.agent = agent
    (events, continuation) = AsyncStream.makeStream()
  }

  func blePenState(
    state: Int, privacy: Int, keyState: Int, uDisk: Int, findMyToken: Int, hasSndpKey: Int,
    deviceAccessToken: Int
  ) { continuation.yield("blePenState \(state)") }

  func bleIBeaconWakeupTriggered(sn: String) {
    continuation.yield("wake \(sn)")
    agent.connectBySN(sn)
  }

  func bleBind(sn: String?, status: Int, protVersion: Int, timezone: Int) {
    continuation.yield("bleBind \(sn ?? "-") \(status)")
  }
}

@Suite("Background flows through the platform services' logic", .timeLimit(.minutes(2)))
struct FacadeBackgroundFlowTests {
  /// A JWT whose `sub` derives the emulator's token (PROTOCOL.md §8).
  static let userToken: String = {
    func encode(_ text: String) -> String {
      Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
        .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
    return encode(#"{"alg":"HS256","typ":"JWT"}"#) + "."
      + encode(#"{"sub":"client_user_01234567-89ab-cdef-0123-456789abcdef"}"#) + ".c2lnbmF0dXJl"
  }()

  @Test("a Core Location region entry wakes the facade, which reconnects by serial and binds")
  func beaconWakeUp() async throws {
    let bench = try RecorderBench("facade-beacon", seed: 3)
    defer { bench.cleanUp() }
    let (clock, device) = (bench.clock, bench.device)
    let location = Locked<ScriptedLocationManager?>(nil)
    let beacons = LocationBeaconMonitor(
      configuration: .init(
        identities: BeaconIdentities(shared: PlatformServicesTests.identity),
        clock: AnyClock(clock))
    ) { sink in
      let manager = ScriptedLocationManager(sink: sink)
      location.withLock { $0 = manager }
      return manager
    }
    var configuration = PlaudSDKConfiguration(
      central: bench.central, storageRoot: bench.directory + "/store",
      clock: AnyClock(clock), beaconMonitor: beacons)
    // Its own domain manager: `.shared` is one per process, and tests run in parallel.
    configuration.domainManager = PlaudDomainManager()
    configuration.unixTime = { 1_775_395_281 }
    configuration.timeZoneSeconds = { 3 * 3600 }
    let tasks = ScriptedBackgroundTasks()
    configuration.backgroundTasks = tasks
    let agent = PlaudDeviceAgent(configuration: configuration)
    let app = WakeUpApp(agent: agent)
    agent.delegate = app
    clock.startAutoAdvance()
    agent.initSDK(userAccessToken: Self.userToken, customDomain: "127.0.0.1:9")
    agent.activateBeaconMonitoring()
    agent.updateBeaconMonitoredDevices(serialNumbers: [device.serial])
    let system = try #require(location.withLock { $0 })
    while system.calls.withLock({ $0 }).isEmpty { await Task.yield() }
    let region = LocationBeaconMonitor.regionIdentifier(for: device.serial)
    #expect(system.calls.withLock { $0 } == [.start(region)])
    while !tasks.state.withLock({ $0.running.isEmpty }) { await Task.yield() }
    let beforeWake = tasks.state.withLock { $0.begun.count }

    // The recorder comes into range: iOS calls didEnterRegion (relaunching the app if needed).
    system.fire(.didEnterRegion(identifier: region))
    var events = app.events.makeAsyncIterator()
    #expect(await events.next() == "wake \(device.serial)")
    var bound = false
    while let event = await events.next() {
      if event.hasPrefix("bleBind") {
        bound = event == "bleBind \(device.serial) 0"
        break
      }
    }
    #expect(bound)
    #expect(await device.isConnected)
    // The wake-up's connect ran inside a background task of its own, ended once.
    while !tasks.state.withLock({ $0.running.isEmpty }) { await Task.yield() }
    let state = tasks.state.withLock { $0 }
    #expect(state.begun.count == beforeWake + 1, "\(state.begun)")
    #expect(state.begun.last == "PlaudDeviceBasicSDK.device")
    #expect(state.ended.sorted() == Array(1...state.begun.count) && state.misused.isEmpty)
  }

  @Test(
    "the OS ending background time mid-sync stops it through the budget; the next grant ends it")
  func budgetExpiryMidSync() async throws {
    let bench = try RecorderBench("budget-expiry", seed: 5)
    defer { bench.cleanUp() }
    let (device, root) = (bench.device, bench.root)
    for seconds in [30, 30] { try await device.addRecording(duration: .seconds(seconds)) }
    let made = try await device.recordings(includingDigests: true)
    bench.clock.startAutoAdvance()
    let engine = try bench.makeEngine()
    let application = ScriptedBackgroundTasks()
    let runner = BackgroundTaskRunner(
      application: application, budget: BackgroundBudget(clock: bench.anyClock))

    let first = try await bench.connect()
    let interrupted = Task {
      await runner.run(named: "sync") { try await engine.sync(using: BLETransport(session: first)) }
    }
    while await device.counters.bytesNotified < 40_000 { await Task.yield() }
    application.expireAll()  // iOS: the background task's time is up
    let cut = try #require(await interrupted.value)
    #expect(cut.expiredAt != nil)
    #expect((try? cut.result.get()) == nil)
    #expect(application.state.withLock { $0.ended } == [1])
    await first.close()
    #expect(try await device.recordings().count == made.count, "nothing deleted unfinished")

    let second = try await bench.connect()
    let finished = try #require(
      await runner.run(named: "sync") {
        try await engine.sync(using: BLETransport(session: second))
      })
    await second.close()
    #expect(finished.expiredAt == nil)
    #expect(application.state.withLock { $0.ended } == [1, 2])
    for recording in made {
      let raw = root + "/\(device.serial)/\(recording.sessionId).opus-raw"
      #expect(try FileDigest.sha256Hex(ofFile: raw) == recording.sha256)
    }
    #expect(try await device.recordings().isEmpty)
  }
}

@Suite("A long backlog in processing tasks, against the emulated device", .timeLimit(.minutes(2)))
struct BacklogSyncTests {
  @Test("the progress tally: listed bytes are the total, each file counts the bytes it reached")
  func progressTally() {
    var tally = SyncProgressTally()
    let progress = { (id: SessionID, bytes: Int64) -> SyncEvent in
      .fileProgress(sessionId: id, fraction: 0, bytes: bytes, bytesPerSecond: 0, eta: nil)
    }
    let steps: [(SyncEvent, changed: Bool, completed: Int64, total: Int64)] = [
      (.listed(files: 2, bytes: 1_000), true, 0, 1_000),
      (progress(1, 300), true, 300, 1_000),
      // A re-issue from an earlier offset is not a step back.
      (progress(1, 200), false, 300, 1_000),
      (progress(2, 400), true, 700, 1_000),
      (.fileStored(sessionId: 1, verified: true), false, 700, 1_000),
      // Never past the total.
      (progress(2, 2_000), true, 1_000, 1_000),
      // A new run starts over.
      (.listed(files: 1, bytes: 500), true, 0, 500),
    ]
    for (index, step) in steps.enumerated() {
      let changed = tally.add(step.0)
      #expect(changed == step.changed, "step \(index)")
      #expect((tally.completed, tally.total) == (step.completed, step.total), "step \(index)")
    }
  }

  @Test("the system expires the first launch mid-backlog; the next launch resumes and finishes")
  func backlogAcrossLaunches() async throws {
    let bench = try RecorderBench("backlog", seed: 11)
    defer { bench.cleanUp() }
    let (device, root) = (bench.device, bench.root)
    for _ in 0..<4 { try await device.addRecording(duration: .seconds(60)) }
    let made = try await device.recordings(includingDigests: true)
    bench.clock.startAutoAdvance()
    let engine = try bench.makeEngine()
    let scheduler = ScriptedScheduler()
    let processor = BacklogProcessor(
      scheduler: scheduler, budget: BackgroundBudget(clock: bench.anyClock),
      identifier: "ai.recorderkit.backlog")
    let runs = AsyncStream<Bool>.makeStream()
    let registered = processor.registerSync(
      recorders: bench.recorders, serial: device.serial, engine: engine,
      finished: { runs.continuation.yield($0.expiredAt != nil) })
    #expect(registered)
    var finished = runs.stream.makeAsyncIterator()

    // First launch: the system's time runs out in the second recording.
    let first = scheduler.launch()
    let size = Int64(made[0].size)
    while (first.progress.withLock { $0.last ?? 0 }) < 100 * (size + size / 2) / (4 * size) {
      await Task.yield()
    }
    first.expire()
    #expect(await finished.next() == true)
    #expect(first.completed.withLock { $0 } == false)
    #expect(scheduler.state.withLock { $0.submitted } == 1, "asked for another launch")
    let left = try await device.recordings().count
    #expect(left >= 3, "at most the first recording deleted")
    let percents = first.progress.withLock { $0 }
    #expect(percents == percents.sorted() && (percents.last ?? 100) < 100, "\(percents)")

    // Second launch: resumes from the journal and finishes the backlog.
    let second = scheduler.launch()
    #expect(await finished.next() == false)
    #expect(second.completed.withLock { $0 } == true)
    #expect(scheduler.state.withLock { $0.submitted } == 1, "no further launch asked for")
    #expect(second.progress.withLock { $0.last } == 100)
    #expect(try await device.recordings().isEmpty)
    // Resumed where the first launch stopped, not from the start of the file it cut.
    let sent = await device.counters.dataBytesSent
    #expect(sent < made.reduce(0) { $0 + $1.size } + made[0].size / 4, "\(sent) bytes sent")
    for recording in made {
      let raw = root + "/\(device.serial)/\(recording.sessionId).opus-raw"
      #expect(try FileDigest.sha256Hex(ofFile: raw) == recording.sha256)
    }
  }
}
