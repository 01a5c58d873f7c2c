import RecorderProtocol

// libFuzzer entry over what the cloud client parses from outside: a user JWT (base64url,
// JSON claims, the `sub` rule) and a firmware-check JSON body. Built with the RecorderKit
// sources by scripts/fuzz.sh. A trap or sanitizer report is a bug; a thrown CloudError is the
// expected answer to garbage.

@_cdecl("LLVMFuzzerTestOneInput")
public func cloudResponseFuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
  guard let start else { return 0 }
  let bytes = Array(UnsafeBufferPointer(start: start, count: count))
  let text = String(decoding: bytes, as: UTF8.self)
  if let token = try? UserToken(jwt: text) {
    precondition(!token.subject.isEmpty && !token.deviceToken.bytes.isEmpty)
    precondition("\(token)" == "UserToken(redacted)")
  }
  if let json = try? JSONParser(maxSize: 4096, maxDepth: 16).parse(bytes) {
    _ = try? FirmwareRelease.parse(json, current: FirmwareVersion(type: 0x56, code: 95))
  }
  return 0
}
