#if os(Linux)
  import RecorderBluetooth

  /// BlueZ's D-Bus names (doc/org.bluez.*.rst).
  enum BlueZ {
    static let service = "org.bluez"
    static let adapter = "org.bluez.Adapter1"
    static let device = "org.bluez.Device1"
    static let gattService = "org.bluez.GattService1"
    static let gattCharacteristic = "org.bluez.GattCharacteristic1"
    /// On a device object when bluetoothd's battery plugin claimed its Battery Service.
    static let battery = "org.bluez.Battery1"
    static let objectManager = "org.freedesktop.DBus.ObjectManager"
    static let properties = "org.freedesktop.DBus.Properties"
  }

  /// bluetoothd's objects as the object manager reported them, kept current from
  /// InterfacesAdded, InterfacesRemoved and PropertiesChanged: path → interface → property.
  struct BlueZObjects: Sendable {
    typealias Properties = [String: DBusValue]
    private(set) var objects: [String: [String: Properties]] = [:]

    /// From GetManagedObjects' `a{oa{sa{sv}}}`.
    init(managedObjects value: DBusValue?) {
      for entry in value?.arrayValue ?? [] {
        guard case .dictEntry(let path, let interfaces) = entry, let path = path.stringValue else {
          continue
        }
        objects[path] = Self.interfaces(interfaces)
      }
    }

    init() {}

    /// `a{sa{sv}}` → interface → properties.
    static func interfaces(_ value: DBusValue) -> [String: Properties] {
      var result: [String: Properties] = [:]
      for entry in value.arrayValue ?? [] {
        guard case .dictEntry(let name, let properties) = entry, let name = name.stringValue else {
          continue
        }
        result[name] = properties.stringDictionary ?? [:]
      }
      return result
    }

    subscript(path: String, interface: String) -> Properties? { objects[path]?[interface] }

    mutating func add(_ path: String, _ interfaces: [String: Properties]) {
      for (name, properties) in interfaces {
        objects[path, default: [:]][name, default: [:]].merge(properties) { $1 }
      }
    }

    mutating func remove(_ path: String, _ interfaces: [String]) {
      for name in interfaces { objects[path]?.removeValue(forKey: name) }
      if objects[path]?.isEmpty == true { objects.removeValue(forKey: path) }
    }

    mutating func change(
      _ path: String, _ interface: String, _ changed: Properties, _ gone: [String]
    ) {
      guard objects[path]?[interface] != nil else { return }
      objects[path]?[interface]?.merge(changed) { $1 }
      for name in gone { objects[path]?[interface]?.removeValue(forKey: name) }
    }

    mutating func removeAll() { objects.removeAll() }

    /// Paths having `interface`, sorted (hci0 before hci1).
    func paths(with interface: String) -> [String] {
      objects.filter { $0.value[interface] != nil }.map(\.key).sorted()
    }

    /// The Device1 object with this address under `adapter`.
    func device(address: String, adapter: String) -> String? {
      paths(with: BlueZ.device).first { path in
        self[path, BlueZ.device]?["Address"]?.stringValue?.uppercased() == address.uppercased()
          && self[path, BlueZ.device]?["Adapter"]?.stringValue == adapter
      }
    }

    /// The advertisement a Device1 object stands for: BlueZ's ManufacturerData (`a{qv}`,
    /// keyed by company id) turned back into the on-air bytes (company id LE, then payload)
    /// the codec parses. The lowest company id wins when a device sends several.
    func advertisement(_ path: String) -> Advertisement? {
      guard let device = self[path, BlueZ.device], let address = device["Address"]?.stringValue
      else { return nil }
      var manufacturer: [UInt8]?
      let entries = (device["ManufacturerData"]?.arrayValue ?? []).compactMap {
        entry -> (Int, [UInt8])? in
        guard case .dictEntry(let key, let value) = entry, let company = key.intValue,
          let bytes = value.bytesValue
        else { return nil }
        return (company, bytes)
      }
      if let (company, bytes) = entries.min(by: { $0.0 < $1.0 }) {
        manufacturer = [UInt8(company & 0xFF), UInt8(company >> 8 & 0xFF)] + bytes
      }
      let uuids = (device["UUIDs"]?.arrayValue ?? []).compactMap { $0.stringValue }
        .compactMap(BluetoothUUID.init(bluez:))
      return Advertisement(
        peripheral: PeripheralID(address), localName: device["Name"]?.stringValue,
        manufacturerData: manufacturer, serviceUUIDs: uuids,
        rssi: device["RSSI"]?.intValue ?? -127)
    }

    /// GATT characteristics under `devicePath` by service UUID then characteristic UUID.
    func gatt(under devicePath: String) -> [BluetoothUUID: [BluetoothUUID: String]] {
      var services: [String: BluetoothUUID] = [:]
      for path in paths(with: BlueZ.gattService) where path.hasPrefix(devicePath + "/") {
        if let uuid = self[path, BlueZ.gattService]?["UUID"]?.stringValue.flatMap(
          BluetoothUUID.init(bluez:))
        {
          services[path] = uuid
        }
      }
      var result: [BluetoothUUID: [BluetoothUUID: String]] = [:]
      for service in services.values { result[service] = [:] }
      for path in paths(with: BlueZ.gattCharacteristic) where path.hasPrefix(devicePath + "/") {
        let properties = self[path, BlueZ.gattCharacteristic]
        guard let servicePath = properties?["Service"]?.stringValue,
          let service = services[servicePath],
          let uuid = properties?["UUID"]?.stringValue.flatMap(BluetoothUUID.init(bluez:))
        else { continue }
        result[service]?[uuid] = path
      }
      return result
    }
  }

  extension BluetoothUUID {
    /// From BlueZ's text form, `0000180f-0000-1000-8000-00805f9b34fb`.
    init?(bluez text: String) {
      let hex = text.filter { $0 != "-" }
      guard hex.count == 32 else { return nil }
      var bytes: [UInt8] = []
      var index = hex.startIndex
      while index < hex.endIndex {
        let next = hex.index(index, offsetBy: 2)
        guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
        bytes.append(byte)
        index = next
      }
      self.init(bytes: bytes)
    }

    /// BlueZ's text form, lower case with dashes.
    var bluezString: String {
      let hex = bytes.map { byte in
        let digits = String(byte, radix: 16)
        return digits.count == 1 ? "0" + digits : digits
      }.joined()
      let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
        String(hex.dropFirst(range.lowerBound).prefix(range.count))
      }
      return parts.joined(separator: "-")
    }
  }
#endif
