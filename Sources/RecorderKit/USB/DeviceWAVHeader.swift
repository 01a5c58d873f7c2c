/// The 512-byte header of a recorder's `.WAV` on its USB volume, every field checked
/// (PROTOCOL.md §5, USB variant).
///
/// Layout [device]: `RIFF` · size · `WAVE`, a 16-byte `fmt ` chunk (PCM, 2 channels,
/// 16 000 Hz, 64 000 B/s, block align 4, 16 bits), a `pad ` chunk whose payload starts with
/// `SN:<serial>` and a NUL, then the `data` chunk's header, so samples start at byte 512.
/// Chunks are walked, not read at fixed offsets: the serial is found inside the `pad `
/// chunk the walk met, so ``serialRange`` names exactly the watermark's bytes.
public struct DeviceWAVHeader: Sendable, Equatable {
  /// Bytes before the samples [device].
  public static let length = 512
  /// Channels of a device WAV [device].
  public static let channels = 2
  /// Samples per second per channel [device].
  public static let sampleRate = 16_000
  /// Bits per sample [device].
  public static let bitsPerSample = 16
  /// Bytes per second: 16 000 × 2 channels × 2 bytes.
  public static let byteRate = sampleRate * channels * bitsPerSample / 8
  /// Bytes per sample frame (all channels).
  public static let blockAlign = channels * bitsPerSample / 8
  /// What the `pad ` chunk's payload starts with [device].
  public static let serialMagic: [UInt8] = Array("SN:".utf8)
  /// Longest serial accepted (observed: 18 decimal digits [device]).
  public static let maximumSerialLength = 64

  /// Bytes of samples (the `data` chunk's size, which equals the file's size less 512).
  public let dataBytes: Int64
  /// The serial the `pad ` chunk carries.
  public let serial: String
  /// The bytes of `SN:<serial>` in the file (absolute offsets, inside the `pad ` chunk):
  /// what ``scrubbed(_:)`` zeroes.
  public let serialRange: Range<Int>

  /// The recording's length from its samples, in milliseconds (rounded down).
  public var durationMs: Int { Int(dataBytes * 1000 / Int64(Self.byteRate)) }

  /// Parses `header` (at least the first 512 bytes of a file of `fileSize` bytes).
  /// - Throws: ``USBVolumeError/wavTooShort(path:size:)`` or
  ///   ``USBVolumeError/malformedWAVHeader(path:reason:)`` naming the field; never traps.
  public init(_ header: [UInt8], fileSize: Int64, path: String) throws(USBVolumeError) {
    guard fileSize >= Int64(Self.length), header.count >= Self.length else {
      throw .wavTooShort(path: path, size: min(fileSize, Int64(header.count)))
    }
    func bad(_ reason: String) -> USBVolumeError { .malformedWAVHeader(path: path, reason: reason) }
    guard Self.tag(header, 0) == "RIFF" else { throw bad("no RIFF tag") }
    guard Int64(Self.u32(header, 4)) == fileSize - 8 else {
      throw bad("RIFF size \(Self.u32(header, 4)) for a file of \(fileSize) bytes")
    }
    guard Self.tag(header, 8) == "WAVE" else { throw bad("no WAVE tag") }
    var offset = 12
    var sawFormat = false
    var serialFound: (String, Range<Int>)?
    while true {
      guard offset + 8 <= Self.length else { throw bad("no data chunk in the first 512 bytes") }
      let id = Self.tag(header, offset)
      let size = Int(Self.u32(header, offset + 4))
      let payload = offset + 8
      switch id {
      case "fmt ":
        guard !sawFormat else { throw bad("two fmt chunks") }
        guard size == 16, payload + 16 <= Self.length else {
          throw bad("fmt chunk of \(size) bytes")
        }
        try Self.checkFormat(header, at: payload, bad)
        sawFormat = true
      case "pad ":
        guard sawFormat else { throw bad("pad chunk before fmt") }
        guard serialFound == nil else { throw bad("two pad chunks") }
        guard size <= Self.length - payload else {
          throw bad("pad chunk of \(size) bytes overruns the header")
        }
        serialFound = try Self.serial(
          in: Array(header[payload..<(payload + size)]), at: payload, bad)
      case "data":
        guard sawFormat else { throw bad("data chunk before fmt") }
        guard let (found, range) = serialFound else { throw bad("no pad chunk with the serial") }
        guard payload == Self.length else { throw bad("samples start at \(payload), not 512") }
        guard Int64(size) == fileSize - Int64(Self.length) else {
          throw bad("data size \(size) for \(fileSize - Int64(Self.length)) bytes of samples")
        }
        guard size % Self.blockAlign == 0 else {
          throw bad("data size \(size) is not whole sample frames")
        }
        dataBytes = Int64(size)
        serial = found
        serialRange = range
        return
      default:
        guard offset != 12 else { throw bad("first chunk is \(Self.printable(id)), not fmt") }
        guard size <= Self.length - payload else {
          throw bad("chunk \(Self.printable(id)) overruns the header")
        }
      }
      offset = payload + size + (size & 1)
    }
  }

  /// `header` with the bytes of ``serialRange`` zeroed: every other byte, the samples'
  /// offset and the file's size unchanged.
  public func scrubbed(_ header: [UInt8]) -> [UInt8] {
    var copy = header
    for index in serialRange where index < copy.count { copy[index] = 0 }
    return copy
  }

  private static func checkFormat(
    _ bytes: [UInt8], at start: Int, _ bad: (String) -> USBVolumeError
  ) throws(USBVolumeError) {
    let format = u16(bytes, start)
    guard format == 1 else { throw bad("format \(format), not PCM (1)") }
    let channels = Int(u16(bytes, start + 2))
    guard channels == Self.channels else { throw bad("\(channels) channels, not 2") }
    let rate = Int(u32(bytes, start + 4))
    guard rate == Self.sampleRate else { throw bad("sample rate \(rate), not 16000") }
    let byteRate = Int(u32(bytes, start + 8))
    guard byteRate == Self.byteRate else { throw bad("byte rate \(byteRate), not 64000") }
    let align = Int(u16(bytes, start + 12))
    guard align == Self.blockAlign else { throw bad("block align \(align), not 4") }
    let bits = Int(u16(bytes, start + 14))
    guard bits == Self.bitsPerSample else { throw bad("\(bits) bits per sample, not 16") }
  }

  /// The serial of a `pad ` payload that starts at absolute offset `start`: `SN:`, 1 to 64
  /// letters or digits, a NUL.
  private static func serial(
    in payload: [UInt8], at start: Int, _ bad: (String) -> USBVolumeError
  ) throws(USBVolumeError) -> (String, Range<Int>) {
    guard payload.starts(with: serialMagic) else { throw bad("pad chunk does not start with SN:") }
    let digits = payload.dropFirst(serialMagic.count)
    guard let end = digits.firstIndex(of: 0) else {
      throw bad("serial in the pad chunk has no NUL")
    }
    let serial = payload[serialMagic.count..<end]
    guard !serial.isEmpty, serial.count <= maximumSerialLength else {
      throw bad("serial of \(serial.count) characters")
    }
    guard serial.allSatisfy({ isAlphanumeric($0) }) else {
      throw bad("serial is not letters and digits")
    }
    return (String(decoding: serial, as: UTF8.self), start..<(start + end))
  }

  private static func isAlphanumeric(_ byte: UInt8) -> Bool {
    (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
  }

  static func tag(_ bytes: [UInt8], _ offset: Int) -> String {
    String(decoding: bytes[offset..<(offset + 4)], as: UTF8.self)
  }

  /// A chunk id for an error message: its printable ASCII, `?` for the rest.
  private static func printable(_ id: String) -> String {
    String(
      id.unicodeScalars.map {
        $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F ? Character($0) : "?"
      })
  }

  static func u16(_ bytes: [UInt8], _ offset: Int) -> UInt16 {
    UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
  }

  static func u32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
    (0..<4).reduce(0) { $0 | UInt32(bytes[offset + $1]) << (8 * UInt32($1)) }
  }
}
