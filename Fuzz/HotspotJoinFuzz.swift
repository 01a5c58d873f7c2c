// libFuzzer entry over the hotspot join port's request line (docs/tcp-link.md): any bytes,
// decoded as the join server does (UTF-8, up to the first newline), must give nil or a
// request that re-encodes to the same line. Built with the RecorderLink sources in one module
// by scripts/fuzz.sh. A trap or sanitizer report is a bug.

@_cdecl("LLVMFuzzerTestOneInput")
public func hotspotJoinFuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
  guard let start else { return 0 }
  let bytes = Array(UnsafeBufferPointer(start: start, count: count))
  let line = String(decoding: bytes.prefix { $0 != 0x0A }, as: UTF8.self)
  guard let request = HotspotJoinRequest(line: line, phoneHost: "127.0.0.1") else { return 0 }
  precondition(request.line == line + "\n", "a parsed request did not re-encode to its line")
  precondition(request.serverPort != 0, "port 0 accepted")
  return 0
}
