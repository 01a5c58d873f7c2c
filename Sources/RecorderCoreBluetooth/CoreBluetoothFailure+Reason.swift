import RecorderBluetooth

extension CoreBluetoothFailure {
  /// `CBError.Code` raw values (CoreBluetooth's CBError.h) that name a disconnect cause.
  enum CentralCode {
    static let connectionTimeout = 6
    static let peripheralDisconnected = 7
    static let connectionFailed = 10
    static let peerRemovedPairingInformation = 14
    static let encryptionTimedOut = 15
  }

  /// Why a link ended, from the error of `didDisconnectPeripheral` or `didFailToConnect`
  /// (nil: after our own `cancelPeripheralConnection`):
  /// - `connectionTimeout` is the supervision timeout: the radio lost the device;
  /// - `peripheralDisconnected` is the device ending the link;
  /// - `peerRemovedPairingInformation` and `encryptionTimedOut` are a failed bond;
  /// - anything else keeps its domain and code in words.
  static func disconnectReason(_ failure: CoreBluetoothFailure?) -> DisconnectReason {
    guard let failure else { return .localRequest }
    switch failure {
    case .central(CentralCode.connectionTimeout): return .linkLoss
    case .central(CentralCode.peripheralDisconnected): return .remoteTerminated
    case .central(CentralCode.peerRemovedPairingInformation),
      .central(CentralCode.encryptionTimedOut):
      return .pairingFailed
    case .central(CentralCode.connectionFailed): return .other("CBError 10: connection failed")
    case .central(let code): return .other("CBError \(code)")
    case .att(let code): return .other("CBATTError \(code)")
    case .other(let text): return .other(text)
    }
  }

  /// The boundary's error for a failed GATT operation: an ATT code stays one.
  var linkError: LinkError {
    switch self {
    case .att(let code) where (0...0xFF).contains(code): .attError(UInt8(code))
    default: .disconnected(Self.disconnectReason(self))
    }
  }
}
