import Foundation
import HealthProfiles
import RecorderBluetooth
import RecorderConcurrency
import RecorderEmulator
import TestSupport
import Testing

@testable import RecorderKit

/// Issue 27: discovery of health peripherals by their SIG services (seed 001's controller
/// detects peripherals as well as reads them), on a radio that reports duplicates.
@Suite("Passive: discovery")
struct DiscoveryTests {
  /// A radio that also hears `extra` at the start of every scan, whatever the scan names (a
  /// stack that does not filter), and records the services each scan named.
  final class UnfilteredCentral: Central {
    let inner: any Central
    let extra: [Advertisement]
    let scans = Locked<[[BluetoothUUID]?]>([])

    init(_ inner: any Central, extra: [Advertisement]) {
      self.inner = inner
      self.extra = extra
    }

    var state: CentralState { get async { await inner.state } }
    func stateUpdates() -> AsyncStream<CentralState> { inner.stateUpdates() }

    func scan(services: [BluetoothUUID]?) -> AsyncStream<Advertisement> {
      scans.withLock { $0.append(services) }
      let (inner, extra) = (self.inner, self.extra)
      return AsyncStream { continuation in
        for advertisement in extra { continuation.yield(advertisement) }
        let task = Task {
          for await advertisement in inner.scan(services: services) {
            continuation.yield(advertisement)
          }
          continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
      }
    }

    func connect(_ peripheral: PeripheralID, services: [BluetoothUUID], timeout: Duration)
      async throws(LinkError) -> any PeripheralLink
    {
      try await inner.connect(peripheral, services: services, timeout: timeout)
    }

    func restoredPeripherals() async -> [PeripheralID] { [] }
  }

  /// Advertisements of things that are not health peripherals.
  static let notHealth = [
    Advertisement(
      peripheral: PeripheralID("HEART-RATE"), localName: "Heart rate strap", manufacturerData: nil,
      serviceUUIDs: [BluetoothUUID(0x180D)], rssi: -60),
    Advertisement(
      peripheral: PeripheralID("RECORDER"), localName: "PLAUD_NOTE", manufacturerData: nil,
      serviceUUIDs: [RecorderGATT.service], rssi: -50),
    Advertisement(
      peripheral: PeripheralID("NAME-ONLY"), localName: "Thermometer", manufacturerData: nil,
      serviceUUIDs: [], rssi: -70),
  ]

  /// A health peripheral with a hostile advertisement: a long service list of repeats and
  /// 128-bit UUIDs before its service, and a name with control and bidi characters.
  static let hostile = Advertisement(
    peripheral: PeripheralID("HOSTILE"), localName: "\u{7}Bad\u{202E}\nname\u{0}",
    manufacturerData: [0xFF],
    serviceUUIDs: Array(
      repeating: BluetoothUUID(bytes: Array(repeating: 0xAB, count: 16))!, count: 500)
      + Array(repeating: BluetoothUUID(0x180D), count: 500) + [BluetoothUUID(0x1809)],
    rssi: 127)

  /// Collects what a discovery stream reports.
  final class Collected: Sendable {
    let list = Locked<[DiscoveredHealthPeripheral]>([])
    var count: Int { list.withLock { $0.count } }
    var identifiers: [String] { list.withLock { $0.map(\.identifier) } }
  }

  static func collect(_ reader: PassiveReader) -> (Collected, Task<Void, Never>) {
    let collected = Collected()
    let task = Task {
      for await found in await reader.discover() { collected.list.withLock { $0.append(found) } }
    }
    return (collected, task)
  }

  @Test func eachHealthPeripheralIsReportedOnceWithItsKindAndNothingElseIs() async throws {
    let bench = try PassiveBench([.thermometer, .scale])
    let central = UnfilteredCentral(bench.central, extra: Self.notHealth + [Self.hostile])
    let reader = try PassiveReader(
      journal: try bench.journal(), central: central, clock: bench.anyClock)
    let scale = await bench.registration(1)
    try await reader.register(scale)
    let (found, discovery) = Self.collect(reader)
    defer { discovery.cancel() }
    for peripheral in bench.peripherals { await peripheral.powerOn() }
    // 30 advertisements of each, over several scan windows.
    try await bench.pass(.seconds(30))
    let thermometer = await bench.registration(0)
    #expect(
      found.identifiers.sorted() == [thermometer.identifier, scale.identifier, "HOSTILE"].sorted())
    let byID = Dictionary(found.list.withLock { $0 }.map { ($0.identifier, $0) }) { a, _ in a }
    #expect(
      byID[thermometer.identifier]
        == DiscoveredHealthPeripheral(
          identifier: thermometer.identifier, kind: .thermometer, name: "Emulated thermometer",
          rssi: -58, isRegistered: false))
    #expect(byID[scale.identifier]?.kind == .scale)
    #expect(byID[scale.identifier]?.isRegistered == true)
    #expect(byID["HOSTILE"]?.kind == .thermometer)
    #expect(byID["HOSTILE"]?.name == "Badname")
    // Every scan named the four health services (none named no service), and the scan
    // restarted every discovery rescan interval.
    let scans = central.scans.withLock { $0 }
    #expect(scans.count >= 5)
    #expect(scans.allSatisfy { $0 == DiscoveredHealthPeripheral.scanServices })
  }

  @Test func aPeripheralIsReportedAgainOnlyAfterItStoppedAdvertisingAndCameBack() async throws {
    let bench = try PassiveBench([.thermometer])
    let reader = try PassiveReader(
      journal: try bench.journal(), central: bench.central, clock: bench.anyClock)
    let (found, discovery) = Self.collect(reader)
    defer { discovery.cancel() }
    let thermometer = bench.peripherals[0]
    await thermometer.powerOn()
    #expect(try await bench.within(.seconds(5)) { found.count == 1 })
    // Off for less than the absence (12 s): the same appearance.
    await thermometer.powerOff()
    try await bench.pass(.seconds(5))
    await thermometer.powerOn()
    try await bench.pass(.seconds(10))
    #expect(found.count == 1)
    // Off for longer: it came back.
    await thermometer.powerOff()
    try await bench.pass(.seconds(20))
    await thermometer.powerOn()
    #expect(try await bench.within(.seconds(5)) { found.count == 2 })
    try await bench.pass(.seconds(20))
    #expect(found.count == 2)
    // A new discovery reports it at once.
    let (again, second) = Self.collect(reader)
    defer { second.cancel() }
    #expect(try await bench.within(.seconds(5)) { again.count == 1 })
    #expect(found.count == 2)
  }

  /// Records `didDiscover`; the other callbacks are not this test's.
  final class DiscoveryDelegate: PeripheralControllerDelegate {
    let discovered = Locked<[DiscoveredHealthPeripheral]>([])

    func peripheralController(
      _ controller: PeripheralControllerFacade, shouldPresentInstructions instructions: String,
      for peripheral: PassivePeripheral
    ) {}
    func peripheralController(
      _ controller: PeripheralControllerFacade, didPair peripheral: PassivePeripheral
    ) {}
    func peripheralController(
      _ controller: PeripheralControllerFacade, didConnect peripheral: PassivePeripheral
    ) {}
    func peripheralController(
      _ controller: PeripheralControllerFacade, didReceive record: HealthRecord,
      from peripheral: PassivePeripheral
    ) {}
    func peripheralController(
      _ controller: PeripheralControllerFacade, didFail operation: PeripheralOperation,
      error: PassiveError
    ) {}
    func peripheralController(
      _ controller: PeripheralControllerFacade, didDiscover peripheral: DiscoveredHealthPeripheral
    ) { discovered.withLock { $0.append(peripheral) } }
  }

  @Test func theFacadeDiscoversThenARegistrationThroughTheRegistryIsReadOnce() async throws {
    let bench = try PassiveBench([.thermometer])
    let reader = try PassiveReader(
      journal: try bench.journal(), central: bench.central, clock: bench.anyClock)
    let run = Task { await reader.run() }
    defer { run.cancel() }
    let facade = PeripheralControllerFacade(reader: reader)
    let delegate = DiscoveryDelegate()
    facade.delegate = delegate
    try facade.startDiscovery()
    #expect(facade.isDiscovering)
    let thermometer = bench.peripherals[0]
    await thermometer.powerOn()
    #expect(try await bench.within(.seconds(10)) { delegate.discovered.withLock { $0.count } == 1 })
    let found = try #require(delegate.discovered.withLock { $0.first })
    #expect(!found.isRegistered)
    // Not registered: discovered, not read.
    try await bench.pass(.seconds(10))
    #expect(await thermometer.connectionCount == 0)
    try await reader.register(found.registration)
    #expect(try PassiveRegistry(journal: try bench.journal()).peripherals() == [found.registration])
    #expect(try await bench.within(.seconds(30)) { await thermometer.deliveredReadings.count == 1 })
    #expect(try await bench.within(.seconds(5)) { try bench.pendingOutbox().count == 1 })
    facade.stopDiscovery()
    #expect(!facade.isDiscovering)
    #expect(try await bench.within(.seconds(5)) { await !reader.isDiscovering })
    #expect(delegate.discovered.withLock { $0.count } == 1)
  }

  @Test func aFacadeWithoutAReaderHasNoScanToDiscoverWith() throws {
    let bench = try PassiveBench([.thermometer])
    let facade = PeripheralControllerFacade(
      core: PeripheralController(central: bench.central, clock: bench.anyClock))
    #expect {
      try facade.startDiscovery()
    } throws: { error in
      guard case .unsupported = error as? PassiveError else { return false }
      return true
    }
    #expect(!facade.isDiscovering)
  }

  // MARK: Outside data

  static func advertisement(_ services: [BluetoothUUID], name: String? = nil) -> Advertisement {
    Advertisement(
      peripheral: PeripheralID("P"), localName: name, manufacturerData: nil,
      serviceUUIDs: services, rssi: -40)
  }

  @Test(
    "the kind comes from the first health service advertised, nothing else",
    arguments: [
      ([], nil),
      ([BluetoothUUID(0x180D), RecorderGATT.service], nil),
      // 0x1809 in a UUID that is not on the SIG base.
      ([BluetoothUUID(bytes: [0, 0, 0x18, 0x09] + Array(repeating: 0, count: 12))!], nil),
      ([BluetoothUUID(0x180D), BluetoothUUID(0x181D), BluetoothUUID(0x1809)], .scale),
      ([BluetoothUUID(0x1809), BluetoothUUID(0x1809)], .thermometer),
      (
        Array(repeating: BluetoothUUID(0x180D), count: 10_000) + [BluetoothUUID(0x1822)],
        .pulseOximeter
      ),
      ([BluetoothUUID(0x1810)], .bloodPressure),
    ] as [([BluetoothUUID], HealthPeripheralKind?)])
  func kindFromServices(services: [BluetoothUUID], kind: HealthPeripheralKind?) {
    let found = DiscoveredHealthPeripheral(
      advertisement: Self.advertisement(services), isRegistered: false)
    #expect(found?.kind == kind)
  }

  @Test(
    "names are cleaned for display",
    arguments: [
      (nil, nil),
      ("", nil),
      ("   \t", nil),
      ("\u{FEFF}\u{200B}", nil),
      ("\u{202E}Therm\u{0}o\n", "Thermo"),
      ("  Scale 2  ", "Scale 2"),
      (String(repeating: "é", count: 1000), String(repeating: "é", count: 124)),
      (String(repeating: "👍", count: 100), String(repeating: "👍", count: 62)),
      ("a" + String(repeating: "\u{1}", count: 100_000) + "b", "ab"),
    ] as [(String?, String?)])
  func names(name: String?, shown: String?) throws {
    let found = try #require(
      DiscoveredHealthPeripheral(
        advertisement: Self.advertisement([BluetoothUUID(0x1809)], name: name),
        isRegistered: false))
    #expect(found.name == shown)
    #expect((found.name?.utf8.count ?? 0) <= DiscoveredHealthPeripheral.maximumNameBytes)
  }

  @Test func aSessionRemembersABoundedNumberOfPeripherals() {
    var session = DiscoverySession(absence: .seconds(12))
    let first = session.heard("first", at: .zero)
    #expect(first)
    var fakesReported = 0
    for index in 0..<(DiscoverySession.capacity * 3) {
      if session.heard("fake-\(index)", at: .milliseconds(index)) { fakesReported += 1 }
    }
    #expect(fakesReported == DiscoverySession.capacity * 3)
    // Forgotten to stay within capacity: reported again, as after an absence.
    let again = session.heard("first", at: .seconds(4))
    let soonAfter = session.heard("first", at: .seconds(5))
    #expect(again)
    #expect(!soonAfter)
  }
}
