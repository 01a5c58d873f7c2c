import Foundation
import RecorderCrypto
import RecorderKit
import RecorderProtocol
import TestSupport
import Testing

/// Issue 16: end-to-end encrypted recordings (PROTOCOL.md §9): header, key unwrap, ChaCha20
/// stream, typed errors.
@Suite("E2EE files")
struct E2EEFileTests {
  static func temporary(_ name: String) -> String {
    NSTemporaryDirectory() + "recorder-e2ee-\(UUID().uuidString)-\(name)"
  }

  static func write(_ bytes: [UInt8], to path: String) {
    _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
  }

  static var fixtureBytes: [UInt8] { [UInt8](hex: E2EEFixture.fileHex) ?? [] }

  @Test("the independent fixture (Python cryptography) decrypts to its plain audio")
  func fixtureDecrypts() throws {
    let input = Self.temporary("in")
    let output = Self.temporary("out")
    defer { unlink(input); unlink(output) }
    Self.write(Self.fixtureBytes, to: input)
    #expect(E2EEFile.isEncrypted(path: input))
    let key = try RSAPrivateKey(pem: E2EEFixture.userKeyPEM)
    let header = try E2EEFile.decrypt(input, to: output, userKey: key)
    #expect(header.channels == 1)
    #expect(header.headerSize == 512)
    #expect(Array(header.userId.prefix(6)) == Array("user-1".utf8))
    let plain = try #require(FileManager.default.contents(atPath: output))
    #expect(Digest.sha256(Array(plain)).hexDigits() == E2EEFixture.plainSHA256)
    #expect(plain.first == ProtocolDefaults.opusTOCByte)
  }

  /// Decrypted audio never goes through a symlink planted at the output path, nor into a
  /// file that already existed with a looser mode: the output is a fresh 0600 file.
  @Test("the plaintext output is a fresh 0600 file, never a planted symlink's target")
  func outputIsFreshAndPrivate() throws {
    let input = Self.temporary("in")
    let output = Self.temporary("out")
    let victim = Self.temporary("victim")
    defer { unlink(input); unlink(output); unlink(victim) }
    Self.write(Self.fixtureBytes, to: input)
    Self.write(Array("keep me".utf8), to: victim)
    try FileManager.default.createSymbolicLink(atPath: output, withDestinationPath: victim)
    let key = try RSAPrivateKey(pem: E2EEFixture.userKeyPEM)
    try E2EEFile.decrypt(input, to: output, userKey: key)
    #expect(FileManager.default.contents(atPath: victim) == Data("keep me".utf8))
    let attributes = try FileManager.default.attributesOfItem(atPath: output)
    #expect(attributes[.type] as? FileAttributeType == .typeRegular)
    #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    let plain = try #require(FileManager.default.contents(atPath: output))
    #expect(Digest.sha256(Array(plain)).hexDigits() == E2EEFixture.plainSHA256)

    // A world-readable file already there is replaced, not reused with its mode.
    unlink(output)
    _ = FileManager.default.createFile(
      atPath: output, contents: Data("old".utf8), attributes: [.posixPermissions: 0o644])
    try E2EEFile.decrypt(input, to: output, userKey: key)
    let mode = try FileManager.default.attributesOfItem(atPath: output)[.posixPermissions]
    #expect((mode as? NSNumber)?.intValue == 0o600)
  }

  @Test("a recording larger than one chunk round-trips through encrypt and decrypt, streaming")
  func multiChunkRoundTrip() throws {
    let plainPath = Self.temporary("plain")
    let sealed = Self.temporary("sealed")
    let opened = Self.temporary("opened")
    defer { unlink(plainPath); unlink(sealed); unlink(opened) }
    // 3.5 chunks, not a multiple of the ChaCha20 block: every boundary is crossed. Device
    // audio (two mono packets a frame: TOC 0xB8 every 80 bytes), since decryption checks
    // the framing over the whole length.
    let plain = (0..<(E2EEFile.chunkBytes * 7 / 2 + 13)).map {
      $0 % 80 == 0 ? 0xB8 : UInt8(truncatingIfNeeded: $0 * 31)
    }
    Self.write(plain, to: plainPath)
    let key = try TestUserKey.key()
    try E2EEFile.encrypt(plainPath, to: sealed, for: try key.publicKey(), channels: 2)
    let sealedBytes = try #require(FileManager.default.contents(atPath: sealed))
    #expect(sealedBytes.count == plain.count + 512)
    #expect(Array(sealedBytes.dropFirst(512).prefix(64)) != Array(plain.prefix(64)))
    #expect(try E2EEFile.decrypt(sealed, to: opened, userKey: key).channels == 2)
    #expect(FileManager.default.contents(atPath: opened).map(Array.init) == plain)
  }

  @Test(
    "the header's counter field read both ways: unused, or the starting block counter; neither is refused"
  )
  func counterFieldReadings() throws {
    let plainPath = Self.temporary("plain-counter")
    let sealed = Self.temporary("sealed-counter")
    let opened = Self.temporary("opened-counter")
    defer { unlink(plainPath); unlink(sealed); unlink(opened) }
    // Device-shaped plaintext: a TOC byte at every 80-byte packet.
    let plain = (0..<(80 * 300)).map { $0 % 80 == 0 ? 0xB8 : UInt8(truncatingIfNeeded: $0 &* 7) }
    Self.write(plain, to: plainPath)
    let key = try TestUserKey.key()
    for startsAtField in [false, true] {
      try E2EEFile.encrypt(
        plainPath, to: sealed, for: try key.publicKey(), counterField: 7,
        startsAtCounterField: startsAtField)
      #expect(try E2EEFile.decrypt(sealed, to: opened, userKey: key).counter == 7)
      #expect(
        FileManager.default.contents(atPath: opened).map(Array.init) == plain,
        "starts at the field: \(startsAtField)")
    }
    // Two channels as one stereo packet a frame (TOC 0xBC every 160 bytes) are device audio
    // too.
    let stereo = (0..<(160 * 100)).map { $0 % 160 == 0 ? 0xBC : UInt8(truncatingIfNeeded: $0 &* 5) }
    Self.write(stereo, to: plainPath)
    try E2EEFile.encrypt(
      plainPath, to: sealed, for: try key.publicKey(), channels: 2, counterField: 7,
      startsAtCounterField: true)
    #expect(try E2EEFile.decrypt(sealed, to: opened, userKey: key).channels == 2)
    #expect(FileManager.default.contents(atPath: opened).map(Array.init) == stereo)
    Self.write(plain, to: plainPath)
    try E2EEFile.encrypt(
      plainPath, to: sealed, for: try key.publicKey(), counterField: 7, startsAtCounterField: true)
    // The field says 9, the audio starts at 7: neither reading gives device audio.
    var header = try E2EEFile.header(path: sealed)
    header.counter = 9
    let bytes = try #require(FileManager.default.contents(atPath: sealed))
    Self.write(header.encoded + Array(bytes.dropFirst(512)), to: sealed)
    unlink(opened)
    #expect(throws: E2EEError.unknownCounterRole(9)) {
      try E2EEFile.decrypt(sealed, to: opened, userKey: key)
    }
    #expect(!FileManager.default.fileExists(atPath: opened))
  }

  /// An E2EE file as a device writes it (PROTOCOL.md §9), built here without RecorderKit's
  /// encryption: the header, then `plain` XORed segment by segment with a fresh ChaCha20
  /// keystream (same key and nonce) from block `startCounter`; `segment` 0, one stream.
  static func deviceFile(
    _ plain: [UInt8], userKey: RSAPrivateKey, counterField: UInt32, startCounter: UInt32,
    segment: UInt32, headerSegment: UInt32? = nil
  ) throws -> [UInt8] {
    let fileKey = (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
    let nonce = (0..<12).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) }
    let header = E2EEFileHeader(
      counter: counterField, nonce: nonce, segment: headerSegment ?? segment,
      keyCipher: try userKey.publicKey().encrypt(fileKey, padding: .pkcs1v15))
    var body: [UInt8] = []
    let step = segment == 0 ? max(1, plain.count) : Int(segment)
    for start in stride(from: 0, to: plain.count, by: step) {
      body += try ChaCha20Stream(key: fileKey, nonce: nonce, counter: startCounter)
        .applied(to: Array(plain[start..<min(plain.count, start + step)]))
    }
    return header.encoded + body
  }

  @Test(
    "the keystream restarts every segment: each segment length and counter reading decrypts",
    arguments: [
      (UInt32(4096), UInt32(0), UInt32(0)), (4096, 7, 0), (4096, 7, 7), (100, 0, 0),
      (16_000, 3, 3), (0, 0, 0), (0, 7, 7),
    ])
  func segmentedKeystream(_ segment: UInt32, _ counterField: UInt32, _ startCounter: UInt32)
    throws
  {
    let input = Self.temporary("segmented")
    let output = Self.temporary("segmented-out")
    defer { unlink(input); unlink(output) }
    // 600 device frames (48 000 bytes): about 12 segments of 4 KiB, a boundary inside a
    // frame, and more than one 64 KiB read when the chunking is small.
    let plain = (0..<(80 * 600)).map { $0 % 80 == 0 ? 0xB8 : UInt8(truncatingIfNeeded: $0 &* 7) }
    let key = try TestUserKey.key()
    Self.write(
      try Self.deviceFile(
        plain, userKey: key, counterField: counterField, startCounter: startCounter,
        segment: segment), to: input)
    let header = try E2EEFile.decrypt(input, to: output, userKey: key)
    #expect(header.segment == segment)
    let opened = try #require(FileManager.default.contents(atPath: output).map(Array.init))
    let first = zip(opened, plain).enumerated().first { $1.0 != $1.1 }?.offset
    #expect(opened.count == plain.count && first == nil, "first differing byte \(first ?? -1)")
  }

  @Test("a header whose segment is not the one the audio was written with is refused, no output")
  func wrongSegmentRefused() throws {
    let input = Self.temporary("wrong-segment")
    let output = Self.temporary("wrong-segment-out")
    defer { unlink(input); unlink(output) }
    let plain = (0..<(80 * 600)).map { $0 % 80 == 0 ? 0xB8 : UInt8(truncatingIfNeeded: $0 &* 7) }
    let key = try TestUserKey.key()
    // Written restarting every 4 KiB, but the header says one stream: the first segment
    // decrypts, the rest would be noise.
    Self.write(
      try Self.deviceFile(
        plain, userKey: key, counterField: 0, startCounter: 0, segment: 4096, headerSegment: 0),
      to: input)
    #expect(throws: E2EEError.notDeviceAudio(offset: 0)) {
      try E2EEFile.decrypt(input, to: output, userKey: key)
    }
    #expect(!FileManager.default.fileExists(atPath: output))
  }

  @Test("another user's key is wrongKey; the output is not left behind")
  func wrongKey() throws {
    let input = Self.temporary("in")
    let output = Self.temporary("out")
    defer { unlink(input); unlink(output) }
    Self.write(Self.fixtureBytes, to: input)
    #expect(throws: E2EEError.wrongKey) {
      try E2EEFile.decrypt(input, to: output, userKey: try TestUserKey.key())
    }
    #expect(!FileManager.default.fileExists(atPath: output))
  }

  @Test("a bad magic and a truncated header are typed errors")
  func badHeaders() throws {
    let input = Self.temporary("in")
    let output = Self.temporary("out")
    defer { unlink(input); unlink(output) }
    let key = try RSAPrivateKey(pem: E2EEFixture.userKeyPEM)
    var bytes = Self.fixtureBytes
    bytes[0] = UInt8(ascii: "X")
    Self.write(bytes, to: input)
    #expect(!E2EEFile.isEncrypted(path: input))
    #expect(throws: E2EEError.header(.badMagic)) {
      try E2EEFile.decrypt(input, to: output, userKey: key)
    }
    Self.write(Array(Self.fixtureBytes.prefix(300)), to: input)
    #expect(throws: E2EEError.header(.truncated(available: 300))) {
      try E2EEFile.decrypt(input, to: output, userKey: key)
    }
    Self.write(Array(Self.fixtureBytes.prefix(5)), to: input)
    #expect(throws: E2EEError.header(.truncated(available: 5))) {
      try E2EEFile.decrypt(input, to: output, userKey: key)
    }
  }

  @Test("the header round-trips field by field")
  func headerRoundTrip() throws {
    let header = E2EEFileHeader(
      version: 2, crc: 0xDEAD_BEEF, userId: Array("someone".utf8), fileType: 3, channels: 2,
      encryptType: 1, durationSeconds: 3600, counter: 7, nonce: Array(1...12), segment: 9,
      algParams: [5], keyCipher: [UInt8](repeating: 0xAB, count: 256))
    #expect(header.encoded.count == 512)
    #expect(try E2EEFileHeader(decoding: header.encoded) == header)
  }
}
