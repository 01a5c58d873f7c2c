import RecorderProtocol

/// Why a live audio stream failed. Never carries frame bytes.
public enum LiveAudioError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The device refused the first SYNC_START (head status > 0: no such recording, or
  /// `start` at or past its end) and is not recording it.
  case refused(status: UInt8)
  /// The session failed (link lost, timeout, closed).
  case device(DeviceError)
  /// The consumer fell more than ``LiveAudioOptions/bufferLimit`` events behind: the stream
  /// was stopped rather than holding the recording in memory.
  case consumerTooSlow(bufferLimit: Int)
  /// The device kept skipping bytes at `offset` through ``LiveAudioOptions/maximumReissues``
  /// re-issues in a row.
  case noProgress(offset: UInt32)
  /// The device stores Ogg-wrapped Opus (`oggAudio = 1`): live decoding of Ogg pages is
  /// not supported.
  case oggNotSupported
  /// The recording is stored end-to-end encrypted (PROTOCOL.md §9): its bytes cannot be
  /// decoded live.
  case endToEndEncrypted
  /// libopus could not be set up for the device's channel count.
  case decoderUnavailable(String)

  public var description: String {
    switch self {
    case .refused(let status): "the device refused the live sync (status \(status))"
    case .device(let error): "live sync: \(error)"
    case .consumerTooSlow(let limit): "live audio consumer fell \(limit) events behind"
    case .noProgress(let offset): "the device keeps skipping bytes at offset \(offset)"
    case .oggNotSupported: "live audio of Ogg-wrapped recordings is not supported"
    case .endToEndEncrypted: "live audio of an end-to-end encrypted recording cannot be decoded"
    case .decoderUnavailable(let reason): "no decoder for live audio: \(reason)"
    }
  }
}

/// How a live audio stream runs.
public struct LiveAudioOptions: Sendable {
  /// Wait between two SYNC_STARTs that brought nothing new while the recording is still
  /// going (a device that sends only what exists, or a pause) [project].
  public var pollInterval: Duration = .milliseconds(250)
  /// Longest quiet spell inside one SYNC_START before it is stopped and re-issued (5 s
  /// [sdk]).
  public var silenceTimeout: Duration = .seconds(5)
  /// Events the consumer may fall behind before ``LiveAudioError/consumerTooSlow(bufferLimit:)``
  /// (each 20 ms frame makes two: its bytes and its PCM; 1 000 is 10 s of audio).
  public var bufferLimit = 1_000
  /// Re-issues in a row that bring no new byte because the device skipped some, before
  /// ``LiveAudioError/noProgress(offset:)``.
  public var maximumReissues = 5
  /// Hand the link to a command that waits for it (REC_STOP, GET_STATE from the app): the
  /// stream stops its SYNC with SYNC_STOP at the next frame and re-issues from the next byte
  /// once the command is done, so a stop button works while audio streams. On by default.
  public var yieldsToCommands = true

  public init() {}
}
