import RecorderBluetooth
import RecorderConcurrency

/// An in-process `Central` whose peripherals are ``EmulatedDevice``s: the SDK talks to the
/// emulator exactly as it would to CoreBluetooth, on the devices' clock.
///
/// With a manual clock, the link model advances virtual time while it carries traffic; when
/// nothing moves (waiting for a timeout, an unauthenticated central's drop), something else
/// must: the test, or `ManualClock.startAutoAdvance()`.
public final class EmulatorCentral: Central {
  /// The devices within reach of this central.
  public let devices: [EmulatedDevice]

  /// The emulated radio's power: powered on from the start. A test moves it with
  /// `CentralStateBroadcast/update(_:)` to play an adapter switched off; connects then fail
  /// with `LinkError/notPoweredOn(_:)`.
  public let radio = CentralStateBroadcast(.poweredOn)

  public init(devices: [EmulatedDevice]) { self.devices = devices }

  public convenience init(device: EmulatedDevice) { self.init(devices: [device]) }

  public var state: CentralState { get async { radio.current } }

  public func stateUpdates() -> AsyncStream<CentralState> { radio.updates() }

  /// Advertisements of every device in range and not connected, each when first heard and
  /// whenever it changes or reappears. Cancel the consuming task to stop scanning.
  ///
  /// On a manual clock an advertisement holds the devices' clock until the scanner comes
  /// back for the next one (the emulator's advertisement relay), so a scan timeout never fires while
  /// one is on its way. The simulation owns this wait: the SDK's scan knows nothing of
  /// simulated time.
  public func scan(services: [BluetoothUUID]?) -> AsyncStream<Advertisement> {
    AdvertisementRelay.scan(devices, services: services)
  }

  /// Connects to the device advertising as `peripheral`. A device that used that address
  /// before (it rebooted, or is out of range or busy) is waited for until `timeout`.
  /// Emulated recorders offer the vendor and battery services (`RecorderGATT/services`);
  /// only the required ones (`RecorderGATT/required(of:)`) must be among them.
  /// - Throws: `LinkError.unknownPeripheral` for an address no device ever had,
  ///   `LinkError.connectTimeout` when it is not heard within `timeout`,
  ///   `LinkError.serviceNotFound` for a required service a recorder lacks, `LinkError.notPoweredOn`
  ///   while ``radio`` is off, `LinkError.cancelled` when the calling task is cancelled.
  public func connect(
    _ peripheral: PeripheralID, services: [BluetoothUUID], timeout: Duration
  ) async throws(LinkError) -> any PeripheralLink {
    guard radio.current == .poweredOn else { throw .notPoweredOn(radio.current) }
    if let missing = RecorderGATT.required(of: services).first(where: {
      !RecorderGATT.services.contains($0)
    }) {
      throw .serviceNotFound(missing)
    }
    var known: EmulatedDevice?
    for device in devices {
      let isCurrent = await device.peripheralID == peripheral
      let wasUsed = await device.usedAddress(peripheral)
      if isCurrent || wasUsed {
        known = device
        break
      }
    }
    guard let device = known else { throw .unknownPeripheral(peripheral) }
    let deadline = device.time.now + timeout
    let poll = Duration.milliseconds(100)
    while true {
      do {
        return try await device.acceptConnection(to: peripheral)
      } catch .connectTimeout {
        guard !Task.isCancelled else { throw .cancelled }
        let now = device.time.now
        guard now < deadline else { throw .connectTimeout }
        // Not advertising (out of range, connected elsewhere): nothing changes until it
        // advertises again, so wait for that rather than poll, a second of its time at most
        // (a pending connect may wait for days; the bound keeps simulated time moving in
        // steps an auto-advancing clock cannot overshoot). Advertising at another address:
        // look again every `poll`.
        if await device.currentAdvertisement == nil {
          _ = await device.time.first(
            of: await device.observeAdvertising(), before: min(deadline, now + .seconds(1)))
          guard !Task.isCancelled else { throw .cancelled }
          continue
        }
        do {
          try await device.time.sleep(until: min(deadline, device.time.now + poll))
        } catch {
          throw Task.isCancelled ? .cancelled : .connectTimeout
        }
      }
    }
  }

  public func restoredPeripherals() async -> [PeripheralID] { [] }
}

/// One connection from ``EmulatorCentral`` to an ``EmulatedDevice``: a thin handle; all
/// state lives in the device actor.
public struct EmulatorLink: PeripheralLink {
  let device: EmulatedDevice
  let connectionID: Int
  public let peripheral: PeripheralID
  public let events: BackpressureStream<LinkEvent>

  init(
    device: EmulatedDevice, connectionID: Int, peripheral: PeripheralID,
    events: BackpressureStream<LinkEvent>
  ) {
    self.device = device
    self.connectionID = connectionID
    self.peripheral = peripheral
    self.events = events
  }

  public func requestMTU(_ mtu: Int) async throws(LinkError) -> Int {
    try await device.negotiateMTU(connectionID, requested: mtu)
  }

  public func maximumWriteLength(for type: WriteType) async -> Int {
    await device.maximumWriteLength(connectionID)
  }

  public func read(_ characteristic: BluetoothUUID) async throws(LinkError) -> [UInt8] {
    try await device.read(connectionID, characteristic)
  }

  public func write(_ value: [UInt8], to characteristic: BluetoothUUID, type: WriteType)
    async throws(LinkError)
  {
    try await device.write(connectionID, value: value, to: characteristic, type: type)
  }

  public func writeWithoutResponse(_ values: [[UInt8]], to characteristic: BluetoothUUID)
    async throws(LinkError)
  {
    try await device.writeBatch(connectionID, values: values, to: characteristic)
  }

  public func setNotifications(_ enabled: Bool, for characteristic: BluetoothUUID)
    async throws(LinkError)
  {
    try await device.setNotifications(connectionID, enabled: enabled, for: characteristic)
  }

  public var bondState: BondState { get async { .none } }

  public func disconnect() async {
    await device.disconnect(connectionID, reason: .localRequest)
  }
}
