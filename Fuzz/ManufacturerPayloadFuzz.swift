// libFuzzer entry over the recorder's manufacturer advertising payload (PROTOCOL.md §1), in
// either layout: with the `02 <projectCode>` field (the Note's) or starting at the version
// field (a NotePin S's). Built with the RecorderProtocol sources in one module by
// scripts/fuzz.sh. A trap or sanitizer report is a bug; a thrown error is the expected answer
// to garbage. The preconditions: what parses writes back to a payload that parses with the
// same layout, firmware and portVersion (a packed serial whose nibbles are not decimal comes
// back as text, so the serial itself may be spelt differently); the capability table's lookups
// by that serial and by the bytes as a name never trap.

@_cdecl("LLVMFuzzerTestOneInput")
public func manufacturerPayloadFuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
  guard let start, count <= 1024 else { return 0 }
  let bytes = Array(UnsafeBufferPointer(start: start, count: count))
  guard let payload = try? ManufacturerPayload(manufacturerData: bytes) else { return 0 }
  let again = try? ManufacturerPayload(decoding: payload.encoded)
  precondition(again != nil, "a decoded payload did not decode again")
  precondition(again?.hasProjectCodeField == payload.hasProjectCodeField, "layout changed")
  precondition(again?.firmware == payload.firmware, "firmware changed")
  precondition(again?.portVersion == payload.portVersion, "portVersion changed")
  if payload.serial.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
    precondition(again?.serial == payload.serial, "a decimal serial changed")
  }
  // The capability table's lookups take the device's serial and name: never a trap, and the
  // SSID ends with the serial's last four characters whatever the row (compared as scalars: a
  // tail that starts with a combining mark joins the prefix's last character).
  if let model = payload.model {
    precondition(ModelCapabilities.of(model).model == model, "the row of another model")
  }
  let ssid = ModelCapabilities.hotspotSSID(
    serial: payload.serial, model: nil, portVersion: payload.portVersion)
  let tail = payload.serial.suffix(4).unicodeScalars
  precondition(
    ssid.unicodeScalars.reversed().starts(with: tail.reversed()), "SSID lost the serial's tail")
  _ = ModelCapabilities.cloudDeviceType(serial: payload.serial)
  _ = ModelCapabilities.named(String(decoding: bytes, as: UTF8.self))
  return 0
}
