import Foundation
import RecorderBluetooth
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import TestSupport
import Testing

@Suite("RecorderScanner: one radio scan, fanned out; de-duplicated; timed out")
struct RecorderScannerTests {
  @Test("a scan and a search at once share one radio scan; each serial once per list")
  func sharedScan() async throws {
    let bench = try SyncBench(seed: 41)
    defer { bench.cleanUp() }
    let central = CountingCentral(base: bench.central)
    let scanner = RecorderScanner(central: central, clock: bench.sessionClock)
    let updates = scanner.scan(timeout: .seconds(3))
    let found = try await scanner.find(serial: bench.device.serial, timeout: .seconds(10))
    #expect(found.serial == bench.device.serial)
    var lists: [[String]] = []
    var ending: (devices: [String], timedOut: Bool)?
    for await update in updates {
      switch update {
      case .devices(let devices): lists.append(devices.compactMap(\.serial))
      case .ended(let devices, let timedOut): ending = (devices.compactMap(\.serial), timedOut)
      }
    }
    #expect(!lists.isEmpty && lists.allSatisfy { $0 == [bench.device.serial] }, "\(lists)")
    #expect(ending?.devices == [bench.device.serial] && ending?.timedOut == true)
    #expect(central.counts.started == 1 && central.counts.mostAtOnce == 1, "\(central.counts)")
    try await waitUntil("radio stopped") { central.counts.active == 0 }
  }

  @Test("repeated advertisements make one list entry; a change of signal a new list")
  func deduplicates() async throws {
    let bench = try SyncBench(seed: 43)
    defer { bench.cleanUp() }
    var heard: Advertisement?
    for await advertisement in bench.central.scan(services: nil) {
      heard = advertisement
      break
    }
    let real = try #require(heard)
    var nearer = real
    nearer.rssi += 10
    var other = real
    other.manufacturerData = nil
    other.localName = "Headphones"
    let central = ReplayCentral(advertisements: [real, real, other, real, nearer, nearer, real])
    let scanner = RecorderScanner(central: central, clock: bench.sessionClock)
    var updates: [RecorderScanner.Update] = []
    for await update in scanner.scan(timeout: .seconds(1)) { updates.append(update) }
    let device = try #require(RecorderScanner.recognise(real))
    let moved = try #require(RecorderScanner.recognise(nearer))
    #expect(
      updates == [
        .devices([device]), .devices([moved]), .devices([device]),
        .ended(devices: [device], timedOut: true),
      ])
  }

  @Test("stopping a scan reports no end and stops the radio; the next scan starts a new one")
  func stopAndRestart() async throws {
    let bench = try SyncBench(seed: 42)
    defer { bench.cleanUp() }
    let central = CountingCentral(base: bench.central)
    let scanner = RecorderScanner(central: central, clock: bench.sessionClock)
    let first = Task {
      var updates: [RecorderScanner.Update] = []
      for await update in scanner.scan(timeout: .seconds(60)) {
        updates.append(update)
        if case .devices = update { break }
      }
      return updates
    }
    let seen = await first.value
    #expect(seen.count == 1 && { if case .devices = seen[0] { true } else { false } }())
    try await waitUntil("radio stopped") { central.counts.active == 0 }
    _ = try await scanner.find(serial: bench.device.serial, timeout: .seconds(10))
    #expect(central.counts.started == 2 && central.counts.mostAtOnce == 1, "\(central.counts)")
  }
}

/// Waits in real time (the manual clock auto-advancing) for `condition`; fails after 60 s.
func waitUntil(_ what: String, _ condition: @Sendable () -> Bool) async throws {
  let deadline = ContinuousClock.now + .seconds(60)
  while !condition() {
    guard ContinuousClock.now < deadline else {
      Issue.record("timed out waiting for \(what)")
      return
    }
    try await Task.sleep(for: .milliseconds(5))
  }
}

/// A central that counts its scans: started, running now, most at once, advertisements.
final class CountingCentral: Central {
  struct Counts: Sendable, CustomStringConvertible {
    var started = 0
    var active = 0
    var mostAtOnce = 0
    var heard = 0
    var description: String {
      "started \(started), active \(active), most at once \(mostAtOnce), heard \(heard)"
    }
  }
  let base: any Central
  private let counter = Locked(Counts())

  init(base: any Central) { self.base = base }

  var counts: Counts { counter.withLock { $0 } }

  var state: CentralState { get async { await base.state } }
  func stateUpdates() -> AsyncStream<CentralState> { base.stateUpdates() }

  func scan(services: [BluetoothUUID]?) -> AsyncStream<Advertisement> {
    counter.withLock {
      $0.started += 1
      $0.active += 1
      $0.mostAtOnce = max($0.mostAtOnce, $0.active)
    }
    let inner = base.scan(services: services)
    let counts = self.counter
    return AsyncStream { continuation in
      let task = Task {
        for await advertisement in inner {
          counts.withLock { $0.heard += 1 }
          continuation.yield(advertisement)
        }
        continuation.finish()
      }
      continuation.onTermination = { _ in
        task.cancel()
        counts.withLock { $0.active -= 1 }
      }
    }
  }

  func connect(_ peripheral: PeripheralID, services: [BluetoothUUID], timeout: Duration)
    async throws(LinkError) -> any PeripheralLink
  {
    try await base.connect(peripheral, services: services, timeout: timeout)
  }

  func restoredPeripherals() async -> [PeripheralID] { await base.restoredPeripherals() }
}

/// A radio that hears `advertisements` once, in order, then nothing until the scan stops.
final class ReplayCentral: Central {
  let advertisements: [Advertisement]
  init(advertisements: [Advertisement]) { self.advertisements = advertisements }

  var state: CentralState { get async { .poweredOn } }
  func stateUpdates() -> AsyncStream<CentralState> { AsyncStream { $0.yield(.poweredOn) } }
  func scan(services: [BluetoothUUID]?) -> AsyncStream<Advertisement> {
    let (stream, continuation) = AsyncStream.makeStream(of: Advertisement.self)
    for advertisement in advertisements { continuation.yield(advertisement) }
    return stream
  }
  func connect(_ peripheral: PeripheralID, services: [BluetoothUUID], timeout: Duration)
    async throws(LinkError) -> any PeripheralLink
  {
    throw .unknownPeripheral(peripheral)
  }
  func restoredPeripherals() async -> [PeripheralID] { [] }
}
