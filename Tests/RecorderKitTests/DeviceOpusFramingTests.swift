import RecorderAudio
import RecorderEmulator
import Testing

@testable import RecorderKit

/// The receiver's framing check (`RangeReceiver.isDeviceOpus`) on chunks at arbitrary
/// offsets: a 2-channel recording of two mono packets or of one stereo packet per frame
/// passes however it is cut; a frame that is neither stops the stream.
@Suite struct DeviceOpusFramingTests {
  func chunks(_ bytes: [UInt8], sizes: [Int]) -> [(Int64, [UInt8])] {
    var out: [(Int64, [UInt8])] = []
    var start = 0
    var index = 0
    while start < bytes.count {
      let size = min(sizes[index % sizes.count], bytes.count - start)
      out.append((Int64(start), Array(bytes[start..<start + size])))
      start += size
      index += 1
    }
    return out
  }

  @Test(arguments: DeviceAudioFormat.StereoLayout.allCases)
  func eitherLayoutPassesAtAnyCut(_ layout: DeviceAudioFormat.StereoLayout) throws {
    let bytes = try DeviceRecordingWriter.speechRecording(
      format: .stereo, frameCount: 40, seed: 41, layout: layout)
    for sizes in [[160], [1], [79, 81, 200], [237, 13, 160, 7], [6400]] {
      let refused = chunks(bytes, sizes: sizes).filter {
        !RangeReceiver.isDeviceOpus($0.1, at: $0.0, frameBytes: 160)
      }
      #expect(refused.isEmpty, "\(layout) cut \(sizes): refused at \(refused.map(\.0))")
    }
  }

  @Test func aFrameOfNeitherLayoutStopsTheStream() throws {
    var twoMono = try DeviceRecordingWriter.speechRecording(
      format: .stereo, frameCount: 4, seed: 42, layout: .twoMonoPackets)
    twoMono[2 * 160 + 80] = 0xBC
    #expect(!RangeReceiver.isDeviceOpus(twoMono, at: 0, frameBytes: 160))
    // The same chunk 160 bytes into the recording: frames still start at its byte 0.
    #expect(!RangeReceiver.isDeviceOpus(twoMono, at: 160, frameBytes: 160))
    var stereo = try DeviceRecordingWriter.speechRecording(
      format: .stereo, frameCount: 4, seed: 43, layout: .stereoPacket)
    let whole = RangeReceiver.isDeviceOpus(stereo, at: 0, frameBytes: 160)
    #expect(whole, "four stereo packets")
    stereo[3 * 160] = 0xB0
    #expect(!RangeReceiver.isDeviceOpus(stereo, at: 0, frameBytes: 160))
    // A mono recording takes no stereo packet.
    let mono = [UInt8](repeating: 0, count: 80).enumerated().map {
      $0.offset == 0 ? 0xBC : $0.element
    }
    #expect(!RangeReceiver.isDeviceOpus(mono, at: 0, frameBytes: 80))
    #expect(RangeReceiver.isDeviceOpus([0xB8] + mono.dropFirst(), at: 0, frameBytes: 80))
  }
}
