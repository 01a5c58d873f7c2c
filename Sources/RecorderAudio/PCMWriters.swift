/// Where decoded PCM goes: WAV, raw PCM or MP3. Fed interleaved 16-bit samples in batches;
/// `finish()` completes the file (headers, flush) and must be called exactly once.
protocol PCMSink: AnyObject {
  func write(_ samples: UnsafeBufferPointer<Int16>) throws(AudioError)
  func finish() throws(AudioError)
}

/// Raw PCM: signed 16-bit little-endian, interleaved, no header.
final class RawPCMWriter: PCMSink {
  private let file: AudioOutputFile
  private var swapped: [Int16] = []

  init(path: String) throws(AudioError) { file = try AudioOutputFile(path: path) }

  func write(_ samples: UnsafeBufferPointer<Int16>) throws(AudioError) {
    try writeLittleEndian(samples, to: file, scratch: &swapped)
  }

  func finish() throws(AudioError) { try file.close() }
}

/// A canonical 44-byte-header WAV (RIFF, WAVE_FORMAT_PCM, 16-bit).
///
/// The header is written first with zero sizes and patched at `finish()`, so the writer
/// streams. RIFF sizes are unsigned 32-bit: up to 4 GiB − 36 bytes of samples (about 37 hours
/// of 16 kHz mono) are written with exact sizes, including past 2 GiB where signed readers
/// stumble; beyond that the export is refused with `wavTooLarge` *before* anything is written
/// (the exporter checks `checkFits` up front) and again here as a backstop.
final class WAVWriter: PCMSink {
  /// The most sample bytes a RIFF file can describe.
  static let maxDataBytes = UInt64(UInt32.max) - 36
  private let file: AudioOutputFile
  private let channels: Int
  private let sampleRate: Int
  private var dataBytes: UInt64 = 0
  private var swapped: [Int16] = []

  init(path: String, channels: Int, sampleRate: Int) throws(AudioError) {
    self.channels = channels
    self.sampleRate = sampleRate
    file = try AudioOutputFile(path: path)
    try file.write(Self.header(channels: channels, sampleRate: sampleRate, dataBytes: 0))
  }

  /// Throws `wavTooLarge` when `dataBytes` of samples cannot be described by RIFF.
  static func checkFits(dataBytes: UInt64) throws(AudioError) {
    guard dataBytes <= maxDataBytes else { throw .wavTooLarge(dataBytes: dataBytes) }
  }

  func write(_ samples: UnsafeBufferPointer<Int16>) throws(AudioError) {
    let adding = UInt64(samples.count * 2)
    try Self.checkFits(dataBytes: dataBytes + adding)
    try writeLittleEndian(samples, to: file, scratch: &swapped)
    dataBytes += adding
  }

  func finish() throws(AudioError) {
    try file.patch(
      Self.header(channels: channels, sampleRate: sampleRate, dataBytes: dataBytes), at: 0)
    try file.close()
  }

  static func header(channels: Int, sampleRate: Int, dataBytes: UInt64) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(44)
    func u32(_ value: UInt32) {
      withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
    func u16(_ value: UInt16) {
      withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
    let blockAlign = channels * 2
    bytes.append(contentsOf: Array("RIFF".utf8))
    u32(UInt32(truncatingIfNeeded: 36 + dataBytes))
    bytes.append(contentsOf: Array("WAVEfmt ".utf8))
    u32(16)
    u16(1)  // WAVE_FORMAT_PCM
    u16(UInt16(channels))
    u32(UInt32(sampleRate))
    u32(UInt32(sampleRate * blockAlign))
    u16(UInt16(blockAlign))
    u16(16)
    bytes.append(contentsOf: Array("data".utf8))
    u32(UInt32(truncatingIfNeeded: dataBytes))
    return bytes
  }
}

/// Writes samples as little-endian bytes (a no-op conversion on every platform we ship on).
private func writeLittleEndian(
  _ samples: UnsafeBufferPointer<Int16>, to file: AudioOutputFile, scratch: inout [Int16]
) throws(AudioError) {
  if 1.littleEndian == 1 {
    try file.write(UnsafeRawBufferPointer(samples))
  } else {
    scratch.removeAll(keepingCapacity: true)
    scratch.append(contentsOf: samples.lazy.map { $0.littleEndian })
    let result = scratch.withUnsafeBytes { raw in
      Result { () throws(AudioError) in try file.write(raw) }
    }
    try result.get()
  }
}
