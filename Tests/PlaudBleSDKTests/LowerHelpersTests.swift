import Foundation
import PlaudBleSDK
import RecorderAudio
import RecorderCrypto
import RecorderProtocol
import TestSupport
import Testing

/// A temporary directory removed by the caller.
func scratch() throws -> String {
  let path = NSTemporaryDirectory() + "plaud-ble-\(UUID().uuidString)/"
  try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  return path
}

/// One second of device Opus: `amplitude` × a 440 Hz sine (0: silence), encoded by
/// RecorderAudio's device encoder (50 frames of 80 bytes).
private func deviceSecond(amplitude: Double) throws -> [UInt8] {
  let encoder = try DeviceOpusEncoder(channels: 1)
  var out: [UInt8] = []
  for frame in 0..<50 {
    let pcm = (0..<320).map { index -> Int16 in
      let t = Double(frame * 320 + index) / 16_000
      return Int16(amplitude * sin(2 * .pi * 440 * t))
    }
    out += try encoder.encode(pcm)
  }
  return out
}

/// Waits for a completion the helper reports on its own queue.
func completion<T: Sendable>(_ start: (@escaping @Sendable (T) -> Void) -> Void) async -> T {
  await withCheckedContinuation { continuation in start { continuation.resume(returning: $0) } }
}

@Suite("PlaudBleSDK audio helpers over RecorderAudio")
struct AudioHelperTests {
  @Test("the waveform of a file is real: loud seconds measure louder than silent ones")
  func waveformFromRealAudio() async throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "rec.opus-raw"
    let audio =
      try deviceSecond(amplitude: 0) + deviceSecond(amplitude: 20_000)
      + deviceSecond(amplitude: 0)
    _ = FileManager.default.createFile(atPath: path, contents: Data(audio))
    let (ok, seconds) = await completion { done in
      PDFileSoundWave.shared.avcToSoundWave(avcPath: path, channels: 1) { done(($0, $1)) }
    }
    #expect(ok)
    #expect(seconds == 3)
    let meters = PDRecordVolumer.shared.volumeMeters
    #expect(meters.map(\.sec) == [0, 1, 2])
    // A 20 000-peak sine has an RMS of 14 142: 43 % of full scale; silence decodes to ~0.
    #expect(meters[1].volume > 30 && meters[1].volume < 50, "\(meters)")
    #expect(meters[0].volume < 3 && meters[2].volume < 3, "\(meters)")
  }

  @Test("volume is the RMS as a percentage of full scale")
  func volumeKnownAnswers() {
    let full = Data(
      (0..<320).flatMap { index -> [UInt8] in
        let sample: Int16 = index % 2 == 0 ? Int16.max : Int16.min + 1
        return [UInt8(truncatingIfNeeded: sample), UInt8(truncatingIfNeeded: sample >> 8)]
      })
    #expect(JXRecordVolumer.shared.averageVolume(full) == 100)
    #expect(JXRecordVolumer.shared.averageVolume(Data(count: 640)) == 0)
    #expect(JXRecordVolumer.shared.averageVolume(Data()) == 0)
    #expect(JXRecordingVolumer.shared.averageVolume(full) == 100)
    var values = [5, 1, 9, 3]
    #expect(JXRecordVolumer.shared.middleNum(&values) == 3)
    #expect(values == [1, 3, 5, 9])
  }

  @Test("raw device audio to WAV: the header says 16 kHz mono, 16-bit, and the length")
  func avcToWav() async throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    _ = FileManager.default.createFile(
      atPath: dir + "a.raw", contents: Data(try deviceSecond(amplitude: 8_000)))
    let (ok, ms) = await completion { done in
      JXFileDecoder.shared.avcToWav(avcPath: dir + "a.raw", wavPath: dir + "a.wav") {
        done(($0, $1))
      }
    }
    #expect(ok && ms == 1_000)
    let header = JXWaveHelper.shared.readWaveHeader(wavePath: dir + "a.wav")
    #expect(header.channel == 1 && header.sampleRate == 16_000 && header.sampleBit == 16)
    #expect(header.dataSize == 32_000)
    #expect(header.bitRate == 32_000)
    // Not a WAV: all zeros, no trap.
    _ = FileManager.default.createFile(
      atPath: dir + "junk.wav", contents: Data("RIFFxxxxWAVEfmt ".utf8))
    #expect(JXWaveHelper.shared.readWaveHeader(wavePath: dir + "junk.wav").channel == 0)
  }

  @Test("live decode: device frames in, 640 bytes of PCM per 20 ms out, bad frames reported")
  func liveDecode() throws {
    let decoder = JXAvcDecoder()
    let second = try deviceSecond(amplitude: 5_000)
    #expect(decoder.decode(Data(second), 1)?.count == 50 * 640)
    #expect(decoder.decode(Data(repeating: 0x41, count: 80), 1) == nil)
    #expect(decoder.packSize == 80 && decoder.twoChannelPackSize == 160)
  }

  @Test("a stereo WAV splits into its left and right samples")
  func divide() async throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var pcm = Data()
    for index in 0..<100 {
      pcm += Int16(index).data + Int16(-index).data
    }
    _ = FileManager.default.createFile(atPath: dir + "s.pcm", contents: pcm)
    #expect(
      JXWaveHelper.shared.pcmFileToWave(
        pcmFilePath: dir + "s.pcm", wavFilePath: dir + "s.wav", channels: 2))
    let ok = await completion { done in
      JXWaveHelper.shared.divideLeftAndRight(dir + "s.wav", dir + "l.pcm", dir + "r.pcm") {
        done($0)
      }
    }
    #expect(ok)
    let left = try #require(FileManager.default.contents(atPath: dir + "l.pcm"))
    let right = try #require(FileManager.default.contents(atPath: dir + "r.pcm"))
    #expect(left.count == 200 && right.count == 200)
    #expect(left.int16(at: 2 * 42) == 42 && right.int16(at: 2 * 42) == -42)
  }

  @Test("the CRC helper is the device's CRC-16")
  func crc() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let bytes = Array("123456789".utf8)
    _ = FileManager.default.createFile(atPath: dir + "c", contents: Data(bytes))
    let crc = JXCrcHelper.shared.getCrc(path: dir + "c")
    #expect(crc == Int(CRC16.checksum(bytes)))
    #expect(JXCrcHelper.shared.checkCrc(crc: crc, ofFile: dir + "c"))
    #expect(!JXCrcHelper.shared.checkCrc(crc: crc ^ 1, ofFile: dir + "c"))
    #expect(JXCrcHelper.shared.getCrc(path: dir + "missing") == -1)
  }
}

@Suite("PlaudBleSDK crypto helpers over RecorderCrypto")
struct CryptoHelperTests {
  let key = Data((0..<32).map { UInt8($0) })
  let nonce = Data((0..<12).map { UInt8($0 + 100) })

  @Test("AEADs seal and open with the tag apart; a changed byte does not open")
  func aeads() throws {
    let message = Data("the device's channel".utf8)
    let ad = Data([1, 2, 3])
    let chacha = try SecretUtil.encryptWithChaChaPoly1305Separate(
      message, key: key, nonce: nonce, ad: ad)
    #expect(chacha.tag.count == 16 && chacha.ciphertext.count == message.count)
    #expect(
      try SecretUtil.decryptWithChaChaPoly1305Separate(
        chacha.ciphertext, tag: chacha.tag, key: key, nonce: nonce, ad: ad) == message)
    let aes = try SecretUtil.encryptWithAES256Separate(message, key: key, nonce: nonce)
    #expect(
      try SecretUtil.decryptWithAES256Separate(aes.ciphertext, tag: aes.tag, key: key, nonce: nonce)
        == message)
    #expect(
      try SecretUtil.decryptWithFallback(
        ciphertext: aes.ciphertext, tag: aes.tag, key: key, nonce: nonce, preferAes: false)
        == message)
    var tampered = chacha.ciphertext
    tampered[tampered.startIndex] ^= 1
    #expect(throws: (any Error).self) {
      try SecretUtil.decryptWithChaChaPoly1305Separate(
        tampered, tag: chacha.tag, key: key, nonce: nonce, ad: ad)
    }
    let stream = try SecretUtil.decryptWithChaCha20Stream(
      message, key: key, nonce: nonce, counter: 1)
    #expect(
      try SecretUtil.decryptWithChaCha20Stream(stream, key: key, nonce: nonce, counter: 1)
        == message)
  }

  @Test(
    "RSA: the wrapper's keys round-trip PEM, and SecretUtil unwraps what the public key wrapped")
  func rsa() throws {
    let privateKey = try PrivateKey(pemEncoded: E2EEFixture.userKeyPEM)
    #expect(try privateKey.pemString().contains("PRIVATE KEY"))
    let rsa = try RSAPrivateKey(pem: E2EEFixture.userKeyPEM)
    let spki = Data(try rsa.publicKey().spkiDER)
    #expect(try spki.hasX509Header())
    let publicKey = try PublicKey(data: spki)
    #expect(try PublicKey.publicKeys(pemEncoded: publicKey.pemString()).count == 1)
    let wrapped = try rsa.publicKey().encrypt(Array("file key".utf8))
    #expect(
      try SecretUtil.decryptWithPrivateKey(Data(wrapped), privateKeyPem: E2EEFixture.userKeyPEM)
        == Data("file key".utf8))
    #expect(throws: SwiftyRSAError.self) { try PublicKey(data: Data([0x30, 0x03, 1, 2, 3])) }
    #expect(throws: SwiftyRSAError.self) { try Data([0x02]).hasX509Header() }
    #expect(throws: SwiftyRSAError.self) {
      try ClearMessage(data: Data()).signed(with: privateKey, digestType: .sha256)
    }
  }
}

@Suite("PlaudBleSDK Foundation extensions")
struct FoundationExtensionTests {
  @Test("byte readers are little-endian and read 0 outside the data")
  func readers() {
    let data = Data([0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08])
    #expect(data.uint16(at: 0) == 0x0201)
    #expect(data.uint24(at: 1) == 0x04_0302)
    #expect(data.uint32(at: 4) == 0x0807_0605)
    #expect(data.uint64 == 0x0807_0605_0403_0201)
    #expect(data.uint32(at: 6) == 0)
    #expect(data.uint8(at: -1) == 0)
    #expect(data.int8(at: Int.max) == 0)
    #expect(Data([0xFF]).int8 == -1)
    #expect(data.safeSubdata(offset: 6, count: 4) == nil)
    #expect(data.safeSubdata(offset: Int.max, count: 2) == nil)
    #expect(data.subData(begin: 6, count: 10) == Data([0x07, 0x08]))
    #expect(data.dropFirst(2).uint16(at: 0) == 0x0403)
    #expect(UInt32(0x0403_0201).data24 == Data([1, 2, 3]))
    #expect(data.hexDescription == "0102030405060708")
    #expect(Float(1.5).bitPattern.data.floatValue == 1.5)
  }

  @Test("strings, optionals and JSON")
  func values() {
    #expect("abc".md5Hex == "900150983cd24fb0d6963f7d28e17f72")
    #expect(#"{"a":1}"#.dictionary["a"] as? Int == 1)
    #expect("not json".dictionary.isEmpty)
    let number: Any? = "42"
    #expect(number.intValue == 42 && number.exist)
    let none: Int? = nil
    #expect(none.stringValue == "" && !none.exist)
    #expect(Date(timeIntervalSince1970: 12.5).stampMillisec == 12_500)
    #expect(TimeZone(secondsFromGMT: -(5 * 3600 + 30 * 60))!.getHourAndMin() == (-5, -30))
  }
}

@Suite("PlaudBleSDK models")
struct LowerModelTests {
  @Test("BleFile durations follow the frame size; copies keep every field")
  func bleFile() {
    #expect(BleFile.calculateDuration(16_000, 1, false) == 4_000)
    #expect(BleFile.calculateDuration(16_200, 1, true) == 4_000)
    #expect(BleFile.calculateDuration(-5, 1, false) == 0)
    let file = BleFile("8810", 1_700_000_000, 32_000, 4, 1, 2, true)
    file.timezone = 8
    let copy = file.copy() as! BleFile
    #expect(copy.sn == "8810" && copy.scenes == 4 && copy.penCollect == 1 && copy.channels == 2)
    #expect(copy.nsAgc && copy.isMusic && copy.zoneSecond() == 8 * 3600)
    #expect(copy.utsStamp() == 1_700_000_000 - 8 * 3600)
    #expect(file.duration() == 4_000)
  }

  @Test("BleDevice versions and hotspot name")
  func bleDevice() {
    let device = BleDevice(sn: "8821234567891234")
    #expect(device.projectCode == 882)
    #expect(device.wifiName == "Plaud1234")
    device.versionTypeStr = "V"
    device.versionCode = 95
    #expect(device.wholeVersion() == "V0095")
    device.versionCode = 0x01_0208
    #expect(device.wholeVersion() == "V1.2.8")
    let info = UpdateInfo()
    info.version = "V1.2.9"
    #expect(info.hasNewVersion(device))
    info.version = "V1.2.8"
    #expect(!info.hasNewVersion(device))
  }

  @Test("the TAGS request frame carries the tag and the two times, little-endian")
  func tagsFrame() {
    let frame = BleAgent.shared.dataOfGetRecordMarkingTags(
      uid: 0x0102_0304, startTimestamp: 1, endTimestamp: 2)
    #expect(frame.suffix(12) == Data([4, 3, 2, 1, 1, 0, 0, 0, 2, 0, 0, 0]))
  }
}
