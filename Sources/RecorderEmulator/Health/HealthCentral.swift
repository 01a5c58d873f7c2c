import RecorderBluetooth
import RecorderConcurrency

/// An in-process `Central` whose peripherals are ``EmulatedHealthPeripheral``s, on their
/// clock: what the SDK's passive reader talks to in tests, and what `recorder emulate
/// --health` serves over TCP (joined with the recorder's ``EmulatorCentral`` by
/// ``CombinedCentral``).
public final class HealthCentral: Central {
  public let peripherals: [EmulatedHealthPeripheral]
  /// The radio's power (see ``EmulatorCentral/radio``).
  public let radio = CentralStateBroadcast(.poweredOn)

  public init(peripherals: [EmulatedHealthPeripheral]) { self.peripherals = peripherals }

  public var state: CentralState { get async { radio.current } }

  public func stateUpdates() -> AsyncStream<CentralState> { radio.updates() }

  /// Every advertisement of every peripheral, duplicates included (a peripheral advertising
  /// is heard once per advertising interval). Cancel the consuming task to stop.
  public func scan(services: [BluetoothUUID]?) -> AsyncStream<Advertisement> {
    AdvertisementRelay.scan(peripherals, services: services)
  }

  /// Connects to the peripheral with address `peripheral`, waiting (polling every 100 ms of
  /// its clock) until it advertises, up to `timeout`.
  /// - Throws: `unknownPeripheral` for an address none has, `connectTimeout`,
  ///   `serviceNotFound` for a service it lacks, `notPoweredOn`, `cancelled`.
  public func connect(_ peripheral: PeripheralID, services: [BluetoothUUID], timeout: Duration)
    async throws(LinkError) -> any PeripheralLink
  {
    guard radio.current == .poweredOn else { throw .notPoweredOn(radio.current) }
    var found: EmulatedHealthPeripheral?
    for candidate in peripherals where await candidate.address == peripheral {
      found = candidate
    }
    guard let device = found else { throw .unknownPeripheral(peripheral) }
    let deadline = device.time.now + timeout
    while true {
      do {
        return try await device.accept(peripheral, services: services)
      } catch .connectTimeout {
        guard !Task.isCancelled else { throw .cancelled }
        let now = device.time.now
        guard now < deadline else { throw .connectTimeout }
        // Not advertising (off, or connected elsewhere): wait for it to advertise, a second
        // of its time at most (as ``EmulatorCentral`` does); else look again in 100 ms.
        if await device.currentAdvertisement == nil {
          _ = await device.time.first(
            of: await device.observeAdvertising(), before: min(deadline, now + .seconds(1)))
          guard !Task.isCancelled else { throw .cancelled }
          continue
        }
        do {
          try await device.time.sleep(until: min(deadline, now + .milliseconds(100)))
        } catch {
          throw Task.isCancelled ? .cancelled : .connectTimeout
        }
      }
    }
  }

  public func restoredPeripherals() async -> [PeripheralID] { [] }
}
