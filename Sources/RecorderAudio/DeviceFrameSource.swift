/// Bytes arriving in chunks: a file, or memory in tests and fuzzing.
protocol ByteSource: AnyObject {
  /// Fills as much of `buffer` as it can; 0 means end of input.
  func read(into buffer: inout [UInt8]) throws(AudioError) -> Int
  /// Total bytes, when known (for progress); nil otherwise.
  var totalBytes: Int? { get }
}

extension AudioInputFile: ByteSource {
  var totalBytes: Int? { size }
}

/// A `ByteSource` over bytes in memory.
final class MemoryByteSource: ByteSource {
  private let bytes: [UInt8]
  private var position = 0
  private let chunkLimit: Int

  /// `chunkLimit` caps each read, so tests can exercise chunk boundaries.
  init(_ bytes: [UInt8], chunkLimit: Int = .max) {
    self.bytes = bytes
    self.chunkLimit = max(1, chunkLimit)
  }

  var totalBytes: Int? { bytes.count }

  func read(into buffer: inout [UInt8]) throws(AudioError) -> Int {
    let count = min(buffer.count, bytes.count - position, chunkLimit)
    for index in 0..<count { buffer[index] = bytes[position + index] }
    position += count
    return count
  }
}

/// A batch of device frames in their canonical raw form (80 × channels bytes each, as the
/// device stores them), with each frame's offset in the original input for error reports.
struct DeviceFrameBatch {
  var bytes: [UInt8] = []
  var offsets: [Int] = []
  var count: Int { offsets.count }

  mutating func removeAll() {
    bytes.removeAll(keepingCapacity: true)
    offsets.removeAll(keepingCapacity: true)
  }
}

/// Where device frames come from: the raw device file or an Ogg-wrapped one.
protocol DeviceFrameSource: AnyObject {
  /// The recording's shape (for Ogg input, what its OpusHead says).
  var format: DeviceAudioFormat { get }
  /// Replaces `batch` with up to `maxFrames` frames; an empty batch means the end.
  func readFrames(into batch: inout DeviceFrameBatch, maxFrames: Int) throws(AudioError)
  /// Fraction of the input consumed so far, 0…1.
  var fractionConsumed: Double { get }
}

/// The raw device file: concatenated frames, no container (PROTOCOL.md §5). Every frame's
/// TOC is checked here (`DeviceAudioFormat.frameViolation(in:at:)`), so a file that is not
/// device audio is refused at its first frame; a 2-channel file keeps the layout of its first
/// frame (a frame of the other layout is refused); a file that ends inside a frame is
/// refused rather than padded.
final class RawDeviceFrameSource: DeviceFrameSource {
  let format: DeviceAudioFormat
  private let source: ByteSource
  private var consumed = 0
  private var chunk: [UInt8] = []
  private var scratch: [UInt8] = []
  /// The layout of the first 2-channel frame; nil for mono or before the first frame.
  private(set) var stereoLayout: DeviceAudioFormat.StereoLayout?

  init(source: ByteSource, format: DeviceAudioFormat) {
    self.source = source
    self.format = format
  }

  var fractionConsumed: Double {
    guard let total = source.totalBytes, total > 0 else { return 0 }
    return min(1, Double(consumed) / Double(total))
  }

  /// Whole frames in the input, when its size is known.
  var totalFrames: Int? { source.totalBytes.map { format.frameCount(forByteCount: $0) } }

  func readFrames(into batch: inout DeviceFrameBatch, maxFrames: Int) throws(AudioError) {
    batch.removeAll()
    let frameBytes = format.bytesPerFrame
    let wanted = maxFrames * frameBytes
    if chunk.count != wanted { chunk = [UInt8](repeating: 0, count: wanted) }
    var got = 0
    while got < wanted {
      // Sources may return short reads; keep reading until the batch is full or input ends.
      if scratch.count != wanted - got { scratch = [UInt8](repeating: 0, count: wanted - got) }
      let more = try source.read(into: &scratch)
      if more == 0 { break }
      chunk.replaceSubrange(got..<got + more, with: scratch[0..<more])
      got += more
    }
    let whole = got / frameBytes
    if got % frameBytes != 0 {
      throw .truncatedFrame(offset: consumed + whole * frameBytes, trailingBytes: got % frameBytes)
    }
    let checked = chunk.withUnsafeBytes { raw in
      Result { () throws(AudioError) in
        for frame in 0..<whole {
          let position = frame * frameBytes
          if let bad = format.frameViolation(in: raw, at: position) {
            throw .unexpectedTOC(byte: raw[bad], offset: consumed + bad)
          }
          // One recording, one layout: a frame of the other layout is not the device's.
          let layout = format.stereoLayout(in: raw, at: position)
          if let stereoLayout, layout != stereoLayout {
            throw .unexpectedTOC(byte: raw[position], offset: consumed + position)
          }
          stereoLayout = layout
        }
      }
    }
    try checked.get()
    for frame in 0..<whole { batch.offsets.append(consumed + frame * frameBytes) }
    batch.bytes.append(contentsOf: chunk[0..<got])
    consumed += got
  }
}
