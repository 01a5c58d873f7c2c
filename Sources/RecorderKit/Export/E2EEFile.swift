import Foundation
import RecorderAudio
import RecorderCrypto
import RecorderProtocol

/// End-to-end encrypted recordings (PROTOCOL.md §9): the 512-byte header, the file key
/// RSA-unwrapped with the user's private key, the audio ChaCha20 (RFC 7539) restarted every
/// `segment` bytes of ciphertext with the same key and nonce, as the header's `segment`
/// field says (0: one continuous stream) [sdk-code][client].
///
/// The initial block counter of each segment is read two ways (§9, §12): the header's
/// `counter` field (a working client, and the project's choice) or 0 (the vendor SDK). The
/// field is tried first, then 0, on the first bytes of audio; the one that gives the
/// device's framing (TOC `0xB8` packets, or an Ogg page) is used (they agree when the field
/// is 0). A file that decrypts to neither is refused (``E2EEError/unknownCounterRole(_:)``);
/// raw audio is then checked frame by frame over its whole length as it is decrypted, so a
/// layout this SDK does not know (another segment length) is refused
/// (``E2EEError/notDeviceAudio(offset:)``), never exported as noise after its first segment.
/// Decryption streams in 64 KiB pieces: memory use does not depend on the
/// recording's length (DESIGN.md invariant 5).
public enum E2EEFile {
  /// Bytes read, decrypted and written at a time.
  package static let chunkBytes = 64 * 1024

  /// Whether the file at `path` starts with the E2EE magic.
  public static func isEncrypted(path: String) -> Bool {
    guard let handle = FileHandle(forReadingAtPath: path) else { return false }
    defer { try? handle.close() }
    let head = (try? handle.read(upToCount: E2EEFileHeader.magic.count)) ?? Data()
    return E2EEFileHeader.looksEncrypted(Array(head))
  }

  /// The header of the file at `path`.
  /// - Throws: ``E2EEError``.
  package static func header(path: String) throws(E2EEError) -> E2EEFileHeader {
    guard let handle = FileHandle(forReadingAtPath: path) else {
      throw .io(path: path, reason: "cannot open")
    }
    defer { try? handle.close() }
    let head: Data
    do {
      head = try handle.read(upToCount: E2EEFileHeader.length) ?? Data()
    } catch {
      throw .io(path: path, reason: "cannot read")
    }
    do {
      return try E2EEFileHeader(decoding: Array(head))
    } catch {
      throw .header(error)
    }
  }

  /// The file key of `header`, unwrapped with `userKey`.
  /// - Throws: ``E2EEError/wrongKey`` when it does not unwrap to 32 bytes.
  package static func fileKey(of header: E2EEFileHeader, userKey: RSAPrivateKey)
    throws(E2EEError) -> [UInt8]
  {
    guard let key = try? userKey.decrypt(header.keyCipher, padding: .pkcs1v15),
      key.count == ChaChaPoly.keyLength
    else { throw .wrongKey }
    return key
  }

  /// Decrypts the E2EE file at `input` into `output` (created 0600, replaced if present),
  /// streaming; returns the header. On failure `output` is removed.
  /// - Throws: ``E2EEError``: a bad magic or truncated header, a wrong key, file errors.
  @discardableResult
  public static func decrypt(_ input: String, to output: String, userKey: RSAPrivateKey)
    throws(E2EEError) -> E2EEFileHeader
  {
    let header = try header(path: input)
    let key = try fileKey(of: header, userKey: userKey)
    let counter = try blockCounter(input, header: header, key: key)
    let stream = try keystream(key: key, header: header, counter: counter)
    let check = try framingCheck(input, header: header, key: key, counter: counter)
    try pipe(
      input, from: UInt64(E2EEFileHeader.length), through: stream, to: output, after: [],
      failure: (input, "decrypting failed"), check: check)
    return header
  }

  /// The audio's keystream: each `header.segment` bytes from block `counter`.
  static func keystream(key: [UInt8], header: E2EEFileHeader, counter: UInt32)
    throws(E2EEError) -> SegmentedChaCha20
  {
    do {
      return try SegmentedChaCha20(
        key: key, nonce: header.nonce, counter: counter, segment: Int(header.segment))
    } catch .unsupported(let operation) {
      throw .unsupported(operation)
    } catch {
      throw .wrongKey
    }
  }

  /// The ChaCha20 block counter each segment of `input`'s audio starts at: the header's
  /// `counter` field or 0, whichever decrypts the first audio bytes to the device's framing,
  /// the field first (0 when the field is 0 or when there is no audio).
  /// - Throws: ``E2EEError/unknownCounterRole(_:)`` when neither does.
  static func blockCounter(_ input: String, header: E2EEFileHeader, key: [UInt8])
    throws(E2EEError) -> UInt32
  {
    guard let reader = FileHandle(forReadingAtPath: input) else {
      throw .io(path: input, reason: "cannot open")
    }
    defer { try? reader.close() }
    let sample: [UInt8]
    do {
      try reader.seek(toOffset: UInt64(E2EEFileHeader.length))
      sample = Array(try reader.read(upToCount: 2 * 80 + 1) ?? Data())
    } catch {
      throw .io(path: input, reason: "cannot read")
    }
    guard !sample.isEmpty, header.counter != 0 else { return 0 }
    for counter in [header.counter, 0] {
      var bytes = sample
      guard let stream = try? keystream(key: key, header: header, counter: counter),
        (try? stream.apply(&bytes)) != nil
      else { continue }
      if looksLikeDeviceAudio(bytes, channels: header.channels == 2 ? 2 : 1) { return counter }
    }
    throw .unknownCounterRole(header.counter)
  }

  /// How the decrypted audio is checked as it streams: raw device frames, each frame's
  /// framing over the whole length (the first segment alone proves nothing about the
  /// others); an Ogg stream is left to the exporter's page checks (nil).
  private static func framingCheck(
    _ input: String, header: E2EEFileHeader, key: [UInt8], counter: UInt32
  ) throws(E2EEError) -> (([UInt8], Int64) -> Bool)? {
    guard let reader = FileHandle(forReadingAtPath: input) else {
      throw .io(path: input, reason: "cannot open")
    }
    defer { try? reader.close() }
    var head: [UInt8]
    do {
      try reader.seek(toOffset: UInt64(E2EEFileHeader.length))
      head = Array(try reader.read(upToCount: 4) ?? Data())
    } catch {
      throw .io(path: input, reason: "cannot read")
    }
    do {
      try keystream(key: key, header: header, counter: counter).apply(&head)
    } catch {
      throw .wrongKey  // unreachable: the same keystream decrypted the sample
    }
    guard !head.starts(with: Array("OggS".utf8)) else { return nil }
    let frameBytes = DeviceAudioFormat.packetBytes * (header.channels == 2 ? 2 : 1)
    return { bytes, offset in
      RangeReceiver.isDeviceOpus(bytes, at: offset, frameBytes: frameBytes)
    }
  }

  /// The duration of an E2EE recording whose audio is Ogg Opus, from its pages (as
  /// `AudioExporter.oggDurationMs(ofRecordingAt:)`): only the audio's first 64 bytes and its
  /// last 64 KiB are decrypted (the keystream is positioned, not run through the file).
  /// nil when the audio is not Ogg, or the file cannot be read or decrypted with `userKey`.
  package static func oggDurationMs(ofEncrypted path: String, userKey: RSAPrivateKey) -> Int? {
    guard let header = try? header(path: path),
      let key = try? fileKey(of: header, userKey: userKey),
      let counter = try? blockCounter(path, header: header, key: key),
      let reader = FileHandle(forReadingAtPath: path)
    else { return nil }
    defer { try? reader.close() }
    func decrypted(_ count: Int, at offset: Int) -> [UInt8]? {
      guard
        let stream = try? SegmentedChaCha20(
          key: key, nonce: header.nonce, counter: counter, segment: Int(header.segment),
          offset: offset),
        (try? reader.seek(toOffset: UInt64(E2EEFileHeader.length + offset))) != nil,
        var bytes = (try? reader.read(upToCount: count)).map({ Array($0) }),
        bytes.count == count, (try? stream.apply(&bytes)) != nil
      else { return nil }
      return bytes
    }
    guard let end = try? reader.seekToEnd() else { return nil }
    let audio = Int(end) - E2EEFileHeader.length
    let tailLength = min(audio, AudioExporter.oggTailBytes)
    guard audio > 0, let head = decrypted(min(64, audio), at: 0),
      head.starts(with: Array("OggS".utf8)),
      let tail = decrypted(tailLength, at: audio - tailLength)
    else { return nil }
    return AudioExporter.oggDurationMs(head: head, tail: tail)
  }

  /// Raw device frames of `channels` (each frame's framing as far as the bytes reach: two
  /// mono packets or one stereo packet) or an Ogg page's capture pattern.
  static func looksLikeDeviceAudio(_ bytes: [UInt8], channels: Int) -> Bool {
    if bytes.starts(with: Array("OggS".utf8)) { return true }
    guard let format = try? DeviceAudioFormat(channels: channels) else { return false }
    return stride(from: 0, to: bytes.count, by: format.bytesPerFrame).allSatisfy {
      format.frameIsDeviceOpus(bytes, at: $0)
    }
  }

  /// The file an export reads: `raw` itself when it is plain, else its audio decrypted
  /// with `credentials`' key into a 0600 file at `scratch` (the caller removes it when the
  /// path returned is not `raw`), with the channel count the header records.
  /// - Throws: ``E2EEError``: ``E2EEError/noKey`` when the file is encrypted and there are no
  ///   credentials, ``E2EEError/userKey(_:)`` when their key cannot be read (a key store
  ///   failing), a wrong key, a bad header, file errors.
  static func plainSource(
    _ raw: String, recordedChannels: Int, scratch: String, credentials: ModeBCredentials?
  ) throws(E2EEError) -> (path: String, channels: Int) {
    guard isEncrypted(path: raw) else { return (raw, recordedChannels) }
    guard let credentials else { throw .noKey }
    let key: RSAPrivateKey
    do {
      key = try credentials.userKey()
    } catch .noUserKey {
      throw .noKey
    } catch {
      throw .userKey(error)
    }
    let header = try decrypt(raw, to: scratch, userKey: key)
    return (scratch, header.channels == 2 ? 2 : 1)
  }

  /// Writes `prefix` then `input`'s bytes from offset `start`, each chunk through `stream`,
  /// into `output` (created 0600, replaced if present), streaming. `check`, given each
  /// chunk as it comes out of `stream` and its offset from `start`, may refuse it
  /// (``E2EEError/notDeviceAudio(offset:)``). On failure `output` is removed and `failure`
  /// (a path and a reason) is thrown.
  private struct PipeRefusal: Error {}

  private static func pipe(
    _ input: String, from start: UInt64, through stream: SegmentedChaCha20, to output: String,
    after prefix: [UInt8], failure: (path: String, reason: String),
    check: (([UInt8], Int64) -> Bool)? = nil
  ) throws(E2EEError) {
    guard let reader = FileHandle(forReadingAtPath: input) else {
      throw .io(path: input, reason: "cannot open")
    }
    defer { try? reader.close() }
    // A fresh file, never an existing one: whatever sits at `output` (a stale plaintext
    // from a crash, a symlink planted there) is removed, and the new one is created
    // exclusively, so decrypted audio never goes through a link or into a file others could
    // already read.
    unlink(output)
    let descriptor = open(output, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      throw .io(path: output, reason: String(cString: strerror(errno)))
    }
    let writer = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    var offset: Int64 = 0
    do {
      try writer.write(contentsOf: prefix)
      try reader.seek(toOffset: start)
      while let data = try reader.read(upToCount: chunkBytes), !data.isEmpty {
        var bytes = Array(data)
        try stream.apply(&bytes)
        if let check, !check(bytes, offset) { throw PipeRefusal() }
        try writer.write(contentsOf: bytes)
        offset += Int64(bytes.count)
      }
      try writer.close()
    } catch is PipeRefusal {
      try? writer.close()
      unlink(output)
      throw .notDeviceAudio(offset: offset)
    } catch {
      try? writer.close()
      unlink(output)
      throw .io(path: failure.path, reason: failure.reason)
    }
  }
}

extension E2EEFile {
  /// Encrypts the plain recording at `input` into an E2EE file at `output` for `userKey`
  /// (a fresh file key and nonce, the key RSA-wrapped PKCS#1 v1.5), streaming: what a Mode B
  /// device stores [sdk], for tests and tools.
  /// - Throws: ``E2EEError/io(path:reason:)``.
  ///   - counterField: the header's `counter` value;
  ///   - startsAtCounterField: encrypt each segment from block counter `counterField` (else
  ///     from 0): the two readings of the field (PROTOCOL.md §9).
  ///   - segment: the header's `segment`: the keystream restarts every `segment` bytes (0:
  ///     one stream).
  package static func encrypt(
    _ input: String, to output: String, for userKey: RSAPublicKey, channels: UInt16 = 1,
    counterField: UInt32 = 0, startsAtCounterField: Bool = false, segment: UInt32 = 0
  ) throws(E2EEError) {
    let header: E2EEFileHeader
    let stream: SegmentedChaCha20
    do {
      let key = try SecureRandom.bytes(ChaChaPoly.keyLength)
      let nonce = try SecureRandom.bytes(ChaChaPoly.nonceLength)
      header = E2EEFileHeader(
        channels: channels, counter: counterField, nonce: nonce, segment: segment,
        keyCipher: try userKey.encrypt(key, padding: .pkcs1v15))
      stream = try SegmentedChaCha20(
        key: key, nonce: nonce, counter: startsAtCounterField ? counterField : 0,
        segment: Int(segment))
    } catch {
      throw .io(path: output, reason: "key set-up failed")
    }
    try pipe(
      input, from: 0, through: stream, to: output, after: header.encoded,
      failure: (output, "encrypting failed"))
  }
}

/// Why an E2EE file could not be decrypted. Never carries key material.
public enum E2EEError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The header is not an E2EE header (bad magic) or is cut short.
  case header(E2EEHeaderError)
  /// The file key does not unwrap with this private key: the file is another user's.
  case wrongKey
  /// The file is end-to-end encrypted and no private key was given.
  case noKey
  /// The user's private key could not be read (its key store failed, or it is not a key):
  /// the recording stays as it is until it can.
  case userKey(ModeBError)
  /// A file could not be read or written.
  case io(path: String, reason: String)
  /// This platform's crypto engine cannot decrypt it (an engine without raw ChaCha20, see
  /// `CryptoEngine`; both engines shipped have it).
  case unsupported(String)
  /// The audio decrypts to device audio neither from block counter 0 nor from the header's
  /// `counter` field (this value): the file is not exported rather than exported as noise.
  case unknownCounterRole(UInt32)
  /// Raw audio stopped being the device's frames in the piece decrypted from this offset
  /// (bytes after the header) on: a keystream layout this SDK does not know (another segment
  /// length), or a damaged file. Nothing is exported rather than noise.
  case notDeviceAudio(offset: Int64)

  public var description: String {
    switch self {
    case .header(let error): "\(error)"
    case .wrongKey: "the file's key does not unwrap with this private key (another user's file)"
    case .noKey: "the recording is end-to-end encrypted and no private key was given"
    case .userKey(let error): "the recording is end-to-end encrypted and \(error)"
    case .io(let path, let reason): "\(path): \(reason)"
    case .unknownCounterRole(let counter):
      "the audio decrypts to device audio neither from block counter 0 nor from the header's "
        + "counter \(counter): an E2EE layout this SDK does not know"
    case .notDeviceAudio(let offset):
      "the decrypted audio stops being device frames after byte \(offset): an E2EE layout "
        + "this SDK does not know, or a damaged file"
    case .unsupported(let operation):
      "\(operation) is not available on this platform: the recording cannot be decrypted here"
    }
  }
}
