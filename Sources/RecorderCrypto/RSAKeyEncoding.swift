/// The RSA key encodings a platform crypto library without PEM support needs (Security on
/// Apple platforms takes and gives PKCS#1 only): PEM armour, PKCS#8 `PrivateKeyInfo` around a
/// PKCS#1 private key (RFC 5208), and `SubjectPublicKeyInfo` around a PKCS#1 public key
/// (RFC 5280 §4.1.2.7, algorithm rsaEncryption with NULL parameters, RFC 8017 A.1).
///
/// Only DER structure is read and written here; the keys' mathematics stays in the platform
/// library. Every reader checks each length against what is left, so no input can make it
/// read out of bounds; what it does not understand is ``CryptoError/invalidKey``.
enum RSAKeyEncoding {
  /// `rsaEncryption` (1.2.840.113549.1.1.1) with NULL parameters, as an AlgorithmIdentifier.
  static let rsaAlgorithm: [UInt8] = [
    0x30, 0x0D, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01, 0x05, 0x00,
  ]

  // MARK: PEM

  /// `der` as PEM text with `label` (`PUBLIC KEY`, `RSA PRIVATE KEY`, `PRIVATE KEY`):
  /// base64 in lines of 64, LF line ends.
  static func pem(_ der: [UInt8], label: String) -> String {
    let base64 = Base64.encode(der)
    var lines = ["-----BEGIN \(label)-----"]
    var start = base64.startIndex
    while start < base64.endIndex {
      let end = base64.index(start, offsetBy: 64, limitedBy: base64.endIndex) ?? base64.endIndex
      lines.append(String(base64[start..<end]))
      start = end
    }
    lines.append("-----END \(label)-----")
    return lines.joined(separator: "\n") + "\n"
  }

  /// The label and DER bytes of the first PEM block in `text`.
  /// - Throws: ``CryptoError/invalidKey`` when there is no well-formed block.
  static func der(fromPEM text: String) throws(CryptoError) -> (label: String, der: [UInt8]) {
    let lines = trimmedLines(text)
    guard
      let begin = lines.firstIndex(where: { $0.hasPrefix("-----BEGIN ") && $0.hasSuffix("-----") })
    else { throw .invalidKey }
    let label = String(lines[begin].dropFirst("-----BEGIN ".count).dropLast(5))
    guard let end = lines[(begin + 1)...].firstIndex(of: "-----END \(label)-----"),
      let der = Base64.decode(lines[(begin + 1)..<end].joined()), !der.isEmpty
    else { throw .invalidKey }
    return (label, der)
  }

  /// True when `text` holds a private key encrypted under a pass phrase, in any of the
  /// forms OpenSSL writes: an `ENCRYPTED PRIVATE KEY` block (PKCS#8 `EncryptedPrivateKeyInfo`,
  /// RFC 5208 §6), a PEM header `Proc-Type: 4,ENCRYPTED` (RFC 1421 §4.6.1.1, OpenSSL's
  /// "traditional" encrypted PKCS#1), or a `PRIVATE KEY` block whose DER is shaped as an
  /// `EncryptedPrivateKeyInfo` (an AlgorithmIdentifier, then an OCTET STRING) rather than a
  /// `PrivateKeyInfo` (a version INTEGER first). Reading such a key would need a pass
  /// phrase, so it is refused before any library could ask for one.
  static func isEncryptedPrivateKey(pem text: String) -> Bool {
    let lines = trimmedLines(text)
    var label: String?
    var body: [String] = []
    for line in lines {
      if line.hasPrefix("-----BEGIN "), line.hasSuffix("-----") {
        label = String(line.dropFirst("-----BEGIN ".count).dropLast(5))
        if label == "ENCRYPTED PRIVATE KEY" { return true }
        body = []
      } else if let current = label, line == "-----END \(current)-----" {
        if current == "PRIVATE KEY", let der = Base64.decode(body.joined()),
          isEncryptedPrivateKeyInfo(der)
        {
          return true
        }
        label = nil
      } else if label != nil {
        let header = line.uppercased()
        if header.hasPrefix("PROC-TYPE:"), header.contains("ENCRYPTED") { return true }
        body.append(line)
      }
    }
    return false
  }

  /// True when `der` is a SEQUENCE of a SEQUENCE (the encryption algorithm) and an OCTET
  /// STRING (the encrypted data), nothing more: RFC 5208's `EncryptedPrivateKeyInfo`.
  private static func isEncryptedPrivateKeyInfo(_ der: [UInt8]) -> Bool {
    guard var outer = try? DERReader(der).sequence(),
      (try? outer.element(tag: 0x30)) != nil, (try? outer.element(tag: 0x04)) != nil
    else { return false }
    return outer.isAtEnd
  }

  /// `text`'s lines, split and trimmed on the UTF-8 bytes (LF, CR LF or CR; spaces and tabs).
  private static func trimmedLines(_ text: String) -> [String] {
    let blank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
    return text.utf8.split(whereSeparator: { $0 == 0x0A || $0 == 0x0D }).map { line in
      let start = line.firstIndex { !blank($0) } ?? line.endIndex
      let end = line.lastIndex { !blank($0) }.map { line.index(after: $0) } ?? start
      return String(decoding: line[start..<max(start, end)], as: UTF8.self)
    }
  }

  // MARK: PKCS#8 and SubjectPublicKeyInfo

  /// The PKCS#1 `RSAPrivateKey` inside a PKCS#8 `PrivateKeyInfo`.
  /// - Throws: ``CryptoError/notRSA`` for another algorithm, ``CryptoError/invalidKey``.
  static func pkcs1(fromPKCS8 der: [UInt8]) throws(CryptoError) -> [UInt8] {
    var outer = try DERReader(der).sequence()
    let version = try outer.element(tag: 0x02)
    guard version == [0x00] else { throw .invalidKey }
    guard try outer.element(tag: 0x30, whole: true) == rsaAlgorithm else { throw .notRSA }
    return try outer.element(tag: 0x04)
  }

  /// `pkcs1` wrapped as a PKCS#8 `PrivateKeyInfo` (version 0, rsaEncryption).
  static func pkcs8(fromPKCS1 pkcs1: [UInt8]) -> [UInt8] {
    DERWriter.element(0x30, [0x02, 0x01, 0x00] + rsaAlgorithm + DERWriter.element(0x04, pkcs1))
  }

  /// The PKCS#1 `RSAPublicKey` inside a `SubjectPublicKeyInfo`.
  /// - Throws: ``CryptoError/notRSA`` for another algorithm, ``CryptoError/invalidKey``.
  static func pkcs1Public(fromSPKI der: [UInt8]) throws(CryptoError) -> [UInt8] {
    var outer = try DERReader(der).sequence()
    guard try outer.element(tag: 0x30, whole: true) == rsaAlgorithm else { throw .notRSA }
    let bits = try outer.element(tag: 0x03)
    guard bits.first == 0x00, bits.count > 1 else { throw .invalidKey }
    return Array(bits.dropFirst())
  }

  /// `pkcs1` (an `RSAPublicKey`) wrapped as a `SubjectPublicKeyInfo`.
  static func spki(fromPKCS1Public pkcs1: [UInt8]) -> [UInt8] {
    DERWriter.element(0x30, rsaAlgorithm + DERWriter.element(0x03, [0x00] + pkcs1))
  }
}

/// Reads DER elements from bytes, every length checked against what is left.
struct DERReader {
  private let bytes: [UInt8]
  private var position = 0

  init(_ bytes: [UInt8]) { self.bytes = bytes }

  /// True once every byte has been read.
  var isAtEnd: Bool { position == bytes.count }

  /// A reader over the content of the SEQUENCE these bytes are, which must be all of them.
  func sequence() throws(CryptoError) -> DERReader {
    var copy = self
    let content = try copy.element(tag: 0x30)
    guard copy.position == bytes.count else { throw .invalidKey }
    return DERReader(content)
  }

  /// The next element, which must carry `tag`: its content, or with `whole` its tag and
  /// length too.
  mutating func element(tag: UInt8, whole: Bool = false) throws(CryptoError) -> [UInt8] {
    let start = position
    guard position < bytes.count, bytes[position] == tag else { throw .invalidKey }
    position += 1
    let length = try readLength()
    guard length <= bytes.count - position else { throw .invalidKey }
    let content = Array(bytes[position..<(position + length)])
    position += length
    return whole ? Array(bytes[start..<position]) : content
  }

  /// A definite DER length: short form, or long form in at most four bytes.
  private mutating func readLength() throws(CryptoError) -> Int {
    guard position < bytes.count else { throw .invalidKey }
    let first = bytes[position]
    position += 1
    guard first & 0x80 != 0 else { return Int(first) }
    let count = Int(first & 0x7F)
    guard (1...4).contains(count), count <= bytes.count - position else { throw .invalidKey }
    var length = 0
    for _ in 0..<count {
      length = length << 8 | Int(bytes[position])
      position += 1
    }
    return length
  }
}

/// Writes DER elements.
enum DERWriter {
  /// `tag`, the definite length of `content`, then `content`.
  static func element(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
    [tag] + length(content.count) + content
  }

  static func length(_ count: Int) -> [UInt8] {
    guard count >= 0x80 else { return [UInt8(count)] }
    var bytes: [UInt8] = []
    var rest = count
    while rest > 0 {
      bytes.insert(UInt8(rest & 0xFF), at: 0)
      rest >>= 8
    }
    return [0x80 | UInt8(bytes.count)] + bytes
  }
}

/// Standard base64 (RFC 4648 §4) without Foundation, for PEM armour.
enum Base64 {
  private static let alphabet = Array(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
  /// Each byte's value as a base64 digit, or -1.
  private static let digits: [Int8] = {
    var table = [Int8](repeating: -1, count: 256)
    for (value, character) in alphabet.enumerated() { table[Int(character)] = Int8(value) }
    return table
  }()

  static func encode(_ bytes: [UInt8]) -> String {
    var out: [UInt8] = []
    out.reserveCapacity((bytes.count + 2) / 3 * 4)
    var index = 0
    while index < bytes.count {
      let chunk = Array(bytes[index..<min(index + 3, bytes.count)])
      let value =
        UInt32(chunk[0]) << 16 | UInt32(chunk.count > 1 ? chunk[1] : 0) << 8
        | UInt32(chunk.count > 2 ? chunk[2] : 0)
      for position in 0..<4 {
        out.append(
          position <= chunk.count ? alphabet[Int(value >> (18 - 6 * position) & 0x3F)] : 0x3D)
      }
      index += 3
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// nil for anything but padded standard base64.
  static func decode(_ text: String) -> [UInt8]? {
    let characters = Array(text.utf8)
    guard characters.count % 4 == 0 else { return nil }
    var out: [UInt8] = []
    out.reserveCapacity(characters.count / 4 * 3)
    var index = 0
    while index < characters.count {
      var value: UInt32 = 0
      var padding = 0
      for offset in 0..<4 {
        let character = characters[index + offset]
        if character == 0x3D {
          guard index + 4 == characters.count, offset >= 2 else { return nil }
          padding += 1
          value <<= 6
          continue
        }
        let digit = digits[Int(character)]
        guard padding == 0, digit >= 0 else { return nil }
        value = value << 6 | UInt32(digit)
      }
      out.append(UInt8(value >> 16 & 0xFF))
      if padding < 2 { out.append(UInt8(value >> 8 & 0xFF)) }
      if padding < 1 { out.append(UInt8(value & 0xFF)) }
      index += 4
    }
    return out
  }
}
