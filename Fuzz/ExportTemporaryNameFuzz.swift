// libFuzzer entry over the names the export-temporary sweep reads from an app's folder
// (ExportTemporary.isExportTemporary): any bytes, as a file name, must give an answer, and
// a name taken for ours must have the exact shape the sweep may remove, never a path. Built
// with the RecorderKit sources in one module by scripts/fuzz.sh. A trap is a bug.

@_cdecl("LLVMFuzzerTestOneInput")
public func exportTemporaryNameFuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
  guard let start else { return 0 }
  let name = String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
  guard ExportTemporary.isExportTemporary(name) else { return 0 }
  precondition(name.hasPrefix(ExportTemporary.prefix), "taken without the prefix")
  precondition(!name.contains("/") && !name.contains("\0"), "a path taken for a name")
  precondition(name.unicodeScalars.allSatisfy(\.isASCII), "a non-ASCII name taken")
  let base = name.hasSuffix(".plain") ? String(name.dropLast(".plain".count)) : name
  precondition(
    [".mp3", ".wav", ".opus", ".pcm"].contains { base.hasSuffix($0) }, "an unknown format taken")
  return 0
}
