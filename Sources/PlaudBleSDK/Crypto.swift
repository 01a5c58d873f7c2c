import Foundation
import RecorderCrypto

/// The vendor's crypto helpers, over RecorderCrypto (libcrypto on Linux, CryptoKit and
/// Security on Apple platforms). Errors are RecorderCrypto's `CryptoError`.
public final class SecretUtil {
  private init() {}

  /// RSA (PKCS#1 v1.5) decryption with the private key in `privateKeyPem`.
  public static func decryptWithPrivateKey(_ encryptedData: Data, privateKeyPem: String) throws
    -> Data
  {
    Data(try RSAPrivateKey(pem: privateKeyPem).decrypt(Array(encryptedData), padding: .pkcs1v15))
  }

  /// ChaCha20-Poly1305 sealing: the ciphertext and the 16-byte tag apart.
  public static func encryptWithChaChaPoly1305Separate(
    _ data: Data, key: Data, nonce: Data, ad: Data? = nil
  ) throws -> (ciphertext: Data, tag: Data) {
    try seal(.chaCha20Poly1305, data, key, nonce, ad)
  }

  /// ChaCha20-Poly1305 opening of a ciphertext and its tag.
  public static func decryptWithChaChaPoly1305Separate(
    _ ciphertext: Data, tag: Data, key: Data, nonce: Data, ad: Data? = nil
  ) throws -> Data {
    try open(.chaCha20Poly1305, ciphertext, tag, key, nonce, ad)
  }

  /// AES-256-GCM sealing: the ciphertext and the 16-byte tag apart.
  public static func encryptWithAES256Separate(
    _ data: Data, key: Data, nonce: Data, ad: Data? = nil
  ) throws -> (ciphertext: Data, tag: Data) {
    try seal(.aes256GCM, data, key, nonce, ad)
  }

  /// AES-256-GCM opening of a ciphertext and its tag.
  public static func decryptWithAES256Separate(
    _ ciphertext: Data, tag: Data, key: Data, nonce: Data, ad: Data? = nil
  ) throws -> Data {
    try open(.aes256GCM, ciphertext, tag, key, nonce, ad)
  }

  /// Opens with AES-256-GCM then ChaCha20-Poly1305 (`preferAes`), or the other way round:
  /// the first that authenticates.
  public static func decryptWithFallback(
    ciphertext: Data, tag: Data, key: Data, nonce: Data, ad: Data? = nil, preferAes: Bool
  ) throws -> Data {
    let order: [AEADAlgorithm] =
      preferAes ? [.aes256GCM, .chaCha20Poly1305] : [.chaCha20Poly1305, .aes256GCM]
    do {
      return try open(order[0], ciphertext, tag, key, nonce, ad)
    } catch {
      return try open(order[1], ciphertext, tag, key, nonce, ad)
    }
  }

  /// Raw ChaCha20 (RFC 7539) from block `counter`: encryption and decryption alike.
  public static func decryptWithChaCha20Stream(
    _ ciphertext: Data, key: Data, nonce: Data, counter: UInt32 = 0
  ) throws -> Data {
    Data(
      try ChaCha20Stream(key: Array(key), nonce: Array(nonce), counter: counter).applied(
        to: Array(ciphertext)))
  }

  private static func seal(
    _ algorithm: AEADAlgorithm, _ data: Data, _ key: Data, _ nonce: Data, _ ad: Data?
  ) throws -> (ciphertext: Data, tag: Data) {
    let box = try algorithm.seal(
      Array(data), key: Array(key), nonce: Array(nonce), authenticating: Array(ad ?? Data()))
    let split = box.count - AEADAlgorithm.tagLength
    return (Data(box[..<split]), Data(box[split...]))
  }

  private static func open(
    _ algorithm: AEADAlgorithm, _ ciphertext: Data, _ tag: Data, _ key: Data, _ nonce: Data,
    _ ad: Data?
  ) throws -> Data {
    Data(
      try algorithm.open(
        Array(ciphertext) + Array(tag), key: Array(key), nonce: Array(nonce),
        authenticating: Array(ad ?? Data())))
  }
}

// MARK: - The RSA wrapper (the vendor's bundled SwiftyRSA), over RecorderCrypto

#if canImport(Darwin)
  /// A Security status code.
  public typealias SwiftyRSAStatus = OSStatus
#else
  /// A Security status code (Security is absent on Linux: an `Int32`, as `OSStatus`).
  public typealias SwiftyRSAStatus = Int32
#endif

/// Why an RSA wrapper call failed. The cases with a Security payload are RecorderKit's by
/// name and label; their payload is nil / 0 here.
public enum SwiftyRSAError: Error {
  case pemDoesNotContainKey
  case keyRepresentationFailed(error: (any Error)?)
  case keyGenerationFailed(error: (any Error)?)
  case keyCreateFailed(error: (any Error)?)
  case keyAddFailed(status: SwiftyRSAStatus)
  case keyCopyFailed(status: SwiftyRSAStatus)
  case tagEncodingFailed
  case asn1ParsingFailed
  case invalidAsn1RootNode
  case invalidAsn1Structure
  case invalidBase64String
  case chunkDecryptFailed(index: Int)
  case chunkEncryptFailed(index: Int)
  case stringToDataConversionFailed
  case dataToStringConversionFailed
  case invalidDigestSize(digestSize: Int, maxChunkSize: Int)
  case signatureCreateFailed(status: SwiftyRSAStatus)
  case signatureVerifyFailed(status: SwiftyRSAStatus)
  case pemFileNotFound(name: String)
  case derFileNotFound(name: String)
  case notAPublicKey
  case notAPrivateKey
  case x509CertificateFailed
}

/// A message: bytes, with Base64.
public protocol Message {
  var data: Data { get }
  var base64String: String { get }
  init(data: Data)
  init(base64Encoded base64String: String) throws
}

extension Message {
  /// The bytes in Base64.
  public var base64String: String { data.base64EncodedString() }

  /// A message from Base64 text.
  /// - Throws: ``SwiftyRSAError/invalidBase64String``.
  public init(base64Encoded base64String: String) throws {
    guard let data = Data(base64Encoded: base64String) else {
      throw SwiftyRSAError.invalidBase64String
    }
    self.init(data: data)
  }
}

/// A signature's bytes.
public class Signature {
  /// Digest types.
  public enum DigestType: Hashable, Sendable {
    case sha1
    case sha224
    case sha256
    case sha384
    case sha512
  }

  public final let data: Data

  public init(data: Data) { self.data = data }

  /// A signature from Base64 text.
  public convenience init(base64Encoded base64String: String) throws {
    guard let data = Data(base64Encoded: base64String) else {
      throw SwiftyRSAError.invalidBase64String
    }
    self.init(data: data)
  }

  /// The bytes in Base64.
  public var base64String: String { data.base64EncodedString() }
}

/// An RSA key (the Security `reference` is not RecorderKit's: keys are DER bytes).
public protocol Key: AnyObject {
  var originalData: Data? { get }
  init(data: Data) throws
  init(base64Encoded base64String: String) throws
  init(pemEncoded pemString: String) throws
  init(pemNamed pemName: String, in bundle: Bundle) throws
  init(derNamed derName: String, in bundle: Bundle) throws
  func pemString() throws -> String
  func data() throws -> Data
  func base64String() throws -> String
}

extension Key {
  /// The key's DER bytes in Base64.
  public func base64String() throws -> String { try data().base64EncodedString() }

  /// The key's DER bytes (as given).
  /// - Throws: ``SwiftyRSAError/keyRepresentationFailed(error:)`` when there are none.
  public func data() throws -> Data {
    guard let originalData else { throw SwiftyRSAError.keyRepresentationFailed(error: nil) }
    return originalData
  }

  /// A key from Base64 DER.
  public init(base64Encoded base64String: String) throws {
    guard let data = Data(base64Encoded: base64String, options: .ignoreUnknownCharacters) else {
      throw SwiftyRSAError.invalidBase64String
    }
    try self.init(data: data)
  }

  /// A key from PEM text (its Base64 body).
  public init(pemEncoded pemString: String) throws {
    let body = pemString.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
    guard !body.isEmpty else { throw SwiftyRSAError.pemDoesNotContainKey }
    try self.init(base64Encoded: body)
  }

  /// A key from `<pemName>.pem` in `bundle`.
  public init(pemNamed pemName: String, in bundle: Bundle = Bundle.main) throws {
    guard let path = bundle.path(forResource: pemName, ofType: "pem"),
      let text = try? String(contentsOfFile: path, encoding: .utf8)
    else { throw SwiftyRSAError.pemFileNotFound(name: pemName) }
    try self.init(pemEncoded: text)
  }

  /// A key from `<derName>.der` in `bundle`.
  public init(derNamed derName: String, in bundle: Bundle = Bundle.main) throws {
    guard let path = bundle.path(forResource: derName, ofType: "der"),
      let data = FileManager.default.contents(atPath: path)
    else { throw SwiftyRSAError.derFileNotFound(name: derName) }
    try self.init(data: data)
  }
}

/// An RSA public key (SubjectPublicKeyInfo DER; a bare PKCS#1 key gets its X.509 header).
public class PublicKey: Key {
  public final let originalData: Data?
  let key: RSAPublicKey

  /// A key from DER.
  /// - Throws: ``SwiftyRSAError/notAPublicKey`` when the bytes are not one.
  public required init(data: Data) throws {
    let spki = try data.isAnHeaderlessKey() ? data.prependx509Header() : data
    guard let key = try? RSAPublicKey(spkiDER: Array(spki)) else {
      throw SwiftyRSAError.notAPublicKey
    }
    self.key = key
    originalData = data
  }

  /// The key as `PUBLIC KEY` PEM.
  public func pemString() throws -> String { try key.pem() }

  /// Every public key in `pemString` (several PEM blocks; unreadable ones skipped).
  public static func publicKeys(pemEncoded pemString: String) -> [PublicKey] {
    pemString.components(separatedBy: "-----END").compactMap { block in
      guard block.contains("-----BEGIN") else { return nil }
      return try? PublicKey(pemEncoded: block + "-----END")
    }
  }
}

/// An RSA private key (PKCS#1 DER, or PKCS#8).
public class PrivateKey: Key {
  public final let originalData: Data?
  let key: RSAPrivateKey

  /// A key from DER.
  /// - Throws: ``SwiftyRSAError/notAPrivateKey`` when the bytes are not one.
  public required init(data: Data) throws {
    if let key = try? RSAPrivateKey(pkcs1DER: Array(data)) {
      self.key = key
    } else {
      let pem =
        "-----BEGIN PRIVATE KEY-----\n" + data.base64EncodedString(options: .lineLength64Characters)
        + "\n-----END PRIVATE KEY-----\n"
      guard let key = try? RSAPrivateKey(pem: pem) else { throw SwiftyRSAError.notAPrivateKey }
      self.key = key
    }
    originalData = data
  }

  init(_ key: RSAPrivateKey) {
    self.key = key
    originalData = Data(key.pkcs1DER)
  }

  /// The key as `PRIVATE KEY` (PKCS#8) PEM.
  public func pemString() throws -> String { try key.pem() }
}

/// Encrypted bytes. (Decrypting with a Security padding is not RecorderKit's: use
/// ``SecretUtil/decryptWithPrivateKey(_:privateKeyPem:)``.)
public class EncryptedMessage: Message {
  public final let data: Data
  public required init(data: Data) { self.data = data }
}

/// Clear bytes.
public class ClearMessage: Message {
  public final let data: Data
  public required init(data: Data) { self.data = data }

  /// The text's bytes in `encoding`.
  /// - Throws: ``SwiftyRSAError/stringToDataConversionFailed``.
  public convenience init(string: String, using encoding: String.Encoding) throws {
    guard let data = string.data(using: encoding) else {
      throw SwiftyRSAError.stringToDataConversionFailed
    }
    self.init(data: data)
  }

  /// The bytes as text in `encoding`.
  /// - Throws: ``SwiftyRSAError/dataToStringConversionFailed``.
  public func string(encoding: String.Encoding) throws -> String {
    guard let text = String(data: data, encoding: encoding) else {
      throw SwiftyRSAError.dataToStringConversionFailed
    }
    return text
  }

  /// Not supported by RecorderKit (it has no RSA signatures): throws
  /// ``SwiftyRSAError/signatureCreateFailed(status:)``.
  public func signed(with key: PrivateKey, digestType: Signature.DigestType) throws -> Signature {
    throw SwiftyRSAError.signatureCreateFailed(status: 0)
  }

  /// Not supported by RecorderKit (it has no RSA signatures): throws
  /// ``SwiftyRSAError/signatureVerifyFailed(status:)``.
  public func verify(with key: PublicKey, signature: Signature, digestType: Signature.DigestType)
    throws -> Bool
  {
    throw SwiftyRSAError.signatureVerifyFailed(status: 0)
  }
}

/// Key generation.
public enum SwiftyRSA {
  /// A fresh key pair of `size` bits.
  /// - Throws: ``SwiftyRSAError/keyGenerationFailed(error:)``.
  public static func generateRSAKeyPair(sizeInBits size: Int) throws -> (
    privateKey: PrivateKey, publicKey: PublicKey
  ) {
    do {
      let key = try RSAPrivateKey.generate(bits: size)
      let publicKey = try PublicKey(data: Data(try key.publicKey().spkiDER))
      return (PrivateKey(key), publicKey)
    } catch {
      throw SwiftyRSAError.keyGenerationFailed(error: error)
    }
  }
}

extension Data {
  /// The rsaEncryption AlgorithmIdentifier (OID 1.2.840.113549.1.1.1, NULL parameters).
  private static let rsaAlgorithm: [UInt8] = [
    0x30, 0x0D, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01, 0x05, 0x00,
  ]

  private static func derLength(_ length: Int) -> [UInt8] {
    guard length >= 0x80 else { return [UInt8(length)] }
    var bytes: [UInt8] = []
    var rest = length
    while rest > 0 {
      bytes.insert(UInt8(rest & 0xFF), at: 0)
      rest >>= 8
    }
    return [0x80 | UInt8(bytes.count)] + bytes
  }

  /// A PKCS#1 RSAPublicKey wrapped as SubjectPublicKeyInfo (the X.509 header prepended).
  public func prependx509Header() -> Data {
    let bitString = [0x03] + Self.derLength(count + 1) + [0x00] + Array(self)
    let body = Self.rsaAlgorithm + bitString
    return Data([0x30] + Self.derLength(body.count) + body)
  }

  /// Whether the bytes are a SubjectPublicKeyInfo (a SEQUENCE starting with the
  /// rsaEncryption AlgorithmIdentifier).
  /// - Throws: ``SwiftyRSAError/asn1ParsingFailed`` for bytes that are not a DER SEQUENCE.
  public func hasX509Header() throws -> Bool {
    let bytes = Array(self)
    guard bytes.count >= 2, bytes[0] == 0x30 else { throw SwiftyRSAError.asn1ParsingFailed }
    var index = 1
    if bytes[1] & 0x80 != 0 {
      index += 1 + Int(bytes[1] & 0x7F)
    } else {
      index += 1
    }
    guard index <= bytes.count else { throw SwiftyRSAError.asn1ParsingFailed }
    return bytes[index...].starts(with: Self.rsaAlgorithm)
  }

  /// Whether the bytes are a bare PKCS#1 key (no X.509 header).
  /// - Throws: ``SwiftyRSAError/asn1ParsingFailed`` as ``hasX509Header()``.
  public func isAnHeaderlessKey() throws -> Bool { try !hasX509Header() }
}
