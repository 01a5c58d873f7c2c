import Foundation
import RecorderCrypto
import RecorderKit
import RecorderProtocol

/// Why ``BleAgent/decryptFileData(_:key:nonce:ad:)`` failed. Raw values are the vendor's.
@objc public enum EncryptionError: Int, Error {
  /// No key was given (RecorderKit never hands out its BLE channel's key).
  case noKey = 1
  /// No nonce was given.
  case noNonce = 2
  /// No associated data was given.
  case noAD = 3
  /// Fewer bytes than a 16-byte authentication tag.
  case dataTooShort = 4
  /// The data did not authenticate under the key, nonce and associated data (or the key or
  /// nonce has the wrong length).
  case decryptionFailed = 5

  /// What went wrong, in words.
  public var localizedDescription: String {
    switch self {
    case .noKey:
      "no key: give one (RecorderKit does not hand out its channel key; not supported by RecorderKit)"
    case .noNonce: "no nonce given"
    case .noAD: "no associated data given"
    case .dataTooShort: "the data is shorter than a 16-byte authentication tag"
    case .decryptionFailed: "the data did not authenticate under this key, nonce and data"
    }
  }
}

/// The 512-byte header of an end-to-end encrypted recording (PROTOCOL.md §9), field by field
/// as the vendor names them. No setters: read one with ``init(data:)`` or ``fromFile(path:)``.
public final class PlaudEncryptHeader: NSObject, Sendable {
  /// The header's length, and where the audio starts (512).
  public static let headerSize: Int = E2EEFileHeader.length
  /// The first 8 bytes of every E2EE file (`PLAUD.AI`).
  public static let magicString: String = String(decoding: E2EEFileHeader.magic, as: UTF8.self)

  /// `PLAUD.AI`.
  public let magic: Data
  /// The owner's id, NUL-padded (32 bytes).
  public let userId: Data
  /// The 70 reserved bytes.
  public let reserved: Data
  /// The ChaCha20 nonce of the audio (12 bytes).
  public let nonce: Data
  /// The algorithm parameters (108 bytes).
  public let algParams: Data
  /// The file key, RSA-encrypted to the owner's public key (256 bytes).
  public let keyCipher: Data
  /// The header's format version.
  public let version: UInt16
  /// The header size the file states (the audio always starts at byte 512).
  public let headerSizeValue: UInt16
  /// The file type.
  public let fileType: UInt16
  /// Audio channels.
  public let channel: UInt16
  /// The encryption type.
  public let encryptType: UInt16
  /// The header's `crc` field (its role is unknown; read, never acted on).
  public let crc: UInt32
  /// The recording's duration, seconds.
  public let duration: UInt32
  /// The ChaCha20 block counter the audio starts from.
  public let counter: UInt32
  /// Bytes per independently keyed segment (0: one stream).
  public let segment: UInt32

  /// Reads a header from a file's first bytes; nil when `data` is shorter than 512 bytes or
  /// does not start with `PLAUD.AI`.
  public init?(data: Data) {
    let bytes = Array(data.prefix(E2EEFileHeader.length))
    guard let header = try? E2EEFileHeader(decoding: bytes) else { return nil }
    magic = Data(bytes[0..<8])
    userId = Data(header.userId)
    reserved = Data(bytes[58..<128])
    nonce = Data(header.nonce)
    algParams = Data(header.algParams)
    keyCipher = Data(header.keyCipher)
    version = header.version
    headerSizeValue = header.headerSize
    fileType = header.fileType
    channel = header.channels
    encryptType = header.encryptType
    crc = header.crc
    duration = header.durationSeconds
    counter = header.counter
    segment = header.segment
    super.init()
  }

  /// The header of the file at `path`; nil when it cannot be read or is not an E2EE file.
  public static func fromFile(path: String) -> PlaudEncryptHeader? {
    guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? handle.close() }
    guard let head = try? handle.read(upToCount: E2EEFileHeader.length) else { return nil }
    return PlaudEncryptHeader(data: head)
  }

  /// Whether the magic is `PLAUD.AI` (always true for a header that parsed).
  public var isEncrypted: Bool { E2EEFileHeader.looksEncrypted(Array(magic)) }

  /// ``userId`` as text, without its NUL padding.
  public var userIdString: String {
    String(decoding: userId.prefix { $0 != 0 }, as: UTF8.self)
  }
}

/// The vendor's E2EE helpers on ``BleAgent`` (PlaudDeviceBasicSDK's extensions).
///
/// Files: real, over RecorderKit's E2EE decryption (PROTOCOL.md §9). The BLE channel's own
/// key, nonce and associated data never leave RecorderKit's session, so the getters return
/// nil and a decryption without an explicit key fails with ``EncryptionError/noKey``.
extension BleAgent {
  private static let notExported =
    "the BLE channel key never leaves RecorderKit's session (not supported by RecorderKit)"

  /// Whether the connected device's link runs Mode B's encrypted channel (every recorder of
  /// that security generation opens it before the handshake, PROTOCOL.md §9).
  public var isSecureChannelEstablished: Bool {
    guard let device = connectedDevice else { return false }
    return ModelCapabilities.mayUseModeB(
      model: device.model, portVersion: device.portVersion, name: device.name)
  }

  /// nil: the channel key is not exported (not supported by RecorderKit).
  public func getEncryptionKey() -> Data? { nil }

  /// nil: the channel nonce is not exported (not supported by RecorderKit).
  public func getEncryptionNonce() -> Data? { nil }

  /// nil: the channel's associated data is not exported (not supported by RecorderKit).
  public func getEncryptionAD() -> Data? { nil }

  /// nil: the channel parameters are not exported (not supported by RecorderKit).
  public func getEncryptionParameters() -> [String: String]? { nil }

  /// Opens `data` (ciphertext ‖ 16-byte tag) with ChaCha20-Poly1305, the AEAD of the
  /// device's BLE channel (PROTOCOL.md §9), under `key` (32 bytes), `nonce` (12) and `ad`.
  /// - Throws: ``EncryptionError``: `noKey`, `noNonce`, `noAD` when one is missing (there is
  ///   no channel key to fall back to), `dataTooShort`, `decryptionFailed`.
  public func decryptFileData(
    _ data: Data, key: Data? = nil, nonce: Data? = nil, ad: Data? = nil
  ) throws -> Data {
    guard let key else { throw EncryptionError.noKey }
    guard let nonce else { throw EncryptionError.noNonce }
    guard let ad else { throw EncryptionError.noAD }
    guard data.count >= ChaChaPoly.tagLength else { throw EncryptionError.dataTooShort }
    do {
      return Data(
        try ChaChaPoly.open(
          Array(data), key: Array(key), nonce: Array(nonce), authenticating: Array(ad)))
    } catch {
      throw EncryptionError.decryptionFailed
    }
  }

  /// ``decryptFileData(_:key:nonce:ad:)`` of the file at `inputPath`, written to
  /// `outputPath`; false when reading, decrypting or writing fails.
  public func decryptFile(
    inputPath: String, outputPath: String, key: Data? = nil, nonce: Data? = nil, ad: Data? = nil
  ) -> Bool {
    guard let data = FileManager.default.contents(atPath: inputPath),
      let clear = try? decryptFileData(data, key: key, nonce: nonce, ad: ad)
    else { return false }
    return FileManager.default.createFile(atPath: outputPath, contents: clear)
  }

  /// Decrypts the file at `encryptedFilePath` as ``decryptFile(inputPath:outputPath:key:nonce:ad:)``
  /// into `<encryptedFilePath>.ogg` and returns that path when the clear bytes are an Ogg
  /// stream (`OggS`); nil otherwise (the file is removed). `channel` is not needed: an Ogg
  /// stream states its own channels.
  public func decryptAndPrepareOggFile(
    encryptedFilePath: String, channel: Int, key: Data? = nil, nonce: Data? = nil,
    ad: Data? = nil
  ) -> String? {
    let output = encryptedFilePath + ".ogg"
    guard
      decryptFile(inputPath: encryptedFilePath, outputPath: output, key: key, nonce: nonce, ad: ad)
    else { return nil }
    let head = FileManager.default.contents(atPath: output)?.prefix(4)
    guard head.map(Array.init) == Array("OggS".utf8) else {
      try? FileManager.default.removeItem(atPath: output)
      return nil
    }
    return output
  }

  /// Decrypts the E2EE recording at `inputPath` (PROTOCOL.md §9: its file key unwrapped
  /// with the user's RSA private key, `privateKeyPem`) into `outputPath` (default
  /// `<inputPath>.decrypted`), streaming; returns the output path.
  /// - Throws: `E2EEError` (not an E2EE file, truncated, wrong key, file errors) or
  ///   `CryptoError` for a PEM that is not an RSA private key.
  public func decryptE2EEAudioFile(
    inputPath: String, outputPath: String? = nil, privateKeyPem: String
  ) throws -> String {
    let key = try RSAPrivateKey(pem: privateKeyPem)
    let output = outputPath ?? inputPath + ".decrypted"
    try E2EEFile.decrypt(inputPath, to: output, userKey: key)
    return output
  }

  /// Whether the file at `path` starts with the E2EE magic `PLAUD.AI`.
  public func isE2EEEncryptedFile(path: String) -> Bool { E2EEFile.isEncrypted(path: path) }

  /// The E2EE header of the file at `path`, nil when it has none.
  public func getE2EEFileHeader(path: String) -> PlaudEncryptHeader? {
    PlaudEncryptHeader.fromFile(path: path)
  }

  /// True: RecorderKit decrypts E2EE recordings and speaks Mode B's encrypted channel.
  public var isEncryptionSupported: Bool { true }

  /// What RecorderKit's encryption is: `channelCipher` (ChaCha20-Poly1305),
  /// `fileCipher` (ChaCha20), `keyWrap` (RSA PKCS#1 v1.5), `headerSize` (512),
  /// `secureChannelEstablished`, and `channelKeyExported` false with its `reason`.
  public func getEncryptionProtocolInfo() -> [String: Any] {
    [
      "channelCipher": "ChaCha20-Poly1305", "fileCipher": "ChaCha20",
      "keyWrap": "RSA PKCS#1 v1.5", "headerSize": PlaudEncryptHeader.headerSize,
      "secureChannelEstablished": isSecureChannelEstablished, "channelKeyExported": false,
      "reason": Self.notExported,
    ]
  }
}
