/// A GATT UUID: a 16-bit SIG-assigned value or a full 128-bit one.
public struct BluetoothUUID: Hashable, Sendable, CustomStringConvertible {
  /// The 16 bytes of the UUID, big-endian, as written `0000XXXX-0000-1000-8000-00805F9B34FB`
  /// for 16-bit values.
  public let bytes: [UInt8]

  /// A 16-bit SIG UUID such as `0x1910`.
  public init(_ short: UInt16) {
    bytes = [0, 0, UInt8(short >> 8), UInt8(short & 0xFF)] + Self.baseSuffix
  }

  /// A full UUID from 16 bytes; nil for another length.
  public init?(bytes: [UInt8]) {
    guard bytes.count == 16 else { return nil }
    self.bytes = bytes
  }

  /// The 16-bit value when this is a SIG-base UUID.
  public var shortValue: UInt16? {
    guard bytes[0] == 0, bytes[1] == 0, Array(bytes[4...]) == Self.baseSuffix else { return nil }
    return UInt16(bytes[2]) << 8 | UInt16(bytes[3])
  }

  public var description: String {
    if let short = shortValue {
      let digits = String(short, radix: 16, uppercase: true)
      return String(repeating: "0", count: 4 - digits.count) + digits
    }
    return bytes.map { byte in
      let digits = String(byte, radix: 16, uppercase: true)
      return digits.count == 1 ? "0" + digits : digits
    }.joined()
  }

  static let baseSuffix: [UInt8] = [
    0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0x80, 0x5F, 0x9B, 0x34, 0xFB,
  ]
}

/// The recorder's GATT layout (PROTOCOL.md §1) [device][sdk].
public enum RecorderGATT {
  /// The vendor service.
  public static let service = BluetoothUUID(0x1910)
  /// Phone → device frames (Write, Write Without Response; the app uses the latter).
  public static let writeCharacteristic = BluetoothUUID(0x2BB1)
  /// Device → phone frames; enable with `01 00` on its CCCD.
  public static let notifyCharacteristic = BluetoothUUID(0x2BB0)
  /// Battery service and level: readable without vendor authentication. Optional: a stack
  /// may claim the service for itself (BlueZ before 5.80 does, for its battery plugin) and
  /// offer the level its own way; the session's battery comes from the vendor BATTERY
  /// command.
  public static let batteryService = BluetoothUUID(0x180F)
  public static let batteryLevel = BluetoothUUID(0x2A19)
  /// The services a recorder session discovers: the vendor service and the battery.
  public static let services = [service, batteryService]

  /// Of the services a connect asks for, those it cannot do without: for a recorder (the
  /// vendor service is among `requested`) the vendor service alone, every other service
  /// being discovered when the peripheral (or the stack in between) offers it; for any other
  /// peripheral every service asked for (a health sensor's service is its own).
  public static func required(of requested: [BluetoothUUID]) -> [BluetoothUUID] {
    requested.contains(service) ? [service] : requested
  }
}

/// An identifier of a peripheral as the central sees it. Like CoreBluetooth's, it is local to
/// the central and the device's random address rotates: never use it as a device key across
/// sessions; reconnect by serial number.
public struct PeripheralID: Hashable, Sendable, CustomStringConvertible {
  public let rawValue: String
  public init(_ rawValue: String) { self.rawValue = rawValue }
  public var description: String { rawValue }
}

/// One advertisement heard while scanning.
public struct Advertisement: Sendable, Equatable {
  public var peripheral: PeripheralID
  public var localName: String?
  /// Manufacturer-specific data: company id (u16 LE) then payload, as on air.
  public var manufacturerData: [UInt8]?
  public var serviceUUIDs: [BluetoothUUID]
  /// Received signal strength, dBm.
  public var rssi: Int
  public var isConnectable: Bool

  public init(
    peripheral: PeripheralID, localName: String?, manufacturerData: [UInt8]?,
    serviceUUIDs: [BluetoothUUID], rssi: Int, isConnectable: Bool = true
  ) {
    self.peripheral = peripheral
    self.localName = localName
    self.manufacturerData = manufacturerData
    self.serviceUUIDs = serviceUUIDs
    self.rssi = rssi
    self.isConnectable = isConnectable
  }
}

/// The central's radio state (CoreBluetooth's `CBManagerState`).
public enum CentralState: Sendable, Equatable {
  case unknown, resetting, unsupported, unauthorized, poweredOff, poweredOn
}

/// Why a link ended.
public enum DisconnectReason: Sendable, Equatable, CustomStringConvertible {
  /// We asked for it.
  case localRequest
  /// The device ended the link (it dropped an unauthenticated central, rebooted, …).
  case remoteTerminated
  /// The radio lost the device (supervision timeout: out of range, power loss).
  case linkLoss
  /// Pairing or encryption failed.
  case pairingFailed
  /// Anything else, with the platform's words.
  case other(String)

  public var description: String {
    switch self {
    case .localRequest: "disconnected by request"
    case .remoteTerminated: "the device ended the connection"
    case .linkLoss: "link lost"
    case .pairingFailed: "pairing failed"
    case .other(let text): text
    }
  }
}

/// Write with or without response (ATT Write Request vs Write Command).
public enum WriteType: Sendable, Equatable {
  case withResponse
  case withoutResponse
}

/// Pairing / bonding state of a link.
public enum BondState: Sendable, Equatable {
  case none, bonding, bonded
}

/// What a ``PeripheralLink`` tells its owner, in the order it happened.
public enum LinkEvent: Sendable, Equatable {
  /// A notification (or indication) on `characteristic`.
  case notification(characteristic: BluetoothUUID, value: [UInt8])
  /// The link can take more writes without response (CoreBluetooth's
  /// `peripheralIsReady(toSendWriteWithoutResponse:)`).
  case readyToSendWriteWithoutResponse
  case bondStateChanged(BondState)
  /// The link is gone; the last event.
  case disconnected(DisconnectReason)
}

/// Errors of the radio boundary.
public enum LinkError: Error, Sendable, Equatable, CustomStringConvertible {
  case notPoweredOn(CentralState)
  case unknownPeripheral(PeripheralID)
  case connectTimeout
  /// The calling task was cancelled before the operation completed.
  case cancelled
  case disconnected(DisconnectReason)
  /// The peripheral does not offer a service the connection asked for.
  case serviceNotFound(BluetoothUUID)
  case characteristicNotFound(BluetoothUUID)
  /// The ATT operation failed with this error code.
  case attError(UInt8)
  /// The value exceeds the negotiated maximum write length.
  case valueTooLong(length: Int, maximum: Int)
  /// A transport (TCP) failure, with the system's words.
  case transport(String)

  public var description: String {
    switch self {
    case .notPoweredOn(let state): "Bluetooth is not powered on (\(state))"
    case .unknownPeripheral(let id): "no peripheral \(id)"
    case .connectTimeout: "connection timed out"
    case .cancelled: "cancelled"
    case .serviceNotFound(let uuid): "service \(uuid) not found"
    case .disconnected(let reason): "disconnected: \(reason)"
    case .characteristicNotFound(let uuid): "characteristic \(uuid) not found"
    case .attError(let code): "ATT error 0x\(String(code, radix: 16))"
    case .valueTooLong(let length, let maximum): "value of \(length) bytes exceeds \(maximum)"
    case .transport(let text): "transport: \(text)"
    }
  }
}
