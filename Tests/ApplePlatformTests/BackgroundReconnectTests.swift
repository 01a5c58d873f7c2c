import RecorderBluetooth
import RecorderConcurrency
import RecorderCoreBluetooth
import RecorderEmulator
import RecorderKit
import RecorderTesting
import TestSupport
import Testing

/// Reaching a recorder from the background under the scripted iOS: RecorderKit's front door
/// over CoreBluetoothCentral over the emulated system Bluetooth, the app a launch closure.
/// The recorder advertises no service UUID (PROTOCOL.md §1), so in the background only a
/// pending connect to the peripheral met before can reach it.
@Suite("Background reconnects under the scripted iOS", .timeLimit(.minutes(2)))
struct BackgroundReconnectTests {
  /// An app whose launch makes a restorable CoreBluetooth central and a front door over it.
  final class App: Sendable {
    let bench: RecorderBench
    let ios: ScriptedIOS
    private let door = Locked<Recorders?>(nil)

    init(
      _ name: String, rules: ScriptedIOS.Rules = ScriptedIOS.Rules(), remembers: Bool = false
    ) throws {
      let bench = try RecorderBench(name, seed: 21)
      let known = remembers ? KnownRecorders(path: bench.directory + "/known.json") : nil
      self.bench = bench
      let (clock, manual) = (bench.anyClock, bench.clock)
      ios = ScriptedIOS(clock: clock, rules: rules) { sink in
        EmulatedSystemBluetooth(central: bench.central, clock: manual, sink: sink)
      }
      let (ios, door) = (ios, door)
      ios.install { _ in
        let central = UnconsumedHoldCentral(
          CoreBluetoothCentral(
            configuration: CoreBluetoothCentral.Configuration(restoreIdentifier: "rk", clock: clock)
          ) { identifier, sink in ios.centralManager(restoreIdentifier: identifier, events: sink) },
          clock: manual)
        var session = DeviceSession.Configuration(token: bench.device.configuration.token)
        session.clock = clock
        door.withLock {
          $0 = Recorders(
            radio: .shared(central),
            configuration: .init(session: session, findTimeout: .seconds(10), known: known))
        }
      }
    }

    var recorders: Recorders { door.withLock { $0! } }

    func cleanUp() { bench.cleanUp() }
  }

  @Test(
    "in the background a connect by scan finds no recorder (it advertises no service UUID)",
    arguments: [true, false])
  func scanInTheBackground(ruleOn: Bool) async throws {
    var rules = ScriptedIOS.Rules()
    rules.nilServiceScansFindNothingInBackground = ruleOn
    let app = try App("bg-scan", rules: rules)
    defer { app.cleanUp() }
    app.bench.clock.startAutoAdvance()
    app.ios.openByUser()
    let task = app.ios.backgroundTasks.beginBackgroundTask(withName: "sync") {}
    #expect(task != nil)
    app.ios.sendToBackground()
    let serial = app.bench.device.serial
    do {
      let connection = try await app.recorders.connect(serial: serial)
      await connection.close()
      #expect(!ruleOn, "a background scan found the recorder although iOS finds nothing")
    } catch DeviceError.deviceNotFound(let missing) {
      #expect(ruleOn, "only the rule keeps the scan from finding it")
      #expect(missing == serial)
    }
    #expect(app.ios.record.scans.map(\.services).allSatisfy { $0 == nil })
  }

  @Test(
    "a pending connect to the recorder met before completes when it returns, waking the app, no scan",
    arguments: [true, false])
  func pendingConnectAfterTheRecorderLeft(ruleOn: Bool) async throws {
    var rules = ScriptedIOS.Rules()
    rules.nilServiceScansFindNothingInBackground = ruleOn
    let app = try App("bg-pending", rules: rules)
    defer { app.cleanUp() }
    let (clock, device) = (app.bench.anyClock, app.bench.device)
    app.bench.clock.startAutoAdvance()
    app.ios.openByUser()
    // In the foreground: found by scan, connected, remembered.
    let first = try await app.recorders.connect(serial: device.serial)
    let met = first.device
    await first.close()
    let scansBefore = app.ios.record.scans.count

    await device.goOutOfRange()
    app.ios.sendToBackground()
    let pending = Task { try await app.recorders.connectWhenInRange(to: met) }
    try await clock.sleep(for: .seconds(120))
    #expect(app.ios.appState == .suspended, "two minutes without a task or an event")
    await device.comeBackInRange()
    let connection = try await pending.value
    #expect(await connection.session.info.serial == device.serial)
    #expect(app.ios.appState == .background, "woken for the connect")
    #expect(app.ios.record.scans.count == scansBefore, "no scan in the background")
    #expect(app.ios.record.connects.last?.state == .background)
    #expect(app.ios.record.relaunches == 0)
    await connection.close()
  }

  @Test(
    "a recorder met before is connected to by serial in the background with no scan",
    arguments: [true, false])
  func knownRecorderInTheBackground(ruleOn: Bool) async throws {
    var rules = ScriptedIOS.Rules()
    rules.nilServiceScansFindNothingInBackground = ruleOn
    let app = try App("bg-known", rules: rules, remembers: true)
    defer { app.cleanUp() }
    app.bench.clock.startAutoAdvance()
    app.ios.openByUser()
    let serial = app.bench.device.serial
    let first = try await app.recorders.connect(serial: serial)
    await first.close()
    let scansBefore = app.ios.record.scans.count
    #expect(scansBefore == 1, "found by scan the first time")
    // A relaunch later, in the background: the file brings the recorder back.
    app.ios.sendToBackground()
    app.ios.terminateBySystem()
    app.ios.openByUser()
    #expect(app.ios.appState == .foreground)
    _ = app.ios.backgroundTasks.beginBackgroundTask(withName: "sync") {}
    app.ios.sendToBackground()
    let connection = try await app.recorders.connect(serial: serial)
    #expect(await connection.session.info.serial == serial)
    #expect(app.ios.record.scans.count == scansBefore, "no scan")
    await connection.close()
  }
}
