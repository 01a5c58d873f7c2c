import Foundation
import RecorderConcurrency
import RecorderProtocol

/// A step the sync pipeline runs once per stored recording, after its export: the user's own
/// command, a webhook, a sidecar file, an upload.
///
/// The pipeline journals each configured step as owed to a recording before that recording's
/// device copy may be deleted (one transaction, ``SyncEngine/Options/finishSteps``), and runs
/// it apart from the transfers: a slow or failing step never delays a DELETE, whose inputs
/// (the raw copy and the exports) are on local disk already. A step is done when ``run(_:attempt:)``
/// returns; that is journaled, and the step is never run again for that recording. A step
/// that throws, or whose process was killed before its completion was journaled, is run
/// again (after a backoff, in this run or the next), with the same
/// ``FinishAttempt/idempotencyKey``. "Exactly once" therefore means: completed and journaled
/// once; a step with effects outside this machine must make a repeated attempt harmless with
/// the key (a webhook receiver keeps each key once; a command can check it).
///
/// Adding a step is one type conforming to this protocol, added to
/// ``SyncEngine/Options/finishSteps``.
public protocol FinishStep: Sendable {
  /// The journal's name for the step: unique among one sync's steps, the same across runs
  /// (a renamed step is a new one, owed afresh).
  var name: String { get }
  /// Runs the step for `recording`. Returning means done; throwing counts a failed attempt.
  func run(_ recording: FinishedRecording, attempt: FinishAttempt) async throws(FinishStepError)
}

/// One attempt at a finish step.
public struct FinishAttempt: Sendable, Equatable {
  /// The same for every attempt of this step on this recording (and generation), in every
  /// run: `<serial>-<session id>-<generation>-<step>-<first 16 hex digits of the SHA-256>`.
  public var idempotencyKey: String
  /// Attempts before this one, over every run (0 for the first).
  public var earlierAttempts: Int

  package init(idempotencyKey: String, earlierAttempts: Int) {
    self.idempotencyKey = idempotencyKey
    self.earlierAttempts = earlierAttempts
  }
}

/// Why an attempt at a finish step failed, in words (shown and journaled; never a secret).
public struct FinishStepError: Error, Sendable, Equatable, CustomStringConvertible {
  public var reason: String
  public init(_ reason: String) { self.reason = reason }
  public var description: String { reason }
}

/// What a finish step is told about one stored recording: its files, and the JSON given to
/// the user's own steps (``json()``).
public struct FinishedRecording: Sendable, Equatable, Codable {
  /// The device's serial.
  public var serial: String
  /// The model the serial's prefix names, when known ("Note", "NotePin", …).
  public var model: String?
  /// The device's firmware version, when the transport knew it.
  public var firmware: String?
  /// The recording's session id (its start time, unix seconds, PROTOCOL.md §5).
  public var sessionId: UInt32
  /// 0 for the first recording under this session id; one more for each later one.
  public var generation: Int
  /// The start time in UTC, ISO 8601 (`2026-04-05T12:52:14Z`).
  public var startedAtUTC: String
  /// The UTC offset, in seconds, of the zone this machine gives the device with TIME_SYNC at
  /// each connection: the zone the device's clock shows the recording in.
  public var deviceUTCOffsetSeconds: Int
  /// The zone's identifier on this machine ("Europe/Paris"), when it has one.
  public var deviceZone: String?
  /// The recording's duration in milliseconds.
  public var durationMs: Int
  /// SHA-256 of the raw copy, hex.
  public var sha256: String
  /// How the bytes were checked: "verified" (the device's CRC), "framing" (the Opus framing
  /// of every frame), "agreement" (read twice identically), or "unverified".
  public var checked: String
  /// The transports that carried the bytes ("ble", "wifi", "usb"), when known.
  public var transport: String?
  /// The raw copy (the device's bytes), absolute or relative to the working directory.
  public var rawPath: String
  /// The exports made so far, by format ("mp3" → path).
  public var exports: [String: String]
  /// Formats whose conversion is deferred (``ExportPolicy/deferConversion``): not yet in
  /// ``exports``.
  public var conversionsPending: [String]

  /// The description as one line of JSON (keys sorted), as a user's command reads it on stdin
  /// and a webhook receives it.
  public func json() -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return Array((try? encoder.encode(self)) ?? Data("{}".utf8))
  }

  /// `seconds` since 1970 as ISO 8601 in UTC.
  static func utc(_ seconds: UInt32) -> String {
    var time = time_t(seconds)
    var parts = tm()
    gmtime_r(&time, &parts)
    return String(
      format: "%04d-%02d-%02dT%02d:%02d:%02dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
      Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
  }
}
