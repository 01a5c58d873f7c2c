#if canImport(CoreBluetooth)
  import CoreBluetooth
  import Foundation
  import RecorderBluetooth

  /// CoreBluetooth's `CBCentralManager` and its `CBPeripheral`s as a ``CentralManagerMirror``:
  /// translation only, every decision is in ``CoreBluetoothCentral``.
  ///
  /// `@unchecked Sendable` is sound: the CoreBluetooth objects and `peripherals` are touched
  /// only on `queue`. The system delivers the delegate callbacks there (it is the manager's
  /// queue), and every mirror call runs there through `onQueue` (synchronously, so calls stay
  /// in order). `manager` is written once, in `init`, before anything can read it.
  public final class SystemCentralManager: NSObject, CentralManagerMirror, @unchecked Sendable {
    private let queue = DispatchQueue(label: "RecorderCoreBluetooth.central")
    private let onQueueKey = DispatchSpecificKey<Bool>()
    let events: CoreBluetoothCentral.EventSink
    private var manager: CBCentralManager?
    private var peripherals: [String: CBPeripheral] = [:]

    /// A manager restoring `restoreIdentifier`'s state, calling back into `events`.
    public init(restoreIdentifier: String?, events: @escaping CoreBluetoothCentral.EventSink) {
      self.events = events
      super.init()
      queue.setSpecific(key: onQueueKey, value: true)
      var options: [String: Any] = [:]
      if let restoreIdentifier {
        options[CBCentralManagerOptionRestoreIdentifierKey] = restoreIdentifier
      }
      manager = CBCentralManager(delegate: self, queue: queue, options: options)
    }

    private func onQueue<Result>(_ body: () -> Result) -> Result {
      DispatchQueue.getSpecific(key: onQueueKey) == true ? body() : queue.sync(execute: body)
    }

    private func peripheral(_ id: PeripheralID) -> CBPeripheral? { peripherals[id.rawValue] }

    func keep(_ peripheral: CBPeripheral) -> PeripheralID {
      peripheral.delegate = self
      peripherals[peripheral.identifier.uuidString] = peripheral
      return PeripheralID(peripheral.identifier.uuidString)
    }

    private func characteristic(_ path: CharacteristicPath, of id: PeripheralID)
      -> CBCharacteristic?
    {
      let service = peripheral(id)?.services?.first { $0.uuid == cbUUID(path.service) }
      return service?.characteristics?.first { $0.uuid == cbUUID(path.characteristic) }
    }

    public func scanForPeripherals(withServices services: [BluetoothUUID]?) {
      onQueue { manager?.scanForPeripherals(withServices: services?.map(cbUUID), options: nil) }
    }

    public func stopScan() { onQueue { manager?.stopScan() } }

    public func retrievePeripherals(withIdentifiers identifiers: [PeripheralID]) -> [PeripheralID] {
      onQueue {
        let uuids = identifiers.compactMap { UUID(uuidString: $0.rawValue) }
        return (manager?.retrievePeripherals(withIdentifiers: uuids) ?? []).map(keep)
      }
    }

    public func connect(_ id: PeripheralID) {
      onQueue {
        guard let target = peripheral(id) else { return }
        manager?.connect(target, options: nil)
      }
    }

    public func cancelPeripheralConnection(_ id: PeripheralID) {
      onQueue {
        guard let target = peripheral(id) else { return }
        manager?.cancelPeripheralConnection(target)
      }
    }

    public func discoverServices(_ services: [BluetoothUUID]?, of id: PeripheralID) {
      onQueue { peripheral(id)?.discoverServices(services?.map(cbUUID)) }
    }

    public func discoverCharacteristics(
      _ characteristics: [BluetoothUUID]?, for service: BluetoothUUID, of id: PeripheralID
    ) {
      onQueue {
        guard let found = peripheral(id)?.services?.first(where: { $0.uuid == cbUUID(service) })
        else { return }
        peripheral(id)?.discoverCharacteristics(characteristics?.map(cbUUID), for: found)
      }
    }

    public func readValue(for path: CharacteristicPath, of id: PeripheralID) {
      onQueue {
        guard let target = characteristic(path, of: id) else { return }
        peripheral(id)?.readValue(for: target)
      }
    }

    public func writeValue(
      _ value: [UInt8], for path: CharacteristicPath, type: WriteType, of id: PeripheralID
    ) {
      onQueue {
        guard let target = characteristic(path, of: id) else { return }
        peripheral(id)?.writeValue(Data(value), for: target, type: cbWriteType(type))
      }
    }

    public func setNotifyValue(_ enabled: Bool, for path: CharacteristicPath, of id: PeripheralID) {
      onQueue {
        guard let target = characteristic(path, of: id) else { return }
        peripheral(id)?.setNotifyValue(enabled, for: target)
      }
    }

    public func canSendWriteWithoutResponse(_ id: PeripheralID) -> Bool {
      onQueue { peripheral(id)?.canSendWriteWithoutResponse ?? false }
    }

    public func maximumWriteValueLength(for type: WriteType, of id: PeripheralID) -> Int {
      onQueue { peripheral(id)?.maximumWriteValueLength(for: cbWriteType(type)) ?? 20 }
    }
  }

  extension CoreBluetoothCentral {
    /// A central on the system's Bluetooth (restoring `configuration.restoreIdentifier`).
    public convenience init(system configuration: Configuration) {
      self.init(configuration: configuration) {
        SystemCentralManager(restoreIdentifier: $0, events: $1)
      }
    }
  }

  func cbUUID(_ uuid: BluetoothUUID) -> CBUUID { CBUUID(data: Data(uuid.coreBluetoothData)) }

  func bluetoothUUID(_ uuid: CBUUID) -> BluetoothUUID? {
    BluetoothUUID(coreBluetoothData: [UInt8](uuid.data))
  }

  func cbWriteType(_ type: WriteType) -> CBCharacteristicWriteType {
    type == .withResponse ? .withResponse : .withoutResponse
  }

  func path(_ characteristic: CBCharacteristic) -> CharacteristicPath? {
    guard let service = characteristic.service.flatMap({ bluetoothUUID($0.uuid) }),
      let uuid = bluetoothUUID(characteristic.uuid)
    else { return nil }
    return CharacteristicPath(service: service, characteristic: uuid)
  }

  func failure(_ error: Error?) -> CoreBluetoothFailure? {
    guard let error = error as NSError? else { return nil }
    switch error.domain {
    case CBErrorDomain: return .central(error.code)
    case CBATTErrorDomain: return .att(error.code)
    default: return .other(error.localizedDescription)
    }
  }
#endif
