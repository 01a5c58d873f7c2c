// libFuzzer entry over the device-frame decoder: every frame kind, both directions, several
// portVersions, and re-encoding of what decoded. Built with the RecorderProtocol sources in
// one module by scripts/fuzz.sh. A trap or sanitizer report is a bug; a thrown FrameError
// is the expected answer to garbage.
//
// The first byte picks the portVersion (one of those whose layouts differ), the rest is the
// frame: each input is decoded once, not once per portVersion, so the fuzzer chooses the
// version as it mutates and runs about eight times as many inputs per second.

@_cdecl("LLVMFuzzerTestOneInput")
public func frameDecoderFuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
  guard let start, count > 0 else { return 0 }
  let versions: [UInt16] = [1, 2, 6, 7, 8, 9, 10, 20]
  let bytes = Array(UnsafeBufferPointer(start: start + 1, count: count - 1))
  for portVersion in [versions[Int(start[0]) % versions.count]] {
    guard let frame = try? Frame(decoding: bytes, portVersion: portVersion) else { continue }
    for direction in Direction.allCases {
      _ = try? frame.describe(direction: direction, portVersion: portVersion)
    }
    // Whatever decodes must re-encode and decode to the same value.
    let again = try? Frame(
      decoding: frame.encoded(portVersion: portVersion), portVersion: portVersion)
    precondition(again == frame, "frame did not survive re-encoding")
    guard case .control(let control) = frame else { continue }
    if let message = try? DeviceMessage(control, portVersion: portVersion) {
      let reencoded = message.frame(portVersion: portVersion)
      precondition(
        (try? DeviceMessage(reencoded, portVersion: portVersion)) == message,
        "device message did not survive re-encoding")
    }
    if let message = try? PhoneMessage(control, portVersion: portVersion) {
      let reencoded = message.frame(portVersion: portVersion)
      precondition(
        (try? PhoneMessage(reencoded, portVersion: portVersion)) == message,
        "phone message did not survive re-encoding")
    }
  }
  return 0
}
