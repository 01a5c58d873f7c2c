import RecorderAudio
import RecorderConcurrency
import RecorderProtocol

/// Where a live stream stands in the recording, and its decoder: takes the device's data
/// frames in any order the link delivers them, passes on each new byte once, and decodes
/// every whole device frame.
///
/// The decoder is not `Sendable`; it lives inside `state` and is only touched under its lock
/// (the stream's `onData` calls arrive one at a time anyway, PROTOCOL.md §3.3).
final class LiveFrameCursor: Sendable {
  /// What one data frame means for the stream.
  enum Take: Sendable, Equatable {
    /// New bytes (and their decoded frames), or nothing new (a duplicate).
    case events([LiveAudioEvent])
    /// The frame starts past the next byte the stream lacks: bytes were lost.
    case gap
  }

  private struct State {
    /// The next byte the stream lacks.
    var offset: Int64
    /// Bytes after the last whole frame decoded, starting at `pendingOffset`.
    var pending: [UInt8] = []
    var pendingOffset: Int64
    let decoder: DeviceOpusDecoder
  }

  private let state: Locked<State>
  private let frameBytes: Int
  private let channels: Int
  /// Where the stream stops (exclusive); nil: the recording's end.
  let end: Int64?

  /// - Throws: ``LiveAudioError/decoderUnavailable(_:)`` when libopus cannot be set up for
  ///   `channels`.
  init(channels: Int, start: UInt32, end: UInt32) throws(LiveAudioError) {
    let decoder: DeviceOpusDecoder
    do {
      decoder = try DeviceOpusDecoder(channels: channels)
    } catch {
      throw .decoderUnavailable(error.description)
    }
    self.channels = channels
    frameBytes = decoder.format.bytesPerFrame
    self.end = end == 0 ? nil : Int64(end)
    let firstBoundary =
      (Int64(start) + Int64(frameBytes) - 1) / Int64(frameBytes)
      * Int64(frameBytes)
    state = Locked(State(offset: Int64(start), pendingOffset: firstBoundary, decoder: decoder))
  }

  /// The next byte the stream lacks.
  var offset: Int64 { state.withLock { $0.offset } }

  /// True once every byte up to ``end`` arrived.
  var reachedEnd: Bool {
    guard let end else { return false }
    return offset >= end
  }

  func take(_ frame: BulkFrame) -> Take {
    state.withLock { state -> Take in
      let frameOffset = Int64(frame.offset)
      let expected = state.offset
      if frameOffset > expected { return .gap }
      var stop = frameOffset + Int64(frame.data.count)
      if let end { stop = min(stop, end) }
      guard stop > expected else { return .events([]) }
      let new = Array(frame.data[Int(expected - frameOffset)..<Int(stop - frameOffset)])
      state.offset = stop
      var events: [LiveAudioEvent] = [.data(offset: UInt32(expected), bytes: new)]
      // Bytes before the first frame boundary at or after `start` cannot be decoded alone.
      let skip = max(0, state.pendingOffset + Int64(state.pending.count) - expected)
      if skip < Int64(new.count) { state.pending += new[Int(skip)...] }
      events += decodeWholeFrames(&state)
      return .events(events)
    }
  }

  /// The stream ended: a frame cut short at the end is reported undecodable.
  func finish() -> [LiveAudioEvent] {
    state.withLock { state -> [LiveAudioEvent] in
      guard !state.pending.isEmpty else { return [] }
      let offset = state.pendingOffset
      let count = state.pending.count
      state.pendingOffset += Int64(count)
      state.pending = []
      return [
        .undecodable(
          offset: UInt32(clamping: offset),
          reason: "the recording ends \(count) bytes into a \(frameBytes)-byte frame")
      ]
    }
  }

  private func decodeWholeFrames(_ state: inout State) -> [LiveAudioEvent] {
    var events: [LiveAudioEvent] = []
    var used = 0
    while state.pending.count - used >= frameBytes {
      let frame = Array(state.pending[used..<used + frameBytes])
      let offset = state.pendingOffset + Int64(used)
      used += frameBytes
      do {
        let pcm = try state.decoder.decode(frame, offset: Int(offset))
        events.append(
          .pcm(
            LivePCMChunk(
              offset: UInt32(clamping: offset),
              millisecond: Int(offset / Int64(frameBytes)) * DeviceAudioFormat.frameDurationMs,
              samples: Self.mono(pcm, channels: channels))))
      } catch {
        events.append(.undecodable(offset: UInt32(clamping: offset), reason: error.description))
      }
    }
    state.pending.removeFirst(used)
    state.pendingOffset += Int64(used)
    return events
  }

  /// Interleaved samples to mono: the mean of the channels.
  static func mono(_ samples: [Int16], channels: Int) -> [Int16] {
    guard channels > 1 else { return samples }
    var out: [Int16] = []
    out.reserveCapacity(samples.count / channels)
    var index = 0
    while index + channels <= samples.count {
      var sum = 0
      for channel in 0..<channels { sum += Int(samples[index + channel]) }
      out.append(Int16(sum / channels))
      index += channels
    }
    return out
  }
}
