// libFuzzer entry over the §6 Wi-Fi PDU decoders and the JSON parser under them. Built with
// the RecorderProtocol sources in one module by scripts/fuzz.sh. A trap or sanitizer report
// is a bug; a thrown WiFiPDUError or JSONParseError is the expected answer to garbage.

@_cdecl("LLVMFuzzerTestOneInput")
public func wifiPDUFuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
  guard let start else { return 0 }
  let bytes = Array(UnsafeBufferPointer(start: start, count: count))
  // The bytes as a JSON text: whatever parses re-serializes to JSON that parses equal. The
  // serialized text may be longer (a control character escaped as `\u0008` takes 6 bytes
  // where the input's `\b` took 2): it is read back without the size limit's cap.
  let parser = JSONParser(maxSize: 4096, maxDepth: 16)
  if let value = try? parser.parse(bytes) {
    let again = try? JSONParser(maxSize: 6 * 4096, maxDepth: 16).parse(
      Array(value.serialized.utf8))
    precondition(again == value, "JSON did not survive re-serialization")
  }
  // The bytes as a PDU, both directions: whatever decodes re-encodes and decodes equal.
  if let message = try? WiFiDeviceMessage(decoding: bytes) {
    let again = try? WiFiDeviceMessage(decoding: message.encoded())
    precondition(again == message, "device PDU did not survive re-encoding")
  }
  if let message = try? WiFiPhoneMessage(decoding: bytes) {
    let again = try? WiFiPhoneMessage(decoding: message.encoded())
    if case .handshake = message {
    } else {  // the handshake token is padded on the way out
      precondition(again == message, "phone PDU did not survive re-encoding")
    }
  }
  return 0
}
