import RecorderProtocol

/// The answer to a firmware check (PROTOCOL.md §8 field names; server fields in brackets).
public struct FirmwareRelease: Sendable, Equatable {
  /// Whether the cloud offers an update: [`version_code`] above the device's and a
  /// non-empty [`download_url`] [sdk-code].
  public var hasUpdate: Bool
  /// The version the device runs now (as the caller gave it).
  public var currentVersion: String
  /// [`version_type`] (default `V`) and [`version_code`] as text: `V1.2.8`, `V0096` (§1).
  public var latestVersion: String
  /// [`version_code`] the numeric code, compared with the device's.
  public var versionCode: Int
  /// [`version_number`] as the cloud sent it; it came back empty from the real cloud
  /// [client], so ``latestVersion`` never depends on it.
  public var versionNumber: String
  /// [`version_description`].
  public var releaseNotes: String
  /// [`download_url`] absolute, https (or http on loopback); empty: no update.
  public var downloadUrl: String
  /// [`file_md5`] lower-case hex; empty when the cloud published none (a NotePin S's
  /// release had none [client]).
  public var md5: String
  /// [`file_sha256`] lower-case hex, when the server publishes it (this project's addition).
  public var sha256: String?
  /// [`is_force`].
  public var isForce: Bool
  /// [`is_strong_guidance`]: the vendor's "urge the user" flag [sdk-code].
  public var isStrongGuidance: Bool

  package init(
    hasUpdate: Bool, currentVersion: String, latestVersion: String, versionCode: Int,
    versionNumber: String = "", releaseNotes: String, downloadUrl: String, md5: String,
    sha256: String? = nil, isForce: Bool, isStrongGuidance: Bool = false
  ) {
    self.hasUpdate = hasUpdate
    self.currentVersion = currentVersion
    self.latestVersion = latestVersion
    self.versionCode = versionCode
    self.versionNumber = versionNumber
    self.releaseNotes = releaseNotes
    self.downloadUrl = downloadUrl
    self.md5 = md5
    self.sha256 = sha256
    self.isForce = isForce
    self.isStrongGuidance = isStrongGuidance
  }

  /// "No update": the device's version is the latest.
  package static func upToDate(_ current: FirmwareVersion) -> FirmwareRelease {
    FirmwareRelease(
      hasUpdate: false, currentVersion: current.description, latestVersion: current.description,
      versionCode: Int(current.code), releaseNotes: "", downloadUrl: "", md5: "", isForce: false)
  }

  /// Reads the check endpoint's JSON (PROTOCOL.md §8): the fields at the top level or inside
  /// a `data` object; `data: null` (or no `version_code`) means no release is published.
  /// The version is [`version_type`] (one ASCII letter, default `V`) with [`version_code`]
  /// (§1 encoding); [`version_number`] is kept as sent, unchecked (it came back empty
  /// [client]). An update is offered iff the code is above the device's and [`download_url`]
  /// is non-empty [sdk-code]; [`file_md5`] may be absent.
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
    guard let codeValue = fields["version_code"], codeValue != .null else {
      return .upToDate(current)
    }
    guard let code = codeValue.integerValue, (0...0xFF_FFFF).contains(code) else {
      throw .malformedResponse(reason: "`version_code` is not an integer in 0…16777215")
    }
    let type = try versionType(fields["version_type"])
    let versionNumber = try optionalText(fields["version_number"], "version_number")
    let url = try optionalText(fields["download_url"], "download_url")
    let md5 = try optionalText(fields["file_md5"], "file_md5")
    guard md5.isEmpty || Self.isHex(md5, length: 32) else {
      throw .malformedResponse(reason: "`file_md5` is not 32 hex digits")
    }
    var sha256: String?
    if let value = fields["file_sha256"], value != .null {
      guard let text = value.stringValue, Self.isHex(text, length: 64) else {
        throw .malformedResponse(reason: "`file_sha256` is not 64 hex digits")
      }
      sha256 = text.lowercased()
    }
    let latest = FirmwareVersion(type: type, code: UInt32(code))
    return FirmwareRelease(
      hasUpdate: code > Int64(current.code) && !url.isEmpty, currentVersion: current.description,
      latestVersion: latest.description, versionCode: Int(code), versionNumber: versionNumber,
      releaseNotes: try optionalText(fields["version_description"], "version_description"),
      downloadUrl: url, md5: md5.lowercased(), sha256: sha256,
      isForce: try flag(fields["is_force"], "is_force"),
      isStrongGuidance: try flag(fields["is_strong_guidance"], "is_strong_guidance"))
  }

  /// [`version_type`]: one ASCII letter, `V` when absent, null or empty [sdk-code].
  private static func versionType(_ value: JSONValue?) throws(CloudError) -> UInt8 {
    let text = try optionalText(value, "version_type")
    guard !text.isEmpty else { return UInt8(ascii: "V") }
    let bytes = Array(text.utf8)
    guard bytes.count == 1,
      (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(bytes[0] & 0xDF)
    else { throw .malformedResponse(reason: "`version_type` is not one letter") }
    return bytes[0] & 0xDF
  }

  /// A text field; absent or null is empty, anything but a string is malformed.
  private static func optionalText(_ value: JSONValue?, _ name: String) throws(CloudError)
    -> String
  {
    guard let value, value != .null else { return "" }
    guard let text = value.stringValue else {
      throw .malformedResponse(reason: "`\(name)` is not a string")
    }
    return text
  }

  /// A flag sent as a boolean or 0/1; absent or null is false.
  private static func flag(_ value: JSONValue?, _ name: String) throws(CloudError) -> Bool {
    guard let value, value != .null else { return false }
    if case .bool(let flag) = value { return flag }
    guard let number = value.integerValue else {
      throw .malformedResponse(reason: "`\(name)` is not a boolean or an integer")
    }
    return number != 0
  }

  static func isHex(_ text: String, length: Int) -> Bool {
    text.utf8.count == length
      && text.utf8.allSatisfy { byte in
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
      }
  }
}
