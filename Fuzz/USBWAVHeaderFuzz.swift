import Foundation

// libFuzzer entry over a USB volume's WAV header (DeviceWAVHeader): the first 512 bytes of a
// file read off a mounted recorder, with the file's size taken from the input's length (and,
// from the first byte, a size that disagrees). Built with the RecorderKit sources by
// scripts/fuzz.sh. A trap or sanitizer report is a bug; a typed error is the expected answer
// to garbage. The preconditions: what parses has its serial inside the header, and scrubbing
// zeroes exactly that range and moves nothing else.

@_cdecl("LLVMFuzzerTestOneInput")
public func usbWAVHeaderFuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
  guard let start, count <= 8192 else { return 0 }
  let bytes = Array(UnsafeBufferPointer(start: start, count: count))
  let sizes = [Int64(count), Int64(count) + Int64(bytes.first ?? 0) * 4]
  for size in sizes {
    guard let header = try? DeviceWAVHeader(Array(bytes.prefix(512)), fileSize: size, path: "f")
    else { continue }
    precondition(header.serialRange.upperBound <= DeviceWAVHeader.length)
    precondition(header.dataBytes == size - Int64(DeviceWAVHeader.length))
    let scrubbed = header.scrubbed(bytes)
    precondition(scrubbed.count == bytes.count)
    for index in bytes.indices {
      precondition(
        header.serialRange.contains(index) ? scrubbed[index] == 0 : scrubbed[index] == bytes[index])
    }
  }
  return 0
}
