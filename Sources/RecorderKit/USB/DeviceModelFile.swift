/// `/MODEL.txt` of a recorder's USB volume (PROTOCOL.md §5, USB variant):
///
/// ```
/// <product> V<build>@<build time> <build date>\n
/// Serial No.:<serial>\n
/// ```
///
/// e.g. `PLAUD NOTE V0095@00:47:14 Feb 28 2024` [device]. The build time and date stay one
/// opaque string. Parsed strictly: anything else is a typed error, never a trap.
public struct DeviceModelFile: Sendable, Equatable {
  /// The file's name at the volume's root [device].
  public static let fileName = "MODEL.txt"
  /// Longest file accepted (observed: 70 bytes [device]).
  public static let maximumLength = 4_096
  /// What the second line starts with [device].
  public static let serialPrefix = "Serial No.:"

  /// "PLAUD NOTE".
  public let product: String
  /// "V0095".
  public let firmware: String
  /// "00:47:14 Feb 28 2024", as written.
  public let build: String
  /// The device's serial (letters and digits, at most 64).
  public let serial: String

  /// Parses the file's bytes.
  /// - Throws: ``USBVolumeError/malformedModelFile(reason:)``.
  public init(_ bytes: [UInt8]) throws(USBVolumeError) {
    func bad(_ reason: String) -> USBVolumeError { .malformedModelFile(reason: reason) }
    guard bytes.count <= Self.maximumLength else { throw bad("\(bytes.count) bytes") }
    guard bytes.allSatisfy({ $0 == 0x0A || $0 == 0x0D || (0x20..<0x7F).contains($0) }) else {
      throw bad("not printable ASCII")
    }
    let lines = String(decoding: bytes, as: UTF8.self)
      .split(separator: "\n", omittingEmptySubsequences: false)
      .map { $0.hasSuffix("\r") ? String($0.dropLast()) : String($0) }
    let content = lines.last == "" ? Array(lines.dropLast()) : lines
    guard content.count == 2 else { throw bad("\(content.count) lines, not 2") }
    let first = content[0]
    guard let at = first.firstIndex(of: "@"),
      let version = first[..<at].range(of: " V", options: .backwards)
    else { throw bad("first line is not '<product> V<build>@<time> <date>'") }
    let product = String(first[..<version.lowerBound])
    let number = first[version.upperBound..<at]
    guard !product.isEmpty, !number.isEmpty, number.allSatisfy({ $0.isASCII && $0.isNumber })
    else { throw bad("first line is not '<product> V<build>@<time> <date>'") }
    let build = String(first[first.index(after: at)...])
    guard !build.isEmpty else { throw bad("no build time after '@'") }
    let second = content[1]
    guard second.hasPrefix(Self.serialPrefix) else { throw bad("second line is not 'Serial No.:'") }
    let serial = String(second.dropFirst(Self.serialPrefix.count))
    guard !serial.isEmpty, serial.count <= DeviceWAVHeader.maximumSerialLength,
      serial.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
    else { throw bad("the serial is not 1 to 64 letters and digits") }
    self.product = product
    self.firmware = "V" + number
    self.build = build
    self.serial = serial
  }
}
