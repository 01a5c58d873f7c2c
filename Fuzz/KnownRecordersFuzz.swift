import Foundation

// libFuzzer entry over the file of recorders met before (KnownRecorders), which the app
// reads back at launch and treats as untrusted. Built with the RecorderKit sources by
// scripts/fuzz.sh. A trap or sanitizer report is a bug; no entry is the expected answer to
// garbage. The preconditions are the file's rules: at most `capacity` entries, each serial
// printable ASCII, and every serial listed answers a device that carries it.

@_cdecl("LLVMFuzzerTestOneInput")
public func knownRecordersFuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
  guard let start, count <= KnownRecorders.maximumFileSize + 1 else { return 0 }
  let path = NSTemporaryDirectory() + "known-recorders-fuzz-\(getpid()).json"
  defer { try? FileManager.default.removeItem(atPath: path) }
  guard (try? Data(bytes: start, count: count).write(to: URL(fileURLWithPath: path))) != nil
  else { return 0 }
  let known = KnownRecorders(path: path)
  let serials = known.serials
  precondition(serials.count <= KnownRecorders.capacity)
  for serial in serials {
    precondition(serial.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F })
    precondition(known.device(serial: serial)?.serial == serial)
  }
  return 0
}
