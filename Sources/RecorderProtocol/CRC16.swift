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

  /// The fast path over contiguous memory: eight bytes per step with eight tables
  /// ("slicing-by-8"), then a table lookup per byte for the rest. Every byte of a Wi-Fi
  /// transfer passes through here; byte at a time it was the largest CPU cost of the receive
  /// (issue 7's benchmark: ~0.4 s per 100 MB).
  private mutating func update(buffer: UnsafeBufferPointer<UInt8>) {
    var crc = value
    Self.slices.withUnsafeBufferPointer { t in
      var index = 0
      while index + 8 <= buffer.count {
        let b0 = Int(UInt8(truncatingIfNeeded: crc >> 8) ^ buffer[index])
        let b1 = Int(UInt8(truncatingIfNeeded: crc) ^ buffer[index + 1])
        crc =
          t[7 << 8 | b0] ^ t[6 << 8 | b1] ^ t[5 << 8 | Int(buffer[index + 2])]
          ^ t[4 << 8 | Int(buffer[index + 3])] ^ t[3 << 8 | Int(buffer[index + 4])]
          ^ t[2 << 8 | Int(buffer[index + 5])] ^ t[1 << 8 | Int(buffer[index + 6])]
          ^ t[Int(buffer[index + 7])]
        index += 8
      }
      while index < buffer.count {
        crc = (crc << 8) ^ t[Int(UInt8(truncatingIfNeeded: crc >> 8) ^ buffer[index])]
        index += 1
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

  /// Eight tables of 256, back to back: table k is the CRC of a byte followed by k zero
  /// bytes, so eight bytes fold into the CRC with one lookup each. Table 0 is ``table``.
  static let slices: [UInt16] = {
    var slices = table
    for k in 1..<8 {
      for index in 0..<256 {
        let previous = slices[(k - 1) << 8 | index]
        slices.append((previous << 8) ^ table[Int(previous >> 8)])
      }
    }
    return slices
  }()
}
