/// RecorderKit, the SDK: sessions with a device, sync, export.
public enum RecorderKitInfo {
  /// The SDK version string reported by the command-line tool.
  public static let version = "0.1.0"
}
