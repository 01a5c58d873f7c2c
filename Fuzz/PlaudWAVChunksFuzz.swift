// libFuzzer entry over PlaudBleSDK's WAV chunk walker (WAVChunks): a file's first bytes, with
// the file's size taken from the input's length (and, from the first byte, a size that
// disagrees). Built with Sources/PlaudBleSDK/Parsing by scripts/fuzz.sh. A trap or sanitizer
// report is a bug; nil is the expected answer to garbage. The preconditions: what parses
// points inside the header and claims no more bytes than the file has.

@_cdecl("LLVMFuzzerTestOneInput")
public func plaudWAVChunksFuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
  guard let start, count <= 8192 else { return 0 }
  let bytes = Array(UnsafeBufferPointer(start: start, count: count))
  for size in [count, count - Int(bytes.first ?? 0) * 4, Int.max] {
    guard let wav = WAVChunks(head: bytes, fileSize: size) else { continue }
    precondition(wav.dataOffset >= 20 && wav.dataOffset <= bytes.count)
    precondition(wav.dataSize >= 0 && wav.dataSize <= max(0, size - wav.dataOffset))
  }
  return 0
}
