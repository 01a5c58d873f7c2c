import Foundation

// libFuzzer entry over /proc/self/mountinfo text (MountTable), where a recorder's USB volume
// is looked for. Built with the RecorderKit sources by scripts/fuzz.sh. A trap or sanitizer
// report is a bug; a skipped line is the expected answer to garbage. The preconditions: every
// line is either a mount or skipped, and a mount point is absolute.

@_cdecl("LLVMFuzzerTestOneInput")
public func usbMountInfoFuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
  guard let start, count <= 16384 else { return 0 }
  let text = String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
  let table = MountTable(text)
  let lines = text.split(separator: "\n", omittingEmptySubsequences: true).count
  precondition(table.mounts.count + table.skipped.count == lines)
  precondition(table.mounts.allSatisfy { $0.mountPoint.hasPrefix("/") })
  _ = table.recorderVolumes(labelledDevice: "/dev/sdb1")
  return 0
}
