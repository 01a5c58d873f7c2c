// swift-format-ignore-file
// (Apple's names such as CBErrorDomain and RSSI are kept as Apple spells them.)
// A stand-in for Apple's CoreBluetooth: declarations only, with the signatures of Apple's
// documentation, for just the API RecorderCoreBluetooth's binding uses. It lets Linux
// type-check the binding (AppleBindingTypeCheckTests); it is never linked or run.
//
// The delegate methods the binding implements are requirements here (Apple declares most of
// them `optional`): a misspelt one then fails the type check instead of never being called.
import Foundation

public enum CBManagerState: Int, @unchecked Sendable {
  case unknown = 0, resetting, unsupported, unauthorized, poweredOff, poweredOn
}

public enum CBPeripheralState: Int, @unchecked Sendable {
  case disconnected = 0, connecting, connected, disconnecting
}

public enum CBCharacteristicWriteType: Int, @unchecked Sendable {
  case withResponse = 0, withoutResponse
}

open class CBManager: NSObject {
  open var state: CBManagerState { fatalError("stand-in") }
}

open class CBUUID: NSObject {
  public init(data theData: Data) { fatalError("stand-in") }
  open var data: Data { fatalError("stand-in") }
}

open class CBAttribute: NSObject {
  open var uuid: CBUUID { fatalError("stand-in") }
}

open class CBService: CBAttribute {
  open var characteristics: [CBCharacteristic]? { fatalError("stand-in") }
}

open class CBCharacteristic: CBAttribute {
  weak open var service: CBService? { fatalError("stand-in") }
  open var value: Data? { fatalError("stand-in") }
}

open class CBPeer: NSObject {
  open var identifier: UUID { fatalError("stand-in") }
}

open class CBPeripheral: CBPeer {
  weak open var delegate: (any CBPeripheralDelegate)?
  open var state: CBPeripheralState { fatalError("stand-in") }
  open var services: [CBService]? { fatalError("stand-in") }
  open var canSendWriteWithoutResponse: Bool { fatalError("stand-in") }
  open func maximumWriteValueLength(for type: CBCharacteristicWriteType) -> Int {
    fatalError("stand-in")
  }
  open func discoverServices(_ serviceUUIDs: [CBUUID]?) {}
  open func discoverCharacteristics(_ characteristicUUIDs: [CBUUID]?, for service: CBService) {}
  open func readValue(for characteristic: CBCharacteristic) {}
  open func writeValue(
    _ data: Data, for characteristic: CBCharacteristic, type: CBCharacteristicWriteType
  ) {}
  open func setNotifyValue(_ enabled: Bool, for characteristic: CBCharacteristic) {}
}

open class CBCentralManager: CBManager {
  public init(
    delegate: (any CBCentralManagerDelegate)?, queue: DispatchQueue?,
    options: [String: Any]? = nil
  ) { fatalError("stand-in") }
  open func scanForPeripherals(withServices serviceUUIDs: [CBUUID]?, options: [String: Any]? = nil)
  {}
  open func stopScan() {}
  open func retrievePeripherals(withIdentifiers identifiers: [UUID]) -> [CBPeripheral] {
    fatalError("stand-in")
  }
  open func connect(_ peripheral: CBPeripheral, options: [String: Any]? = nil) {}
  open func cancelPeripheralConnection(_ peripheral: CBPeripheral) {}
}

public protocol CBCentralManagerDelegate: NSObjectProtocol {
  func centralManagerDidUpdateState(_ central: CBCentralManager)
  func centralManager(_ central: CBCentralManager, willRestoreState dict: [String: Any])
  func centralManager(
    _ central: CBCentralManager, didDiscover peripheral: CBPeripheral,
    advertisementData: [String: Any], rssi RSSI: NSNumber)
  func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral)
  func centralManager(
    _ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: (any Error)?)
  func centralManager(
    _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral,
    error: (any Error)?)
}

public protocol CBPeripheralDelegate: NSObjectProtocol {
  func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?)
  func peripheral(
    _ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService,
    error: (any Error)?)
  func peripheral(
    _ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic,
    error: (any Error)?)
  func peripheral(
    _ peripheral: CBPeripheral, didWriteValueFor characteristic: CBCharacteristic,
    error: (any Error)?)
  func peripheral(
    _ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic,
    error: (any Error)?)
  func peripheralIsReady(toSendWriteWithoutResponse peripheral: CBPeripheral)
}

public let CBCentralManagerOptionRestoreIdentifierKey = "kCBRestoreIdentifierKey"
public let CBCentralManagerRestoredStatePeripheralsKey = "kCBRestoredPeripherals"
public let CBCentralManagerRestoredStateScanServicesKey = "kCBRestoredScanServices"
public let CBAdvertisementDataLocalNameKey = "kCBAdvDataLocalName"
public let CBAdvertisementDataManufacturerDataKey = "kCBAdvDataManufacturerData"
public let CBAdvertisementDataServiceUUIDsKey = "kCBAdvDataServiceUUIDs"
public let CBAdvertisementDataIsConnectable = "kCBAdvDataIsConnectable"
public let CBErrorDomain = "CBErrorDomain"
public let CBATTErrorDomain = "CBATTErrorDomain"
