// libFuzzer entry over RecorderAudio's parsers of outside bytes: the raw device-frame reader,
// the Ogg page reader and OpusHead/packet validation, and the decoder behind them. Built with
// the RecorderAudio sources in one module by scripts/fuzz.sh. A trap or sanitizer report is a
// bug; a thrown AudioError is the expected answer to garbage.
//
// The first input byte steers: bit 7 = Ogg with page checksums off (so mutations reach the
// packet logic), bit 6 = a 2-channel recording, bits 0–5 = the read chunk size − 1 (chunk
// boundaries are where streaming parsers break).

@_cdecl("LLVMFuzzerTestOneInput")
public func audioInputFuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
  guard let start, count > 0 else { return 0 }
  let steer = start[0]
  let body = Array(UnsafeBufferPointer(start: start + 1, count: count - 1))
  let source = MemoryByteSource(body, chunkLimit: Int(steer & 0x3F) + 1)
  let recorded: DeviceAudioFormat = steer & 0x40 != 0 ? .stereo : .mono
  do {
    let input: DeviceFrameSource =
      steer & 0x80 != 0
      ? try OggOpusFrameSource(source: source, verifiesChecksum: false)
      : try AudioExporter.openSource(source, recorded: recorded)
    let decoder = try DeviceOpusDecoder(channels: input.format.channels)
    let frameBytes = input.format.bytesPerFrame
    var batch = DeviceFrameBatch()
    var frames = 0
    repeat {
      try input.readFrames(into: &batch, maxFrames: 9)
      precondition(batch.bytes.count == batch.count * frameBytes, "batch bytes disagree with count")
      for index in 0..<batch.count {
        let frame = Array(batch.bytes[index * frameBytes..<(index + 1) * frameBytes])
        _ = try decoder.decode(frame, offset: batch.offsets[index])
      }
      frames += batch.count
      precondition(frames <= count, "more frames than input bytes")
    } while batch.count > 0
  } catch {
    return 0
  }
  return 0
}
