/// Which bytes a sync tail's `crc` covers (PROTOCOL.md §10: "coverage unknown").
///
/// [project]: RecorderKit assumes ``requestBytes`` and, when a tail disagrees with bytes that
/// a re-read returned identically, tries the others and remembers per firmware version the
/// one that matched. The emulator can be told to use any of them, so both sides are tested
/// against every plausible answer.
public enum TailCRCCoverage: String, Sendable, CaseIterable {
  /// The file bytes this `001C` request delivered, in offset order (our first guess).
  case requestBytes = "request"
  /// The file from offset 0 to the end of this request.
  case fileFromStart = "file"
  /// This request's bulk frames as sent: each frame's 10-byte header, then its data.
  case requestFrames = "frames"

  /// The header a bulk data frame of `sessionId` carrying `length` bytes at `offset` has on
  /// the wire (`02 <sessionId u32> <offset u32> <len u8>`, §2), which ``requestFrames`` covers.
  public static func frameHeader(sessionId: SessionID, offset: UInt32, length: Int) -> [UInt8] {
    var writer = ByteWriter()
    writer.u8(0x02)
    writer.u32(sessionId.rawValue)
    writer.u32(offset)
    writer.u8(UInt8(clamping: length))
    return writer.bytes
  }
}
