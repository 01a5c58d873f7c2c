import RecorderBluetooth

/// The calls RecorderCoreBluetooth makes on `CBCentralManager` and `CBPeripheral`, mirrored
/// one-to-one as a protocol (the Nordic CoreBluetoothMock way): the Apple-only binding conforms
/// the real manager to it line for line, tests conform a scripted one, and
/// ``CoreBluetoothCentral`` holds every decision above it.
///
/// Peripherals are named by `PeripheralID` (the `CBPeripheral.identifier` UUID string);
/// the binding keeps the `CBPeripheral` objects. Characteristics are named by their service
/// and characteristic UUIDs (``CharacteristicPath``).
///
/// Threading contract: every call may come from any thread and must not call back into the
/// event handler synchronously; the handler may be called on any one serial queue. The
/// binding runs each call on the manager's queue.
public protocol CentralManagerMirror: Sendable {
  /// `scanForPeripherals(withServices:options:)`, without duplicates.
  func scanForPeripherals(withServices services: [BluetoothUUID]?)
  /// `stopScan()`.
  func stopScan()
  /// `retrievePeripherals(withIdentifiers:)`: those the system still knows.
  func retrievePeripherals(withIdentifiers identifiers: [PeripheralID]) -> [PeripheralID]
  /// `connect(_:options:)`: a pending connect that never times out on its own.
  func connect(_ peripheral: PeripheralID)
  /// `cancelPeripheralConnection(_:)`: ends a link or a pending connect.
  func cancelPeripheralConnection(_ peripheral: PeripheralID)

  /// `CBPeripheral.discoverServices(_:)`.
  func discoverServices(_ services: [BluetoothUUID]?, of peripheral: PeripheralID)
  /// `CBPeripheral.discoverCharacteristics(_:for:)`.
  func discoverCharacteristics(
    _ characteristics: [BluetoothUUID]?, for service: BluetoothUUID, of peripheral: PeripheralID)
  /// `CBPeripheral.readValue(for:)`.
  func readValue(for characteristic: CharacteristicPath, of peripheral: PeripheralID)
  /// `CBPeripheral.writeValue(_:for:type:)`.
  func writeValue(
    _ value: [UInt8], for characteristic: CharacteristicPath, type: WriteType,
    of peripheral: PeripheralID)
  /// `CBPeripheral.setNotifyValue(_:for:)`.
  func setNotifyValue(
    _ enabled: Bool, for characteristic: CharacteristicPath, of peripheral: PeripheralID)
  /// `CBPeripheral.canSendWriteWithoutResponse`.
  func canSendWriteWithoutResponse(_ peripheral: PeripheralID) -> Bool
  /// `CBPeripheral.maximumWriteValueLength(for:)`.
  func maximumWriteValueLength(for type: WriteType, of peripheral: PeripheralID) -> Int
}

/// A characteristic as CoreBluetooth reaches it: inside one service.
public struct CharacteristicPath: Hashable, Sendable, CustomStringConvertible {
  public var service: BluetoothUUID
  public var characteristic: BluetoothUUID

  public init(service: BluetoothUUID, characteristic: BluetoothUUID) {
    self.service = service
    self.characteristic = characteristic
  }

  public var description: String { "\(service)/\(characteristic)" }
}

/// `CBManagerState`, by name.
public enum ManagerStateMirror: Int, Sendable, Equatable {
  case unknown = 0, resetting, unsupported, unauthorized, poweredOff, poweredOn

  /// The boundary's name for this state.
  public var centralState: CentralState {
    switch self {
    case .unknown: .unknown
    case .resetting: .resetting
    case .unsupported: .unsupported
    case .unauthorized: .unauthorized
    case .poweredOff: .poweredOff
    case .poweredOn: .poweredOn
    }
  }
}

/// `CBPeripheralState`, by name.
public enum PeripheralStateMirror: Int, Sendable, Equatable {
  case disconnected = 0, connecting, connected, disconnecting
}

/// An `NSError` from CoreBluetooth, by domain and code: `CBErrorDomain` (``central(_:)``),
/// `CBATTErrorDomain` (``att(_:)``), anything else with its description.
public enum CoreBluetoothFailure: Error, Sendable, Equatable {
  /// A `CBError.Code` raw value.
  case central(Int)
  /// A `CBATTError.Code` raw value (the ATT error code on air).
  case att(Int)
  /// Another domain, with the system's words.
  case other(String)
}

/// What the system handed back in `centralManager(_:willRestoreState:)`.
public struct RestoredStateMirror: Sendable, Equatable {
  /// `CBCentralManagerRestoredStatePeripheralsKey`: the peripherals the system kept
  /// connected or connecting for us, with their state at relaunch.
  public var peripherals: [RestoredPeripheral]
  /// `CBCentralManagerRestoredStateScanServicesKey`: the services of a scan in progress.
  public var scanServices: [BluetoothUUID]?

  /// One restored peripheral.
  public struct RestoredPeripheral: Sendable, Equatable {
    public var peripheral: PeripheralID
    public var state: PeripheralStateMirror
    public init(peripheral: PeripheralID, state: PeripheralStateMirror) {
      self.peripheral = peripheral
      self.state = state
    }
  }

  public init(peripherals: [RestoredPeripheral], scanServices: [BluetoothUUID]? = nil) {
    self.peripherals = peripherals
    self.scanServices = scanServices
  }
}

/// The `CBCentralManagerDelegate` and `CBPeripheralDelegate` callbacks RecorderCoreBluetooth
/// listens to, one case each, in the order the system calls them.
public enum CentralManagerEvent: Sendable, Equatable {
  /// `centralManagerDidUpdateState(_:)`.
  case didUpdateState(ManagerStateMirror)
  /// `centralManager(_:willRestoreState:)`: comes first after a relaunch, before any state.
  case willRestoreState(RestoredStateMirror)
  /// `centralManager(_:didDiscover:advertisementData:rssi:)`, the dictionary translated.
  case didDiscover(Advertisement)
  /// `centralManager(_:didConnect:)`.
  case didConnect(PeripheralID)
  /// `centralManager(_:didFailToConnect:error:)`.
  case didFailToConnect(PeripheralID, CoreBluetoothFailure?)
  /// `centralManager(_:didDisconnectPeripheral:error:)`; nil error after our own cancel.
  case didDisconnect(PeripheralID, CoreBluetoothFailure?)
  /// `peripheral(_:didDiscoverServices:)`, with the UUIDs of `peripheral.services`.
  case didDiscoverServices(PeripheralID, [BluetoothUUID], CoreBluetoothFailure?)
  /// `peripheral(_:didDiscoverCharacteristicsFor:error:)`, with the service's
  /// characteristic UUIDs.
  case didDiscoverCharacteristics(
    PeripheralID, service: BluetoothUUID, [BluetoothUUID], CoreBluetoothFailure?)
  /// `peripheral(_:didUpdateValueFor:error:)`: a read result or a notification (one
  /// callback for both; ``CoreBluetoothCentral`` routes them apart).
  case didUpdateValue(PeripheralID, CharacteristicPath, [UInt8], CoreBluetoothFailure?)
  /// `peripheral(_:didWriteValueFor:error:)` (writes with response only).
  case didWriteValue(PeripheralID, CharacteristicPath, CoreBluetoothFailure?)
  /// `peripheral(_:didUpdateNotificationStateFor:error:)`.
  case didUpdateNotificationState(PeripheralID, CharacteristicPath, CoreBluetoothFailure?)
  /// `peripheralIsReady(toSendWriteWithoutResponse:)`.
  case isReadyToSendWriteWithoutResponse(PeripheralID)
}
