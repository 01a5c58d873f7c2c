import RecorderBluetooth

extension BluetoothUUID {
  /// The bytes of `CBUUID(data:)`: 2 for a SIG 16-bit UUID (CoreBluetooth compares those
  /// by their short form), 16 otherwise.
  public var coreBluetoothData: [UInt8] {
    if let short = shortValue { return [UInt8(short >> 8), UInt8(short & 0xFF)] }
    return bytes
  }

  /// The UUID of `CBUUID.data` (2, 4 or 16 bytes, big-endian); nil for another length.
  public init?(coreBluetoothData data: [UInt8]) {
    switch data.count {
    case 2: self.init(UInt16(data[0]) << 8 | UInt16(data[1]))
    case 4: self.init(bytes: data + BluetoothUUID(0).bytes.suffix(12))
    default: self.init(bytes: data)
    }
  }
}
