import RecorderBluetooth
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderTesting
import Testing

@Suite("Platform services' decisions against scripted OS events", .timeLimit(.minutes(1)))
struct PlatformServicesTests {
  static let identity = BeaconIdentity(uuid: BluetoothUUID(0x4430))

  /// Serials 8881000000000001…9, each with its own major (its last four digits).
  static let identities = BeaconIdentities(
    bySerial: Dictionary(
      uniqueKeysWithValues: (1...9).map { index in
        ("888100000000000\(index)", BeaconIdentity(uuid: identity.uuid, major: UInt16(index)))
      }))

  /// The region identifier of serial 888100000000000`index`.
  static func region(_ index: Int) -> String {
    LocationBeaconMonitor.regionIdentifier(for: "888100000000000\(index)")
  }

  func beaconBench(
    clock: ManualClock = ManualClock(), limit: Int = 20,
    identities: BeaconIdentities = Self.identities
  ) -> (LocationBeaconMonitor, ScriptedLocationManager) {
    let made = Locked<ScriptedLocationManager?>(nil)
    let monitor = LocationBeaconMonitor(
      configuration: .init(
        identities: identities, regionLimit: limit, authorizationTimeout: .seconds(60),
        clock: AnyClock(clock))
    ) { sink in
      let manager = ScriptedLocationManager(sink: sink)
      made.withLock { $0 = manager }
      return manager
    }
    return (monitor, made.withLock { $0! })
  }

  @Test("beacon regions follow the serial set; an entry wakes once until the next exit")
  func beaconRegionsAndWakeUps() async throws {
    let (monitor, location) = beaconBench(limit: 2)
    let first = await monitor.monitor(
      serials: ["8881000000000002", "8881000000000001", "8881000000000003", "8881000000000002"])
    #expect(
      first
        == BeaconWatch(
          watched: ["8881000000000002", "8881000000000001"], overLimit: ["8881000000000003"]))
    #expect(location.calls.withLock { $0 } == [.start(Self.region(2)), .start(Self.region(1))])
    #expect(location.regions.withLock { $0[Self.region(2)]?.major } == 2)
    location.calls.withLock { $0 = [] }
    await monitor.monitor(serials: ["8881000000000002", "8881000000000004"])
    #expect(location.calls.withLock { $0 } == [.stop(Self.region(1)), .start(Self.region(4))])

    var wakes = monitor.wakeUps().makeAsyncIterator()
    location.fire(.didEnterRegion(identifier: Self.region(2)))
    location.fire(.didEnterRegion(identifier: Self.region(2)))
    location.fire(.didEnterRegion(identifier: Self.region(1)))  // no longer watched
    location.fire(.didEnterRegion(identifier: "somebody else's region"))
    location.fire(.didExitRegion(identifier: Self.region(2)))
    location.fire(.didEnterRegion(identifier: Self.region(4)))
    location.fire(.didEnterRegion(identifier: Self.region(2)))
    #expect(await wakes.next() == "8881000000000002")
    #expect(await wakes.next() == "8881000000000004")
    #expect(await wakes.next() == "8881000000000002")
  }

  @Test("a relaunch: an entry before monitor() wakes; regions of earlier launches are replaced")
  func beaconRelaunch() async throws {
    let (monitor, location) = beaconBench()
    // Registered by an earlier launch: serial 9's region, and a region that is not ours.
    let earlier = BeaconRegionMirror(
      identifier: Self.region(9),
      identity: try #require(Self.identities.identity(for: "8881000000000009")))
    let foreign = BeaconRegionMirror(
      identifier: "app.geofence", uuid: Self.identity.uuid.uuidString)
    location.regions.withLock { $0 = [earlier.identifier: earlier, foreign.identifier: foreign] }
    var wakes = monitor.wakeUps().makeAsyncIterator()
    // The entry that relaunched the app arrives before the app registers again.
    location.fire(.didEnterRegion(identifier: Self.region(9)))
    #expect(await wakes.next() == "8881000000000009")
    let watch = await monitor.monitor(serials: ["8881000000000002", "8881000000000099"])
    #expect(
      watch == BeaconWatch(watched: ["8881000000000002"], withoutIdentity: ["8881000000000099"]))
    #expect(location.calls.withLock { $0 } == [.stop(Self.region(9)), .start(Self.region(2))])
    #expect(
      location.regions.withLock { $0.keys.sorted() } == ["app.geofence", Self.region(2)].sorted())
    // Now only the watched serial wakes.
    location.fire(.didEnterRegion(identifier: Self.region(9)))
    location.fire(.didEnterRegion(identifier: Self.region(2)))
    #expect(await wakes.next() == "8881000000000002")
    // The system refuses a region: it is no longer watched.
    location.fire(.monitoringDidFail(identifier: Self.region(2), "kCLErrorRegionMonitoringFailure"))
    #expect(
      monitor.watch
        == BeaconWatch(withoutIdentity: ["8881000000000099"], refused: ["8881000000000002"]))
  }

  @Test("authorization: the upgrade to always, a denial, and a prompt that never answers")
  func beaconAuthorization() async throws {
    let clock = ManualClock()
    let (monitor, location) = beaconBench(clock: clock)
    #expect(monitor.authorization == .notDetermined)
    location.fire(.didChangeAuthorization(.authorizedWhenInUse))
    #expect(monitor.authorization == .whenInUse)

    let granted = Task { await monitor.requestAlwaysAuthorization() }
    while location.calls.withLock({ $0 }).isEmpty { await Task.yield() }
    location.fire(.didChangeAuthorization(.authorizedAlways))
    #expect(await granted.value)
    #expect(monitor.authorization == .always)
    #expect(await monitor.requestAlwaysAuthorization())  // no second prompt
    #expect(location.calls.withLock { $0 } == [.requestAlways])

    location.fire(.didChangeAuthorization(.authorizedWhenInUse))
    let unanswered = Task { await monitor.requestAlwaysAuthorization() }
    while clock.sleeperCount == 0 { await Task.yield() }
    clock.advance(by: .seconds(60))
    #expect(await unanswered.value == false)

    location.fire(.didChangeAuthorization(.denied))
    #expect(monitor.authorization == .denied)
    #expect(await monitor.requestAlwaysAuthorization() == false)
  }

  @Test("a background task: expiry cancels the work through the budget and ends the task once")
  func backgroundTaskExpiry() async throws {
    let application = ScriptedBackgroundTasks()
    let budget = BackgroundBudget(clock: AnyClock(ManualClock()))
    let runner = BackgroundTaskRunner(application: application, budget: budget)
    let started = Locked(false)
    let run = Task {
      await runner.run(named: "sync") { () async throws -> Int in
        started.withLock { $0 = true }
        while !Task.isCancelled { await Task.yield() }
        throw CancellationError()
      }
    }
    while !started.withLock({ $0 }) { await Task.yield() }
    application.expireAll()
    let result = try #require(await run.value)
    #expect(result.expiredAt != nil)
    #expect(application.state.withLock { $0.ended } == [1])

    let quick = await runner.run(named: "sync") { 7 }
    #expect(try quick?.result.get() == 7)
    #expect(quick?.expiredAt == nil)
    #expect(application.state.withLock { $0.ended } == [1, 2])

    application.state.withLock { $0.refuse = true }
    let refused = await runner.run(named: "sync") { 8 }
    #expect(refused == nil)
  }

  @Test("a task the system expires before begin returns: the work is stopped, the task ended once")
  func expiryBeforeBeginReturns() async throws {
    let application = ScriptedBackgroundTasks()
    application.state.withLock { $0.expireOnBegin = true }
    let runner = BackgroundTaskRunner(
      application: application, budget: BackgroundBudget(clock: AnyClock(ManualClock())))
    let result = try #require(
      await runner.run(named: "sync") { () async throws -> Int in
        while !Task.isCancelled { await Task.yield() }
        throw CancellationError()
      })
    #expect(result.expiredAt != nil, "the work was stopped")
    let state = application.state.withLock { $0 }
    #expect(state.ended == [1] && state.misused.isEmpty, "\(state.ended) \(state.misused)")
  }

  @Test("a processing task works through a backlog and asks again until it is done")
  func backlogProcessing() async throws {
    let scheduler = ScriptedScheduler()
    let budget = BackgroundBudget(clock: AnyClock(ManualClock()))
    let processor = BacklogProcessor(
      scheduler: scheduler, budget: budget, identifier: "ai.recorderkit.backlog")
    let remaining = Locked(2)
    let runs = AsyncStream<Bool>.makeStream()
    #expect(
      processor.register({ progress in
        progress(50, 100)
        let left = remaining.withLock { left -> Int in
          left -= 1
          return left
        }
        if left == 1 {
          // The first launch is cut short by the system.
          while !Task.isCancelled { await Task.yield() }
          throw CancellationError()
        }
        return left > 0 ? .moreToDo : .done
      }) { run in runs.continuation.yield(run.expiredAt != nil) })
    var finished = runs.stream.makeAsyncIterator()

    let first = scheduler.launch()
    while first.expiration.withLock({ $0 }) == nil { await Task.yield() }
    for _ in 0..<10 { await Task.yield() }
    first.expire()
    #expect(await finished.next() == true)
    #expect(first.completed.withLock { $0 } == false)
    #expect(scheduler.state.withLock { $0.submitted } == 1)

    let second = scheduler.launch()
    #expect(await finished.next() == false)
    #expect(second.completed.withLock { $0 } == true)
    #expect(second.progress.withLock { $0 } == [50])
    #expect(scheduler.state.withLock { $0.submitted } == 1)

    // The user's "sync all" asks for a continued task; refused, it falls back to a launch.
    #expect(processor.startNow(title: "Syncing", subtitle: "3 recordings"))
    #expect(scheduler.state.withLock { $0.continued } == ["Syncing"])
    scheduler.state.withLock { $0.refuseContinued = true }
    #expect(processor.startNow(title: "Syncing", subtitle: "3 recordings"))
    #expect(scheduler.state.withLock { $0.submitted } == 2)
  }

  @Test("the hotspot joiner joins once with the device's SSID and password; failures are typed")
  func hotspotJoin() async throws {
    let system = ScriptedHotspotConfiguration(answers: [nil, .alreadyAssociated, .userDenied])
    let joiner = HotspotConfigurationJoiner(system: system)
    let hotspot = DeviceHotspot(ssid: "PLAUD0123", password: "Ab3dEf7h")
    try await joiner.join(hotspot, serverPort: 8081)
    try await joiner.join(hotspot, serverPort: 8081)
    await #expect(throws: DeviceError.wifiUnavailable("the user declined to join PLAUD0123")) {
      try await joiner.join(hotspot, serverPort: 8081)
    }
    let joins = system.joins.withLock { $0 }
    #expect(joins.map(\.ssid) == ["PLAUD0123", "PLAUD0123", "PLAUD0123"])
    #expect(joins.allSatisfy { $0.passphrase == "Ab3dEf7h" && $0.joinOnce })
    await joiner.leave(hotspot)
    #expect(system.removed.withLock { $0 } == ["PLAUD0123"])
  }

  @Test("the Keychain store replaces duplicates, reads a missing item as nil, types errors")
  func keychainStore() throws {
    let keychain = ScriptedKeychain()
    let store = KeychainKeyStore(keychain: keychain)
    #expect(try store.secret(for: "token") == nil)
    try store.store([1, 2, 3], for: "token")
    try store.store([4, 5], for: "token")
    #expect(try store.secret(for: "token") == [4, 5])
    try store.removeSecret(for: "token")
    try store.removeSecret(for: "token")
    #expect(try store.secret(for: "token") == nil)
    keychain.failWith.withLock { $0 = -25308 }
    #expect(throws: KeyStoreError.keychain(-25308)) { try store.secret(for: "token") }
    #expect(throws: KeyStoreError.keychain(-25308)) { try store.store([1], for: "token") }
  }
}
