import Foundation
import RecorderEmulator
import RecorderProtocol
import RecorderStore
import Testing

@testable import RecorderKit

/// A USB volume through the sync engine's one pipeline (``USBTransport``): each pair stored
/// (the ASR as the device copy), its WAV copied beside it (scrubbed when asked), exported,
/// journaled, deleted from the volume only when safe; a damaged pair given up, the rest
/// synced; a second run finds nothing to do.
@Suite("USB: sync through the engine")
struct USBSyncTests {
  struct Bench {
    let volume: String
    let out: String
    let written: [USBVolumeWriter.Written]
    let plan: USBVolumeWriter.Plan

    init(recordings: Int = 3, damage: [Int: USBVolumeWriter.Damage] = [:]) throws {
      let base = NSTemporaryDirectory() + "usb-sync-\(UUID().uuidString)"
      volume = base + "/volume"
      out = base + "/out"
      var plan = USBVolumeWriter.Plan()
      plan.recordings = recordings
      plan.damage = damage
      self.plan = plan
      written = try USBVolumeWriter.write(plan, to: volume)
    }

    func cleanUp() {
      try? FileManager.default.removeItem(atPath: (volume as NSString).deletingLastPathComponent)
    }

    func sync(
      _ configure: (inout SyncEngine.Options) -> Void = { _ in },
      usb: USBTransport.Options = .init()
    )
      async throws -> SyncReport
    {
      try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
      let journal = try Journal(path: StorageLayout(root: out).journal)
      var options = SyncEngine.Options()
      options.format = .wav
      options.proofSeed = 1
      configure(&options)
      let engine = SyncEngine(journal: journal, root: out, options: options)
      let transport = try USBTransport(root: volume, options: usb)
      return try await engine.sync(using: transport)
    }

    var layout: StorageLayout { StorageLayout(root: out) }
    func raw(_ id: UInt32) -> String { layout.raw(serial: plan.serial, sessionId: SessionID(id)) }
    func wavCopy(_ id: UInt32) -> String { String(raw(id).dropLast(".opus-raw".count)) + ".wav" }
    func bytes(_ path: String) -> [UInt8]? {
      FileManager.default.contents(atPath: path).map(Array.init)
    }
  }

  @Test func everyPairIsSyncedScrubbedAndDeletedADamagedOneGivenUp() async throws {
    let bench = try Bench(recordings: 4, damage: [2: .durations])
    defer { bench.cleanUp() }
    let originals = bench.written.map { (bench.bytes($0.wavPath)!, bench.bytes($0.asrPath)!) }
    var usb = USBTransport.Options()
    usb.scrubSerial = true
    let report = try await bench.sync(usb: usb)
    let damagedId = SessionID(bench.written[2].sessionId)
    #expect(report.givenUp.map(\.sessionId) == [damagedId])
    #expect(report.givenUp.first?.reason.contains("ms") == true)
    #expect(
      report.files.map(\.sessionId.rawValue) == [0, 1, 3].map { bench.written[$0].sessionId })
    #expect(
      report.files.allSatisfy { $0.deletedFromDevice && $0.verified && $0.transport == "usb" })
    for index in [0, 1, 3] {
      let id = bench.written[index].sessionId
      #expect(bench.bytes(bench.raw(id)) == originals[index].1, "raw copy of \(id) is the ASR")
      let copy = try #require(bench.bytes(bench.wavCopy(id)))
      let original = originals[index].0
      #expect(copy.count == original.count)
      let serialStart = 0x2C
      let serialEnd = serialStart + 3 + bench.plan.serial.count
      #expect(copy[serialStart..<serialEnd].allSatisfy { $0 == 0 })
      #expect(copy[..<serialStart] == original[..<serialStart])
      #expect(
        copy[serialEnd...] == original[serialEnd...], "\(id): a byte besides the serial moved")
      #expect(!FileManager.default.fileExists(atPath: bench.written[index].wavPath))
      #expect(!FileManager.default.fileExists(atPath: bench.written[index].asrPath))
      let export = try #require(report.files.first { $0.sessionId.rawValue == id }?.exportPath)
      #expect(FileManager.default.fileExists(atPath: export))
    }
    // The damaged pair stays on the volume, untouched.
    #expect(bench.bytes(bench.written[2].wavPath) == originals[2].0)
    #expect(bench.bytes(bench.written[2].asrPath) == originals[2].1)
    // Exactly once: a second run moves nothing and gives the damaged pair up again.
    let again = try await bench.sync(usb: usb)
    #expect(again.files.isEmpty)
    #expect(again.bytesReceived == 0)
    #expect(again.givenUp.map(\.sessionId) == [damagedId])
  }

  @Test func keepOnDeviceKeepsEveryPairAndCopiesWAVsUnscrubbed() async throws {
    let bench = try Bench(recordings: 2)
    defer { bench.cleanUp() }
    let report = try await bench.sync { $0.deleteFromDevice = false }
    #expect(report.files.count == 2)
    #expect(report.files.allSatisfy { !$0.deletedFromDevice })
    for pair in bench.written {
      #expect(FileManager.default.fileExists(atPath: pair.wavPath))
      #expect(FileManager.default.fileExists(atPath: pair.asrPath))
      #expect(bench.bytes(bench.wavCopy(pair.sessionId)) == bench.bytes(pair.wavPath))
    }
  }

  @Test func theWAVCanBeTheExport() async throws {
    let bench = try Bench(recordings: 1)
    defer { bench.cleanUp() }
    let original = try #require(bench.bytes(bench.written[0].wavPath))
    var usb = USBTransport.Options()
    usb.wavExport = ExportOptions(format: .wav)
    usb.scrubSerial = true
    let report = try await bench.sync(usb: usb)
    let export = try #require(report.files.first?.exportPath)
    let exported = try #require(bench.bytes(export))
    #expect(exported.count == original.count)
    #expect(exported[512...] == original[512...], "the samples are the device's, untouched")
    #expect(!String(decoding: exported, as: UTF8.self).contains(bench.plan.serial))
  }

  /// `--usb-source wav` in another format: the WAV's samples, not the ASR's decode. Raw
  /// PCM shows it byte for byte; one channel is the mean of both; MP3 is made from them.
  @Test(arguments: [(ExportFormat.pcm, nil), (.pcm, 1), (.mp3, nil)] as [(ExportFormat, Int?)])
  func theWAVSamplesCanBeTheExport(format: ExportFormat, channels: Int?) async throws {
    let bench = try Bench(recordings: 1)
    defer { bench.cleanUp() }
    let original = try #require(bench.bytes(bench.written[0].wavPath))
    var usb = USBTransport.Options()
    usb.wavExport = ExportOptions(format: format, channels: channels)
    let report = try await bench.sync({ $0.format = format }, usb: usb)
    let export = try #require(report.files.first?.exportPath)
    #expect(export.hasSuffix("." + format.fileExtension))
    let exported = try #require(bench.bytes(export))
    let samples = Array(original[512...])
    switch (format, channels) {
    case (.pcm, nil): #expect(exported == samples)
    case (.pcm, 1?):
      var mono: [UInt8] = []
      for index in stride(from: 0, to: samples.count, by: 4) {
        let left = Int32(
          Int16(bitPattern: UInt16(samples[index]) | UInt16(samples[index + 1]) << 8))
        let right = Int32(
          Int16(bitPattern: UInt16(samples[index + 2]) | UInt16(samples[index + 3]) << 8))
        let mean = UInt16(bitPattern: Int16((left + right) / 2))
        mono += [UInt8(mean & 0xFF), UInt8(mean >> 8)]
      }
      #expect(exported == mono)
    default: #expect(exported.count > 1_000)
    }
  }

  /// A delete is only for bytes proven on this run: a stored copy held from before is
  /// compared with the volume's ASR first (DeviceCopyProof over the file).
  @Test func aCopyStoredEarlierIsProvenAgainstTheFileBeforeTheDelete() async throws {
    let bench = try Bench(recordings: 1)
    defer { bench.cleanUp() }
    _ = try await bench.sync { $0.deleteFromDevice = false }
    let report = try await bench.sync()
    #expect(report.files.count == 1)
    #expect(report.files.first?.deletedFromDevice == true)
    #expect(!FileManager.default.fileExists(atPath: bench.written[0].asrPath))
  }

  @Test func otherBytesUnderAStoredIdAreNotDeleted() async throws {
    let bench = try Bench(recordings: 1)
    defer { bench.cleanUp() }
    _ = try await bench.sync { $0.deleteFromDevice = false }
    // The volume now holds other audio under the same id and size.
    var plan = bench.plan
    plan.seed = 99
    plan.recordings = 1
    try USBVolumeWriter.write(plan, to: bench.volume)
    let replaced = bench.bytes(bench.written[0].asrPath)
    let report = try await bench.sync()
    // The earlier copy is kept as an earlier generation; the new bytes are synced too.
    #expect(report.files.count == 2)
    #expect(bench.bytes(bench.raw(bench.written[0].sessionId)) != replaced)
  }

  /// A lone ASR the journal never stored is damage (the device writes both files at once):
  /// given up and left alone, the other pair synced.
  @Test func aLoneASRIsGivenUp() async throws {
    let bench = try Bench(recordings: 2)
    defer { bench.cleanUp() }
    try FileManager.default.removeItem(atPath: bench.written[1].wavPath)
    let report = try await bench.sync()
    #expect(report.givenUp.map(\.sessionId.rawValue) == [bench.written[1].sessionId])
    #expect(report.givenUp.first?.reason.contains("missing") == true)
    #expect(report.files.map(\.sessionId.rawValue) == [bench.written[0].sessionId])
    #expect(FileManager.default.fileExists(atPath: bench.written[1].asrPath))
  }

  /// A removal cut short between its two unlinks (WAV gone, ASR left): the next run proves
  /// the ASR against the raw copy and removes it.
  @Test func aHalfRemovedPairIsRemovedByTheNextRun() async throws {
    let bench = try Bench(recordings: 2)
    defer { bench.cleanUp() }
    _ = try await bench.sync { $0.deleteFromDevice = false }
    try FileManager.default.removeItem(atPath: bench.written[0].wavPath)
    let report = try await bench.sync()
    #expect(report.givenUp.isEmpty)
    #expect(report.files.count == 2)
    #expect(report.files.allSatisfy { $0.deletedFromDevice })
    #expect(!FileManager.default.fileExists(atPath: bench.written[0].asrPath))
  }
}
