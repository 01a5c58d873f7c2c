import RecorderProtocol

/// One 20 ms frame of a recording, decoded: 16 kHz mono signed 16-bit samples.
public struct LivePCMChunk: Sendable, Equatable {
  /// Byte offset of the device frame it was decoded from.
  public var offset: UInt32
  /// Position of its first sample in the recording, milliseconds (PROTOCOL.md §5:
  /// `offset / (80 × channels) × 20`).
  public var millisecond: Int
  /// 320 samples (20 ms at 16 kHz), mono: a two-channel recording is the mean of both.
  public var samples: [Int16]

  package init(offset: UInt32, millisecond: Int, samples: [Int16]) {
    self.offset = offset
    self.millisecond = millisecond
    self.samples = samples
  }

  /// The samples as little-endian bytes (640 for a whole frame): the vendor's `pcmData`.
  public var littleEndianBytes: [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(samples.count * 2)
    for sample in samples {
      let value = UInt16(bitPattern: sample)
      bytes.append(UInt8(truncatingIfNeeded: value))
      bytes.append(UInt8(truncatingIfNeeded: value >> 8))
    }
    return bytes
  }
}

/// What a live audio stream (``DeviceSession/liveAudio(sessionId:start:end:options:)``)
/// delivers, in the order the device's bytes arrive.
public enum LiveAudioEvent: Sendable, Equatable {
  /// The device accepted a SYNC_START from `offset` (head status 0). A stream that follows a
  /// recording may issue several (PROTOCOL.md §3.3 re-issues, or a device that sends only
  /// what exists): each is reported, at its first frame or its tail. `scene` is the recording's scene while the device
  /// records it (GET_STATE; 4 = music [sdk]), nil for a finished recording.
  case requested(offset: UInt32, scene: UInt8?)
  /// New bytes of the recording, exactly as the device sent them, at `offset`; every byte
  /// once, in order, with no gap from the stream's start.
  case data(offset: UInt32, bytes: [UInt8])
  /// One decoded 20 ms frame.
  case pcm(LivePCMChunk)
  /// The device frame at `offset` did not decode (not the device's Opus framing, or cut
  /// short at the end of the recording): it has no PCM; the stream goes on.
  case undecodable(offset: UInt32, reason: String)
  /// A SYNC_START of this stream ended with the device's tail.
  case tail(SyncTail)
}
