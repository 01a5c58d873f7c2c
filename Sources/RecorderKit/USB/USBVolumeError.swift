/// Why a USB volume, or one recording on it, cannot be used. Names paths and sizes, never a
/// file's content: a serial in a WAV is the owner's watermark, not for logs.
public enum USBVolumeError: Error, Equatable, Sendable, CustomStringConvertible {
  /// `/MODEL.txt` is missing or unreadable.
  case modelFileUnreadable(path: String)
  /// `/MODEL.txt` does not have the two lines of PROTOCOL.md §5's USB variant.
  case malformedModelFile(reason: String)
  /// The volume's root cannot be listed.
  case volumeUnreadable(path: String)
  /// A WAV file shorter than its 512-byte header.
  case wavTooShort(path: String, size: Int64)
  /// An `.ASR` whose `.WAV` twin is missing.
  case wavMissing(path: String)
  /// A WAV header that is not the device's: a field named and what was wrong with it.
  case malformedWAVHeader(path: String, reason: String)
  /// An `.ASR` file that is not whole 80-byte device Opus frames.
  case malformedASR(path: String, reason: String)
  /// The WAV's samples and the ASR's frames disagree on the recording's length by more than
  /// one 20 ms frame.
  case durationsDisagree(wavMs: Int, asrMs: Int)
  /// A file of the pair could not be read.
  case unreadable(path: String, errno: Int32)
  /// A copy off the volume could not be written (a full disk, say).
  case writeFailed(path: String, errno: Int32)
  /// A file or directory of the volume could not be removed or synced.
  case removeFailed(path: String, errno: Int32)
  /// No recording with this id on the volume.
  case noSuchRecording(String)
  /// A `/proc/self/mountinfo` line that is not five fields, a separator and three more.
  case malformedMountInfo(line: Int, reason: String)

  public var description: String {
    switch self {
    case .modelFileUnreadable(let path): "cannot read \(path)"
    case .malformedModelFile(let reason): "MODEL.txt: \(reason)"
    case .volumeUnreadable(let path): "cannot list the volume at \(path)"
    case .wavTooShort(let path, let size):
      "\(path): \(size) bytes, shorter than the 512-byte device WAV header"
    case .wavMissing(let path): "\(path) is missing beside its .ASR"
    case .malformedWAVHeader(let path, let reason): "\(path): not a device WAV header: \(reason)"
    case .malformedASR(let path, let reason): "\(path): not device Opus frames: \(reason)"
    case .durationsDisagree(let wav, let asr):
      "the WAV lasts \(wav) ms and the ASR \(asr) ms: more than one 20 ms frame apart"
    case .unreadable(let path, let code): "cannot read \(path) (errno \(code))"
    case .writeFailed(let path, let code): "cannot write \(path) (errno \(code))"
    case .removeFailed(let path, let code): "cannot remove or sync \(path) (errno \(code))"
    case .noSuchRecording(let id): "no recording \(id) on the volume"
    case .malformedMountInfo(let line, let reason): "mountinfo line \(line): \(reason)"
    }
  }
}
