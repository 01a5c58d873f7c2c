/// Raw ChaCha20 (RFC 7539 §2.4) that restarts every `segment` bytes: each run of `segment`
/// bytes is XORed with the keystream of the same key and nonce from the same initial block
/// counter, as an E2EE recording's body is (PROTOCOL.md §9: "restarted every `segment`
/// bytes of ciphertext with the same key and nonce" [sdk-code][client]). `segment` 0 is one
/// continuous stream. Feed chunks of any size in order; where a segment boundary falls
/// inside a chunk does not matter. Memory use does not depend on how much is fed.
///
/// Not thread-safe: one owner applies it (an export reading a file front to back, a device
/// writing a recording).
public final class SegmentedChaCha20 {
  private let key: [UInt8]
  private let nonce: [UInt8]
  private let counter: UInt32
  /// Bytes per segment; 0: never restarts.
  public let segment: Int
  private var stream: ChaCha20Stream
  /// Bytes of the current segment already applied.
  private var position = 0

  /// A keystream for `key` (32 bytes) and `nonce` (12 bytes), each segment from block
  /// `counter`, positioned at byte `offset` of the stream (0: its start), so a piece in the
  /// middle of a file can be decrypted without the bytes before it.
  /// - Throws: ``CryptoError/invalidLength(what:expected:actual:)`` for a bad key or nonce;
  ///   ``CryptoError/unsupported(_:)`` when `offset` lies past the 32-bit block counter.
  public init(key: [UInt8], nonce: [UInt8], counter: UInt32 = 0, segment: Int, offset: Int = 0)
    throws(CryptoError)
  {
    precondition(segment >= 0 && offset >= 0, "a segment length or offset is never negative")
    self.key = key
    self.nonce = nonce
    self.counter = counter
    self.segment = segment
    let within = segment > 0 ? offset % segment : offset
    let block = UInt64(counter) + UInt64(within / 64)
    guard block <= UInt64(UInt32.max) else {
      throw .unsupported("ChaCha20 past its 32-bit block counter")
    }
    stream = try ChaCha20Stream(key: key, nonce: nonce, counter: UInt32(block))
    var skipped = [UInt8](repeating: 0, count: within % 64)
    try stream.apply(&skipped)
    position = within
  }

  /// XORs the next `bytes.count` bytes of the segmented keystream into `bytes`.
  public func apply(_ bytes: inout [UInt8]) throws(CryptoError) {
    guard segment > 0 else { return try stream.apply(&bytes) }
    var start = 0
    while start < bytes.count {
      if position == segment {
        stream = try ChaCha20Stream(key: key, nonce: nonce, counter: counter)
        position = 0
      }
      let end = min(bytes.count, start + segment - position)
      if start == 0, end == bytes.count {
        try stream.apply(&bytes)
      } else {
        var piece = Array(bytes[start..<end])
        try stream.apply(&piece)
        bytes.replaceSubrange(start..<end, with: piece)
      }
      position += end - start
      start = end
    }
  }
}
