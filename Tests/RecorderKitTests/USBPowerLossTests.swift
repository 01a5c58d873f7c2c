import Foundation
import RecorderEmulator
import RecorderProtocol
import RecorderStore
import RecorderTesting
import TestSupport
import Testing

@testable import RecorderKit

/// A USB sync through ``PowerLossFileSystem`` loses power at seeded points spread over its
/// file operations (SIGKILL alone cannot: the page cache survives it). After each cut the
/// disk is brought back as the cut left it, and every pair that left the volume must have a
/// durable raw copy (the ASR's bytes), a durable scrubbed WAV copy, its export and a journal
/// row past `stored`; a second run then finishes: each good pair exactly once, the damaged
/// one given up and left on the volume.
@Suite("USB: power loss")
struct USBPowerLossTests {
  static let seed: UInt64 = 0x05B0_9057
  static let crashPoints = 40

  struct Volume {
    let template: String
    let written: [USBVolumeWriter.Written]
    let plan: USBVolumeWriter.Plan
    let wavs: [[UInt8]]
    let asrs: [[UInt8]]
  }

  static func makeVolume(at path: String) throws -> Volume {
    var plan = USBVolumeWriter.Plan()
    plan.recordings = 4
    plan.frames = 100
    plan.seed = seed
    plan.damage = [2: .wavHeader]
    let written = try USBVolumeWriter.write(plan, to: path)
    return Volume(
      template: path, written: written, plan: plan,
      wavs: written.map { Array(FileManager.default.contents(atPath: $0.wavPath)!) },
      asrs: written.map { Array(FileManager.default.contents(atPath: $0.asrPath)!) })
  }

  /// One sync of `volume` into `out` through `fileSystem`.
  static func sync(volume: String, out: String, fileSystem: any DurableFileSystem) async throws
    -> SyncReport
  {
    try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
    let journal = try Journal(path: StorageLayout(root: out).journal)
    var options = SyncEngine.Options()
    options.format = .opus
    options.proofSeed = seed
    let engine = SyncEngine(journal: journal, fileSystem: fileSystem, root: out, options: options)
    var usb = USBTransport.Options()
    usb.scrubSerial = true
    return try await engine.sync(using: USBTransport(root: volume, options: usb))
  }

  @Test func crashPointsAcrossAUSBSync() async throws {
    let base = NSTemporaryDirectory() + "usb-power-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: base) }
    let volume = try Self.makeVolume(at: base + "/template")
    let counting = PowerLossFileSystem()
    let reference = try await Self.sync(
      volume: try copy(volume.template, to: base + "/reference"), out: base + "/reference-out",
      fileSystem: counting)
    #expect(reference.files.count == 3, seedComment(Self.seed))
    let operations = counting.operationCount
    var random = SplitMix64(seed: Self.seed)
    var crashed = 0
    for index in 0..<Self.crashPoints {
      let low = operations * index / Self.crashPoints
      let high = max(low, operations * (index + 1) / Self.crashPoints - 1)
      let point = random.next(in: low...high)
      if try await crashThenResume(at: point, volume: volume, base: base + "/\(index)") {
        crashed += 1
      }
    }
    print(
      "usb power loss: \(Self.crashPoints) cuts over \(operations) operations, seed \(Self.seed)")
    #expect(crashed >= Self.crashPoints * 9 / 10, seedComment(Self.seed))
  }

  private func copy(_ source: String, to destination: String) throws -> String {
    try FileManager.default.copyItem(atPath: source, toPath: destination)
    return destination
  }

  /// Whether the power went during the run.
  private func crashThenResume(at point: Int, volume: Volume, base: String) async throws -> Bool {
    let context = seedComment(Self.seed, "power lost after \(point) operations")
    let root = try copy(volume.template, to: base + "-volume")
    let out = base + "-out"
    let fileSystem = PowerLossFileSystem(crashAfter: point)
    do {
      _ = try await Self.sync(volume: root, out: out, fileSystem: fileSystem)
    } catch let error as SyncError {
      #expect(error == .storage(.powerLost), context)
    } catch let error as StorageError {
      #expect(error == .powerLost, context)
    }
    try fileSystem.recoverFromPowerLoss()

    let layout = StorageLayout(root: out)
    let journal =
      FileManager.default.fileExists(atPath: layout.journal)
      ? try Journal(path: layout.journal) : nil
    for (index, pair) in volume.written.enumerated() {
      let wavPath = pair.wavPath.replacingOccurrences(of: volume.template, with: root)
      let asrPath = pair.asrPath.replacingOccurrences(of: volume.template, with: root)
      let left =
        !FileManager.default.fileExists(atPath: wavPath)
        || !FileManager.default.fileExists(atPath: asrPath)
      guard left else { continue }
      let id = SessionID(pair.sessionId)
      let raw = layout.raw(serial: volume.plan.serial, sessionId: id)
      #expect(
        FileManager.default.contents(atPath: raw).map(Array.init) == volume.asrs[index], context)
      let wav = FileManager.default.contents(
        atPath: String(raw.dropLast(".opus-raw".count)) + ".wav")
      #expect(wav.map { Self.scrubbed($0, of: volume.wavs[index]) } == true, context)
      let record = try journal?.read { tx in
        try tx.recording(serial: volume.plan.serial, sessionId: id)
      }
      #expect(record.map { $0.stage >= .stored } == true, context)
      let exports =
        try journal?.read { tx in
          try tx.exports(serial: volume.plan.serial, sessionId: pair.sessionId)
        } ?? [:]
      #expect(exports.keys.sorted() == ["opus", "usb-wav"], context)
      for path in exports.values {
        #expect(fileSize(layout.resolved(path)) > 0, context)
      }
    }

    // Power is back: the next run finishes the job.
    let report = try await Self.sync(volume: root, out: out, fileSystem: PosixFileSystem())
    #expect(report.givenUp.map(\.sessionId.rawValue) == [volume.written[2].sessionId], context)
    let exportNames = try FileManager.default.contentsOfDirectory(atPath: layout.exports).sorted()
    let good = volume.written.enumerated().filter { $0.offset != 2 }.map(\.element)
    #expect(
      exportNames == good.map { "\(volume.plan.serial)-\($0.sessionId).opus" }.sorted(), context)
    for pair in good {
      #expect(
        !FileManager.default.fileExists(
          atPath: pair.asrPath.replacingOccurrences(of: volume.template, with: root)), context)
    }
    return fileSystem.hasCrashed
  }

  static func scrubbed(_ copy: Data, of original: [UInt8]) -> Bool {
    let copy = Array(copy)
    let region = 0x2C..<(0x2C + 3 + 18)
    guard copy.count == original.count else { return false }
    return copy[..<region.lowerBound] == original[..<region.lowerBound]
      && copy[region].allSatisfy { $0 == 0 }
      && copy[region.upperBound...] == original[region.upperBound...]
  }
}
