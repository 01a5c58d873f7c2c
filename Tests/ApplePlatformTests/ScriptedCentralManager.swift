import RecorderBluetooth
import RecorderConcurrency
import RecorderCoreBluetooth
import RecorderEmulator

/// A `CentralManagerMirror` that records every call, answers the synchronous ones from
/// settings, and sends the delegate callbacks a test fires, as the system would.
final class ScriptedCentralManager: CentralManagerMirror {
  /// One call the central made.
  enum Command: Equatable, Sendable {
    case scan([BluetoothUUID]?)
    case stopScan
    case connect(PeripheralID)
    case cancel(PeripheralID)
    case discoverServices(PeripheralID, [BluetoothUUID]?)
    case discoverCharacteristics(PeripheralID, BluetoothUUID)
    case read(PeripheralID, CharacteristicPath)
    case write(PeripheralID, CharacteristicPath, [UInt8], WriteType)
    case setNotify(PeripheralID, CharacteristicPath, Bool)
  }

  struct Settings {
    var canSendWriteWithoutResponse = true
    var maximumWriteLength = 244
    var retrievable: Set<PeripheralID> = []
  }

  let commands: AsyncStream<Command>
  private let continuation: AsyncStream<Command>.Continuation
  private let sink: CoreBluetoothCentral.EventSink
  let settings = Locked(Settings())
  let restoreIdentifier: String?
  private let cancels = Locked<Set<PeripheralID>>([])
  /// Every peripheral whose connection or pending connect was cancelled.
  var cancelled: Set<PeripheralID> { cancels.withLock { $0 } }

  init(restoreIdentifier: String?, sink: @escaping CoreBluetoothCentral.EventSink) {
    self.restoreIdentifier = restoreIdentifier
    self.sink = sink
    (commands, continuation) = AsyncStream.makeStream()
  }

  /// Delivers a delegate callback.
  func fire(_ event: CentralManagerEvent) { sink(event) }

  func scanForPeripherals(withServices services: [BluetoothUUID]?) {
    continuation.yield(.scan(services))
  }
  func stopScan() { continuation.yield(.stopScan) }
  func retrievePeripherals(withIdentifiers identifiers: [PeripheralID]) -> [PeripheralID] {
    let known = settings.withLock { $0.retrievable }
    return identifiers.filter(known.contains)
  }
  func connect(_ peripheral: PeripheralID) { continuation.yield(.connect(peripheral)) }
  func cancelPeripheralConnection(_ peripheral: PeripheralID) {
    cancels.withLock { _ = $0.insert(peripheral) }
    continuation.yield(.cancel(peripheral))
  }
  func discoverServices(_ services: [BluetoothUUID]?, of peripheral: PeripheralID) {
    continuation.yield(.discoverServices(peripheral, services))
  }
  func discoverCharacteristics(
    _ characteristics: [BluetoothUUID]?, for service: BluetoothUUID, of peripheral: PeripheralID
  ) {
    continuation.yield(.discoverCharacteristics(peripheral, service))
  }
  func readValue(for characteristic: CharacteristicPath, of peripheral: PeripheralID) {
    continuation.yield(.read(peripheral, characteristic))
  }
  func writeValue(
    _ value: [UInt8], for characteristic: CharacteristicPath, type: WriteType,
    of peripheral: PeripheralID
  ) {
    continuation.yield(.write(peripheral, characteristic, value, type))
  }
  func setNotifyValue(
    _ enabled: Bool, for characteristic: CharacteristicPath, of peripheral: PeripheralID
  ) {
    continuation.yield(.setNotify(peripheral, characteristic, enabled))
  }
  func canSendWriteWithoutResponse(_ peripheral: PeripheralID) -> Bool {
    settings.withLock { $0.canSendWriteWithoutResponse }
  }
  func maximumWriteValueLength(for type: WriteType, of peripheral: PeripheralID) -> Int {
    settings.withLock { $0.maximumWriteLength }
  }
}

/// A central over a scripted manager on a manual clock.
struct ScriptedBench {
  let clock = ManualClock()
  let central: CoreBluetoothCentral
  let manager: ScriptedCentralManager
  static let recorder = PeripheralID("6F0C1A2B-0000-4000-8000-000000000001")
  static let battery = CharacteristicPath(
    service: RecorderGATT.batteryService, characteristic: RecorderGATT.batteryLevel)
  static let write = CharacteristicPath(
    service: RecorderGATT.service, characteristic: RecorderGATT.writeCharacteristic)

  init(restoreIdentifier: String? = nil, restored: RestoredStateMirror? = nil) {
    let made = Locked<ScriptedCentralManager?>(nil)
    let configuration = CoreBluetoothCentral.Configuration(
      restoreIdentifier: restoreIdentifier, powerOnTimeout: .seconds(10),
      discoveryTimeout: .seconds(15), restoredConnectTimeout: .seconds(10),
      disconnectTimeout: .seconds(3), clock: AnyClock(clock))
    central = CoreBluetoothCentral(configuration: configuration) { identifier, sink in
      let manager = ScriptedCentralManager(restoreIdentifier: identifier, sink: sink)
      // The system restores before it reports a state, from inside the manager's creation.
      if let restored { sink(.willRestoreState(restored)) }
      made.withLock { $0 = manager }
      return manager
    }
    manager = made.withLock { $0! }
  }

  /// Waits until `count` tasks sleep on the clock (the central's timers are armed).
  func sleepers(_ count: Int) async {
    while clock.sleeperCount < count { await Task.yield() }
  }

  /// Plays the system's side of a connect and discovery of a recorder (both services).
  func acceptConnect(
    _ commands: inout AsyncStream<ScriptedCentralManager.Command>.Iterator,
    peripheral: PeripheralID = recorder, issued: Bool = true
  ) async {
    if issued {
      guard await commands.next() == .connect(peripheral) else { return }
      manager.fire(.didConnect(peripheral))
    }
    await acceptDiscovery(&commands, peripheral: peripheral)
  }

  /// Plays service and characteristic discovery of a recorder.
  func acceptDiscovery(
    _ commands: inout AsyncStream<ScriptedCentralManager.Command>.Iterator,
    peripheral: PeripheralID = recorder
  ) async {
    guard await commands.next() == .discoverServices(peripheral, RecorderGATT.services) else {
      return
    }
    manager.fire(.didDiscoverServices(peripheral, RecorderGATT.services, nil))
    for (service, characteristics) in [
      (
        RecorderGATT.service, [RecorderGATT.writeCharacteristic, RecorderGATT.notifyCharacteristic]
      ),
      (RecorderGATT.batteryService, [RecorderGATT.batteryLevel]),
    ] {
      guard await commands.next() == .discoverCharacteristics(peripheral, service) else { return }
      manager.fire(.didDiscoverCharacteristics(peripheral, service: service, characteristics, nil))
    }
  }
}
