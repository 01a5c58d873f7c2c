/// Mode B security (PROTOCOL.md §9): the constants both sides share and the project's
/// choices where §9 says "unknown". Each choice lives here and only here (docs/mode-b.md);
/// the emulator can be configured the other way to show the SDK copes.
public enum ModeB {
  /// Phone → device: the cloud's serial signature, base64-decoded [sdk].
  public static let signatureType: UInt16 = 0xFE10
  /// Device → phone: "send me your public key" [sdk]; its content is unknown, RecorderKit
  /// sends one empty chunk and accepts any [project].
  public static let wantsUserKeyType: UInt16 = 0xFE11
  /// Both ways: key material (phone: its RSA public key text; device: the wrapped session
  /// key) [sdk].
  public static let keyMaterialType: UInt16 = 0xFE12
  /// Phone → device: like `FE10`, and the device forgets its user key first [sdk][project].
  public static let forceClearType: UInt16 = 0xFE20

  /// The plaintext the session key's box must open to [sdk].
  public static let sessionKeyCheck = Array("PLAUD.AI".utf8)
  /// The first sequence number either side seals with: 1, as the working client sends; the
  /// vendor's SDK sends 2 and the device accepted both (PROTOCOL.md §9, §12) [client]
  /// (device side [project]).
  public static let firstSequence: UInt32 = 1

  /// Chunk indices RecorderKit sends start at 0, the count before the index (PROTOCOL.md §2,
  /// §9, §11 vectors 15–16) [sdk-code][client]: a device reassembling by the vendor's
  /// convention never completes a 1-based message. Received chunks are sorted by index and
  /// accepted with either base, in case a device numbers from 1 (``PreHandshakeAssembler``)
  /// [project].
  public static let chunkIndexBase: ChunkIndexBase = .zero
  /// [project] Which notifications RecorderKit accepts: a sequence number above the last
  /// one accepted (gaps allowed, a repeat or a step back dropped and counted).
  public static let sequencePolicy: SequencePolicy = .increasing

  /// `seq u32 ‖ frame`, the plaintext of one sealed write or notification [sdk] (u32
  /// little-endian like every integer of the protocol [project]).
  public static func sequenced(_ sequence: UInt32, _ frame: [UInt8]) -> [UInt8] {
    var writer = ByteWriter()
    writer.u32(sequence)
    writer.bytes(frame)
    return writer.bytes
  }

  /// Splits an opened `seq u32 ‖ frame`.
  /// - Throws: ``FrameError/truncated(field:needed:available:)`` below 4 bytes.
  public static func unsequenced(_ plaintext: [UInt8]) throws(FrameError) -> (
    sequence: UInt32, frame: [UInt8]
  ) {
    var reader = ByteReader(plaintext)
    let sequence = try reader.u32("seq")
    return (sequence, reader.rest())
  }
}

/// Where pre-handshake chunk indices start: 0 (§2, §9 [sdk-code][client]); 1 was the
/// project's earlier guess, kept for a device that might number from 1.
public enum ChunkIndexBase: UInt8, Sendable, CaseIterable {
  case zero = 0
  case one = 1
}

/// How a receiver of sealed frames judges sequence numbers (§9: "drop notifications whose
/// seq went backwards"; how strict is unknown).
public enum SequencePolicy: String, Sendable, CaseIterable {
  /// Exactly one more than the last accepted (the first must be ``ModeB/firstSequence``).
  case strict
  /// More than the last accepted: gaps allowed, repeats and steps back refused.
  case increasing

  /// Whether `sequence` may follow `last` (nil: nothing accepted yet).
  public func accepts(_ sequence: UInt32, after last: UInt32?) -> Bool {
    switch self {
    case .strict: sequence == (last.map { $0 &+ 1 } ?? ModeB.firstSequence)
    case .increasing: last.map { sequence > $0 } ?? (sequence >= ModeB.firstSequence)
    }
  }
}

extension PreHandshakeChunk {
  /// `payload` cut into chunks of at most ``maximumChunkLength`` bytes, numbered from
  /// `indexBase`; an empty payload is one empty chunk.
  /// - Precondition: at most 255 chunks (a programmer error: keys and signatures are far
  ///   smaller).
  public static func chunks(
    type: UInt16, payload: [UInt8], indexBase: ChunkIndexBase = ModeB.chunkIndexBase,
    maximumData: Int = maximumChunkLength
  ) -> [PreHandshakeChunk] {
    let pieces =
      payload.isEmpty
      ? [[]]
      : stride(from: 0, to: payload.count, by: maximumData).map {
        Array(payload[$0..<min(payload.count, $0 + maximumData)])
      }
    precondition(pieces.count <= 255, "a pre-handshake message of more than 255 chunks")
    return pieces.enumerated().map { index, piece in
      PreHandshakeChunk(
        type: type, count: UInt8(pieces.count), index: UInt8(index) + indexBase.rawValue,
        chunk: piece)
    }
  }

  /// The frame's bytes on the wire.
  public var encoded: [UInt8] { Frame.preHandshake(self).encoded() }
}
