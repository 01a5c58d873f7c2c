/// The vendor's cloud-upload helper; here only its device-type rule is provided (the cloud
/// client arrives with a later issue).
public enum PlaudFileUploader {
  /// The cloud's device type for a serial number (PROTOCOL.md §8): prefix 881 `notepro`,
  /// 882 `notepins`, 880 `notepin`, anything else `note`.
  public static func calculateSnType(sn: String) -> String {
    if sn.hasPrefix("881") { return "notepro" }
    if sn.hasPrefix("882") { return "notepins" }
    if sn.hasPrefix("880") { return "notepin" }
    return "note"
  }
}
