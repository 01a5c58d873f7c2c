import Foundation
import RecorderCrypto

// The vendor's Foundation extensions (PlaudBleSDK's interface), over RecorderKit's own
// helpers. Byte readers are little-endian, as the device's frames (PROTOCOL.md §2), and never
// trap: an offset or length outside the data reads as 0 (or nil / empty where the member is
// optional).

extension Data {
  /// The bytes as lower-case hex digits, two per byte.
  public var hexDescription: String { hexDigits() }

  /// The bytes parsed as a JSON object; empty when they are not one.
  public var dictionary: [String: Any] {
    (try? JSONSerialization.jsonObject(with: self)) as? [String: Any] ?? [:]
  }

  /// `count` bytes from `begin` (clamped to the data; empty when `begin` is past the end).
  public func subData(begin: Int, count: Int) -> Data {
    let lower = Swift.max(0, Swift.min(begin, self.count))
    let upper = Swift.max(lower, Swift.min(lower + Swift.max(0, count), self.count))
    return Data(self[(startIndex + lower)..<(startIndex + upper)])
  }

  /// The bytes in `range` (offsets from the start), nil when it is not inside the data.
  public func safeSubdata(in range: Range<Int>) -> Data? {
    guard range.lowerBound >= 0, range.upperBound <= count else { return nil }
    return Data(self[(startIndex + range.lowerBound)..<(startIndex + range.upperBound)])
  }

  /// `count` bytes from `offset`, nil when they are not all inside the data.
  public func safeSubdata(offset: Int, count: Int) -> Data? {
    guard count >= 0 else { return nil }
    let (end, overflow) = offset.addingReportingOverflow(count)
    guard !overflow else { return nil }
    return safeSubdata(in: offset..<end)
  }

  /// The first 4 bytes as a little-endian IEEE float (0 when shorter).
  public var floatValue: Float { float(at: 0) }
  /// The first byte as a signed integer (0 when empty).
  public var int8: Int8 { Int8(truncatingIfNeeded: integer(at: 0, width: 1)) }
  /// The first byte (0 when empty).
  public var uint8: UInt8 { UInt8(truncatingIfNeeded: integer(at: 0, width: 1)) }
  /// The first 2 bytes, little-endian (0 when shorter).
  public var uint16: UInt16 { UInt16(truncatingIfNeeded: integer(at: 0, width: 2)) }
  /// The first 3 bytes, little-endian (0 when shorter).
  public var uint24: UInt32 { UInt32(truncatingIfNeeded: integer(at: 0, width: 3)) }
  /// The first 4 bytes, little-endian (0 when shorter).
  public var uint32: UInt32 { UInt32(truncatingIfNeeded: integer(at: 0, width: 4)) }
  /// The first 8 bytes, little-endian (0 when shorter).
  public var uint64: UInt64 { integer(at: 0, width: 8) }

  /// The signed byte at `offset`, widened (0 outside the data).
  public func int8(at offset: Int) -> Int {
    Int(Int8(truncatingIfNeeded: integer(at: offset, width: 1)))
  }
  /// The byte at `offset` (0 outside the data).
  public func uint8(at offset: Int) -> UInt8 {
    UInt8(truncatingIfNeeded: integer(at: offset, width: 1))
  }
  /// The little-endian signed 16-bit value at `offset` (0 outside the data).
  public func int16(at offset: Int) -> Int16 {
    Int16(truncatingIfNeeded: integer(at: offset, width: 2))
  }
  /// The little-endian 16-bit value at `offset` (0 outside the data).
  public func uint16(at offset: Int) -> UInt16 {
    UInt16(truncatingIfNeeded: integer(at: offset, width: 2))
  }
  /// The little-endian 24-bit value at `offset` (0 outside the data).
  public func uint24(at offset: Int) -> UInt32 {
    UInt32(truncatingIfNeeded: integer(at: offset, width: 3))
  }
  /// The little-endian signed 32-bit value at `offset` (0 outside the data).
  public func int32(at offset: Int) -> Int32 {
    Int32(truncatingIfNeeded: integer(at: offset, width: 4))
  }
  /// The little-endian 32-bit value at `offset` (0 outside the data).
  public func uint32(at offset: Int) -> UInt32 {
    UInt32(truncatingIfNeeded: integer(at: offset, width: 4))
  }
  /// The little-endian signed 64-bit value at `offset` (0 outside the data).
  public func int64(at offset: Int) -> Int64 {
    Int64(truncatingIfNeeded: integer(at: offset, width: 8))
  }
  /// The little-endian 64-bit value at `offset` (0 outside the data).
  public func uint64(at offset: Int) -> UInt64 { integer(at: offset, width: 8) }
  /// The little-endian IEEE float at `offset` (0 outside the data).
  public func float(at offset: Int) -> Float {
    Float(bitPattern: UInt32(truncatingIfNeeded: integer(at: offset, width: 4)))
  }

  /// `width` bytes at `offset`, little-endian; 0 unless all are inside the data.
  private func integer(at offset: Int, width: Int) -> UInt64 {
    guard offset >= 0, offset <= count - width else { return 0 }
    var value: UInt64 = 0
    for index in (0..<width).reversed() {
      value = value << 8 | UInt64(self[startIndex + offset + index])
    }
    return value
  }
}

extension Date {
  /// Unix milliseconds.
  public var stampMillisec: Int { Int((timeIntervalSince1970 * 1000).rounded(.down)) }
  /// Unix seconds.
  public var stampSec: Int { Int(timeIntervalSince1970.rounded(.down)) }
  /// The time as `yyyy-MM-dd HH:mm:ss.SSS` in the current time zone, for log lines.
  public var logTime: String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.dateFormat = "yyyy-MM-dd HH:mm:ss.SSS"
    return formatter.string(from: self)
  }
}

extension TimeZone {
  /// The offset from UTC in whole hours (truncated toward zero).
  public var numValue: Int { secondsFromGMT() / 3600 }
  /// The offset from UTC as hours and minutes (the minutes carry the sign of the offset).
  public func getHourAndMin() -> (Int, Int) {
    let seconds = secondsFromGMT()
    return (seconds / 3600, seconds % 3600 / 60)
  }
}

extension String {
  /// The MD5 of the UTF-8 bytes, lower-case hex.
  public var md5Hex: String { Digest.md5(Array(utf8)).hexDigits() }
  /// The text parsed as a JSON object; empty when it is not one.
  public var dictionary: [String: Any] { Data(utf8).dictionary }
  /// Whether the string has characters.
  public var isNotEmpty: Bool { !isEmpty }
}

extension Optional {
  /// Whether there is a value.
  public var exist: Bool { self != nil }
  /// The value as text: a string as is, a number or Boolean in words, else "".
  public var stringValue: String {
    switch self {
    case .none: ""
    case .some(let value as String): value
    case .some(let value as NSNumber): value.stringValue
    case .some(let value as Int): String(value)
    case .some(let value as Double): String(value)
    case .some(let value as Bool): String(value)
    case .some: ""
    }
  }
  /// The value as an integer: an integer, a number (truncated) or numeric text, else 0.
  public var intValue: Int {
    switch self {
    case .some(let value as Int): value
    case .some(let value as NSNumber): value.intValue
    case .some(let value as Double): Int(exactly: value.rounded(.towardZero)) ?? 0
    case .some(let value as String):
      Int(value) ?? Double(value).flatMap { Int(exactly: $0.rounded(.towardZero)) } ?? 0
    default: 0
    }
  }
  /// The value as a double: a number or numeric text, else 0.
  public var doubleValue: Double {
    switch self {
    case .some(let value as Double): value
    case .some(let value as Int): Double(value)
    case .some(let value as NSNumber): value.doubleValue
    case .some(let value as String): Double(value) ?? 0
    default: 0
    }
  }
  /// The value as a Boolean: a Boolean, a non-zero number, or "true"/"1" text, else false.
  public var boolValue: Bool {
    switch self {
    case .some(let value as Bool): value
    case .some(let value as Int): value != 0
    case .some(let value as NSNumber): value.boolValue
    case .some(let value as String): value.lowercased() == "true" || value == "1"
    default: false
    }
  }
  /// The value as an array of JSON objects, else empty.
  public var arrayValue: [[String: Any]] {
    if case .some(let value) = self, let array = value as? [[String: Any]] { return array }
    return []
  }
  /// The value as a JSON object: a dictionary as is, JSON text or data parsed; else nil.
  public var jsonObj: [String: Any]? {
    switch self {
    case .some(let value as [String: Any]): value
    case .some(let value as String): value.dictionary.isEmpty ? nil : value.dictionary
    case .some(let value as Data): value.dictionary.isEmpty ? nil : value.dictionary
    default: nil
    }
  }
  /// ``jsonObj``, or empty.
  public var jsonValue: [String: Any] { jsonObj ?? [:] }
}

extension Int8 {
  /// The byte.
  public var data: Data { Data([UInt8(bitPattern: self)]) }
}

extension UInt8 {
  /// The byte.
  public var data: Data { Data([self]) }
}

extension UInt16 {
  /// The 2 bytes, little-endian.
  public var data: Data {
    Data([UInt8(truncatingIfNeeded: self), UInt8(truncatingIfNeeded: self >> 8)])
  }
}

extension Int16 {
  /// The 2 bytes, little-endian.
  public var data: Data { UInt16(bitPattern: self).data }
}

extension UInt32 {
  /// The 4 bytes, little-endian.
  public var data: Data { Data(byteArrayLittleEndian) }
  /// The low 3 bytes, little-endian.
  public var data24: Data { Data(byteArrayLittleEndian.prefix(3)) }
  /// The 4 bytes, least significant first.
  public var byteArrayLittleEndian: [UInt8] {
    (0..<4).map { UInt8(truncatingIfNeeded: self >> (8 * $0)) }
  }
}

extension UInt64 {
  /// The 8 bytes, little-endian.
  public var data: Data { Data((0..<8).map { UInt8(truncatingIfNeeded: self >> (8 * $0)) }) }
}

extension FileManager {
  /// The size in bytes of the file at `path` (0 when it cannot be read).
  public func fileSize(path: String) -> Int {
    ((try? attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
  }
}
