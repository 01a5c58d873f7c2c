#if canImport(CoreBluetooth)
  import CoreBluetooth
  import Foundation
  import RecorderBluetooth

  // The delegate callbacks of `SystemCentralManager`, each translated into one
  // `CentralManagerEvent`; the system calls them on the manager's queue.

  extension SystemCentralManager: CBCentralManagerDelegate {
    public func centralManagerDidUpdateState(_ central: CBCentralManager) {
      events(.didUpdateState(ManagerStateMirror(rawValue: central.state.rawValue) ?? .unknown))
    }

    public func centralManager(_ central: CBCentralManager, willRestoreState dict: [String: Any]) {
      let restored = dict[CBCentralManagerRestoredStatePeripheralsKey] as? [CBPeripheral] ?? []
      let scan = dict[CBCentralManagerRestoredStateScanServicesKey] as? [CBUUID]
      events(
        .willRestoreState(
          RestoredStateMirror(
            peripherals: restored.map {
              .init(
                peripheral: keep($0),
                state: PeripheralStateMirror(rawValue: $0.state.rawValue) ?? .disconnected)
            }, scanServices: scan?.compactMap(bluetoothUUID))))
    }

    public func centralManager(
      _ central: CBCentralManager, didDiscover peripheral: CBPeripheral,
      advertisementData: [String: Any], rssi: NSNumber
    ) {
      let services = advertisementData[CBAdvertisementDataServiceUUIDsKey] as? [CBUUID] ?? []
      events(
        .didDiscover(
          Advertisement(
            peripheral: keep(peripheral),
            localName: advertisementData[CBAdvertisementDataLocalNameKey] as? String,
            manufacturerData: (advertisementData[CBAdvertisementDataManufacturerDataKey] as? Data)
              .map { [UInt8]($0) },
            serviceUUIDs: services.compactMap(bluetoothUUID), rssi: rssi.intValue,
            isConnectable: (advertisementData[CBAdvertisementDataIsConnectable] as? NSNumber)?
              .boolValue ?? true)))
    }

    public func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
      events(.didConnect(keep(peripheral)))
    }

    public func centralManager(
      _ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: Error?
    ) {
      events(.didFailToConnect(keep(peripheral), failure(error)))
    }

    public func centralManager(
      _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: Error?
    ) {
      events(.didDisconnect(keep(peripheral), failure(error)))
    }
  }

  extension SystemCentralManager: CBPeripheralDelegate {
    public func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: Error?) {
      let services = (peripheral.services ?? []).compactMap { bluetoothUUID($0.uuid) }
      events(.didDiscoverServices(keep(peripheral), services, failure(error)))
    }

    public func peripheral(
      _ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: Error?
    ) {
      guard let serviceUUID = bluetoothUUID(service.uuid) else { return }
      let found = (service.characteristics ?? []).compactMap { bluetoothUUID($0.uuid) }
      events(
        .didDiscoverCharacteristics(keep(peripheral), service: serviceUUID, found, failure(error)))
    }

    public func peripheral(
      _ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: Error?
    ) {
      guard let path = path(characteristic) else { return }
      let value = characteristic.value.map { [UInt8]($0) } ?? []
      events(.didUpdateValue(keep(peripheral), path, value, failure(error)))
    }

    public func peripheral(
      _ peripheral: CBPeripheral, didWriteValueFor characteristic: CBCharacteristic, error: Error?
    ) {
      guard let path = path(characteristic) else { return }
      events(.didWriteValue(keep(peripheral), path, failure(error)))
    }

    public func peripheral(
      _ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic,
      error: Error?
    ) {
      guard let path = path(characteristic) else { return }
      events(.didUpdateNotificationState(keep(peripheral), path, failure(error)))
    }

    public func peripheralIsReady(toSendWriteWithoutResponse peripheral: CBPeripheral) {
      events(.isReadyToSendWriteWithoutResponse(keep(peripheral)))
    }
  }

#endif
