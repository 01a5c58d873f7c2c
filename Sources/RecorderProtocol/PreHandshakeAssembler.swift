/// Joins the chunks of one pre-handshake message (PROTOCOL.md §9 step 3): collect `count`
/// chunks, sort by `index`, strip the 4-byte headers, join. Outside bytes are hostile, so
/// every rule is checked and a broken message is a typed error, never a crash or a hang;
/// memory is bounded by 255 chunks of one frame each.
///
/// Indices are 0-based (§2, §9 [sdk-code][client]); a receiver made without a base also takes
/// a message numbered `1...count` (RecorderKit does, in case a device numbers from 1
/// [project]). A receiver made with a base takes only that one: a device reassembling by the
/// vendor's convention (``ChunkIndexBase/zero``) finds a 1-based message's last index out of
/// range and never completes it.
public struct PreHandshakeAssembler: Sendable {
  private var type: UInt16?
  private var count: UInt8 = 0
  private var pieces: [UInt8: [UInt8]] = [:]
  /// The only index base taken; nil takes either.
  public let indexBase: ChunkIndexBase?

  /// - Parameter indexBase: the only index base taken; nil (default) takes either.
  public init(indexBase: ChunkIndexBase? = nil) { self.indexBase = indexBase }

  /// True while part of a message is held.
  public var isPartial: Bool { type != nil }

  /// Adds one chunk; returns the message type and joined payload once all `count` chunks
  /// are in (and starts afresh), nil while more are due. A chunk that breaks the rules
  /// drops the partial message and throws.
  public mutating func add(_ chunk: PreHandshakeChunk) throws(PreHandshakeError) -> (
    type: UInt16, payload: [UInt8]
  )? {
    do {
      return try accept(chunk)
    } catch {
      self = PreHandshakeAssembler(indexBase: indexBase)
      throw error
    }
  }

  private mutating func accept(_ chunk: PreHandshakeChunk) throws(PreHandshakeError) -> (
    type: UInt16, payload: [UInt8]
  )? {
    guard chunk.count > 0 else { throw .zeroCount }
    let highest = indexBase == .zero ? chunk.count - 1 : chunk.count
    guard chunk.index <= highest, indexBase != .one || chunk.index > 0 else {
      throw .indexOutOfRange(index: chunk.index, count: chunk.count)
    }
    if let type, type != chunk.type || count != chunk.count {
      throw .interleaved(expected: type, got: chunk.type)
    }
    guard pieces[chunk.index] == nil else { throw .duplicateIndex(chunk.index) }
    type = chunk.type
    count = chunk.count
    pieces[chunk.index] = chunk.chunk
    guard pieces.count == Int(count) else { return nil }
    let indices = pieces.keys.sorted()
    let zeroBased = indexBase != .one && indices == Array(0..<count)
    let oneBased = indexBase != .zero && indices == Array(1...count)
    guard zeroBased || oneBased else { throw .indicesNotContiguous }
    let payload = indices.flatMap { pieces[$0] ?? [] }
    let complete = (chunk.type, payload)
    self = PreHandshakeAssembler(indexBase: indexBase)
    return complete
  }
}

/// Why a pre-handshake message could not be assembled.
public enum PreHandshakeError: Error, Equatable, Sendable, CustomStringConvertible {
  /// A chunk said its message has 0 chunks.
  case zeroCount
  /// An index above `count`.
  case indexOutOfRange(index: UInt8, count: UInt8)
  /// A chunk of another message (type or count) arrived before this one was complete.
  case interleaved(expected: UInt16, got: UInt16)
  /// The same index twice.
  case duplicateIndex(UInt8)
  /// `count` distinct indices that are neither `0..<count` nor `1...count`.
  case indicesNotContiguous

  public var description: String {
    switch self {
    case .zeroCount: "a pre-handshake chunk with count 0"
    case .indexOutOfRange(let index, let count): "chunk index \(index) of \(count)"
    case .interleaved(let expected, let got):
      "a 0x\(hex(got)) chunk inside an unfinished 0x\(hex(expected)) message"
    case .duplicateIndex(let index): "chunk index \(index) twice"
    case .indicesNotContiguous: "chunk indices neither 0..<count nor 1...count"
    }
  }
}

/// The plaintext of the device's wrapped session key (§9 step 3) [sdk]: key `[0:32]`,
/// nonce `[32:44]`, associated data `[44:56]`, ChaCha20-Poly1305 box `[56:]` (tag
/// appended) that opens to `PLAUD.AI`. A session key: it describes itself redacted and
/// reflects no children, so no log or error shows it.
public struct SessionKeyMaterial: Sendable, Equatable, CustomStringConvertible,
  CustomReflectable
{
  public var key: [UInt8]
  public var nonce: [UInt8]
  public var associatedData: [UInt8]
  /// The check box: ciphertext of ``ModeB/sessionKeyCheck`` with its 16-byte tag.
  public var box: [UInt8]

  public init(key: [UInt8], nonce: [UInt8], associatedData: [UInt8], box: [UInt8]) {
    self.key = key
    self.nonce = nonce
    self.associatedData = associatedData
    self.box = box
  }

  /// Reads the layout; the box must at least hold a tag.
  /// - Throws: ``FrameError/truncated(field:needed:available:)``.
  public init(decoding plaintext: [UInt8]) throws(FrameError) {
    var reader = ByteReader(plaintext)
    key = try reader.bytes(32, "key")
    nonce = try reader.bytes(12, "nonce")
    associatedData = try reader.bytes(12, "associatedData")
    _ = try reader.bytes(16, "box tag")
    box = Array(plaintext[56...])
  }

  /// The bytes to RSA-wrap.
  public var encoded: [UInt8] { key + nonce + associatedData + box }

  public var description: String { "Mode B session key material <redacted>" }
  public var customMirror: Mirror { Mirror(self, children: []) }
}
