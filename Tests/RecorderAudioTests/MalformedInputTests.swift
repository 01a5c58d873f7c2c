import Foundation
import RecorderConcurrency
import RecorderEmulator
import Testing

@testable import RecorderAudio

/// Outside bytes are hostile (DESIGN.md invariant 6): every parser refuses with a typed error
/// and the offset, never crashes, never mis-decodes.
@Suite struct MalformedInputTests {
  static func frames(_ source: DeviceFrameSource) throws(AudioError) -> Int {
    var batch = DeviceFrameBatch()
    var total = 0
    repeat {
      try source.readFrames(into: &batch, maxFrames: 50)
      total += batch.count
    } while batch.count > 0
    return total
  }

  static let mono =
    (try? DeviceRecordingWriter.speechRecording(format: .mono, frameCount: 60, seed: 31)) ?? []

  @Test func rawFrameWithWrongTOCIsReportedAtItsOffset() throws {
    var bytes = Self.mono
    bytes[37 * 80] = 0xBC  // stereo flag set: libopus would decode it, wrongly.
    #expect(throws: AudioError.unexpectedTOC(byte: 0xBC, offset: 37 * 80)) {
      try Self.frames(
        RawDeviceFrameSource(source: MemoryByteSource(bytes, chunkLimit: 333), format: .mono))
    }
    var stereo = try DeviceRecordingWriter.speechRecording(
      format: .stereo, frameCount: 10, seed: 32)
    stereo[3 * 160 + 80] = 0x00
    #expect(throws: AudioError.unexpectedTOC(byte: 0x00, offset: 3 * 160 + 80)) {
      try Self.frames(RawDeviceFrameSource(source: MemoryByteSource(stereo), format: .stereo))
    }
  }

  @Test func rawFileEndingInsideAFrameIsRefused() {
    let bytes = Array(Self.mono.prefix(80 * 12 + 17))
    #expect(throws: AudioError.truncatedFrame(offset: 960, trailingBytes: 17)) {
      try Self.frames(RawDeviceFrameSource(source: MemoryByteSource(bytes), format: .mono))
    }
    // A mono file read as stereo: 60 mono frames are 30 stereo frames, but the "second
    // channel" packets are mono frames in the wrong place; TOCs still match, sizes too, so
    // this is the one confusion a raw file cannot reveal: the caller's audioChannels rules.
    #expect(
      (try? Self.frames(RawDeviceFrameSource(source: MemoryByteSource(Self.mono), format: .stereo)))
        == 30)
  }

  @Test func libopusRejectionCarriesTheOffset() throws {
    let decoder = try DeviceOpusDecoder(channels: 1)
    // Code 3 (TOC low bits 11) with a frame count byte of 0: invalid per RFC 6716 §3.2.5.
    let packet: [UInt8] = [0xBB, 0x00, 1, 2, 3]
    var pcm = [Int16](repeating: 0, count: 320)
    #expect {
      try packet.withUnsafeBytes { raw in
        try pcm.withUnsafeMutableBufferPointer { out in
          try decoder.decodePacket(raw, channel: 0, offset: 4_000, into: out)
        }
      }
    } throws: { error in
      guard case .opusDecodeFailed(4_000, _, _) = error as? AudioError else { return false }
      return true
    }
    #expect(throws: AudioError.truncatedFrame(offset: 80, trailingBytes: 79)) {
      try decoder.decode(Array(Self.mono.prefix(79)), offset: 80)
    }
  }

  // MARK: Ogg

  static func oggFile(channels: Int = 1, frames: Int = 120) throws -> [UInt8] {
    let raw = try makeRecording(
      "ogg-src-\(channels)-\(frames).raw", channels: channels, frames: frames, seed: 33)
    let out = temporaryPath("ogg-src-\(channels)-\(frames).opus")
    defer { removeFile(raw); removeFile(out) }
    _ = try AudioExporter.export(
      from: raw, recordedChannels: channels, to: out, options: ExportOptions(format: .opus))
    return try readFile(out)
  }

  static func readOgg(_ bytes: [UInt8], checksum: Bool = true) throws(AudioError) -> Int {
    try frames(
      OggOpusFrameSource(
        source: MemoryByteSource(bytes, chunkLimit: 1000), verifiesChecksum: checksum))
  }

  /// Offsets of every page's capture pattern.
  static func pageOffsets(_ bytes: [UInt8]) -> [Int] {
    var offsets: [Int] = []
    var position = 0
    while position + 27 <= bytes.count {
      offsets.append(position)
      let segments = Int(bytes[position + 26])
      let body = (0..<segments).reduce(0) { $0 + Int(bytes[position + 27 + $1]) }
      position += 27 + segments + body
    }
    return offsets
  }

  @Test func oggPageDamageIsMalformedAtThePage() throws {
    let good = try Self.oggFile()
    #expect(try Self.readOgg(good) == 120)
    let pages = Self.pageOffsets(good)
    #expect(pages.count >= 4)
    let third = pages[2]

    var flipped = good
    flipped[third + 40] ^= 0x01
    #expect(throws: AudioError.malformedOgg(offset: third, reason: "page checksum mismatch")) {
      try Self.readOgg(flipped)
    }
    var capture = good
    capture[third] = 0x41
    #expect(throws: AudioError.malformedOgg(offset: third, reason: "no OggS capture pattern")) {
      try Self.readOgg(capture)
    }
    var version = good
    version[third + 4] = 1
    #expect(throws: AudioError.malformedOgg(offset: third, reason: "unknown Ogg version 1")) {
      try Self.readOgg(version, checksum: false)
    }
    let cut = Array(good.prefix(pages[3] - 10))
    #expect(throws: AudioError.malformedOgg(offset: third, reason: "input ends inside a page body"))
    {
      try Self.readOgg(cut)
    }
    let headerCut = Array(good.prefix(third + 20))
    #expect(
      throws: AudioError.malformedOgg(offset: third, reason: "input ends inside a page header")
    ) {
      try Self.readOgg(headerCut)
    }
    // A page missing from the middle: the sequence number reveals the loss.
    let gap = Array(good[..<pages[2]] + good[pages[3]...])
    #expect {
      try Self.readOgg(gap)
    } throws: { error in
      guard case .malformedOgg(let offset, let reason) = error as? AudioError else { return false }
      return offset == third && reason.contains("lost data")
    }
    var continued = good
    continued[third + 5] |= 0x01
    #expect(
      throws: AudioError.malformedOgg(
        offset: third, reason: "continuation page without an open packet")
    ) { try Self.readOgg(continued, checksum: false) }
    var reserved = good
    reserved[third + 5] |= 0x10
    #expect(throws: AudioError.malformedOgg(offset: third, reason: "reserved header flags set")) {
      try Self.readOgg(reserved, checksum: false)
    }
    var serial = good
    serial[third + 14] ^= 0xFF
    #expect(throws: AudioError.self) { try Self.readOgg(serial, checksum: false) }
    var noBOS = good
    noBOS[5] = 0
    #expect(
      throws: AudioError.malformedOgg(
        offset: 0, reason: "first page lacks the beginning-of-stream flag")
    ) { try Self.readOgg(noBOS, checksum: false) }
    let afterEOS = good + good
    #expect(throws: AudioError.self) { try Self.readOgg(afterEOS) }
    #expect(throws: AudioError.malformedOgg(offset: 0, reason: "no packets")) {
      try Self.readOgg([])
    }
  }

  @Test func oggThatIsNotDeviceOpusIsUnsupported() throws {
    let good = try Self.oggFile()
    // OpusHead → VorbisHd: another codec.
    var vorbis = good
    vorbis[28] = 0x56
    #expect {
      try Self.readOgg(vorbis, checksum: false)
    } throws: { error in
      guard case .unsupportedAudioFormat = error as? AudioError else { return false }
      return true
    }
    // Three channels in the head.
    var three = good
    three[28 + 9] = 3
    #expect {
      try Self.readOgg(three, checksum: false)
    } throws: { error in
      guard case .unsupportedAudioFormat = error as? AudioError else { return false }
      return true
    }
    // An audio packet whose TOC is not the device's.
    let pages = Self.pageOffsets(good)
    var toc = good
    let audio = pages[2]
    let firstPacket = audio + 27 + Int(good[audio + 26])
    toc[firstPacket] = 0xFC
    #expect(throws: AudioError.unexpectedTOC(byte: 0xFC, offset: audio)) {
      try Self.readOgg(toc, checksum: false)
    }
    // An audio packet of another size: lacing value 80 → 79.
    var size = good
    size[audio + 27] = 79
    #expect {
      try Self.readOgg(size, checksum: false)
    } throws: { error in
      guard case .unsupportedAudioFormat = error as? AudioError else { return false }
      return true
    }
  }

  /// Random damage never crashes or hangs; every outcome is frames or a typed error.
  @Test func randomDamageGivesTypedErrorsOnly() throws {
    let seed = UInt64(Date().timeIntervalSince1970)
    // Printed first, so a crash (which ends the process) still shows how to reproduce it.
    print("randomDamageGivesTypedErrorsOnly seed \(seed)")
    var random = SplitMix64(seed: seed)
    let ogg = try Self.oggFile(channels: 2, frames: 60)
    for round in 0..<300 {
      var bytes = round % 2 == 0 ? ogg : Self.mono
      let edits = 1 + Int(random.next() % 8)
      for _ in 0..<edits where !bytes.isEmpty {
        let position = Int(random.next() % UInt64(bytes.count))
        switch random.next() % 3 {
        case 0: bytes[position] = UInt8(truncatingIfNeeded: random.next())
        case 1: bytes.removeSubrange(position...)
        default: bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: position)
        }
      }
      let source = MemoryByteSource(bytes, chunkLimit: 1 + Int(random.next() % 500))
      do {
        let input = try AudioExporter.openSource(source, recorded: round % 2 == 0 ? .stereo : .mono)
        let decoder = try DeviceOpusDecoder(channels: input.format.channels)
        var batch = DeviceFrameBatch()
        repeat {
          try input.readFrames(into: &batch, maxFrames: 13)
          for index in 0..<batch.count {
            let start = index * input.format.bytesPerFrame
            _ = try decoder.decode(
              Array(batch.bytes[start..<start + input.format.bytesPerFrame]),
              offset: batch.offsets[index])
          }
        } while batch.count > 0
      } catch {
        // The contract: a typed refusal (every call here throws only AudioError, so the
        // compiler holds it; reaching this line without a crash is the test).
        _ = error as AudioError
      }
    }
  }
}
