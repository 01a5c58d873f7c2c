/// An iBeacon advertisement: Apple's manufacturer data (company 0x004C) of type 0x02, length
/// 0x15, carrying a proximity UUID, a major and a minor value and the measured power at 1 m.
/// On iOS, Core Bluetooth never reports these frames; Core Location's region monitoring
/// sees them. On Linux they arrive as manufacturer data like any other.
public struct IBeacon: Hashable, Sendable {
  /// The proximity UUID.
  public var uuid: BluetoothUUID
  public var major: UInt16
  public var minor: UInt16
  /// The received signal strength at 1 m, dBm, as the beacon states it.
  public var measuredPower: Int8

  public init(uuid: BluetoothUUID, major: UInt16, minor: UInt16, measuredPower: Int8 = -59) {
    self.uuid = uuid
    self.major = major
    self.minor = minor
    self.measuredPower = measuredPower
  }

  /// Apple's company identifier, little-endian as on air.
  static let prefix: [UInt8] = [0x4C, 0x00, 0x02, 0x15]
  /// Company id (2), type and length (2), UUID (16), major (2), minor (2), power (1).
  static let frameLength = 25

  /// The beacon in `manufacturerData` (company id first, as ``Advertisement`` carries it), or
  /// nil when the data is anything else: another company, another Apple frame type, or a
  /// length other than an iBeacon's. Never traps, whatever the bytes.
  public init?(manufacturerData: [UInt8]) {
    guard manufacturerData.count == Self.frameLength,
      Array(manufacturerData.prefix(4)) == Self.prefix,
      let uuid = BluetoothUUID(bytes: Array(manufacturerData[4..<20]))
    else { return nil }
    self.uuid = uuid
    major = UInt16(manufacturerData[20]) << 8 | UInt16(manufacturerData[21])
    minor = UInt16(manufacturerData[22]) << 8 | UInt16(manufacturerData[23])
    measuredPower = Int8(bitPattern: manufacturerData[24])
  }

  /// The frame as manufacturer data, company id first (major and minor big-endian).
  public var manufacturerData: [UInt8] {
    Self.prefix + uuid.bytes + [
      UInt8(major >> 8), UInt8(major & 0xFF), UInt8(minor >> 8), UInt8(minor & 0xFF),
      UInt8(bitPattern: measuredPower),
    ]
  }
}

extension BluetoothUUID {
  /// A UUID written in the canonical form `XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX` (hex digits
  /// in either case); nil for anything else.
  public init?(string: String) {
    let groups = string.split(separator: "-", omittingEmptySubsequences: false)
    guard groups.map(\.count) == [8, 4, 4, 4, 12] else { return nil }
    // Counted in bytes too: a multi-byte character counts once above.
    let digits = Array(groups.joined().utf8)
    guard digits.count == 32 else { return nil }
    var bytes: [UInt8] = []
    for index in stride(from: 0, to: digits.count, by: 2) {
      guard let high = Self.hexValue(digits[index]), let low = Self.hexValue(digits[index + 1])
      else { return nil }
      bytes.append(high << 4 | low)
    }
    self.init(bytes: bytes)
  }

  /// The canonical form, upper case with dashes (`Foundation.UUID(uuidString:)` reads it).
  public var uuidString: String {
    let hex = bytes.map { byte in
      let digits = String(byte, radix: 16, uppercase: true)
      return digits.count == 1 ? "0" + digits : digits
    }.joined()
    var text = ""
    for (offset, character) in hex.enumerated() {
      if [8, 12, 16, 20].contains(offset) { text.append("-") }
      text.append(character)
    }
    return text
  }

  private static func hexValue(_ digit: UInt8) -> UInt8? {
    switch digit {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
