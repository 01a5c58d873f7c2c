import RecorderConcurrency

/// The central role of Bluetooth LE, shaped like CoreBluetooth's `CBCentralManager` so that
/// the CoreBluetooth adapter is a thin translation and everything above it is tested here
/// against the emulator (in process on a ``ManualClock``, or over TCP).
///
/// Implementations: the TCP link to `recorder emulate` (``TCPCentral``), the emulator's
/// in-process central (RecorderEmulator), and a CoreBluetooth adapter on Apple platforms.
public protocol Central: Sendable {
  /// The radio's state now.
  var state: CentralState { get async }

  /// Advertisements heard until the consumer stops iterating (cancelling the iterating task
  /// stops the scan). `services` filters by advertised service, nil hears all.
  func scan(services: [BluetoothUUID]?) -> AsyncStream<Advertisement>

  /// Connects to `peripheral` and discovers the recorder's characteristics.
  /// - Throws: ``LinkError/connectTimeout`` after `timeout`, ``LinkError/unknownPeripheral(_:)``.
  func connect(_ peripheral: PeripheralID, timeout: Duration) async throws(LinkError)
    -> any PeripheralLink

  /// Peripherals the system kept connected or pending for us across an app relaunch
  /// (CoreBluetooth state restoration); empty where the platform has none.
  func restoredPeripherals() async -> [PeripheralID]
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

  /// Subscribes to (or stops) notifications: writes `01 00` / `00 00` to the CCCD.
  func setNotifications(_ enabled: Bool, for characteristic: BluetoothUUID) async throws(LinkError)

  /// Pairing state of this link.
  var bondState: BondState { get async }

  /// Ends the link; ``events`` then delivers `.disconnected(.localRequest)`.
  func disconnect() async
}
