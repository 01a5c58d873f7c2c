import Foundation
import RecorderBluetooth
import RecorderConcurrency
import RecorderCoreBluetooth
import RecorderEmulator
import RecorderKit
import RecorderTesting
import TestSupport
import Testing

/// The seed flows of docs/ios-integration.md ("Flow by flow") through RecorderKit's own API,
/// no facade: an app whose every launch makes a front door over a restorable CoreBluetooth
/// central, keeps its recorder connected (`Recorders.keepConnected`), restores the keeping an
/// earlier launch owed (`Recorders.restoreKeptConnection`), and syncs the vendor guide's way
/// (list, export each as mp3, delete it once exported) each time it is connected, each step
/// inside a background task. The same flows through the facade are `ScriptedIOSFlowTests`.
@Suite("Background flows through RecorderKit under the scripted iOS", .timeLimit(.minutes(3)))
struct KeepConnectedFlowTests {
  /// One launch of the app: the door, the workspace, the keeping and the guide's sync.
  final class KitApp: Sendable {
    let recorders: Recorders
    let workspace: SyncWorkspace
    let exports: String
    private let tasks: any BackgroundTaskMirror
    private let clock: AnyClock
    private let entries = Locked<[String]>([])
    /// Every launch's log; this app writes to it only while its launch is the phone's.
    private let journal: Locked<[String]>
    private let launch: Int
    private let currentLaunch: Locked<Int>
    private let connection = Locked<RecorderConnection?>(nil)
    private let kept = Locked<(keeping: KeptConnection, watch: Task<Void, Never>)?>(nil)

    init(
      recorders: Recorders, workspace: SyncWorkspace, exports: String,
      tasks: any BackgroundTaskMirror, clock: AnyClock, journal: Locked<[String]>, launch: Int,
      currentLaunch: Locked<Int>
    ) {
      self.recorders = recorders
      self.workspace = workspace
      self.exports = exports
      self.tasks = tasks
      self.clock = clock
      self.journal = journal
      self.launch = launch
      self.currentLaunch = currentLaunch
    }

    /// This launch's log.
    var log: [String] { entries.current }
    func count(_ entry: String) -> Int { log.filter { $0 == entry }.count }
    private func note(_ entry: String) {
      entries.withLock { $0.append(entry) }
      guard currentLaunch.current == launch else { return }
      journal.withLock { $0.append(entry) }
    }

    /// Connects to the recorder (the front door: its peripheral, else a scan) in a
    /// background task, keeps it connected when `keep`, and syncs. A connection up is
    /// closed first.
    func connect(serial: String, keep: Bool) async {
      if let old = connection.withLock({ $0.take() }) { await old.close() }
      let made: RecorderConnection? = await inBackgroundTask { _ in
        try? await self.recorders.connect(serial: serial)
      }
      guard let made else { return note("connect failed") }
      if keep {
        self.keep(recorders.keepConnected(made))
      } else {
        connection.withLock { $0 = made }
        note("connected")
        await sync()
      }
    }

    /// Turns the recorder's iBeacon on (setting 49), over the connection up now.
    func enableBeacon() async throws {
      guard let connection = connection.current else { throw DeviceError.closed }
      _ = try await connection.session.writeSetting(.iBeaconWakeup, value: 1)
    }

    /// Follows `keeping`: each connection it reports is synced.
    func keep(_ keeping: KeptConnection) {
      let watch = Task {
        for await event in keeping.events {
          switch event {
          case .connected(let made):
            self.connection.withLock { $0 = made }
            self.note("connected")
            await self.sync()
          case .disconnected(_, let reconnecting):
            self.note(reconnecting ? "lost, waiting" : "lost")
          case .failed: self.note("keeping failed")
          case .device: break
          }
        }
      }
      kept.withLock { $0 = (keeping, watch) }
    }

    /// The guide's sync over the connection up now: list, then export each (mp3) and delete
    /// it once exported; an export that fails moves on to the next.
    func sync() async {
      guard let connection = connection.current else { return }
      note("sync")
      let listed = await inBackgroundTask { _ in
        try? await self.workspace.listRecordings(over: connection.session)
      }
      guard let listed else { return note("list failed") }
      note("listed \(listed.count)")
      for item in listed {
        let id = item.recording.sessionId
        let exported = await inBackgroundTask { timeUp in
          await self.export(id, from: connection, stopWhen: { timeUp.current })
        }
        guard exported else {
          note("export failed")
          continue
        }
        note("exported")
        let deleted = await inBackgroundTask { _ in
          (try? await self.workspace.deleteRecording(id, over: connection.session)) != nil
        }
        note(deleted ? "deleted" : "delete failed")
      }
      note("idle")
    }

    private func export(
      _ id: SessionID, from connection: RecorderConnection,
      stopWhen: @escaping @Sendable () -> Bool
    ) async -> Bool {
      let request = RecordingExport.Request(
        sessionId: id, format: .mp3, channels: 1, directory: exports)
      for await event in recorders.export(
        request, from: connection, into: workspace, stopWhen: stopWhen)
      {
        if case .finished(let result) = event {
          if case .success = result { return true }
          return false
        }
      }
      return false
    }

    /// Runs `work` inside a background task (its expiry stops a transfer at its next frame,
    /// through `timeUp`); a task the system refuses does not keep the work from running.
    private func inBackgroundTask<Value: Sendable>(
      _ work: @escaping @Sendable (Locked<Bool>) async -> Value
    ) async -> Value {
      let timeUp = Locked(false)
      let runner = BackgroundTaskRunner(
        application: tasks, budget: BackgroundBudget(clock: clock))
      let ran = await runner.run(named: "sync") {
        let running = Task { await work(timeUp) }
        return await withTaskCancellationHandler {
          await running.value
        } onCancel: {
          timeUp.withLock { $0 = true }
        }
      }
      // The work runs in its own task, so its result is never the budget's cancellation.
      if let ran, case .success(let value) = ran.result { return value }
      return await work(timeUp)
    }
  }

  /// A phone whose app, at every launch, makes the front door over a restorable CoreBluetooth
  /// central remembering recorders in its store, restores a keeping an earlier launch owed,
  /// and (when `beacons`) connects when the recorder's beacon wakes it.
  final class KitPhone: Sendable {
    let bench: RecorderBench
    let ios: ScriptedIOS
    let exports: String
    let store: String
    private let current = Locked<KitApp?>(nil)
    let journal = Locked<[String]>([])
    let launches = Locked(0)
    private let beaconHearing: Task<Void, Never>

    init(
      _ name: String, seed: UInt64, rules: ScriptedIOS.Rules = ScriptedIOS.Rules(),
      keeps: Bool = true
    ) throws {
      let bench = try RecorderBench(name, seed: seed) {
        $0.beacon = ScriptedIOSFlowTests.Phone.iBeacon
      }
      self.bench = bench
      let (clock, manual) = (bench.anyClock, bench.clock)
      exports = bench.directory + "/exports"
      store = bench.directory + "/store"
      ios = ScriptedIOS(clock: clock, rules: rules) { sink in
        EmulatedSystemBluetooth(central: bench.central, clock: manual, sink: sink)
      }
      let (ios, current, exports, store, journal, launches) = (
        ios, current, exports, store, journal, launches
      )
      let (serial, token) = (bench.device.serial, bench.device.configuration.token)
      ios.install { reason in
        journal.withLock { $0.append("launch \(reason)") }
        let launch = launches.withLock { count -> Int in
          count += 1
          return count
        }
        let central = UnconsumedHoldCentral(
          CoreBluetoothCentral(
            configuration: CoreBluetoothCentral.Configuration(restoreIdentifier: "rk", clock: clock)
          ) { identifier, sink in ios.centralManager(restoreIdentifier: identifier, events: sink) },
          clock: manual)
        var session = DeviceSession.Configuration(token: token)
        session.clock = clock
        session.unixTime = { 1_775_395_281 }
        session.timeZoneSeconds = { 0 }
        let recorders = Recorders(
          radio: .shared(central),
          configuration: .init(
            session: session, findTimeout: .seconds(10),
            known: KnownRecorders(path: store + "/known-recorders.json")))
        guard let workspace = try? SyncWorkspace(root: store) else { return }
        let app = KitApp(
          recorders: recorders, workspace: workspace, exports: exports, tasks: ios.backgroundTasks,
          clock: clock, journal: journal, launch: launch, currentLaunch: launches)
        current.withLock { $0 = app }
        // What an earlier launch was waiting for, waited for again.
        if keeps, let restored = recorders.restoreKeptConnection() { app.keep(restored) }
        guard !keeps else { return }
        // The beacon wake-up: connect (to the peripheral met before, no scan) and sync.
        let beacons = LocationBeaconMonitor(
          configuration: .init(
            identities: BeaconIdentities(
              bySerial: [serial: ScriptedIOSFlowTests.Phone.recorderBeacon]),
            clock: clock)
        ) { events in ios.locationManager(events: events) }
        let wakeUps = beacons.wakeUps()
        Task {
          await beacons.monitor(serials: [serial])
          for await woken in wakeUps {
            journal.withLock { $0.append("wake") }
            await app.connect(serial: woken, keep: false)
          }
        }
      }
      let device = bench.device
      beaconHearing = Task {
        for await beacon in await device.observeBeacon() {
          ios.hearBeacons(beacon.map { [$0] } ?? [])
        }
      }
    }

    deinit { beaconHearing.cancel() }

    var app: KitApp { current.withLock { $0! } }
    var device: EmulatedDevice { bench.device }
    /// The serials owed a pending connect, as the store says now.
    var awaited: [String] { KnownRecorders(path: store + "/known-recorders.json").awaited }

    /// Waits (virtual time, a second at a time, up to `limit`) for `condition`.
    func within(_ limit: Duration, _ condition: () async throws -> Bool) async throws -> Bool {
      var waited = Duration.zero
      while waited < limit {
        if try await condition() { return true }
        try await bench.clock.sleep(for: .seconds(1))
        waited += .seconds(1)
      }
      return try await condition()
    }

    func total(_ entry: String) -> Int { journal.withLock { $0.filter { $0 == entry }.count } }

    /// Every recording stored once, checked against the device's digests, deleted from the
    /// device only after that, exported once.
    func expectStored(_ made: [RecordingInfo]) async throws {
      _ = try await within(.seconds(60)) {
        let checkpoints = try SyncWorkspace(root: store).checkpoints(serial: device.serial)
        return checkpoints.count == made.count
          && checkpoints.allSatisfy { $0.stage == .deletedFromDevice }
      }
      let checkpoints = try SyncWorkspace(root: store).checkpoints(serial: device.serial)
      let digests = Dictionary(uniqueKeysWithValues: made.map { ($0.sessionId, $0.sha256 ?? "") })
      #expect(checkpoints.count == made.count)
      for checkpoint in checkpoints {
        #expect(checkpoint.sha256 == digests[checkpoint.sessionId])
        #expect(checkpoint.stage == .deletedFromDevice)
      }
      let files = try FileManager.default.contentsOfDirectory(atPath: exports).sorted()
        .filter { !$0.hasPrefix(".partial-") }
      #expect(files == made.map { "\(device.serial)-\($0.sessionId).mp3" }.sorted())
    }

    func cleanUp() { bench.cleanUp() }
  }

  /// Flow 2 through RecorderKit: connected and kept in the foreground; the recorder leaves
  /// while the app is in the background and is suspended; the keeping's pending connect (no
  /// scan) completes when it is back, waking the app, which syncs as far as the background
  /// time lets it; the rest when the user opens the app.
  @Test(
    "flow 2: a kept recorder that left and came back while the app was suspended syncs, no scan")
  func recorderComesBack() async throws {
    let phone = try KitPhone("kit-back", seed: 31)
    defer { phone.cleanUp() }
    phone.bench.clock.startAutoAdvance()
    phone.ios.openByUser()
    await phone.app.connect(serial: phone.device.serial, keep: true)
    #expect(try await phone.within(.seconds(300)) { phone.app.log.contains("idle") })
    let scansWhileForeground = phone.ios.record.scans.count
    phone.ios.sendToBackground()
    let waits = phone.app.count("lost, waiting")
    await phone.device.goOutOfRange()
    #expect(try await phone.within(.seconds(300)) { phone.app.count("lost, waiting") > waits })
    #expect(phone.awaited == [phone.device.serial], "owed while away")
    for seconds in [20.0, 30] {
      _ = try await phone.device.addRecording(duration: .seconds(seconds))
    }
    let made = try await phone.device.recordings(includingDigests: true)
    try await phone.bench.clock.sleep(for: .seconds(600))
    #expect(phone.ios.appState == .suspended)
    let (connects, idles) = (phone.app.count("connected"), phone.app.count("idle"))
    await phone.device.comeBackInRange()
    #expect(
      try await phone.within(.seconds(300)) {
        phone.app.count("connected") > connects && phone.app.count("idle") > idles
      })
    #expect(phone.app.log.contains("listed 2"), "\(phone.app.log)")
    #expect(phone.ios.record.scans.count == scansWhileForeground, "no scan in the background")
    #expect(phone.ios.record.relaunches == 0)
    #expect(phone.ios.record.connects.contains { $0.state != .foreground }, "a background connect")
    #expect(phone.app.count("exported") >= 1, "the sync ran in the background")
    #expect(phone.awaited.isEmpty, "no longer owed once back")
    phone.ios.openByUser()
    await phone.app.sync()
    #expect(try await phone.within(.seconds(300)) { try await phone.device.recordings().isEmpty })
    try await phone.expectStored(made)
  }

  /// Flow 3 through RecorderKit: after a force-quit or a restart nothing wakes the app; the
  /// next launch restores the keeping from the mark in the known recorders, with no call of
  /// the app's but `restoreKeptConnection()`, and the sync runs from its connection.
  @Test(
    "flow 3: after a force-quit or a restart nothing wakes; the next launch restores the keeping",
    arguments: ["force-quit", "restart"])
  func nothingWakesUntilTheNextLaunch(ending: String) async throws {
    let phone = try KitPhone("kit-quit", seed: 53)
    defer { phone.cleanUp() }
    phone.bench.clock.startAutoAdvance()
    phone.ios.openByUser()
    await phone.app.connect(serial: phone.device.serial, keep: true)
    #expect(try await phone.within(.seconds(300)) { phone.app.log.contains("idle") })
    phone.ios.sendToBackground()
    await phone.device.goOutOfRange()
    #expect(try await phone.within(.seconds(300)) { phone.app.count("lost, waiting") == 1 })
    #expect(phone.awaited == [phone.device.serial])
    ending == "restart" ? phone.ios.reboot() : phone.ios.forceQuit()
    _ = try await phone.device.addRecording(duration: .seconds(30))
    let made = try await phone.device.recordings(includingDigests: true)
    let connections = await phone.device.counters.connections
    await phone.device.comeBackInRange()
    try await phone.bench.clock.sleep(for: .seconds(3600))
    #expect(phone.ios.record.launches == [.user])
    #expect(await phone.device.counters.connections == connections)
    #expect(try await phone.device.recordings().count == made.count)
    // The user opens the app: the launch restores the keeping; it connects and syncs.
    let connects = phone.total("connected")
    phone.ios.openByUser()
    #expect(
      try await phone.within(.seconds(300)) {
        try await phone.device.recordings().isEmpty && phone.app.log.contains("deleted")
      })
    #expect(phone.total("connected") == connects + 1)
    #expect(phone.ios.record.relaunches == 0)
    #expect(phone.awaited.isEmpty)
    try await phone.expectStored(made)
  }

  /// Flow 1 through RecorderKit (seed 000): the recorder's beacon wakes a system-terminated
  /// app, which connects by serial (the peripheral met before, no scan) and syncs as far as
  /// the background time goes; the user walks out and back in until the backlog is done. No
  /// keeping: only the beacon wakes the app.
  @Test("flow 1: a beacon wakes a system-terminated app; the backlog finishes across expiries")
  func beaconWakesTerminatedApp() async throws {
    let phone = try KitPhone("kit-beacon", seed: 41, keeps: false)
    defer { phone.cleanUp() }
    phone.bench.clock.startAutoAdvance()
    phone.ios.openByUser()
    await phone.app.connect(serial: phone.device.serial, keep: false)
    #expect(try await phone.within(.seconds(300)) { phone.app.log.contains("idle") })
    // The guide's set-up: the recorder's iBeacon on. The beacon going on next to the phone
    // is a region entry: the app connects and syncs again (nothing to do).
    try await phone.app.enableBeacon()
    #expect(try await phone.within(.seconds(60)) { await phone.device.currentBeacon != nil })
    #expect(try await phone.within(.seconds(300)) { phone.total("idle") == 2 })
    #expect(phone.total("wake") == 1)
    phone.ios.sendToBackground()
    await phone.device.goOutOfRange()
    try await phone.bench.clock.sleep(for: .seconds(60))
    phone.ios.terminateBySystem()
    for seconds in [240.0, 300] {
      _ = try await phone.device.addRecording(duration: .seconds(seconds))
    }
    let made = try await phone.device.recordings(includingDigests: true)
    try await phone.bench.clock.sleep(for: .seconds(600))
    var comebacks = 0
    while try await !phone.device.recordings().isEmpty, comebacks < 24 {
      comebacks += 1
      let entries = phone.ios.record.regionEntries
      await phone.device.comeBackInRange()
      #expect(try await phone.within(.seconds(60)) { phone.ios.record.regionEntries > entries })
      _ = try await phone.within(.seconds(900)) {
        if phone.ios.appState == .suspended || phone.ios.appState == .terminatedBySystem {
          return true
        }
        return try await phone.device.recordings().isEmpty && phone.app.log.last == "idle"
      }
      await phone.device.goOutOfRange()
      try await phone.bench.clock.sleep(for: .seconds(120))
      if comebacks % 2 == 1, phone.ios.appState.isInMemory { phone.ios.terminateBySystem() }
    }
    #expect(try await phone.device.recordings().isEmpty, "the backlog finished")
    let record = phone.ios.record
    print(
      "flow 1 through RecorderKit: \(made.count) recordings; \(comebacks) comebacks, "
        + "\(record.relaunches) relaunches, \(record.regionEntries) region entries, "
        + "\(record.tasksExpired) tasks expired, \(phone.total("wake")) wake-ups, "
        + "\(phone.total("exported")) exports")
    #expect(phone.ios.record.relaunches >= 1)
    #expect(record.regionEntries == comebacks + 1)
    #expect(
      phone.ios.record.launches.dropFirst().allSatisfy {
        if case .location = $0 { return true }
        return false
      }, "only the beacon relaunched the app")
    try await phone.expectStored(made)
  }
}
