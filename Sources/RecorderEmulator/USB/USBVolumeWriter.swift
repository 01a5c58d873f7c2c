import Foundation
import RecorderAudio

/// Writes what an older recorder shows over "Access via USB" (PROTOCOL.md §5, USB variant)
/// into a folder: `/MODEL.txt` and `/{NOTES,CALLS}/<YYYYMMDD>/<unix>.{WAV,ASR}` pairs. Each
/// `.ASR` is real device Opus (the emulator's speech-like generator, 80-byte mono frames);
/// its `.WAV` is the decode of those frames on the left channel and at half level on the
/// right (two microphones hear one voice differently), behind the device's
/// 512-byte header whose `pad ` chunk carries `SN:<serial>`. Written independently of the
/// SDK's reader, so each checks the other.
public enum USBVolumeWriter {
  /// A way to damage one pair, for the sync's give-up path.
  public enum Damage: String, Sendable, CaseIterable {
    /// The WAV's `fmt ` chunk says 44 100 Hz.
    case wavHeader = "wav-header"
    /// The ASR loses its last 7 bytes: not whole frames.
    case asrPartialFrame = "asr-partial-frame"
    /// The WAV has a second more samples than the ASR has frames.
    case durations
  }

  /// What to write.
  public struct Plan: Sendable {
    public var serial = "888317426119251000"
    public var firmware = "V0095"
    public var recordings = 3
    /// 20 ms frames per recording.
    public var frames = 150
    public var seed: UInt64 = 1
    /// The first recording's id (unix seconds); the next ones follow 10 minutes apart.
    public var firstSessionId: UInt32 = 1_775_393_534
    /// Damage by recording index (from 0, oldest first).
    public var damage: [Int: Damage] = [:]
    public init() {}
  }

  /// One pair written.
  public struct Written: Sendable, Equatable {
    public var sessionId: UInt32
    public var wavPath: String
    public var asrPath: String
  }

  /// Bytes of one mono device frame.
  static let frameBytes = 80
  /// The `pad ` chunk's payload length [device].
  static let padPayload = 460

  /// Writes `plan` under `root` (created if missing). Even recordings go to NOTES, odd ones
  /// to CALLS.
  @discardableResult
  public static func write(_ plan: Plan, to root: String) throws -> [Written] {
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    let model = "PLAUD NOTE \(plan.firmware)@00:47:14 Feb 28 2024\nSerial No.:\(plan.serial)\n"
    try Data(model.utf8).write(to: URL(fileURLWithPath: root + "/MODEL.txt"))
    var written: [Written] = []
    for index in 0..<plan.recordings {
      let id = plan.firstSessionId + UInt32(index) * 600
      let folder = index % 2 == 0 ? "NOTES" : "CALLS"
      let directory = root + "/" + folder + "/" + day(of: id)
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      var asr = try DeviceRecordingWriter.speechRecording(
        format: .mono, frameCount: plan.frames, seed: plan.seed &+ UInt64(index))
      var samples = try decodeStereo(asr)
      var header = wavHeader(serial: plan.serial, dataBytes: samples.count * 2)
      switch plan.damage[index] {
      case .wavHeader?: header[24..<28] = [0x44, 0xAC, 0x00, 0x00]
      case .asrPartialFrame?: asr.removeLast(7)
      case .durations?:
        samples += [Int16](repeating: 0, count: 16_000 * 2)
        header = wavHeader(serial: plan.serial, dataBytes: samples.count * 2)
      case nil: break
      }
      let wavPath = directory + "/\(id).WAV"
      let asrPath = directory + "/\(id).ASR"
      var wav = header
      wav.reserveCapacity(header.count + samples.count * 2)
      for sample in samples {
        let bits = UInt16(bitPattern: sample)
        wav.append(UInt8(bits & 0xFF))
        wav.append(UInt8(bits >> 8))
      }
      try Data(wav).write(to: URL(fileURLWithPath: wavPath))
      try Data(asr).write(to: URL(fileURLWithPath: asrPath))
      written.append(Written(sessionId: id, wavPath: wavPath, asrPath: asrPath))
    }
    return written
  }

  /// The device's 512-byte WAV header: RIFF, a 16-byte `fmt ` (PCM, 2 ch, 16 kHz, 16 bit),
  /// a 460-byte `pad ` chunk (`SN:` + serial + NUL + zeros), the `data` chunk's header.
  public static func wavHeader(serial: String, dataBytes: Int) -> [UInt8] {
    var bytes: [UInt8] = []
    func tag(_ text: String) { bytes += Array(text.utf8) }
    func u32(_ value: Int) { bytes += (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    func u16(_ value: Int) { bytes += (0..<2).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    tag("RIFF")
    u32(504 + dataBytes)
    tag("WAVE")
    tag("fmt ")
    u32(16)
    u16(1)
    u16(2)
    u32(16_000)
    u32(64_000)
    u16(4)
    u16(16)
    tag("pad ")
    u32(padPayload)
    var pad = Array("SN:\(serial)".utf8)
    pad += [UInt8](repeating: 0, count: max(0, padPayload - pad.count))
    bytes += pad.prefix(padPayload)
    tag("data")
    u32(dataBytes)
    return bytes
  }

  /// The frames of `asr` decoded: each sample on the left, half of it on the right.
  static func decodeStereo(_ asr: [UInt8]) throws -> [Int16] {
    let decoder = try DeviceOpusDecoder(channels: 1)
    var samples: [Int16] = []
    samples.reserveCapacity(asr.count / frameBytes * decoder.samplesPerFrame * 2)
    for start in stride(from: 0, to: asr.count - asr.count % frameBytes, by: frameBytes) {
      for sample in try decoder.decode(Array(asr[start..<(start + frameBytes)]), offset: start) {
        samples.append(sample)
        samples.append(sample / 2)
      }
    }
    return samples
  }

  /// `YYYYMMDD` of `id` (unix seconds), in UTC.
  static func day(of id: UInt32) -> String {
    let formatter = DateFormatter()
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.dateFormat = "yyyyMMdd"
    return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(id)))
  }
}
