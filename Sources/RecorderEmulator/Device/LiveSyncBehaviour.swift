/// What the device does with SYNC_START of the recording in progress with `end` 0
/// (PROTOCOL.md §3.3 says it "follows a live recording" [device][sdk]; how such a stream
/// paces and ends is not documented, so both readings are emulated [project]).
public enum LiveSyncBehaviour: String, Sendable, CaseIterable {
  /// One stream follows the recording: each frame is sent as it is recorded, and the
  /// terminal frame and tail come once the recording stops (or pauses for good: a paused
  /// recording sends nothing until it resumes).
  case follows
  /// The stream sends the bytes recorded when SYNC_START arrived, then the terminal frame
  /// and tail; the phone re-issues from the new end to get more.
  case sendsRecordedSoFar
}
