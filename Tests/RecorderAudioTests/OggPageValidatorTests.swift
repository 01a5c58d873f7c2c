import Foundation
import RecorderConcurrency
import RecorderEmulator
import Testing

@testable import RecorderAudio

/// Issue 28 item 2: Ogg-wrapped device audio, built by DeviceOggWriter and checked page by
/// page by OggPageValidator as a transfer feeds it, in arbitrary chunks.
@Suite struct OggPageValidatorTests {
  static func stream(_ format: DeviceAudioFormat, frames: Int) throws -> [UInt8] {
    let audio = try DeviceRecordingWriter.speechRecording(
      format: format, frameCount: frames, seed: 5)
    var writer = DeviceOggWriter(format: format, serial: 0x1234)
    return writer.headerPages() + writer.pages(frames: audio, last: true)
  }

  /// Feeds `bytes` in seeded chunks; returns what came out, and the error if one was thrown.
  static func feed(_ bytes: [UInt8], seed: UInt64, midStream: Bool = false)
    -> (out: [UInt8], error: AudioError?)
  {
    var random = SplitMix64(seed: seed)
    var validator = OggPageValidator(midStream: midStream)
    var out: [UInt8] = []
    var index = 0
    while index < bytes.count {
      let end = min(bytes.count, index + 1 + Int(random.next() % 700))
      do throws(AudioError) {
        out += try validator.feed(Array(bytes[index..<end]))
      } catch {
        return (out, error)
      }
      index = end
    }
    return (out, nil)
  }

  @Test(
    "every byte of a written stream comes out, in any chunking, and counts as its frames",
    arguments: [DeviceAudioFormat.mono, .stereo])
  func roundTrip(_ format: DeviceAudioFormat) throws {
    let bytes = try Self.stream(format, frames: 173)
    for seed in 0..<20 as Range<UInt64> {
      let (out, error) = Self.feed(bytes, seed: seed)
      #expect(error == nil, "seed \(seed)")
      #expect(out == bytes, "seed \(seed)")
    }
    let path = NSTemporaryDirectory() + "ogg-\(UUID().uuidString).opus"
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    defer { unlink(path) }
    #expect(
      try AudioExporter.frameCount(ofRecordingAt: path, recordedChannels: format.channels) == 173)
    // The duration from the first and last pages alone agrees.
    #expect(AudioExporter.oggDurationMs(ofRecordingAt: path) == 173 * 20)
    // A stream cut inside its last page has no such duration.
    let cut = NSTemporaryDirectory() + "cut-\(UUID().uuidString).opus"
    try Data(bytes.dropLast(3)).write(to: URL(fileURLWithPath: cut))
    defer { unlink(cut) }
    #expect(AudioExporter.oggDurationMs(ofRecordingAt: cut) == nil)
  }

  @Test(
    "a flipped byte, a lost page, a second stream or a page after the end stop the stream at that page"
  )
  func malformedPagesAreRefused() throws {
    let bytes = try Self.stream(.mono, frames: 200)
    let pages = Self.pageStarts(bytes)
    #expect(pages.count == 2 + 4, "two header pages, four of 50 packets")
    // A flipped payload byte: the checksum of page 3 fails; pages 0-2 came out whole.
    var flipped = bytes
    flipped[pages[3] + 100] ^= 0x01
    let (out, error) = Self.feed(flipped, seed: 1)
    #expect(error == .malformedOgg(offset: pages[3], reason: "page checksum mismatch"))
    #expect(out == Array(bytes[0..<pages[3]]))
    // A page lost: the next one's sequence number is wrong.
    let lost = Array(bytes[0..<pages[3]] + bytes[pages[4]...])
    #expect(
      Self.feed(lost, seed: 2).error
        == .malformedOgg(offset: pages[3], reason: "page 4 where 3 was expected"))
    // Not Ogg at all: refused at its first bytes.
    #expect(
      Self.feed([0xB8, 0x01], seed: 3).error
        == .malformedOgg(offset: 0, reason: "no OggS capture pattern"))
    // Anything after end-of-stream.
    let twice = bytes + Array(bytes[pages[5]...])
    #expect(
      Self.feed(twice, seed: 4).error
        == .malformedOgg(offset: bytes.count, reason: "page after the end of the stream"))
    // A stream must begin with begin-of-stream, unless the transfer resumes mid-stream.
    let resumed = Array(bytes[pages[2]...])
    #expect(
      Self.feed(resumed, seed: 5).error
        == .malformedOgg(offset: 0, reason: "first page lacks begin-of-stream"))
    let mid = Self.feed(resumed, seed: 6, midStream: true)
    #expect(mid.error == nil)
    #expect(mid.out == resumed)
  }

  static func pageStarts(_ bytes: [UInt8]) -> [Int] {
    var starts: [Int] = []
    var index = 0
    while index + 27 <= bytes.count {
      starts.append(index)
      let segments = Int(bytes[index + 26])
      index += 27 + segments + bytes[index + 27..<index + 27 + segments].reduce(0) { $0 + Int($1) }
    }
    return starts
  }
}
