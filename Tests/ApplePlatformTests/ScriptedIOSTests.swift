import RecorderBluetooth
import RecorderConcurrency
import RecorderCoreBluetooth
import RecorderEmulator
import RecorderKit
import RecorderTesting
import TestSupport
import Testing

/// The scripted iOS's rules, one test each, at the mirror level: a scripted radio plays the
/// system's Bluetooth, the "app" is a launch closure that makes managers and records what
/// reaches them. Each test also runs with its rule switched off and shows the difference, so
/// no rule is decoration.
@Suite("Scripted iOS: Apple's background rules")
struct ScriptedIOSTests {
  static let recorder = PeripheralID("6F0C1A2B-0000-4000-8000-000000000001")
  static let thermometer = PeripheralID("6F0C1A2B-0000-4000-8000-000000000002")
  static let healthThermometer = BluetoothUUID(0x1809)

  /// A phone, its radio, and the app's callbacks per launch.
  final class Phone: Sendable {
    let clock = ManualClock()
    let ios: ScriptedIOS
    let radio: ScriptedCentralManager
    /// Callbacks that reached the app's managers, per launch (index 0: the first launch).
    let received = Locked<[[CentralManagerEvent]]>([])
    let regionEvents = Locked<[LocationManagerEvent]>([])
    let managers = Locked<[any CentralManagerMirror]>([])
    let locations = Locked<[any LocationManagerMirror]>([])

    init(
      rules: ScriptedIOS.Rules = ScriptedIOS.Rules(), restoreIdentifier: String? = "rk",
      authorization: LocationAuthorizationMirror = .authorizedAlways
    ) {
      let made = Locked<ScriptedCentralManager?>(nil)
      ios = ScriptedIOS(
        clock: AnyClock(clock), rules: rules, authorization: authorization
      ) { sink in
        let radio = ScriptedCentralManager(restoreIdentifier: nil, sink: sink)
        made.withLock { $0 = radio }
        return radio
      }
      radio = made.withLock { $0! }
      let (ios, received, managers, locations, regionEvents) = (
        ios, received, managers, locations, regionEvents
      )
      ios.install { _ in
        let launch = received.withLock { received -> Int in
          received.append([])
          return received.count - 1
        }
        let manager = ios.centralManager(restoreIdentifier: restoreIdentifier) { event in
          received.withLock { $0[launch].append(event) }
        }
        managers.withLock { $0.append(manager) }
        let location = ios.locationManager { event in regionEvents.withLock { $0.append(event) } }
        locations.withLock { $0.append(location) }
      }
      radio.fire(.didUpdateState(.poweredOn))
    }

    var manager: any CentralManagerMirror { managers.withLock { $0.last! } }
    var launches: Int { received.withLock { $0.count } }
    func events(launch: Int) -> [CentralManagerEvent] {
      received.withLock { launch < $0.count ? $0[launch] : [] }
    }
    func discoveries(launch: Int = 0) -> Int {
      events(launch: launch).filter {
        if case .didDiscover = $0 { return true }
        return false
      }.count
    }

    func advertise(_ peripheral: PeripheralID, services: [BluetoothUUID] = []) {
      radio.fire(
        .didDiscover(
          Advertisement(
            peripheral: peripheral, localName: "x", manufacturerData: nil, serviceUUIDs: services,
            rssi: -50)))
    }

    /// Waits until `count` tasks sleep on the clock (the script's background timers).
    func sleepers(_ count: Int) async {
      while clock.sleeperCount < count { await Task.yield() }
    }

    /// Lets the script's timer task run after a clock move until `done` holds (bounded by
    /// task hops, not time: the answer is whatever holds after them).
    func settle(until done: () -> Bool) async {
      for _ in 0..<10_000 where !done() { await Task.yield() }
    }
  }

  @Test(
    "a scan with no service UUIDs finds nothing in the background (and everything in the foreground)",
    arguments: [true, false])
  func nilServiceScans(ruleOn: Bool) {
    var rules = ScriptedIOS.Rules()
    rules.nilServiceScansFindNothingInBackground = ruleOn
    let phone = Phone(rules: rules)
    phone.ios.openByUser()
    phone.manager.scanForPeripherals(withServices: nil)
    phone.advertise(Self.recorder)
    #expect(phone.discoveries() == 1, "the foreground finds it")
    phone.ios.sendToBackground()
    phone.advertise(Self.thermometer, services: [Self.healthThermometer])
    #expect(phone.discoveries() == (ruleOn ? 1 : 2))
    #expect(phone.ios.record.discoveriesWithheld == (ruleOn ? 1 : 0))
  }

  @Test(
    "a scan with service UUIDs reports each peripheral once per scan in the background",
    arguments: [true, false])
  func backgroundScansCoalesce(ruleOn: Bool) {
    var rules = ScriptedIOS.Rules()
    rules.backgroundScansCoalesce = ruleOn
    let phone = Phone(rules: rules)
    phone.ios.openByUser()
    phone.manager.scanForPeripherals(withServices: [Self.healthThermometer])
    // The foreground hears every report; another service is filtered out either way.
    phone.advertise(Self.thermometer, services: [Self.healthThermometer])
    phone.advertise(Self.thermometer, services: [Self.healthThermometer])
    phone.advertise(Self.recorder)
    #expect(phone.discoveries() == 2)
    phone.ios.sendToBackground()
    phone.advertise(Self.thermometer, services: [Self.healthThermometer])
    phone.advertise(Self.thermometer, services: [Self.healthThermometer])
    #expect(phone.discoveries() == (ruleOn ? 3 : 4))
    // A new scan reports it again, once.
    phone.manager.scanForPeripherals(withServices: [Self.healthThermometer])
    phone.advertise(Self.thermometer, services: [Self.healthThermometer])
    phone.advertise(Self.thermometer, services: [Self.healthThermometer])
    #expect(phone.discoveries() == (ruleOn ? 4 : 6))
  }

  @Test("a pending connect has no timeout: it completes an hour later, waking a suspended app")
  func pendingConnectWakesTheApp() async {
    let phone = Phone()
    phone.ios.openByUser()
    phone.manager.connect(Self.recorder)
    phone.ios.sendToBackground()
    await phone.sleepers(1)
    phone.clock.advance(by: .seconds(3600))
    await phone.settle { phone.ios.appState == .suspended }
    #expect(phone.ios.appState == .suspended, "no background task: suspended after the wake time")
    phone.radio.fire(.didConnect(Self.recorder))
    #expect(phone.events(launch: 0).contains(.didConnect(Self.recorder)))
    #expect(phone.ios.appState == .background, "woken for the callback")
    #expect(phone.launches == 1)
  }

  @Test(
    "a system-terminated app is relaunched into willRestoreState, then gets the connect",
    arguments: [true, false])
  func relaunchForRestoration(ruleOn: Bool) {
    var rules = ScriptedIOS.Rules()
    rules.relaunchesForBluetooth = ruleOn
    let phone = Phone(rules: rules)
    phone.ios.openByUser()
    phone.manager.connect(Self.recorder)
    phone.manager.scanForPeripherals(withServices: [Self.healthThermometer])
    phone.ios.sendToBackground()
    phone.ios.terminateBySystem()
    #expect(!phone.radio.cancelled.contains(Self.recorder), "the system keeps the connect")
    phone.radio.fire(.didConnect(Self.recorder))
    guard ruleOn else {
      #expect(phone.launches == 1, "nothing relaunches it")
      return
    }
    #expect(phone.ios.record.launches == [.user, .bluetooth(restoreIdentifiers: ["rk"])])
    #expect(
      phone.events(launch: 1) == [
        .willRestoreState(
          RestoredStateMirror(
            peripherals: [.init(peripheral: Self.recorder, state: .connecting)],
            scanServices: [Self.healthThermometer])),
        .didUpdateState(.poweredOn),
        .didConnect(Self.recorder),
      ])
    #expect(phone.ios.appState == .background)
    // The restored scan goes on reporting, once per peripheral.
    phone.advertise(Self.thermometer, services: [Self.healthThermometer])
    phone.advertise(Self.thermometer, services: [Self.healthThermometer])
    #expect(phone.discoveries(launch: 1) == 1)
  }

  @Test("without a restore identifier the system cancels the app's connect when it ends")
  func noRestoreIdentifier() {
    let phone = Phone(restoreIdentifier: nil)
    phone.ios.openByUser()
    phone.manager.connect(Self.recorder)
    phone.ios.terminateBySystem()
    #expect(phone.radio.cancelled.contains(Self.recorder))
    phone.radio.fire(.didConnect(Self.recorder))
    #expect(phone.launches == 1)
  }

  @Test(
    "after a force-quit or a reboot nothing wakes the app and nothing is restored",
    arguments: ["force-quit", "reboot"])
  func forceQuitAndReboot(ending: String) {
    let phone = Phone()
    phone.ios.openByUser()
    phone.manager.connect(Self.recorder)
    phone.manager.scanForPeripherals(withServices: [Self.healthThermometer])
    ending == "reboot" ? phone.ios.reboot() : phone.ios.forceQuit()
    #expect(phone.radio.cancelled.contains(Self.recorder))
    #expect(phone.ios.appState == (ending == "reboot" ? .notRunning : .forceQuit))
    phone.radio.fire(.didConnect(Self.recorder))
    phone.advertise(Self.thermometer, services: [Self.healthThermometer])
    phone.ios.enterRegion("PLAUD-1")
    #expect(phone.launches == 1)
    phone.ios.openByUser()
    #expect(phone.launches == 2)
    #expect(phone.events(launch: 1) == [.didUpdateState(.poweredOn)], "no restored state")
  }

  @Test(
    "a region entry relaunches a system-terminated app with Always authorization only",
    arguments: [
      (LocationAuthorizationMirror.authorizedAlways, true, true),
      (.authorizedWhenInUse, true, false),
      (.authorizedAlways, false, false),
    ])
  func regionEntryRelaunches(
    authorization: LocationAuthorizationMirror, ruleOn: Bool, relaunched: Bool
  ) {
    var rules = ScriptedIOS.Rules()
    rules.relaunchesForRegions = ruleOn
    let phone = Phone(rules: rules, authorization: authorization)
    phone.ios.openByUser()
    let location = phone.locations.withLock { $0.last! }
    location.startMonitoring(for: BeaconRegionMirror(identifier: "PLAUD-1", uuid: "u"))
    phone.ios.sendToBackground()
    phone.ios.terminateBySystem()
    phone.ios.enterRegion("PLAUD-1")
    #expect(phone.launches == (relaunched ? 2 : 1))
    #expect(
      phone.regionEvents.withLock { $0 }
        == (relaunched ? [.didEnterRegion(identifier: "PLAUD-1")] : []))
    if relaunched { #expect(phone.ios.record.launches.last == .location(region: "PLAUD-1")) }
  }

  static let beaconUUID = BluetoothUUID(0xB1E0)

  @Test(
    "an app monitors at most 20 regions: one more fails (with the rule off it is taken)",
    arguments: [true, false])
  func regionLimit(ruleOn: Bool) async {
    var rules = ScriptedIOS.Rules()
    rules.limitsRegions = ruleOn
    let phone = Phone(rules: rules)
    phone.ios.openByUser()
    let location = phone.locations.withLock { $0.last! }
    // One region of the app's own (a geofence, say), then twenty recorders.
    location.startMonitoring(for: BeaconRegionMirror(identifier: "geofence", uuid: "x"))
    let monitor = LocationBeaconMonitor(
      configuration: .init(
        identities: BeaconIdentities(shared: BeaconIdentity(uuid: Self.beaconUUID)))
    ) { _ in location }
    let serials = (1...21).map { "88810000000000\($0 < 10 ? "0" : "")\($0)" }
    let watch = await monitor.monitor(serials: serials)
    #expect(watch.overLimit == ["8881000000000021"], "the monitor's own limit of 20")
    #expect(location.monitoredRegions.count == (ruleOn ? 20 : 21))
    #expect(phone.ios.record.regionsRefused == (ruleOn ? 1 : 0))
    let refused = LocationBeaconMonitor.regionIdentifier(for: "8881000000000020")
    #expect(
      phone.regionEvents.withLock { $0 }
        == (ruleOn
          ? [.monitoringDidFail(identifier: refused, "kCLErrorRegionMonitoringFailure")] : []))
  }

  @Test(
    "heard beacons move the phone into and out of regions; already inside is no crossing",
    arguments: [true, false])
  func heardBeacons(relaunchesForRegions: Bool) {
    var rules = ScriptedIOS.Rules()
    rules.relaunchesForRegions = relaunchesForRegions
    let phone = Phone(rules: rules)
    let near = IBeacon(uuid: Self.beaconUUID, major: 1, minor: 2)
    let other = IBeacon(uuid: Self.beaconUUID, major: 9, minor: 2)
    phone.ios.hearBeacons([near])
    phone.ios.openByUser()
    let location = phone.locations.withLock { $0.last! }
    let identity = BeaconIdentity(uuid: Self.beaconUUID, major: 1)
    location.startMonitoring(for: BeaconRegionMirror(identifier: "R1", identity: identity))
    #expect(phone.regionEvents.withLock { $0 }.isEmpty, "inside already: no event")
    phone.ios.hearBeacons([other])
    phone.ios.hearBeacons([other, near])
    #expect(
      phone.regionEvents.withLock { $0 }
        == [.didExitRegion(identifier: "R1"), .didEnterRegion(identifier: "R1")])
    phone.ios.sendToBackground()
    phone.ios.terminateBySystem()
    phone.ios.hearBeacons([])
    phone.ios.hearBeacons([near])
    #expect(phone.launches == (relaunchesForRegions ? 2 : 1))
    #expect(phone.ios.record.regionEntries == (relaunchesForRegions ? 2 : 1))
    if relaunchesForRegions { #expect(phone.ios.record.launches.last == .location(region: "R1")) }
  }

  @Test(
    "background time runs out: tasks expire at 30 s, then the app is suspended (or terminated)",
    arguments: [true, false])
  func backgroundTimeIsFinite(endsTheTask: Bool) async {
    let phone = Phone()
    phone.ios.openByUser()
    let tasks = phone.ios.backgroundTasks
    let expired = Locked(false)
    let id = Locked<Int?>(nil)
    id.withLock {
      $0 = tasks.beginBackgroundTask(withName: "sync") {
        expired.withLock { $0 = true }
        if endsTheTask, let task = id.withLock({ $0 }) { tasks.endBackgroundTask(task) }
      }
    }
    #expect(id.withLock { $0 } != nil)
    phone.ios.sendToBackground()
    await phone.sleepers(1)
    phone.clock.advance(by: .seconds(10))
    // The timer's second sleep is armed once its first part (the wake time) has run.
    await phone.sleepers(1)
    #expect(phone.ios.appState == .background, "a task keeps it running past the wake time")
    #expect(!expired.withLock { $0 })
    phone.clock.advance(by: .seconds(20))
    await phone.settle { phone.ios.appState != .background }
    #expect(expired.withLock { $0 })
    #expect(phone.ios.appState == (endsTheTask ? .suspended : .terminatedBySystem))
    #expect(phone.ios.record.overrunTerminations == (endsTheTask ? 0 : 1))
    #expect(tasks.beginBackgroundTask(withName: "again") {} == nil, "no code runs now")
  }

  @Test("with background time switched off the task never expires")
  func backgroundTimeSwitchedOff() async {
    var rules = ScriptedIOS.Rules()
    rules.backgroundTimeIsFinite = false
    let phone = Phone(rules: rules)
    phone.ios.openByUser()
    let expired = Locked(false)
    _ = phone.ios.backgroundTasks.beginBackgroundTask(withName: "sync") {
      expired.withLock { $0 = true }
    }
    phone.ios.sendToBackground()
    phone.clock.advance(by: .seconds(3600))
    #expect(!expired.withLock { $0 })
    #expect(phone.ios.appState == .background)
  }
}
