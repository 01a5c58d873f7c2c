import RecorderCrypto
import RecorderProtocol

/// How an emulated portVersion ≥ 20 device plays Mode B (PROTOCOL.md §9). The defaults follow
/// the strongest evidence (a working client against a Note Pro and a NotePin S [client], the
/// vendor's code [sdk-code]); each alternative §9 leaves open is an option, so tests show the
/// SDK copes with the other answer too.
public struct ModeBParameters: Sendable, Equatable {
  /// Where the device numbers its `FE11`/`FE12` chunks from: 0, as §2 and §9 say
  /// [sdk-code][client]; 1 is the project's earlier guess, kept as an option.
  public var chunkIndexBase: ChunkIndexBase
  /// The only index base the device takes in the phone's `FE10`/`FE20`/`FE12` chunks: 0 (the
  /// default: the vendor's convention, under which a 1-based message never completes); nil
  /// takes either.
  public var phoneChunkIndexBase: ChunkIndexBase? = .zero
  /// Device time the device takes to answer each pre-handshake message and, on a Mode B
  /// device, each HANDSHAKE stage: RSA and the key exchange are slow on the recorder. The
  /// vendor's 10 s whole-connection timeout cut off NotePin S handshakes that were succeeding
  /// [client], so the whole exchange may take more than 10 s; how it splits between the
  /// replies is not known. Default 4 s per reply (about 12 s for `FE11`, `FE12` and `0001`)
  /// [project].
  public var replyDelay: Duration = .seconds(4)
  /// How the device judges the sequence numbers of the phone's sealed writes; a write
  /// refused is dropped and counted (``DeviceCounters/refusedSealedWrites``).
  public var sequencePolicy: SequencePolicy
  /// The user public key the device already holds at power-on (as if bound before); nil, a
  /// fresh device: it asks with `FE11` and takes any key.
  public var provisionedUserKey: RSAPublicKey?
  /// Largest chunk the device sends.
  public var maximumChunkData: Int
  /// Recordings made from now on are stored end-to-end encrypted to this user key (a
  /// 512-byte header, then ChaCha20, PROTOCOL.md §9), and sent as stored; nil: plain.
  public var e2eeUserKey: RSAPublicKey?
  /// Without ``e2eeUserKey``: recordings made while the device holds its owner's user key
  /// (provisioned, or enrolled with `FE12`) are stored end-to-end encrypted to that key, as
  /// a NotePin S's files are (PROTOCOL.md §5, §9: the header's `keyCipher` is wrapped for
  /// the user key); before any key is held they are plain (what a device does then is not
  /// known).
  public var encryptsToOwnerKey = false
  /// The E2EE header's `counter` field (its role is unknown, §9) and whether the audio is
  /// encrypted from that block counter (else from 0): the two readings the SDK must take.
  public var e2eeCounterField: UInt32 = 0
  public var e2eeStartsAtCounterField = false
  /// The E2EE header's `segment` and the keystream's layout: the audio's ChaCha20 restarts
  /// (same key, nonce and initial counter) every this many bytes of ciphertext; 0, one
  /// continuous stream (the other reading, kept as an option). Default
  /// ``defaultE2EESegment``.
  public var e2eeSegment: UInt32 = Self.defaultE2EESegment

  /// The segment length a NotePin S-like device writes: PROTOCOL.md §9 says the keystream
  /// restarts every `segment` bytes [sdk-code][client] but no source gives the value a
  /// device puts there, so this is [project]: 4 KiB (a flash page; not a multiple of the
  /// 80-byte frame, so segments split frames, the harder case for a reader).
  public static let defaultE2EESegment: UInt32 = 4096
  /// The AEAD the device seals its Wi-Fi PDUs with, and says so in bit 3 of the CAPABILITY
  /// bitmap it pushes (§3.1, §6) [sdk-code]: AES-256-GCM by default, as §11 vector 19's
  /// bitmap `08` [sdk-code]; ChaCha20-Poly1305 the other reading.
  public var wifiCipher: AEADAlgorithm
  /// Whether the device pushes the CAPABILITY bitmap after a successful HANDSHAKE
  /// [project: no source shows when, or whether every Mode B device does]; false, a device
  /// that never does (the phone then tells the AEAD from the first PDU).
  public var pushesCapability = true
  /// The serial signature the device insists on in `FE10`/`FE20` (the cloud emulator's
  /// `sn-sign` answer, base64-decoded); a message with another one is left unanswered. nil:
  /// any signature is taken [project: how a real device checks it is unknown].
  public var requiredSerialSignature: [UInt8]?
  /// The device is bound to another account: a HANDSHAKE whose token is not that account's
  /// is answered by dropping the link, not with status 1 (PROTOCOL.md §3.1 [sdk-code]: what a
  /// Mode B device locked to another account does).
  public var boundToAnotherAccount = false

  public init(
    chunkIndexBase: ChunkIndexBase = .zero,
    sequencePolicy: SequencePolicy = ModeB.sequencePolicy,
    provisionedUserKey: RSAPublicKey? = nil,
    maximumChunkData: Int = PreHandshakeChunk.maximumChunkLength, e2eeUserKey: RSAPublicKey? = nil,
    wifiCipher: AEADAlgorithm = .aes256GCM
  ) {
    self.e2eeUserKey = e2eeUserKey
    self.wifiCipher = wifiCipher
    self.chunkIndexBase = chunkIndexBase
    self.sequencePolicy = sequencePolicy
    self.provisionedUserKey = provisionedUserKey
    self.maximumChunkData = maximumChunkData
  }

  /// Sets ``e2eeUserKey`` from PEM text (`PUBLIC KEY`).
  /// - Throws: `CryptoError/invalidKey` and the like.
  public mutating func encryptRecordings(forPEM pem: String) throws(CryptoError) {
    e2eeUserKey = try RSAPublicKey(pem: pem)
  }

  /// Sets ``provisionedUserKey`` from PEM text (`PUBLIC KEY`).
  /// - Throws: `CryptoError/invalidKey` and the like.
  public mutating func provisionUserKey(pem: String) throws(CryptoError) {
    provisionedUserKey = try RSAPublicKey(pem: pem)
  }
}

/// The device's side of an open Mode B channel: one per connection, lost with it; a Wi-Fi
/// session seals with a copy that counts afresh (``forWiFi(_:)``).
struct DeviceChannel {
  let key: [UInt8]
  let nonce: [UInt8]
  let associatedData: [UInt8]
  /// ChaCha20-Poly1305 over BLE [sdk]; a Wi-Fi session's is ``ModeBParameters/wifiCipher``.
  var algorithm = AEADAlgorithm.chaCha20Poly1305
  var nextSend = ModeB.firstSequence
  var lastReceived: UInt32?

  /// The same key, nonce and associated data under `algorithm`, both sequences from the
  /// start: what one Wi-Fi session seals its PDUs with (docs/mode-b.md [project]).
  func forWiFi(_ algorithm: AEADAlgorithm) -> DeviceChannel {
    DeviceChannel(key: key, nonce: nonce, associatedData: associatedData, algorithm: algorithm)
  }

  /// A fresh session key, nonce and associated data.
  static func random() throws(CryptoError) -> DeviceChannel {
    DeviceChannel(
      key: try SecureRandom.bytes(ChaChaPoly.keyLength),
      nonce: try SecureRandom.bytes(ChaChaPoly.nonceLength),
      associatedData: try SecureRandom.bytes(12))
  }

  /// The key material the device wraps for the user (§9 step 3).
  func material() throws(CryptoError) -> SessionKeyMaterial {
    SessionKeyMaterial(
      key: key, nonce: nonce, associatedData: associatedData,
      box: try ChaChaPoly.seal(
        ModeB.sessionKeyCheck, key: key, nonce: nonce, authenticating: associatedData))
  }

  /// One notification sealed with the next send sequence.
  mutating func seal(_ frame: [UInt8]) -> [UInt8] {
    let sequence = nextSend
    nextSend &+= 1
    // Lengths are fixed by `random()`: sealing cannot fail.
    return
      (try? algorithm.seal(
        ModeB.sequenced(sequence, frame), key: key, nonce: nonce,
        authenticating: associatedData)) ?? []
  }

  /// Why the device refused a sealed write.
  enum Refusal: Error {
    case unauthentic
    case sequence
  }

  /// The frame inside one sealed write, if it authenticates and its sequence follows.
  mutating func open(_ sealed: [UInt8], policy: SequencePolicy) throws(Refusal) -> [UInt8] {
    guard
      let plaintext = try? algorithm.open(
        sealed, key: key, nonce: nonce, authenticating: associatedData),
      let (sequence, frame) = try? ModeB.unsequenced(plaintext)
    else { throw .unauthentic }
    guard policy.accepts(sequence, after: lastReceived) else { throw .sequence }
    lastReceived = sequence
    return frame
  }
}

/// The encryption of one recording stored end-to-end encrypted (PROTOCOL.md §9): a fresh
/// file key and nonce, the key RSA-wrapped to the user (PKCS#1 v1.5 [project]), the audio
/// ChaCha20 restarted every `segment` bytes (``ModeBParameters/e2eeSegment``; 0: one
/// stream), each segment from block counter 0 (or from the header's `counter` field, under
/// ``ModeBParameters/e2eeStartsAtCounterField``), applied chunk by chunk as the recording is
/// written.
struct E2EEEncryption {
  let header: E2EEFileHeader
  private let stream: SegmentedChaCha20

  init(
    for userKey: RSAPublicKey, channels: UInt16, counterField: UInt32 = 0,
    startsAtCounterField: Bool = false, segment: UInt32 = ModeBParameters.defaultE2EESegment
  ) throws(EmulatorError) {
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
      throw .encryption("\(error)")
    }
  }

  func apply(_ bytes: inout [UInt8]) throws(EmulatorError) {
    do {
      try stream.apply(&bytes)
    } catch {
      throw .encryption("\(error)")
    }
  }
}
