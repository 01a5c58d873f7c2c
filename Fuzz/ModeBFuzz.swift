// libFuzzer entry over Mode B's outside bytes (PROTOCOL.md §9): the pre-handshake chunk
// reassembly, the session key material layout and the 512-byte E2EE file header. Built with
// the RecorderProtocol sources in one module by scripts/fuzz.sh. The input is a run of
// frames (at most 300), each `len u8` then `len` bytes, fed to one assembler in order; the
// whole input is also read as key material and as a file header. A trap or sanitizer report is a bug; a
// thrown error is the expected answer to garbage.

@_cdecl("LLVMFuzzerTestOneInput")
public func modeBFuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
  guard let start else { return 0 }
  let bytes = Array(UnsafeBufferPointer(start: start, count: count))
  var assembler = PreHandshakeAssembler()
  var position = 0
  // At most 300 frames an input: a message is at most 255 chunks, and an input of 4 KiB of
  // one-byte frames (4,000 decodes) only made each execution slow (~1.5k a second).
  var frames = 0
  while position < bytes.count, frames < 300 {
    frames += 1
    let length = Int(bytes[position])
    let end = min(bytes.count, position + 1 + length)
    let frame = bytes[(position + 1)..<end]
    position = end
    guard case .preHandshake(let chunk)? = try? Frame(decoding: frame) else { continue }
    guard let message = try? assembler.add(chunk) else { continue }
    // A message is at most 255 chunks of what one frame carries.
    precondition(message.payload.count <= 255 * 256, "an assembled message larger than its frames")
    precondition(!assembler.isPartial, "a completed message left a partial one behind")
    // What assembled splits and assembles back to the same payload, with either base.
    for base in ChunkIndexBase.allCases where message.payload.count <= 255 * 100 {
      var again = PreHandshakeAssembler()
      var result: (type: UInt16, payload: [UInt8])?
      for piece in PreHandshakeChunk.chunks(
        type: message.type, payload: message.payload, indexBase: base)
      {
        result = try? again.add(piece)
      }
      precondition(result?.payload == message.payload, "a message did not survive re-chunking")
    }
  }
  if let material = try? SessionKeyMaterial(decoding: bytes) {
    precondition(material.encoded == bytes, "key material did not survive re-encoding")
  }
  if let header = try? E2EEFileHeader(decoding: bytes) {
    precondition(
      (try? E2EEFileHeader(decoding: header.encoded)) == header,
      "an E2EE header did not survive re-encoding")
  }
  return 0
}
