import Foundation

// The vendor's file sync over BLE, including live audio while recording (docs/live-audio.md).
extension PlaudDeviceAgent {
  /// Streams the recording `sessionId` from byte `start` to byte `end` (0: to its end).
  ///
  /// On the recording in progress with `end` 0 it follows the recording as it grows, until
  /// it stops: `bleData(sessionId:start:data:)` delivers the device's bytes as they arrive,
  /// `blePcmData(sessionId:millsec:pcmData:isMusic:)` each 20 ms decoded as it arrives (640
  /// bytes of 16 kHz mono signed 16-bit little-endian PCM; `millsec` is its position in the
  /// recording), and `bleDataComplete()` follows the last byte once the recording stopped.
  /// On a finished recording it transfers `[start, end)` the same way. `stopRecord()` works
  /// while it streams. One sync runs at a time: a new call stops the previous one. Not
  /// connected, or an id or offset the device cannot have: no callback, ``lastError`` says
  /// why; a sync that fails midway ends without `bleDataComplete` and sets ``lastError``.
  public func syncFile(sessionId: Int, start: Int, end: Int) {
    enqueue { await $0.syncFile(sessionId: sessionId, start: start, end: end) }
  }

  /// Stops the sync `syncFile` started (SYNC_STOP to the device); no callback of it follows.
  public func stopSyncFile() { enqueue { await $0.stopSyncFile() } }
}
