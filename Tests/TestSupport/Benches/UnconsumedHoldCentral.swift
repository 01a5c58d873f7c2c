import RecorderBluetooth
import RecorderConcurrency
import RecorderEmulator

/// The app's side of a simulated system radio: a central whose links hold a manual clock
/// while the app has events unconsumed on them (``BackpressureStream/unconsumed``).
///
/// Between an emulated peripheral and the app, a system central (the CoreBluetooth
/// translation over ``EmulatedSystemBluetooth``) hands each event to the link's stream, and
/// the app handles it in real time and no simulated time. The emulated peripheral holds the
/// clock until the system side took its event; this holds it from there until the app's
/// reader comes back for the next one, so a timeout is not jumped to while an answer waits
/// for the app. An app that stops reading lets go after ``UnreadHold/patience`` checks.
package final class UnconsumedHoldCentral: Central {
  /// The hold's name in ``ManualClock/activeHolds``.
  package static let hold = ClockHold("app link events unconsumed")

  private let inner: any Central
  private let clock: ManualClock
  /// One hold per peripheral: its latest link's (a new link replaces the old one's).
  private let holds = Locked<[PeripheralID: UnreadHold]>([:])

  package init(_ inner: any Central, clock: ManualClock) {
    self.inner = inner
    self.clock = clock
  }

  package var state: CentralState { get async { await inner.state } }

  package func stateUpdates() -> AsyncStream<CentralState> { inner.stateUpdates() }

  package func scan(services: [BluetoothUUID]?) -> AsyncStream<Advertisement> {
    inner.scan(services: services)
  }

  package func connect(_ peripheral: PeripheralID, services: [BluetoothUUID], timeout: Duration)
    async throws(LinkError) -> any PeripheralLink
  {
    held(try await inner.connect(peripheral, services: services, timeout: timeout))
  }

  package func connectWhenInRange(_ peripheral: PeripheralID, services: [BluetoothUUID])
    async throws(LinkError) -> any PeripheralLink
  {
    held(try await inner.connectWhenInRange(peripheral, services: services))
  }

  package func restoredPeripherals() async -> [PeripheralID] {
    await inner.restoredPeripherals()
  }

  private func held(_ link: any PeripheralLink) -> any PeripheralLink {
    let events = link.events
    let hold = UnreadHold(clock: clock, hold: Self.hold) { events.unconsumed }
    holds.withLock { $0[link.peripheral] = hold }
    return link
  }
}
