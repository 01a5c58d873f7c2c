import RecorderConcurrency

/// The central role of Bluetooth LE, shaped like CoreBluetooth's `CBCentralManager` so that
/// the CoreBluetooth adapter is a thin translation and everything above it is tested here
/// against the emulator (in process on simulated time, or over TCP).
///
/// Implementations: the TCP link to `recorder emulate` (`TCPCentral`), the emulator's
/// in-process central (RecorderEmulator), and a CoreBluetooth adapter on Apple platforms.
public protocol Central: Sendable {
  /// The radio's state now. A fresh CoreBluetooth manager is ``CentralState/unknown`` until
  /// the system reports; a BlueZ adapter can be powered off and on at any time.
  var state: CentralState { get async }

  /// The radio's state now, then every change, until the consumer stops iterating.
  /// Commands issued while the state is not ``CentralState/poweredOn`` fail with
  /// ``LinkError/notPoweredOn(_:)`` or wait for it, as each implementation documents.
  func stateUpdates() -> AsyncStream<CentralState>

  /// Advertisements heard until the consumer stops iterating (cancelling the iterating task
  /// stops the scan). `services` filters by advertised service, nil hears all.
  ///
  /// One scan at a time: like CoreBluetooth's `scanForPeripherals`, a radio runs one scan, so
  /// a caller must not start a second while the first is being iterated. RecorderKit's
  /// scanner is the one place that scans and fans advertisements out to its listeners.
  func scan(services: [BluetoothUUID]?) -> AsyncStream<Advertisement>

  /// Connects to `peripheral` and discovers `services` and their characteristics. Only the
  /// required ones (``RecorderGATT/required(of:)``) must be there: for a recorder the vendor
  /// service; any other service it asks for (the battery) is discovered when offered, and
  /// its characteristics are otherwise absent (``LinkError/characteristicNotFound(_:)``).
  /// - Throws: ``LinkError/connectTimeout`` after `timeout`, ``LinkError/unknownPeripheral(_:)``,
  ///   ``LinkError/serviceNotFound(_:)`` when the peripheral lacks a required service,
  ///   ``LinkError/cancelled`` when the calling task is cancelled.
  func connect(_ peripheral: PeripheralID, services: [BluetoothUUID], timeout: Duration)
    async throws(LinkError) -> any PeripheralLink

  /// Connects to `peripheral` whenever it is next in range, however long that takes, and
  /// discovers `services` as ``connect(_:services:timeout:)`` does. On CoreBluetooth this is
  /// the system's pending connect: it needs no scan, survives the app's suspension, and a
  /// system-terminated app with state restoration is relaunched for it. Cancel the calling
  /// task to withdraw it.
  /// - Throws: as ``connect(_:services:timeout:)``, never ``LinkError/connectTimeout`` for
  ///   the wait itself on a platform with pending connects.
  func connectWhenInRange(_ peripheral: PeripheralID, services: [BluetoothUUID])
    async throws(LinkError) -> any PeripheralLink

  /// Peripherals the system kept connected or pending for us across an app relaunch
  /// (CoreBluetooth state restoration); empty where the platform has none.
  func restoredPeripherals() async -> [PeripheralID]
}

extension Central {
  /// A platform without pending connects waits as its own connect does, bounded by
  /// ``pendingConnectBound``: the emulator keeps looking for the peripheral until then; a
  /// central whose connect fails at once for an absent peripheral (BlueZ) throws that.
  public func connectWhenInRange(_ peripheral: PeripheralID, services: [BluetoothUUID])
    async throws(LinkError) -> any PeripheralLink
  {
    try await connect(peripheral, services: services, timeout: pendingConnectBound)
  }

  /// How long ``connectWhenInRange(_:services:)`` waits on a central without pending
  /// connects: 30 days, longer than any test or gateway session waits for a device.
  public var pendingConnectBound: Duration { .seconds(30 * 24 * 3600) }
}

extension Central {
  /// Connects to a recorder: discovers its vendor service and the battery service.
  public func connect(_ peripheral: PeripheralID, timeout: Duration) async throws(LinkError)
    -> any PeripheralLink
  {
    try await connect(peripheral, services: RecorderGATT.services, timeout: timeout)
  }
}

/// One connection to a peripheral, shaped like CoreBluetooth's `CBPeripheral` for what the
/// recorder needs. Events (notifications, readiness, disconnection) arrive in order on
/// ``events``; the stream ends after ``LinkEvent/disconnected(_:)``.
public protocol PeripheralLink: Sendable {
  var peripheral: PeripheralID { get }

  /// Events in the order they happened. Single consumer.
  var events: BackpressureStream<LinkEvent> { get }

  /// Asks for an ATT MTU; returns the one in force (the smaller of ours and the device's).
  func requestMTU(_ mtu: Int) async throws(LinkError) -> Int

  /// Longest value one write may carry (ATT MTU − 3).
  func maximumWriteLength(for type: WriteType) async -> Int

  /// Reads a characteristic's value (battery level works before vendor authentication).
  func read(_ characteristic: BluetoothUUID) async throws(LinkError) -> [UInt8]

  /// Writes `value`. `.withoutResponse` returns once the value is queued; when the queue is
  /// full it waits for room (back pressure), as `canSendWriteWithoutResponse` would signal.
  func write(_ value: [UInt8], to characteristic: BluetoothUUID, type: WriteType)
    async throws(LinkError)

  /// Writes `values` in order without response, as fast as the link's queue takes them (a
  /// firmware image, say). The link may hand several to the radio at once, so a simulated
  /// radio never sees a half-filled queue that a real phone would have kept full. The
  /// default writes them one at a time with ``write(_:to:type:)``.
  func writeWithoutResponse(_ values: [[UInt8]], to characteristic: BluetoothUUID)
    async throws(LinkError)

  /// Subscribes to (or stops) notifications: writes `01 00` / `00 00` to the CCCD.
  func setNotifications(_ enabled: Bool, for characteristic: BluetoothUUID) async throws(LinkError)

  /// Pairing state of this link.
  var bondState: BondState { get async }

  /// Ends the link; ``events`` then delivers `.disconnected(.localRequest)`.
  func disconnect() async
}

extension PeripheralLink {
  public func writeWithoutResponse(_ values: [[UInt8]], to characteristic: BluetoothUUID)
    async throws(LinkError)
  {
    for value in values { try await write(value, to: characteristic, type: .withoutResponse) }
  }
}
