import Foundation
import RecorderKit

/// The audio formats `exportAudio` writes. Raw values are the vendor's.
public enum AudioExportFormat: Int, Sendable, CaseIterable {
  /// Raw PCM: signed 16-bit little-endian, 16 kHz, no header.
  case pcm = 0
  /// MP3 (recommended by the vendor: plays everywhere, accepted by the transcription API).
  case mp3 = 1
  /// RIFF WAVE, 16-bit PCM.
  case wav = 2
  /// Ogg Opus, the device's packets passed through.
  case opus = 3
}

/// Reports one `exportAudio` call. The facade holds it weakly: the caller retains it until
/// `onComplete` or `onError` (as the vendor's reference says). A callback released early
/// simply hears nothing. Called on the facade's callback queue, never the main queue:
/// `onProgress` zero or more times with non-decreasing values, then exactly one of
/// `onComplete` / `onError`.
public protocol AudioExportCallback: AnyObject {
  /// Progress 0–100 with a short status message.
  func onProgress(_ progress: Int, message: String)
  /// The exported file is in place at `outputPath` (fsync'd, atomically renamed).
  func onComplete(outputPath: String)
  /// The export failed; `error` says why (never contains a token).
  func onError(_ error: String)
}

extension AudioExportFormat {
  /// RecorderKit's name for the format.
  var fileFormat: ExportFormat {
    switch self {
    case .pcm: .pcm
    case .mp3: .mp3
    case .wav: .wav
    case .opus: .opus
    }
  }
}

extension AudioExportFormat {
  /// The file name extension of the format, without the dot: "pcm", "mp3", "wav", "opus".
  public var fileExtension: String { fileFormat.fileExtension }
}
