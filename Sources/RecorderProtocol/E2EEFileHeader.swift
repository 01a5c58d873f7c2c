/// The 512-byte header of an end-to-end encrypted recording (PROTOCOL.md §9) [sdk]:
/// `magic[8]` `PLAUD.AI` · `version u16` · `headerSize u16` · `crc u32` · `userId[32]` ·
/// `fileType u16` · `channels u16` · `encryptType u16` · `durationSeconds u32` ·
/// reserved[70] · `counter u32` · `nonce[12]` · `segment u32` · `algParams[108]` ·
/// `keyCipher[256]`. The audio after byte 512 is ChaCha20 (RFC 7539) under the 32-byte key
/// RSA-wrapped in `keyCipher`, with `nonce`, restarted every `segment` bytes (0: one
/// stream), each segment from block `counter` or 0 [sdk-code][client].
///
/// [project] The role of `crc` is unknown: read and kept, never acted on; the audio always
/// starts at byte 512, whatever `headerSize` says (docs/mode-b.md, where the decryption
/// rules are).
public struct E2EEFileHeader: Sendable, Equatable {
  /// The header's length, and where the audio starts.
  public static let length = 512
  /// The first 8 bytes of every E2EE file.
  public static let magic = Array("PLAUD.AI".utf8)
  /// Bytes of the RSA-wrapped file key (an RSA-2048 ciphertext).
  public static let keyCipherLength = 256

  public var version: UInt16
  public var headerSize: UInt16
  public var crc: UInt32
  /// The owner's id, NUL-padded.
  public var userId: [UInt8]
  public var fileType: UInt16
  public var channels: UInt16
  public var encryptType: UInt16
  public var durationSeconds: UInt32
  public var counter: UInt32
  /// The ChaCha20 nonce of the audio.
  public var nonce: [UInt8]
  public var segment: UInt32
  public var algParams: [UInt8]
  /// The file key, RSA-encrypted (PKCS#1 v1.5 [project]) to the user's public key.
  public var keyCipher: [UInt8]

  public init(
    version: UInt16 = 1, headerSize: UInt16 = UInt16(length), crc: UInt32 = 0,
    userId: [UInt8] = [], fileType: UInt16 = 0, channels: UInt16 = 1, encryptType: UInt16 = 1,
    durationSeconds: UInt32 = 0, counter: UInt32 = 0, nonce: [UInt8], segment: UInt32 = 0,
    algParams: [UInt8] = [], keyCipher: [UInt8]
  ) {
    self.version = version
    self.headerSize = headerSize
    self.crc = crc
    self.userId = Self.padded(userId, to: 32)
    self.fileType = fileType
    self.channels = channels
    self.encryptType = encryptType
    self.durationSeconds = durationSeconds
    self.counter = counter
    self.nonce = Self.padded(nonce, to: 12)
    self.segment = segment
    self.algParams = Self.padded(algParams, to: 108)
    self.keyCipher = Self.padded(keyCipher, to: Self.keyCipherLength)
  }

  /// Reads the header from the first bytes of a file.
  /// - Throws: ``E2EEHeaderError/truncated(available:)`` below 512 bytes,
  ///   ``E2EEHeaderError/badMagic`` when it does not start with `PLAUD.AI`.
  public init<C: Collection>(decoding bytes: C) throws(E2EEHeaderError) where C.Element == UInt8 {
    let prefix = Array(bytes.prefix(Self.length))
    guard prefix.starts(with: Self.magic) || prefix.count < Self.magic.count else {
      throw .badMagic
    }
    guard prefix.count == Self.length else { throw .truncated(available: prefix.count) }
    var reader = ByteReader(prefix)
    do {
      _ = try reader.bytes(8, "magic")
      version = try reader.u16("version")
      headerSize = try reader.u16("headerSize")
      crc = try reader.u32("crc")
      userId = try reader.bytes(32, "userId")
      fileType = try reader.u16("fileType")
      channels = try reader.u16("channels")
      encryptType = try reader.u16("encryptType")
      durationSeconds = try reader.u32("durationSeconds")
      _ = try reader.bytes(70, "reserved")
      counter = try reader.u32("counter")
      nonce = try reader.bytes(12, "nonce")
      segment = try reader.u32("segment")
      algParams = try reader.bytes(108, "algParams")
      keyCipher = try reader.bytes(Self.keyCipherLength, "keyCipher")
    } catch {
      throw .truncated(available: prefix.count)  // unreachable: the length was checked
    }
  }

  /// True when `bytes` start with the E2EE magic (a cheap test before parsing).
  public static func looksEncrypted<C: Collection>(_ bytes: C) -> Bool where C.Element == UInt8 {
    bytes.starts(with: magic)
  }

  /// The 512 bytes on disk.
  public var encoded: [UInt8] {
    var writer = ByteWriter()
    writer.bytes(Self.magic)
    writer.u16(version)
    writer.u16(headerSize)
    writer.u32(crc)
    writer.bytes(userId)
    writer.u16(fileType)
    writer.u16(channels)
    writer.u16(encryptType)
    writer.u32(durationSeconds)
    writer.bytes([UInt8](repeating: 0, count: 70))
    writer.u32(counter)
    writer.bytes(nonce)
    writer.u32(segment)
    writer.bytes(algParams)
    writer.bytes(keyCipher)
    return writer.bytes
  }

  private static func padded(_ bytes: [UInt8], to length: Int) -> [UInt8] {
    Array((bytes + [UInt8](repeating: 0, count: max(0, length - bytes.count))).prefix(length))
  }
}

/// Why bytes are not an E2EE file header.
public enum E2EEHeaderError: Error, Sendable, Equatable, CustomStringConvertible {
  /// Fewer than 512 bytes (a cut file).
  case truncated(available: Int)
  /// The first 8 bytes are not `PLAUD.AI`: not an E2EE file.
  case badMagic

  public var description: String {
    switch self {
    case .truncated(let available):
      "truncated E2EE header: \(available) of \(E2EEFileHeader.length) bytes"
    case .badMagic: "not an E2EE file (no PLAUD.AI magic)"
    }
  }
}
