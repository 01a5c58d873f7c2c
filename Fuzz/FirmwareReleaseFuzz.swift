import RecorderProtocol

// libFuzzer entry over the firmware version grammar (FirmwareVersionNumber, both forms) and
// the firmware-check JSON (FirmwareRelease.parse). Built with the RecorderKit sources by
// scripts/fuzz.sh. A trap or sanitizer report is a bug; a thrown FirmwareVersionError or
// CloudError is the expected answer to garbage. The preconditions are the grammar's rules:
// what is accepted is short and plain ASCII, re-parses from its canonical text, and a
// release's version is the one its code names.

@_cdecl("LLVMFuzzerTestOneInput")
public func firmwareReleaseFuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
  guard let start else { return 0 }
  let bytes = Array(UnsafeBufferPointer(start: start, count: count))
  let text = String(decoding: bytes, as: UTF8.self)
  if let version = try? FirmwareVersionNumber(parsing: text) {
    precondition(text.utf8.count <= FirmwareVersionNumber.maximumLength)
    precondition(
      text.utf8.allSatisfy { byte in
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte)
          || (0x61...0x7A).contains(byte) || byte == 0x2E
      })
    precondition((try? FirmwareVersionNumber(parsing: version.description)) == version)
    precondition(version.order(relativeTo: version) == .same)
    if let device = version.deviceVersion {
      precondition(FirmwareVersion(text) == device)
      precondition(FirmwareVersion(device.description) == device)
    } else {
      precondition(FirmwareVersion(text) == nil)
    }
  } else {
    precondition(FirmwareVersion(text) == nil)
  }
  let current = FirmwareVersion(type: 0x56, code: 95)
  if let json = try? JSONParser(maxSize: 4096, maxDepth: 16).parse(bytes),
    let release = try? FirmwareRelease.parse(json, current: current), !release.downloadUrl.isEmpty
  {
    guard let version = FirmwareVersion(release.latestVersion) else {
      preconditionFailure("a release's version_number follows the grammar")
    }
    precondition(Int(version.code) == release.versionCode)
    precondition(release.hasUpdate == (version.code > current.code))
  }
  return 0
}
