import Foundation

// libFuzzer entry over a USB volume's /MODEL.txt (DeviceModelFile). Built with the RecorderKit
// sources by scripts/fuzz.sh. A trap or sanitizer report is a bug; a typed error is the
// expected answer to garbage. The precondition: what parses writes back to the same two lines.

@_cdecl("LLVMFuzzerTestOneInput")
public func usbModelFileFuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
  guard let start, count <= 8192 else { return 0 }
  let bytes = Array(UnsafeBufferPointer(start: start, count: count))
  guard let model = try? DeviceModelFile(bytes) else { return 0 }
  let again =
    "\(model.product) \(model.firmware)@\(model.build)\n\(DeviceModelFile.serialPrefix)\(model.serial)\n"
  precondition((try? DeviceModelFile(Array(again.utf8))) == model)
  return 0
}
