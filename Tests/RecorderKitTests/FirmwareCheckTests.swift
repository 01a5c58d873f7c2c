import Foundation
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import Testing

/// Issue 43: the firmware check of PROTOCOL.md §8: `GET …/sdk/version/latest` signed with the
/// device's serial signature (no Bearer), and its fields: `version_code` (§1 encoding) with
/// `version_type`, `version_number` possibly empty, `file_md5` possibly absent, an update iff
/// the code is above the device's and `download_url` is non-empty.
@Suite("Firmware check (§8)", .serialized)
struct FirmwareCheckTests {
  static let v127 = FirmwareVersion(type: 0x56, code: 66055)

  static func parse(_ text: String, current: FirmwareVersion = v127) throws -> FirmwareRelease {
    let json = try JSONParser(maxSize: 4096, maxDepth: 16).parse(Array(text.utf8))
    return try FirmwareRelease.parse(json, current: current)
  }

  @Test("the real cloud's shape: empty version_number, no file_md5; the version from type + code")
  func realShape() throws {
    let release = try Self.parse(
      #"{"code":0,"data":{"version_code":66056,"version_type":"V","version_number":"","#
        + #""version_description":"fixes","download_url":"https://x.example/fw.bin","#
        + #""is_force":0,"is_strong_guidance":1}}"#)
    #expect(release.hasUpdate)
    #expect(release.latestVersion == "V1.2.8" && release.versionCode == 66056)
    #expect(release.currentVersion == "V1.2.7")
    #expect(release.versionNumber.isEmpty && release.md5.isEmpty && release.sha256 == nil)
    #expect(!release.isForce && release.isStrongGuidance)
    #expect(release.releaseNotes == "fixes")
  }

  @Test("no update: same or lower code, an empty or absent download_url, data null")
  func noUpdate() throws {
    let url = #""download_url":"https://x.example/fw.bin""#
    #expect(try !Self.parse(#"{"data":{"version_code":66055,"# + url + "}}").hasUpdate)
    #expect(try !Self.parse(#"{"data":{"version_code":66054,"# + url + "}}").hasUpdate)
    #expect(try !Self.parse(#"{"data":{"version_code":66056,"download_url":""}}"#).hasUpdate)
    #expect(try !Self.parse(#"{"data":{"version_code":66056}}"#).hasUpdate)
    #expect(try !Self.parse(#"{"code":0,"data":null}"#).hasUpdate)
    // version_type absent: V; a lower-case letter is taken upper-case.
    #expect(try Self.parse(#"{"data":{"version_code":96}}"#).latestVersion == "V0096")
    #expect(
      try Self.parse(#"{"data":{"version_code":96,"version_type":"w"}}"#).latestVersion == "W0096")
  }

  @Test("malformed fields are typed errors naming the field, never a crash")
  func malformed() throws {
    let cases = [
      (#"{"data":{"version_code":"66056"}}"#, "version_code"),
      (#"{"data":{"version_code":16777216}}"#, "version_code"),
      (#"{"data":{"version_code":-1}}"#, "version_code"),
      (#"{"data":{"version_code":96,"version_type":"VV"}}"#, "version_type"),
      (#"{"data":{"version_code":96,"version_type":"1"}}"#, "version_type"),
      (#"{"data":{"version_code":96,"version_type":7}}"#, "version_type"),
      (#"{"data":{"version_code":96,"version_number":5}}"#, "version_number"),
      (#"{"data":{"version_code":96,"download_url":[]}}"#, "download_url"),
      (#"{"data":{"version_code":96,"file_md5":"abc"}}"#, "file_md5"),
      (#"{"data":{"version_code":96,"is_force":"yes"}}"#, "is_force"),
      (#"{"data":{"version_code":96,"is_strong_guidance":{}}}"#, "is_strong_guidance"),
      (#"{"data":7}"#, "data"),
    ]
    for (text, field) in cases {
      #expect {
        try Self.parse(text)
      } throws: { error in
        guard case CloudError.malformedResponse(let reason) = error else { return false }
        return reason.contains(field)
      }
    }
  }

  @Test("the check carries the serial signature, not the Bearer token; a wrong one is refused")
  func signedRequest() async throws {
    let cloud = try CloudEmulator()
    defer { cloud.stop() }
    let serial = "8821234567890123"
    let user = try UserToken(jwt: cloud.issueToken(userID: "partner-user-1"))
    let client = try CloudClient(domain: cloud.url, userToken: user)
    let image = [UInt8](repeating: 7, count: 1024)
    cloud.publishFirmware(
      type: "notepins", version: FirmwareVersion(type: 0x56, code: 66056), image: image,
      publishesDigests: false)
    let release = try await client.checkFirmware(serial: serial, current: Self.v127)
    #expect(release.hasUpdate && release.latestVersion == "V1.2.8" && release.md5.isEmpty)
    let checks = cloud.requestLog.filter { $0.path.hasSuffix("/sdk/version/latest") }
    #expect(checks.map(\.status) == [200])
    // Given directly (as Mode B keeps it): no sn-sign request.
    let signature = cloud.serialSignature(for: serial)
    let signs = cloud.requestLog.filter { $0.path.hasSuffix("/sn-sign") }.count
    _ = try await client.checkFirmware(serial: serial, current: Self.v127, signature: signature)
    #expect(cloud.requestLog.filter { $0.path.hasSuffix("/sn-sign") }.count == signs)
    await #expect(
      throws: CloudError.rejected(code: 401, message: "the serial signature was refused")
    ) {
      try await client.checkFirmware(serial: serial, current: Self.v127, signature: [1, 2, 3])
    }
    // The file comes down unchecked by MD5 when none is published.
    let directory = NSTemporaryDirectory() + "fwcheck-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let file = try await client.download(release, to: directory + "/fw.bin")
    #expect(file.size == image.count)
  }
}
