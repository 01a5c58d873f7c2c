/// CRC-16/CCITT-FALSE (PROTOCOL.md §10) [sdk]: polynomial 0x1021, MSB first, no reflection,
/// no final XOR, seeded 0xFFFF. The vendor SDK's only CRC, used for FOTA images, the small
/// upload check and (our choice, [project]) the sync tail.
///
/// Incremental: feed bytes as they arrive so a 5-hour transfer is checked without holding it.
public struct CRC16: Sendable, Equatable {
  /// The CRC of everything fed so far (0xFFFF for nothing).
  public private(set) var value: UInt16 = 0xFFFF

  public init() {}

  /// Folds `bytes` into the running CRC.
  public mutating func update<C: Sequence>(_ bytes: C) where C.Element == UInt8 {
    let done: Void? = bytes.withContiguousStorageIfAvailable { update(buffer: $0) }
    guard done == nil else { return }
    var crc = value
    for byte in bytes {
      crc = (crc << 8) ^ Self.table[Int(UInt8(truncatingIfNeeded: crc >> 8) ^ byte)]
    }
    value = crc
  }

  /// The fast path: a table lookup per byte over contiguous memory, no generic iteration.
  private mutating func update(buffer: UnsafeBufferPointer<UInt8>) {
    var crc = value
    Self.table.withUnsafeBufferPointer { table in
      for byte in buffer {
        crc = (crc << 8) ^ table[Int(UInt8(truncatingIfNeeded: crc >> 8) ^ byte)]
      }
    }
    value = crc
  }

  /// The CRC of `bytes` in one call.
  public static func checksum<C: Sequence>(_ bytes: C) -> UInt16 where C.Element == UInt8 {
    var crc = CRC16()
    crc.update(bytes)
    return crc.value
  }

  static let table: [UInt16] = (0..<256).map { index in
    var crc = UInt16(index) << 8
    for _ in 0..<8 {
      crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1
    }
    return crc
  }
}
