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

/// Passive reading (seed 001) under the scripted iOS: a `PassiveReader` on
/// CoreBluetoothCentral over the emulated system Bluetooth, reading an emulated thermometer
/// while the app is in the foreground, suspended, or terminated by the system.
@Suite("Passive reading under the scripted iOS", .timeLimit(.minutes(2)))
struct BackgroundPassiveTests {
  /// The app: each launch makes a restorable central and a reader over the same journal, and
  /// runs the reader.
  final class App: Sendable {
    let clock = ManualClock()
    let thermometer: EmulatedHealthPeripheral
    let ios: ScriptedIOS
    let directory: String
    private let current = Locked<(reader: PassiveReader, run: Task<Void, Never>)?>(nil)

    init(_ name: String, options: PassiveReader.Options) throws {
      directory = NSTemporaryDirectory() + "\(name)-\(UUID().uuidString)"
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      let (clock, manual) = (AnyClock(self.clock), self.clock)
      thermometer = EmulatedHealthPeripheral(
        configuration: .init(kind: .thermometer), time: .manual(self.clock))
      let radio = HealthCentral(peripherals: [thermometer])
      ios = ScriptedIOS(clock: clock) { sink in
        EmulatedSystemBluetooth(central: radio, clock: manual, sink: sink)
      }
      let (ios, current, journalPath) = (ios, current, directory + "/journal.sqlite")
      ios.install { _ in
        let central = UnconsumedHoldCentral(
          CoreBluetoothCentral(
            configuration: CoreBluetoothCentral.Configuration(
              restoreIdentifier: "passive", clock: clock)
          ) { identifier, sink in ios.centralManager(restoreIdentifier: identifier, events: sink) },
          clock: manual)
        // The registrations come back from the journal, as after any relaunch.
        guard let journal = try? Journal(path: journalPath),
          let reader = try? PassiveReader(
            journal: journal, central: central, clock: clock, options: options)
        else { return }
        current.withLock { old in
          old?.run.cancel()
          old = (reader, Task { await reader.run() })
        }
      }
      self.clock.startAutoAdvance()
    }

    var reader: PassiveReader { current.withLock { $0!.reader } }

    func register() async throws {
      try await reader.register(
        PassivePeripheral(
          identifier: await thermometer.address.rawValue, kind: .health(.thermometer)))
    }

    func outbox() throws -> [OutboxEntry] {
      try Journal(path: directory + "/journal.sqlite").read { try $0.pendingOutbox() }
    }

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
      current.withLock { $0?.run.cancel() }
      clock.stopAutoAdvance()
      try? FileManager.default.removeItem(atPath: directory)
    }
  }

  static var backgroundOptions: PassiveReader.Options {
    var options = PassiveReader.Options()
    options.scope = .healthServices
    options.rescanInterval = .seconds(5)
    return options
  }

  @Test(
    "one reading, one record: the cooldown holds in the foreground and the background",
    arguments: [true, false])
  func cooldownHolds(foreground: Bool) async throws {
    let app = try App("passive-cooldown", options: Self.backgroundOptions)
    defer { app.cleanUp() }
    app.ios.openByUser()
    try await app.register()
    if !foreground { app.ios.sendToBackground() }
    try await app.clock.sleep(for: .seconds(20))
    #expect(app.ios.appState == (foreground ? .foreground : .suspended))
    await app.thermometer.powerOn()
    #expect(
      try await app.within(.seconds(30)) { await app.thermometer.deliveredReadings.count == 1 })
    // It goes on advertising after the read: heard again (rescans) and ignored.
    try await app.clock.sleep(for: .seconds(60))
    #expect(await app.thermometer.connectionCount == 1)
    // Off, and on again too soon with a second measurement: not read (the seed's warning).
    await app.thermometer.powerOff()
    try await app.clock.sleep(for: .seconds(5))
    await app.thermometer.powerOn()
    try await app.clock.sleep(for: .seconds(40))
    #expect(await app.thermometer.connectionCount == 1)
    #expect(await app.thermometer.hasPendingReading)
    #expect(try app.outbox().count == 1)
    #expect(app.ios.record.relaunches == 0)
  }

  @Test(
    "a system-terminated app is relaunched by the thermometer's advertising, reads it once",
    arguments: [PassiveReader.Options.Scope.healthServices, .everything])
  func relaunchedToRead(scope: PassiveReader.Options.Scope) async throws {
    var options = Self.backgroundOptions
    options.scope = scope
    let app = try App("passive-relaunch", options: options)
    defer { app.cleanUp() }
    app.ios.openByUser()
    try await app.register()
    #expect(try await app.within(.seconds(10)) { !app.ios.record.scans.isEmpty }, "scanning")
    app.ios.sendToBackground()
    app.ios.terminateBySystem()
    await app.thermometer.powerOn()
    let read = try await app.within(.seconds(60)) {
      await app.thermometer.deliveredReadings.count == 1
    }
    guard scope == .healthServices else {
      // A scan that names no service finds nothing in the background: no relaunch, no read.
      #expect(!read)
      #expect(app.ios.record.relaunches == 0)
      return
    }
    #expect(read)
    #expect(app.ios.record.launches == [.user, .bluetooth(restoreIdentifiers: ["passive"])])
    try await app.clock.sleep(for: .seconds(60))
    #expect(await app.thermometer.connectionCount == 1)
    #expect(try app.outbox().count == 1)
  }

  /// iOS reports a peripheral once per scan out of the foreground: without a rescan after
  /// the thermometer went quiet, a second measurement is not heard while the app stays
  /// suspended, until the app runs again and scans anew. Nothing is lost: the thermometer
  /// keeps the reading until it is read. (With ``PassiveReader/Options/rescanInterval`` a
  /// rescan made while the app was still awake after the thermometer went off does report
  /// it.)
  @Test("without rescans a later reading waits on the thermometer while the app is suspended")
  func laterReadingAfterTheAppRunsAgain() async throws {
    var options = Self.backgroundOptions
    options.rescanInterval = nil
    let app = try App("passive-later", options: options)
    defer { app.cleanUp() }
    app.ios.openByUser()
    try await app.register()
    app.ios.sendToBackground()
    await app.thermometer.powerOn()
    #expect(
      try await app.within(.seconds(30)) { await app.thermometer.deliveredReadings.count == 1 })
    await app.thermometer.powerOff()
    try await app.clock.sleep(for: .seconds(30))
    await app.thermometer.powerOn()  // after the full quiet period: a reading to take
    try await app.clock.sleep(for: .seconds(60))
    #expect(app.ios.appState == .suspended)
    #expect(await app.thermometer.connectionCount == 1, "not reported again in this scan")
    app.ios.openByUser()
    #expect(
      try await app.within(.seconds(30)) { await app.thermometer.deliveredReadings.count == 2 })
    #expect(try app.outbox().count == 2)
  }
}
