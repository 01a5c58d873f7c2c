import Foundation
import PlaudDeviceBasicSDK
import RecorderConcurrency
import RecorderKit
import TestSupport
import Testing

/// Issue 27, "where the conversion runs", through the vendor's calls: with
/// `PlaudSDKConfiguration.exportPolicy` deferred, `exportAudio` stores and verifies the
/// recording but never reports `onComplete` before the file exists; it completes when the
/// conversion ran (`convertPendingAudio`).
@Suite("The facade's export policy", .timeLimit(.minutes(3)))
struct FacadeExportPolicyTests {
  @Test(
    "deferred: exportAudio stops at 99 with nothing at the path; onComplete comes with the conversion"
  )
  func deferredExportCompletesWhenConverted() async throws {
    let bench = try FacadeBench(seed: 27, exportPolicy: .deferConversion)
    defer { bench.cleanUp() }
    let made = try await bench.device.addRecording(duration: .seconds(6))
    let log = CallbackLog()
    bench.connect(log)
    try await eventually("bind") { log.count("bleBind") == 1 }
    let id = Int(made.sessionId.rawValue)
    let path = bench.exports + "/\(bench.device.serial)-\(id).wav"
    bench.agent.exportAudio(sessionId: id, outputDir: bench.exports, format: .wav, callback: log)

    // Stored, verified, owed: the vendor app may delete the device copy.
    let workspace = try SyncWorkspace(root: bench.directory + "/store")
    try await eventually("owed") {
      log.count("onError") > 0 || ((try? workspace.pendingConversions()) ?? []).count == 1
    }
    #expect(log.count("onError") == 0, "\(log.all)")
    let owed = try #require(try workspace.pendingConversions().first)
    #expect(owed.path == path)
    let listed = Locked<[PendingConversion]?>(nil)
    bench.agent.pendingAudioConversions { pending in listed.withLock { $0 = pending } }
    try await eventually("listed") { listed.withLock { $0 } != nil }
    #expect(listed.withLock { $0 } == [owed])
    #expect(log.count("onComplete") == 0 && log.count("onError") == 0)
    #expect(log.has("onProgress 99"))
    #expect(!FileManager.default.fileExists(atPath: path), "no file before the conversion")
    bench.agent.deleteFile(sessionId: id)
    try await eventually("deleted") { log.has("bleDeleteFile status=0") }
    #expect(try await bench.device.recordings().isEmpty)

    // The app asks (on power, say): the callback completes with the file in place.
    let report = Locked<ConversionReport?>(nil)
    bench.agent.convertPendingAudio { done in report.withLock { $0 = done } }
    try await eventually("converted") { report.withLock { $0 } != nil }
    #expect(report.withLock { $0?.converted } == [owed])
    #expect(log.has("onProgress 100"))
    #expect(log.has("onComplete \(path)"))
    #expect(log.count("onComplete") == 1)
    #expect((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0 > 44)
    #expect(try workspace.pendingConversions().isEmpty)
  }

  @Test("the default converts at once: onComplete with the file in place, nothing owed")
  func immediateByDefault() async throws {
    #expect(PlaudSDKConfiguration().exportPolicy == .convertImmediately)
    let bench = try FacadeBench(seed: 28)
    defer { bench.cleanUp() }
    let made = try await bench.device.addRecording(duration: .seconds(4))
    let log = CallbackLog()
    bench.connect(log)
    try await eventually("bind") { log.count("bleBind") == 1 }
    let id = Int(made.sessionId.rawValue)
    let path = bench.exports + "/\(bench.device.serial)-\(id).wav"
    bench.agent.exportAudio(sessionId: id, outputDir: bench.exports, format: .wav, callback: log)
    try await eventually("exported") { log.count("onComplete") == 1 }
    #expect(log.has("onComplete \(path)"))
    #expect(FileManager.default.fileExists(atPath: path))
    #expect(try SyncWorkspace(root: bench.directory + "/store").pendingConversions().isEmpty)
  }
}
