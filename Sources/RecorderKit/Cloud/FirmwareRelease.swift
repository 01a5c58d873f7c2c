import RecorderProtocol

/// The answer to a firmware check (PROTOCOL.md §8 field names; server fields in brackets).
public struct FirmwareRelease: Sendable, Equatable {
  /// Whether ``latestVersion`` is newer than ``currentVersion``.
  public var hasUpdate: Bool
  /// The version the device runs now (as the caller gave it).
  public var currentVersion: String
  /// [`version_number`] e.g. `V0096`.
  public var latestVersion: String
  /// [`version_code`] the numeric code, compared with the device's.
  public var versionCode: Int
  /// [`version_description`].
  public var releaseNotes: String
  /// [`download_url`] absolute, https (or http on loopback).
  public var downloadUrl: String
  /// [`file_md5`] lower-case hex.
  public var md5: String
  /// [`file_sha256`] lower-case hex, when the server publishes it (this project's addition).
  public var sha256: String?
  /// [`is_force`].
  public var isForce: Bool

  package init(
    hasUpdate: Bool, currentVersion: String, latestVersion: String, versionCode: Int,
    releaseNotes: String, downloadUrl: String, md5: String, sha256: String? = nil,
    isForce: Bool
  ) {
    self.hasUpdate = hasUpdate
    self.currentVersion = currentVersion
    self.latestVersion = latestVersion
    self.versionCode = versionCode
    self.releaseNotes = releaseNotes
    self.downloadUrl = downloadUrl
    self.md5 = md5
    self.sha256 = sha256
    self.isForce = isForce
  }

  /// "No update": the device's version is the latest.
  package static func upToDate(_ current: FirmwareVersion) -> FirmwareRelease {
    FirmwareRelease(
      hasUpdate: false, currentVersion: current.description, latestVersion: current.description,
      versionCode: Int(current.code), releaseNotes: "", downloadUrl: "", md5: "", isForce: false)
  }

  /// Reads the check endpoint's JSON (docs/cloud.md): the fields at the top level or inside a
  /// `data` object; `data: null` (or no `version_number`) means no release is published.
  /// `version_number` follows the strict version grammar (`FirmwareVersionNumber`, code
  /// form) and `version_code` must be its code, so the version compared is the one pushed.
  /// - Throws: ``CloudError/malformedResponse(reason:)`` naming the field at fault.
  package static func parse(_ body: JSONValue, current: FirmwareVersion) throws(CloudError)
    -> FirmwareRelease
  {
    guard case .object = body else { throw .malformedResponse(reason: "not a JSON object") }
    var fields = body
    if let data = body["data"] {
      if data == .null { return .upToDate(current) }
      guard case .object = data else { throw .malformedResponse(reason: "`data` is not an object") }
      fields = data
    }
    guard let versionValue = fields["version_number"], versionValue != .null else {
      return .upToDate(current)
    }
    guard let latest = versionValue.stringValue, let version = FirmwareVersion(latest) else {
      throw .malformedResponse(reason: "`version_number` is not a version like V0096")
    }
    guard let code = fields["version_code"]?.integerValue, (0...0xFF_FFFF).contains(code) else {
      throw .malformedResponse(reason: "`version_code` is not an integer in 0…16777215")
    }
    guard code == Int64(version.code) else {
      throw .malformedResponse(reason: "`version_code` is not the code of `version_number`")
    }
    guard let url = fields["download_url"]?.stringValue, !url.isEmpty else {
      throw .malformedResponse(reason: "`download_url` is missing")
    }
    guard let md5 = fields["file_md5"]?.stringValue, Self.isHex(md5, length: 32) else {
      throw .malformedResponse(reason: "`file_md5` is not 32 hex digits")
    }
    var sha256: String?
    if let value = fields["file_sha256"], value != .null {
      guard let text = value.stringValue, Self.isHex(text, length: 64) else {
        throw .malformedResponse(reason: "`file_sha256` is not 64 hex digits")
      }
      sha256 = text.lowercased()
    }
    let notes = fields["version_description"]?.stringValue ?? ""
    let force = (fields["is_force"]?.integerValue ?? 0) != 0
    return FirmwareRelease(
      hasUpdate: code > Int64(current.code), currentVersion: current.description,
      latestVersion: version.description, versionCode: Int(code), releaseNotes: notes,
      downloadUrl: url,
      md5: md5.lowercased(), sha256: sha256, isForce: force)
  }

  static func isHex(_ text: String, length: Int) -> Bool {
    text.utf8.count == length
      && text.utf8.allSatisfy { byte in
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
      }
  }
}
