// libFuzzer entry over RecorderAudio's OggPageValidator: the page check the transfer runs on
// an Ogg-wrapped recording as its bytes arrive from the device. Built with the RecorderAudio
// sources in one module by scripts/fuzz.sh. A trap or sanitizer report is a bug; a thrown
// AudioError is the expected answer to garbage.
//
// The first input byte steers: bit 7 = start mid-stream (a resumed transfer), bits 0–6 = the
// chunk size − 1 the bytes are fed in (chunk boundaries are where streaming checks break).

@_cdecl("LLVMFuzzerTestOneInput")
public func oggPageValidatorFuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
  guard let start, count > 0 else { return 0 }
  let steer = start[0]
  let body = Array(UnsafeBufferPointer(start: start + 1, count: count - 1))
  let chunk = Int(steer & 0x7F) + 1
  var validator = OggPageValidator(midStream: steer & 0x80 != 0)
  var returned = 0
  var index = 0
  do {
    while index < body.count {
      let end = min(body.count, index + chunk)
      let pages = try validator.feed(Array(body[index..<end]))
      returned += pages.count
      index = end
      precondition(returned + validator.held.count == index, "bytes lost or invented")
      precondition(validator.held.count <= 65_307, "more than one page held")
    }
  } catch {
    return 0
  }
  return 0
}
