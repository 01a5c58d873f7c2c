import Foundation
import PlaudDeviceBasicSDK
import RecorderBluetooth
import RecorderConcurrency
import RecorderCoreBluetooth
import RecorderEmulator
import RecorderKit
import RecorderStore
import RecorderTesting
import TestSupport
import Testing

/// The vendor's background guide (seed 000) as an app: list, export each as mp3, delete it
/// once exported, next; sync when bound. Vendor calls only. Every callback is logged.
final class GuideApp: PlaudDeviceAgentProtocol, AudioExportCallback, Sendable {
  private struct State {
    var pending: [Int] = []
    var current: Int?
    var log: [String] = []
  }
  let agent: PlaudDeviceAgent
  let outputDir: String
  private let state = Locked(State())
  /// Every launch's log, in order (this app's entries too, while its launch is current).
  let journal: Locked<[String]>
  /// This app's launch, and the phone's current one: an app whose launch ended runs on here
  /// (Swift cannot freeze it), but on a phone it would run no code, so it writes no journal.
  let launch: Int
  let currentLaunch: Locked<Int>

  init(
    agent: PlaudDeviceAgent, outputDir: String, journal: Locked<[String]> = Locked([]),
    launch: Int = 0, currentLaunch: Locked<Int> = Locked(0)
  ) {
    self.agent = agent
    self.outputDir = outputDir
    self.journal = journal
    self.launch = launch
    self.currentLaunch = currentLaunch
  }

  /// This launch's callbacks.
  var log: [String] { state.withLock { $0.log } }
  func count(_ entry: String) -> Int { log.filter { $0 == entry }.count }
  private func note(_ entry: String) {
    state.withLock { $0.log.append(entry) }
    guard currentLaunch.withLock({ $0 }) == launch else { return }
    journal.withLock { $0.append(entry) }
  }

  private func exportNext() {
    let next: Int? = state.withLock { state in
      state.current = state.pending.isEmpty ? nil : state.pending.removeFirst()
      return state.current
    }
    guard let next else {
      note("idle")
      return
    }
    agent.exportAudio(
      sessionId: next, outputDir: outputDir, format: .mp3, channels: 1, callback: self)
  }

  func blePenState(
    state: Int, privacy: Int, keyState: Int, uDisk: Int, findMyToken: Int, hasSndpKey: Int,
    deviceAccessToken: Int
  ) {}
  func bleConnectState(state: Int) { note("bleConnectState \(state)") }
  func bleConnectStage(sn: String?, stage: String, detail: String?) { note("stage \(stage)") }
  func bleBind(sn: String?, status: Int, protVersion: Int, timezone: Int) {
    note("bleBind \(status)")
    if status == 0 { startSync() }
  }

  /// The guide's sync: list, then export each.
  func startSync() {
    note("sync")
    agent.getFileList(startSessionId: 0)
  }
  func bleFileList(bleFiles: [BleFile]) {
    note("bleFileList \(bleFiles.count)")
    state.withLock { $0.pending = bleFiles.map(\.sessionId) }
    exportNext()
  }
  func bleIBeaconWakeupTriggered(sn: String) {
    note("wake")
    agent.connectBySN(sn)
  }
  func bleDeleteFile(sessionId: Int, status: Int) { note("bleDeleteFile \(status)") }

  func onProgress(_ progress: Int, message: String) {}
  func onComplete(outputPath: String) {
    note("onComplete")
    if let current = state.withLock({ $0.current }) { agent.deleteFile(sessionId: current) }
    exportNext()
  }
  func onError(_ error: String) {
    note("onError")
    exportNext()
  }
}

/// Seed flows from the facade (vendor calls only) through the CoreBluetooth translation to an
/// emulated recorder, under the scripted iOS's rules.
@Suite("Background flows under the scripted iOS", .timeLimit(.minutes(3)))
struct ScriptedIOSFlowTests {
  /// A phone whose app makes, at every launch, the facade over a restorable CoreBluetooth
  /// central and a guide-style delegate, and registers the recorder for beacon wake-ups.
  final class Phone: Sendable {
    let bench: RecorderBench
    let ios: ScriptedIOS
    let exports: String
    private let current = Locked<(agent: PlaudDeviceAgent, app: GuideApp)?>(nil)
    /// The guide's callbacks over every launch, each launch starting with "launch <reason>".
    let journal = Locked<[String]>([])
    /// The launches so far.
    let launches = Locked(0)
    static let beacon = BeaconIdentity(uuid: BluetoothUUID(0xB1E0))

    /// The beacon the recorder broadcasts once its iBeacon wake-up is on: a region of
    /// ``beacon``.
    static let iBeacon = IBeacon(uuid: beacon.uuid, major: 1, minor: 7)
    /// The recorder's identity as the app configures it.
    static let recorderBeacon = BeaconIdentity(exactly: iBeacon)
    private let beaconHearing: Task<Void, Never>

    /// - Parameters:
    ///   - reconnects: the facade's `reconnectsWhenInRange` (a pending connect after a drop).
    init(
      _ name: String, seed: UInt64, rules: ScriptedIOS.Rules = ScriptedIOS.Rules(),
      reconnects: Bool = true
    ) throws {
      let bench = try RecorderBench(name, seed: seed) { $0.beacon = Self.iBeacon }
      self.bench = bench
      let (clock, manual) = (bench.anyClock, bench.clock)
      exports = bench.directory + "/exports"
      ios = ScriptedIOS(clock: clock, rules: rules) { sink in
        EmulatedSystemBluetooth(central: bench.central, clock: manual, sink: sink)
      }
      let (ios, current, exports, serial, journal, launches) = (
        ios, current, exports, bench.device.serial, journal, launches
      )
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
        let beacons = LocationBeaconMonitor(
          configuration: .init(
            identities: BeaconIdentities(bySerial: [serial: Self.recorderBeacon]),
            clock: clock)
        ) { events in ios.locationManager(events: events) }
        var configuration = PlaudSDKConfiguration(
          central: central, storageRoot: bench.directory + "/store", clock: clock,
          beaconMonitor: beacons)
        // Its own domain manager: `.shared` is one per process, and tests run in parallel.
        configuration.domainManager = PlaudDomainManager()
        configuration.unixTime = { 1_775_395_281 }
        configuration.timeZoneSeconds = { 0 }
        configuration.backgroundTasks = ios.backgroundTasks
        configuration.reconnectsWhenInRange = reconnects
        let agent = PlaudDeviceAgent(configuration: configuration)
        let app = GuideApp(
          agent: agent, outputDir: exports, journal: journal, launch: launch,
          currentLaunch: launches)
        agent.delegate = app
        agent.initSDK(
          userAccessToken: FacadeBackgroundFlowTests.userToken, customDomain: "127.0.0.1:9")
        agent.activateBeaconMonitoring()
        agent.updateBeaconMonitoredDevices(serialNumbers: [serial])
        current.withLock { $0 = (agent, app) }
      }
      // The phone hears the recorder's beacon whenever the recorder broadcasts it.
      let device = bench.device
      beaconHearing = Task {
        for await beacon in await device.observeBeacon() {
          ios.hearBeacons(beacon.map { [$0] } ?? [])
        }
      }
    }

    deinit { beaconHearing.cancel() }

    var agent: PlaudDeviceAgent { current.withLock { $0!.agent } }
    var app: GuideApp { current.withLock { $0!.app } }
    var device: EmulatedDevice { bench.device }

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

    /// The recordings' raw bytes as the facade stored them equal the device's.
    func expectStored(_ made: [RecordingInfo]) async throws {
      // The device has served a DELETE before the SDK has its answer and journals it: wait
      // (virtual time, bounded) for the journal to catch up.
      _ = try await within(.seconds(60)) {
        let workspace = try SyncWorkspace(root: bench.directory + "/store")
        let checkpoints = try workspace.checkpoints(serial: device.serial)
        return checkpoints.count == made.count
          && checkpoints.allSatisfy { $0.stage == .deletedFromDevice }
      }
      let workspace = try SyncWorkspace(root: bench.directory + "/store")
      let checkpoints = try workspace.checkpoints(serial: device.serial)
      let digests = Dictionary(uniqueKeysWithValues: made.map { ($0.sessionId, $0.sha256 ?? "") })
      #expect(checkpoints.count == made.count)
      for checkpoint in checkpoints {
        #expect(checkpoint.sha256 == digests[checkpoint.sessionId])
        #expect(checkpoint.stage == .deletedFromDevice)
      }
      // An export temporary (`.partial-…`) can remain only while its writer holds it: the
      // export of a launch the system ended, which Swift cannot freeze here (on a phone the
      // process is gone and the next export sweeps it).
      let files = try FileManager.default.contentsOfDirectory(atPath: exports).sorted()
        .filter { !$0.hasPrefix(".partial-") }
      #expect(files == made.map { "\(device.serial)-\($0.sessionId).mp3" }.sorted())
    }

    /// How many times `entry` is in the journal.
    func total(_ entry: String) -> Int { journal.withLock { $0.filter { $0 == entry }.count } }

    func cleanUp() { bench.cleanUp() }
  }

  /// Flow 2: connected in the foreground, the recorder leaves while the app is in the
  /// background and is suspended; the user records meanwhile; the recorder comes back: the
  /// SDK's pending connect (no scan) completes, the app is woken, the guide's sync runs as far
  /// as the background time lets it; the next time the app runs, the rest follows. Nothing
  /// lost, nothing exported twice.
  @Test("a known recorder that left and came back while the app was suspended syncs, no scan")
  func recorderComesBack() async throws {
    let phone = try Phone("flow-back", seed: 31)
    defer { phone.cleanUp() }
    phone.bench.clock.startAutoAdvance()
    phone.ios.openByUser()
    phone.agent.connectBySN(phone.device.serial)
    // Virtual time: the bounds only stop a hang (the first connect took 26 s of it, through
    // the scripted system's power-on and scan).
    #expect(try await phone.within(.seconds(300)) { phone.app.log.contains("idle") })
    let scansWhileForeground = phone.ios.record.scans.count
    phone.ios.sendToBackground()
    // Counted from here: on a busy machine a link can also drop (and come back) before.
    let drops = phone.app.count("bleConnectState 0")
    let away = phone.app.log.count
    await phone.device.goOutOfRange()
    #expect(try await phone.within(.seconds(300)) { phone.app.count("bleConnectState 0") > drops })
    // Away for ten minutes; the user makes two recordings meanwhile.
    for seconds in [20.0, 30] {
      _ = try await phone.device.addRecording(duration: .seconds(seconds))
    }
    let made = try await phone.device.recordings(includingDigests: true)
    try await phone.bench.clock.sleep(for: .seconds(600))
    #expect(phone.ios.appState == .suspended)
    let (binds, idles) = (phone.app.count("bleBind 0"), phone.app.count("idle"))
    await phone.device.comeBackInRange()
    // Woken by the pending connect: bound again, the guide's sync ran as far as it could.
    #expect(
      try await phone.within(.seconds(300)) {
        phone.app.count("bleBind 0") > binds && phone.app.count("idle") > idles
      })
    #expect(phone.app.log.contains("bleFileList 2"), "\(phone.app.log)")
    // The facade's own reconnect reported its stages, as a connect the app asks for does
    // (the last five: a busy machine may drop and reconnect once more before).
    let sinceAway = Array(phone.app.log.dropFirst(away))
    #expect(
      sinceAway.filter { $0.hasPrefix("stage ") }.suffix(5)
        == ["start", "gattConnect", "setNotify", "firstHandshake", "syncTime"].map { "stage \($0)" },
      "\(sinceAway)")
    #expect(phone.ios.record.scans.count == scansWhileForeground, "no scan in the background")
    #expect(phone.ios.record.relaunches == 0)
    #expect(phone.ios.record.connects.contains { $0.state != .foreground }, "a background connect")
    #expect(phone.app.count("onComplete") >= 1, "the sync ran in the background")
    // The user opens the app: the guide syncs what is left.
    phone.ios.openByUser()
    phone.app.startSync()
    #expect(
      try await phone.within(.seconds(300)) { try await phone.device.recordings().isEmpty })
    try await phone.expectStored(made)
  }

  /// Flow 1 (seed 000): the recorder's beacon wakes a system-terminated app. The user
  /// recorded while away; the recorder comes back: region entry → relaunch →
  /// `bleIBeaconWakeupTriggered` → `connectBySN` → `bleBind` → the guide's sync loop, as far
  /// as the background time goes. The user then walks out and back in (each time the app is
  /// suspended or terminated again) until the backlog is done: resumed where it stopped,
  /// nothing lost, nothing exported twice. No pending connect: the facade's reconnect is off,
  /// so only the beacon wakes the app.
  @Test(
    "flow 1: a beacon wakes a system-terminated app; the backlog finishes across expiries")
  func beaconWakesTerminatedApp() async throws {
    let phone = try Phone("flow-beacon", seed: 41, reconnects: false)
    defer { phone.cleanUp() }
    phone.bench.clock.startAutoAdvance()
    phone.ios.openByUser()
    phone.agent.connectBySN(phone.device.serial)
    #expect(try await phone.within(.seconds(300)) { phone.app.log.contains("idle") })
    // The guide's set-up: "Always" is granted (the phone's default here), beacon on.
    #expect(phone.agent.isBeaconLocationAlwaysGranted)
    phone.agent.setIBeaconWakeupEnabled(value: 1)
    #expect(try await phone.within(.seconds(60)) { await phone.device.currentBeacon != nil })
    // The beacon going on next to the phone is a region entry: the guide reconnects and
    // syncs again (nothing to do).
    #expect(try await phone.within(.seconds(300)) { phone.total("idle") == 2 })
    #expect(phone.total("wake") == 1)
    phone.ios.sendToBackground()
    let drops = phone.total("bleConnectState 0")
    await phone.device.goOutOfRange()
    #expect(try await phone.within(.seconds(300)) { phone.total("bleConnectState 0") > drops })
    phone.ios.terminateBySystem()
    // Away; the user records three long recordings meanwhile.
    for seconds in [240.0, 300, 360] {
      _ = try await phone.device.addRecording(duration: .seconds(seconds))
    }
    let made = try await phone.device.recordings(includingDigests: true)
    let backlogBytes = made.reduce(0) { $0 + Int($1.size) }
    let sentBefore = await phone.device.counters.dataBytesSent
    try await phone.bench.clock.sleep(for: .seconds(600))
    #expect(phone.ios.appState == .terminatedBySystem)

    var comebacks = 0
    var expiries: [Int] = []
    while try await !phone.device.recordings().isEmpty, comebacks < 24 {
      comebacks += 1
      let (entries, before) = (phone.ios.record.regionEntries, phone.ios.record.tasksExpired)
      await phone.device.comeBackInRange()
      // Woken (or relaunched) by the region entry; runs until the system suspends it.
      #expect(try await phone.within(.seconds(60)) { phone.ios.record.regionEntries > entries })
      _ = try await phone.within(.seconds(900)) {
        if phone.ios.appState == .suspended || phone.ios.appState == .terminatedBySystem {
          return true
        }
        return try await phone.device.recordings().isEmpty && phone.app.log.last == "idle"
      }
      expiries.append(phone.ios.record.tasksExpired - before)
      // The user walks off and back; every other time the system reclaims the app meanwhile.
      await phone.device.goOutOfRange()
      try await phone.bench.clock.sleep(for: .seconds(120))
      if comebacks % 2 == 1, phone.ios.appState.isInMemory { phone.ios.terminateBySystem() }
    }
    #expect(try await phone.device.recordings().isEmpty, "the backlog finished")
    let resent = await phone.device.counters.dataBytesSent - sentBefore - backlogBytes
    let record = phone.ios.record
    print(
      "flow 1: \(made.count) recordings, \(backlogBytes) bytes; \(comebacks) comebacks, "
        + "\(record.relaunches) relaunches, \(record.regionEntries) region "
        + "entries, tasks expired per comeback \(expiries), \(resent) bytes re-sent, "
        + "\(phone.total("wake")) wake-ups, \(phone.total("onComplete")) onComplete, "
        + "\(record.callsWhileNotRunning) calls while not running")
    #expect(record.relaunches >= 1)
    #expect(
      record.launches.dropFirst().allSatisfy {
        if case .location = $0 { return true }
        return false
      }, "only the beacon relaunched the app")
    #expect(record.regionEntries == comebacks + 1)
    #expect(phone.total("wake") == comebacks + 1)
    #expect(resent >= 0)
    // A recording whose delete an expiry cut off is listed again, and the guide exports it
    // again: the facade answers from the export in place (no transfer, no encoding), so a
    // repeated onComplete is not a second export. Each file is in place once (below).
    #expect(phone.total("onComplete") >= made.count)
    try await phone.expectStored(made)
  }

  /// Flow 3 (seed 001's rules): after a force-quit, or a restart of the phone, nothing wakes
  /// the app: the recorder comes back and the system neither relaunches the app nor makes
  /// the connect it had pending. The next time the user opens the app, the SDK makes that
  /// pending connect again (the mark it left in its known recorders), with no call from the
  /// app, and the guide syncs from `bleBind`.
  @Test(
    "flow 3: after a force-quit or a restart nothing wakes; the next launch restores the connect",
    arguments: ["force-quit", "restart"])
  func nothingWakesUntilTheNextLaunch(ending: String) async throws {
    let phone = try Phone("flow-quit", seed: 53)
    defer { phone.cleanUp() }
    phone.bench.clock.startAutoAdvance()
    phone.ios.openByUser()
    phone.agent.connectBySN(phone.device.serial)
    #expect(try await phone.within(.seconds(300)) { phone.app.log.contains("idle") })
    // The recorder leaves: the SDK keeps a pending connect for it.
    phone.ios.sendToBackground()
    let drops = phone.total("bleConnectState 0")
    await phone.device.goOutOfRange()
    #expect(try await phone.within(.seconds(300)) { phone.total("bleConnectState 0") > drops })
    ending == "restart" ? phone.ios.reboot() : phone.ios.forceQuit()
    _ = try await phone.device.addRecording(duration: .seconds(30))
    let made = try await phone.device.recordings(includingDigests: true)
    let connections = await phone.device.counters.connections
    // Back in range, for an hour: nothing relaunches the app, nothing connects.
    await phone.device.comeBackInRange()
    try await phone.bench.clock.sleep(for: .seconds(3600))
    #expect(phone.ios.record.launches == [.user])
    #expect(await phone.device.counters.connections == connections)
    #expect(try await phone.device.recordings().count == made.count)
    // The user opens the app: the SDK connects by itself; the guide syncs from bleBind.
    let binds = phone.total("bleBind 0")
    phone.ios.openByUser()
    #expect(
      try await phone.within(.seconds(300)) {
        try await phone.device.recordings().isEmpty && phone.app.log.contains("bleDeleteFile 0")
      })
    #expect(phone.total("bleBind 0") == binds + 1)
    #expect(!phone.app.log.contains("wake"), "no beacon: the SDK's own pending connect")
    print(
      "flow 3 (\(ending)): \(phone.ios.record.relaunches) relaunches while quit, "
        + "\(phone.ios.record.connects.count) connects asked of the system in all")
    #expect(phone.ios.record.relaunches == 0)
    try await phone.expectStored(made)
  }
}
