import COgg
import COpus
import CLame

/// Streaming audio. Arrives with the audio-export issue.
public enum RecorderAudioInfo {
  /// The libopus version string.
  public static var opusVersion: String { String(cString: opus_get_version_string()) }
}
