import RecorderConcurrency
import RecorderCrypto
import RecorderProtocol

/// The firmware image format the emulated device installs [project]: the real one is the
/// vendor's secret, but a device that checks its images is what "no brick" needs.
///
/// `magic "PLAUDFW1"` · `versionType u8` · `versionCode u24` · `payloadLength u32` ·
/// payload · `sha256[32]` of everything before it. Integers little-endian.
public enum EmulatedFirmwareImage {
  public static let magic: [UInt8] = Array("PLAUDFW1".utf8)
  /// Bytes around the payload.
  public static let overhead = 8 + 4 + 4 + 32

  /// A valid image of `version`, `size` bytes in all, its payload seeded random bytes.
  /// - Precondition: `size >= overhead`.
  public static func make(version: FirmwareVersion, size: Int, seed: UInt64) -> [UInt8] {
    precondition(size >= overhead, "an image needs at least \(overhead) bytes")
    var image = magic
    image.append(version.type)
    image += littleEndian(version.code, count: 3)
    let payloadLength = size - overhead
    image += littleEndian(UInt32(payloadLength), count: 4)
    // Offset by one step of the generator: the images made before it was shared.
    var random = SplitMix64(seed: seed &+ 0x9E37_79B9_7F4A_7C15)
    image.reserveCapacity(size)
    var produced = 0
    while produced < payloadLength {
      let z = random.next()
      for shift in stride(from: 0, to: 64, by: 8) where produced < payloadLength {
        image.append(UInt8(truncatingIfNeeded: z >> UInt64(shift)))
        produced += 1
      }
    }
    image += Digest.sha256(image)
    return image
  }

  /// Whether `image` is a well-formed image of `version` whose digest matches.
  public static func isValid(_ image: [UInt8], version: FirmwareVersion) -> Bool {
    guard image.count >= overhead, Array(image.prefix(8)) == magic else { return false }
    let type = image[8]
    let code = UInt32(image[9]) | UInt32(image[10]) << 8 | UInt32(image[11]) << 16
    let length = Int(
      UInt32(image[12]) | UInt32(image[13]) << 8 | UInt32(image[14]) << 16
        | UInt32(image[15]) << 24)
    guard type == version.type, code == version.code, length == image.count - overhead else {
      return false
    }
    return Digest.sha256(image.dropLast(32)) == Array(image.suffix(32))
  }

  private static func littleEndian(_ value: UInt32, count: Int) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
  }
}
