import Foundation
import HealthProfiles
import RecorderBluetooth
import RecorderConcurrency
import RecorderCoreBluetooth
import RecorderEmulator
import RecorderKit
import RecorderStore
import RecorderTesting
import TestSupport
import Testing

/// Discovery of health peripherals (seed 001's controller detects as well as reads) under the
/// scripted iOS: CoreBluetoothCentral over the emulated system Bluetooth, with an emulated
/// thermometer, scale and recorder around, the app in the foreground or suspended.
@Suite("Discovery under the scripted iOS", .timeLimit(.minutes(2)))
struct BackgroundDiscoveryTests {
  /// The app: each launch makes a restorable central and a reader over the same journal,
  /// runs the reader when `running`, and starts a discovery whose reports it keeps.
  final class App: Sendable {
    let clock = ManualClock()
    let thermometer: EmulatedHealthPeripheral
    let scale: EmulatedHealthPeripheral
    let ios: ScriptedIOS
    let directory: String
    let found = Locked<[DiscoveredHealthPeripheral]>([])
    private let tasks = Locked<[Task<Void, Never>]>([])

    init(_ name: String, running: Bool, rules: ScriptedIOS.Rules = ScriptedIOS.Rules()) throws {
      directory = NSTemporaryDirectory() + "\(name)-\(UUID().uuidString)"
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      let (clock, manual) = (AnyClock(self.clock), self.clock)
      thermometer = EmulatedHealthPeripheral(
        configuration: .init(kind: .thermometer), time: .manual(self.clock))
      scale = EmulatedHealthPeripheral(
        configuration: .init(kind: .scale), time: .manual(self.clock))
      // A recorder advertising all along: no health service, never reported.
      let recorder = try EmulatedDevice(
        configuration: DeviceConfiguration(seed: 27), flashDirectory: directory + "/flash",
        time: .manual(self.clock))
      let radio = CombinedCentral([
        HealthCentral(peripherals: [thermometer, scale]), EmulatorCentral(device: recorder),
      ])
      ios = ScriptedIOS(clock: clock, rules: rules) { sink in
        EmulatedSystemBluetooth(central: radio, clock: manual, sink: sink)
      }
      let (ios, found, tasks, journalPath) = (ios, found, tasks, directory + "/journal.sqlite")
      ios.install { _ in
        let central = UnconsumedHoldCentral(
          CoreBluetoothCentral(
            configuration: CoreBluetoothCentral.Configuration(
              restoreIdentifier: "discovery", clock: clock)
          ) { identifier, sink in ios.centralManager(restoreIdentifier: identifier, events: sink) },
          clock: manual)
        // The scope that names no service: discovery must not depend on it.
        var options = PassiveReader.Options()
        options.scope = .everything
        guard let journal = try? Journal(path: journalPath),
          let reader = try? PassiveReader(
            journal: journal, central: central, clock: clock, options: options)
        else { return }
        tasks.withLock { old in
          for task in old { task.cancel() }
          old = [
            Task {
              for await peripheral in await reader.discover() {
                found.withLock { $0.append(peripheral) }
              }
            }
          ]
          if running { old.append(Task { await reader.run() }) }
        }
      }
      self.clock.startAutoAdvance()
    }

    var foundIdentifiers: [String] { found.withLock { $0.map(\.identifier) } }

    /// Waits up to `limit` of virtual time, a second at a time, for `condition`.
    func within(_ limit: Duration, _ condition: () async throws -> Bool) async throws -> Bool {
      var waited = Duration.zero
      while waited < limit {
        if try await condition() { return true }
        try await clock.sleep(for: .seconds(1))
        waited += .seconds(1)
      }
      return try await condition()
    }

    func cleanUp() {
      tasks.withLock { for task in $0 { task.cancel() } }
      clock.stopAutoAdvance()
      try? FileManager.default.removeItem(atPath: directory)
    }
  }

  @Test(
    "a thermometer and a scale powered on while the app is suspended are each discovered once",
    arguments: [true, false])
  func discoveredWhileSuspended(running: Bool) async throws {
    let app = try App("discovery-background", running: running)
    defer { app.cleanUp() }
    app.ios.openByUser()
    #expect(try await app.within(.seconds(10)) { !app.ios.record.scans.isEmpty }, "scanning")
    app.ios.sendToBackground()
    try await app.clock.sleep(for: .seconds(20))
    #expect(app.ios.appState == .suspended)
    #expect(app.foundIdentifiers.isEmpty, "the recorder is no health peripheral")
    await app.thermometer.powerOn()
    let thermometer = await app.thermometer.address.rawValue
    #expect(try await app.within(.seconds(30)) { app.foundIdentifiers == [thermometer] })
    await app.scale.powerOn()
    let scale = await app.scale.address.rawValue
    #expect(try await app.within(.seconds(30)) { app.foundIdentifiers == [thermometer, scale] })
    // Both go on advertising: not reported again (iOS coalesces, discovery de-duplicates).
    try await app.clock.sleep(for: .seconds(60))
    #expect(app.foundIdentifiers == [thermometer, scale])
    #expect(app.found.withLock { $0.map(\.kind) } == [.thermometer, .scale])
    #expect(app.found.withLock { $0.allSatisfy { !$0.isRegistered } })
    // Every scan the app made named services, the four health ones.
    let scans = app.ios.record.scans
    #expect(!scans.isEmpty)
    #expect(scans.allSatisfy { $0.services == DiscoveredHealthPeripheral.scanServices })
    #expect(app.ios.record.relaunches == 0)
  }

  /// In the foreground the recorder advertising beside the health peripherals is heard by
  /// no discovery either, and a health peripheral that stops advertising and comes back is
  /// reported again.
  @Test("in the foreground a peripheral that comes back is discovered again")
  func comesBackInTheForeground() async throws {
    let app = try App("discovery-foreground", running: true)
    defer { app.cleanUp() }
    app.ios.openByUser()
    await app.thermometer.powerOn()
    let thermometer = await app.thermometer.address.rawValue
    #expect(try await app.within(.seconds(10)) { app.foundIdentifiers == [thermometer] })
    try await app.clock.sleep(for: .seconds(20))
    #expect(app.foundIdentifiers == [thermometer])
    await app.thermometer.powerOff()
    try await app.clock.sleep(for: .seconds(20))
    await app.thermometer.powerOn()
    #expect(
      try await app.within(.seconds(10)) { app.foundIdentifiers == [thermometer, thermometer] })
    #expect(
      app.ios.record.scans.allSatisfy { $0.services == DiscoveredHealthPeripheral.scanServices })
  }

  /// Out of the foreground iOS reports a peripheral once per scan, and each report wakes the
  /// app for a while: discovery's rescans (made while the app is awake) report a peripheral
  /// that goes on advertising again, so the app stays awake as long as it advertises (stop
  /// discovery when the user is done). Once it went off, the app is suspended; the rescan made
  /// after it went off means its return is reported (not coalesced away) and wakes the app.
  @Test("a peripheral that comes back while the app is suspended is discovered again")
  func comesBackWhileSuspended() async throws {
    let app = try App("discovery-coalesced", running: false)
    defer { app.cleanUp() }
    app.ios.openByUser()
    #expect(try await app.within(.seconds(10)) { !app.ios.record.scans.isEmpty }, "scanning")
    app.ios.sendToBackground()
    try await app.clock.sleep(for: .seconds(20))
    #expect(app.ios.appState == .suspended)
    await app.thermometer.powerOn()
    let thermometer = await app.thermometer.address.rawValue
    #expect(try await app.within(.seconds(30)) { app.foundIdentifiers == [thermometer] })
    try await app.clock.sleep(for: .seconds(30))
    #expect(app.ios.appState == .background, "each rescan's report woke it again")
    #expect(app.foundIdentifiers == [thermometer])
    #expect(app.ios.record.discoveriesWithheld > 0, "duplicates coalesced within each scan")
    await app.thermometer.powerOff()
    try await app.clock.sleep(for: .seconds(30))
    #expect(app.ios.appState == .suspended)
    await app.thermometer.powerOn()
    #expect(
      try await app.within(.seconds(20)) { app.foundIdentifiers == [thermometer, thermometer] })
    #expect(app.ios.record.relaunches == 0)
  }
}
