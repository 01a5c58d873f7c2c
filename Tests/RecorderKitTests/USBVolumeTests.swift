import Foundation
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import TestSupport
import Testing

/// The USB volume's parsers: the device WAV header (every field, the `pad ` chunk's serial),
/// MODEL.txt and /proc/self/mountinfo, with malformed input of each kind; and the volume
/// reader over a volume the emulator wrote.
@Suite("USB: volume parsers")
struct USBVolumeTests {
  static let serial = "888317426119251000"

  /// A device WAV of `dataBytes` bytes of samples (all 0x11).
  static func wav(dataBytes: Int = 1_280, serial: String = serial) -> [UInt8] {
    USBVolumeWriter.wavHeader(serial: serial, dataBytes: dataBytes)
      + [UInt8](repeating: 0x11, count: dataBytes)
  }

  static func parse(_ bytes: [UInt8]) throws(USBVolumeError) -> DeviceWAVHeader {
    try DeviceWAVHeader(
      Array(bytes.prefix(DeviceWAVHeader.length)), fileSize: Int64(bytes.count), path: "x.WAV")
  }

  @Test func aDeviceHeaderParsesWithItsSerialInsideThePadChunk() throws {
    let bytes = Self.wav()
    let header = try Self.parse(bytes)
    #expect(header.serial == Self.serial)
    #expect(header.dataBytes == 1_280)
    #expect(header.durationMs == 20)
    // The pad chunk's id sits at 0x24, its payload (SN:) at 0x2C [device].
    #expect(Array(bytes[0x24..<0x28]) == Array("pad ".utf8))
    #expect(header.serialRange == 0x2C..<(0x2C + 3 + 18))
    let scrubbed = header.scrubbed(bytes)
    #expect(scrubbed.count == bytes.count)
    for index in bytes.indices {
      if header.serialRange.contains(index) {
        #expect(scrubbed[index] == 0)
      } else {
        #expect(scrubbed[index] == bytes[index], "byte \(index) moved")
      }
    }
    #expect(!String(decoding: scrubbed, as: UTF8.self).contains(Self.serial))
  }

  /// Each field of the header, broken one at a time: a typed error naming it.
  @Test(
    arguments: [
      (0, [0x52, 0x49, 0x46, 0x58], "no RIFF tag"),
      (4, [0, 0, 0, 0], "RIFF size"),
      (8, [0x57, 0x41, 0x56, 0x58], "no WAVE tag"),
      (12, [0x66, 0x6D, 0x74, 0x58], "not fmt"),
      (16, [18, 0, 0, 0], "fmt chunk of 18"),
      (20, [3, 0], "not PCM"),
      (22, [1, 0], "1 channels"),
      (24, [0x44, 0xAC, 0, 0], "sample rate 44100"),
      (28, [0, 0, 0, 0], "byte rate 0"),
      (32, [2, 0], "block align 2"),
      (34, [8, 0], "8 bits"),
      (36, [0x70, 0x61, 0x64, 0x58], "no pad chunk with the serial"),
      (40, [0xFF, 0xFF, 0, 0], "overruns"),
      (44, [0x53, 0x4E, 0x3B], "does not start with SN:"),
      (47, [0x2F], "letters and digits"),
      (0x1F8, [0x64, 0x61, 0x74, 0x58], "chunk datX overruns"),
      (0x1FC, [0, 0, 0, 0], "data size 0"),
    ] as [(Int, [UInt8], String)])
  func aBrokenFieldIsATypedError(offset: Int, bytes: [UInt8], reason: String) {
    var wav = Self.wav()
    wav.replaceSubrange(offset..<(offset + bytes.count), with: bytes)
    #expect {
      try Self.parse(wav)
    } throws: { error in
      guard case .malformedWAVHeader(_, let said) = error as? USBVolumeError else { return false }
      return said.contains(reason)
    }
  }

  /// An extra chunk pushes the pad chunk past the 512 bytes the samples must start at.
  @Test func aHeaderLongerThan512BytesIsRefused() {
    var wav = Self.wav()
    // fmt chunk of 16 → an unknown 8-byte chunk before pad shifts everything by 16.
    wav.insert(
      contentsOf: Array("junk".utf8) + [8, 0, 0, 0] + [UInt8](repeating: 0, count: 8), at: 36)
    wav.replaceSubrange(
      4..<8, with: withUnsafeBytes(of: UInt32(wav.count - 8).littleEndian, Array.init))
    #expect {
      try DeviceWAVHeader(Array(wav.prefix(512)), fileSize: Int64(wav.count), path: "x.WAV")
    } throws: { error in
      guard case .malformedWAVHeader(_, let said) = error as? USBVolumeError else { return false }
      return said.contains("pad chunk of 460 bytes overruns the header")
    }
  }

  @Test func aSerialWithoutItsNULOrEmptyIsRefused() {
    var wav = Self.wav(serial: String(repeating: "7", count: 457))
    #expect(throws: USBVolumeError.self) { try Self.parse(wav) }
    wav = Self.wav(serial: "")
    #expect(throws: USBVolumeError.self) { try Self.parse(wav) }
  }

  @Test func aShortFileOrAnOddSampleCountIsRefused() {
    #expect(throws: USBVolumeError.wavTooShort(path: "x.WAV", size: 100)) {
      try Self.parse(Array(Self.wav().prefix(100)))
    }
    let odd = Self.wav(dataBytes: 6)
    #expect(throws: USBVolumeError.self) { try Self.parse(odd) }
  }

  /// Seeded random bytes over a valid header: never a trap, a header or a typed error.
  @Test func randomMutationsNeverTrap() {
    let seed: UInt64 = 0x05B0_0001
    var random = SplitMix64(seed: seed)
    var accepted = 0
    for _ in 0..<5_000 {
      var wav = Self.wav()
      for _ in 0..<Int.random(in: 1...4, using: &random) {
        wav[Int.random(in: 0..<512, using: &random)] = UInt8.random(in: 0...255, using: &random)
      }
      if (try? Self.parse(wav)) != nil { accepted += 1 }
    }
    #expect(accepted < 5_000, "seed \(seed): every mutation accepted")
  }

  @Test func modelFileParses() throws {
    let model = try DeviceModelFile(
      Array("PLAUD NOTE V0095@00:47:14 Feb 28 2024\nSerial No.:\(Self.serial)\n".utf8))
    #expect(model.product == "PLAUD NOTE")
    #expect(model.firmware == "V0095")
    #expect(model.build == "00:47:14 Feb 28 2024")
    #expect(model.serial == Self.serial)
  }

  @Test(arguments: [
    "", "PLAUD NOTE V0095@00:47:14 Feb 28 2024\n", "PLAUD NOTE 0095@x\nSerial No.:1\n",
    "PLAUD NOTE V0095@00:47:14\nSerial:1\n", "PLAUD NOTE V0095@00:47:14\nSerial No.:\n",
    "PLAUD NOTE V0095@00:47:14\nSerial No.:../etc\n", "V0095@x\nSerial No.:1\n",
    "PLAUD NOTE Vx5@x\nSerial No.:1\n", "PLAUD NOTE V0095@\nSerial No.:1\n",
    "PLAUD NOTE V0095@x\nSerial No.:1\nthird\n", "PLAUD\u{7} NOTE V0095@x\nSerial No.:1\n",
  ])
  func aMalformedModelFileIsATypedError(text: String) {
    #expect(throws: USBVolumeError.self) { try DeviceModelFile(Array(text.utf8)) }
  }

  @Test func mountInfoFindsRecorderVolumesAndSkipsMalformedLines() {
    let text = """
      22 1 8:2 / / rw,relatime shared:1 - ext4 /dev/sda2 rw
      97 22 8:17 / /run/media/me/PLAUD_NOTE rw,nosuid shared:50 - vfat /dev/sdb1 rw,uid=1000
      98 22 8:33 / /media/my\\040stick rw - vfat /dev/sdc1 rw
      99 22 8:49 / /mnt/elsewhere rw - vfat /dev/sdd1 rw
      this line is not mountinfo
      100 22 8:65 / /bad\\04 rw - vfat /dev/sde1 rw
      101 22 8:81 / relative rw - vfat /dev/sdf1 rw
      102 22 8:97 / /x rw - vfat
      """
    let table = MountTable(text)
    #expect(
      table.mounts.map(\.mountPoint) == [
        "/", "/run/media/me/PLAUD_NOTE", "/media/my stick", "/mnt/elsewhere",
      ])
    #expect(table.skipped.count == 4)
    #expect(table.recorderVolumes() == ["/run/media/me/PLAUD_NOTE"])
    #expect(
      table.recorderVolumes(labelledDevice: "/dev/sdd1") == [
        "/run/media/me/PLAUD_NOTE", "/mnt/elsewhere",
      ])
  }

  @Test(arguments: ["\\", "\\0", "\\999", "\\000", "\\40", "a\\04x"])
  func aBrokenEscapeSkipsTheLine(escape: String) {
    let table = MountTable("1 2 8:1 / /m\(escape) rw - vfat /dev/x rw")
    #expect(table.mounts.isEmpty)
    #expect(table.skipped.count == 1)
  }

  @Test func theReaderPairsAndChecksAVolumeTheEmulatorWrote() throws {
    let root = NSTemporaryDirectory() + "usb-volume-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: root) }
    var plan = USBVolumeWriter.Plan()
    plan.recordings = 4
    plan.damage = [1: .wavHeader, 2: .asrPartialFrame, 3: .durations]
    let written = try USBVolumeWriter.write(plan, to: root)
    // Strays the reader must pass over: a lone WAV, a name that is not the device's.
    try Data().write(to: URL(fileURLWithPath: root + "/NOTES/x.WAV"))
    try Data([1]).write(to: URL(fileURLWithPath: written[0].wavPath + ".bak"))
    let volume = try USBVolume(root: root)
    #expect(volume.model.serial == plan.serial)
    let pairs = try volume.pairs()
    #expect(pairs.map(\.sessionId.rawValue) == written.map(\.sessionId))
    #expect(pairs.map(\.scene) == [1, 7, 1, 7])
    let checked = try USBVolume.check(pairs[0])
    #expect(checked.header.serial == plan.serial)
    #expect(checked.asrDurationMs == plan.frames * 20)
    #expect(checked.header.durationMs == plan.frames * 20)
    #expect(throws: USBVolumeError.self) { try USBVolume.check(pairs[1]) }
    #expect {
      try USBVolume.check(pairs[2])
    } throws: { error in
      if case .malformedASR = error as? USBVolumeError { return true }
      return false
    }
    #expect(throws: USBVolumeError.durationsDisagree(wavMs: 4_000, asrMs: 3_000)) {
      try USBVolume.check(pairs[3])
    }
  }

  @Test func anASRFrameWithoutTheDeviceTOCIsDamage() throws {
    let root = NSTemporaryDirectory() + "usb-volume-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: root) }
    var plan = USBVolumeWriter.Plan()
    plan.recordings = 1
    let written = try USBVolumeWriter.write(plan, to: root)
    let handle = try #require(FileHandle(forWritingAtPath: written[0].asrPath))
    try handle.seek(toOffset: 80 * 17)
    try handle.write(contentsOf: [0xFC])
    try handle.close()
    let pair = try #require(try USBVolume(root: root).pairs().first)
    #expect {
      try USBVolume.check(pair)
    } throws: { error in
      guard case .malformedASR(_, let reason) = error as? USBVolumeError else { return false }
      return reason.contains("\(80 * 17)")
    }
  }

  @Test func aVolumeWithoutAModelFileIsRefused() {
    #expect(throws: USBVolumeError.self) { try USBVolume(root: "/nonexistent-\(UUID())") }
  }
}
