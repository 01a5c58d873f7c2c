/// A WAV file's format and data chunk, found by walking its RIFF chunks (the first bytes of an
/// app's or converter's file: outside bytes). Pure: bytes in, values out; a malformed or
/// foreign header is nil, never a trap.
struct WAVChunks: Equatable {
  var channels: Int
  var sampleRate: Int
  var bitsPerSample: Int
  /// Where the samples start.
  var dataOffset: Int
  /// Sample bytes, no more than the file holds after `dataOffset`.
  var dataSize: Int

  /// Parses `head` (the file's first bytes) of a file of `fileSize` bytes: `RIFF`, `WAVE`,
  /// then chunks until `data`, which must follow a `fmt ` chunk of at least 16 bytes.
  init?(head: [UInt8], fileSize: Int) {
    func u32(_ at: Int) -> Int? {
      guard at >= 0, at + 4 <= head.count else { return nil }
      return Int(head[at]) | Int(head[at + 1]) << 8 | Int(head[at + 2]) << 16
        | Int(head[at + 3]) << 24
    }
    func u16(_ at: Int) -> Int? {
      guard at >= 0, at + 2 <= head.count else { return nil }
      return Int(head[at]) | Int(head[at + 1]) << 8
    }
    func tag(_ at: Int) -> [UInt8] { Array(head[at..<at + 4]) }
    guard head.count >= 12, tag(0) == Array("RIFF".utf8), tag(8) == Array("WAVE".utf8) else {
      return nil
    }
    var offset = 12
    var format: (channels: Int, rate: Int, bits: Int)?
    while offset + 8 <= head.count, let length = u32(offset + 4) {
      let id = tag(offset)
      if id == Array("fmt ".utf8), length >= 16, let channels = u16(offset + 10),
        let rate = u32(offset + 12), let bits = u16(offset + 22)
      {
        format = (channels, rate, bits)
      } else if id == Array("data".utf8) {
        guard let format else { return nil }
        let start = offset + 8
        self.channels = format.channels
        sampleRate = format.rate
        bitsPerSample = format.bits
        dataOffset = start
        dataSize = min(length, max(0, fileSize - start))
        return
      }
      offset = start(after: offset, length: length)
      guard offset > 0 else { return nil }
    }
    return nil
  }
}

/// The offset of the chunk after the one at `offset` of `length` bytes (RIFF pads to even);
/// -1 when it would overflow.
private func start(after offset: Int, length: Int) -> Int {
  let (padded, overflow1) = length.addingReportingOverflow(length % 2)
  let (next, overflow2) = offset.addingReportingOverflow(8)
  let (result, overflow3) = next.addingReportingOverflow(padded)
  return overflow1 || overflow2 || overflow3 ? -1 : result
}
