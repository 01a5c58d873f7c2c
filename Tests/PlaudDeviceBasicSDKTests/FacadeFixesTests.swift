import Foundation
import PlaudDeviceBasicSDK
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import RecorderStore
import TestSupport
import Testing

/// The facade's fixes of issue 11: an unbind never erases, an export honours the format and
/// folder asked for, and a recording kept unverified is reported as such.
@Suite("PlaudDeviceBasicSDK fixes (in process, virtual time)")
struct FacadeFixesTests {
  /// Connects `bench`'s agent with the user token, up to `bleStorage`.
  static func connect(_ bench: FacadeBench, _ log: CallbackLog) async throws {
    bench.agent.delegate = log
    bench.agent.initSDK(
      userAccessToken: FacadeBench.userToken, customDomain: FacadeBench.offlineDomain)
    bench.agent.connectBySN(bench.device.serial)
    try await eventually("bind") { log.count("bleStorage") == 1 }
    #expect(log.has("bleConnectState 1"))
  }

  @Test("depair(clear: true), the reference's unbind flow, keeps every recording on the device")
  func unbindKeepsRecordings() async throws {
    let bench = try FacadeBench(seed: 21)
    defer { bench.cleanUp() }
    let made = [
      try await bench.device.addRecording(duration: .seconds(6)),
      try await bench.device.addRecording(duration: .seconds(4)),
    ].map(\.sessionId).sorted()
    let log = CallbackLog()
    try await Self.connect(bench, log)
    bench.agent.depair(clear: true)
    try await eventually("depair") { log.has("bleDepair 0") && log.has("bleConnectState 0") }
    #expect(await bench.device.isConnected == false)
    // Nothing was synced: erasing here would have lost both recordings.
    #expect(try await bench.device.recordings().map(\.sessionId).sorted() == made)
  }

  @Test("a second export in another format and folder is that format in that folder")
  func reExportHonoursFormatAndFolder() async throws {
    let bench = try FacadeBench(seed: 22)
    defer { bench.cleanUp() }
    let recording = try await bench.device.addRecording(duration: .seconds(8))
    let log = CallbackLog()
    try await Self.connect(bench, log)
    let id = Int(recording.sessionId.rawValue)
    bench.agent.exportAudio(sessionId: id, outputDir: bench.exports, format: .mp3, callback: log)
    try await eventually("mp3") { log.count("onComplete") + log.count("onError") == 1 }
    let mp3 = bench.exports + "/\(bench.device.serial)-\(id).mp3"
    #expect(log.has("onComplete \(mp3)"), "\(log.all.filter { $0.hasPrefix("on") })")

    let other = bench.directory + "/other"
    bench.agent.exportAudio(sessionId: id, outputDir: other, format: .wav, callback: log)
    try await eventually("wav") { log.count("onComplete") + log.count("onError") == 2 }
    let wav = other + "/\(bench.device.serial)-\(id).wav"
    #expect(log.has("onComplete \(wav)"), "\(log.all.filter { $0.hasPrefix("on") })")
    let header = try #require(FileManager.default.contents(atPath: wav)).prefix(4)
    #expect(Array(header) == Array("RIFF".utf8))
    #expect(FileManager.default.fileExists(atPath: mp3))
    // The same export asked again is the same file; nothing moved over the radio again.
    bench.agent.exportAudio(sessionId: id, outputDir: other, format: .wav, callback: log)
    try await eventually("again") { log.count("onComplete") == 3 }
    #expect(log.count("onComplete \(wav)") == 2)
    #expect(log.count("bleDataComplete") == 1)
  }

  /// Vendor code exporting from a Mode B device whose recordings are end-to-end encrypted:
  /// the facade decrypts with the user key of its store, in each format asked.
  @Test("an end-to-end encrypted recording exports decrypted, and re-exports too")
  func e2eeRecordingExports() async throws {
    let bench = try FacadeBench(seed: 23, portVersion: 20, e2ee: true)
    defer { bench.cleanUp() }
    let recording = try await bench.device.addRecording(duration: .seconds(4))
    let log = CallbackLog()
    try await Self.connect(bench, log)
    let id = Int(recording.sessionId.rawValue)
    let frames = (recording.size - 512) / 80
    for (format, bytes) in [(AudioExportFormat.wav, 44 + frames * 640), (.pcm, frames * 640)] {
      let before = log.count("onComplete") + log.count("onError")
      bench.agent.exportAudio(
        sessionId: id, outputDir: bench.exports, format: format, callback: log)
      try await eventually("\(format)") {
        log.count("onComplete") + log.count("onError") == before + 1
      }
      let path = bench.exports + "/\(bench.device.serial)-\(id).\(format == .wav ? "wav" : "pcm")"
      #expect(log.has("onComplete \(path)"), "\(log.all.filter { $0.hasPrefix("on") })")
      let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
      #expect(size == bytes, "\(format)")
    }
  }

  @Test("a recording kept unverified is reported as unverified, not as missing")
  func unverifiedIsReportedAsSuch() async throws {
    let bench = try FacadeBench(seed: 23)
    defer { bench.cleanUp() }
    let recording = try await bench.device.addRecording(duration: .seconds(5))
    // An earlier sync on the same storage root kept it unverified: its tail CRC never
    // matched (identical bytes read twice).
    var configuration = DeviceSession.Configuration(token: bench.device.configuration.token)
    configuration.clock = bench.anyClock
    let found = try await RecorderScanner(central: bench.central, clock: bench.anyClock).find(
      serial: bench.device.serial, timeout: .seconds(10))
    let session = try await DeviceSession.connect(
      to: found, using: bench.central, configuration: configuration)
    let workspace = try SyncWorkspace(root: bench.directory + "/store")
    let engine = workspace.makeEngine(
      format: .mp3, deleteFromDevice: false, clock: bench.anyClock)
    let report = try await engine.sync(
      using: LyingTailTransport(base: BLETransport(session: session)))
    await session.close()
    // Identical reads under a CRC that never matches are "verified by agreement" now; a
    // journal from before per-range checks kept such a file as "unverified": play that.
    #expect(report.files.map(\.verified) == [true])
    _ = try Journal(path: bench.directory + "/store/journal.sqlite").write { tx in
      try tx.update(serial: bench.device.serial, sessionId: recording.sessionId.rawValue) {
        $0.verification = .unverified
      }
    }

    let log = CallbackLog()
    try await Self.connect(bench, log)
    bench.agent.exportAudio(
      sessionId: Int(recording.sessionId.rawValue), outputDir: bench.exports, format: .mp3,
      callback: log)
    try await eventually("answer") { log.count("onComplete") + log.count("onError") == 1 }
    let error = try #require(log.all.first { $0.hasPrefix("onError") })
    #expect(error.contains("checksum never matched"), "\(error)")
    #expect(!error.contains("no recording"), "\(error)")
    #expect(try await bench.device.recordings().count == 1)
  }
}

/// BLE whose tail CRC never matches ours: the sync engine keeps the bytes unverified.
struct LyingTailTransport: RecordingTransport {
  let base: BLETransport
  var name: String { base.name }
  var serial: String { get async { await base.serial } }
  var audioChannels: Int { get async { await base.audioChannels } }
  func listRecordings() async throws(DeviceError) -> [Recording] { try await base.listRecordings() }
  func recordingInProgress() async throws(DeviceError) -> SessionID? {
    try await base.recordingInProgress()
  }
  func stream(
    sessionId: SessionID, start: UInt32, end: UInt32,
    receive: @Sendable (BulkFrame) async -> StreamDecision
  ) async throws(DeviceError) -> SyncTail? {
    let tail = try await base.stream(sessionId: sessionId, start: start, end: end, receive: receive)
    return tail.map { SyncTail(sessionId: $0.sessionId, crc: $0.crc ^ 0x5A5A) }
  }
  func delete(sessionId: SessionID) async throws(DeviceError) {
    try await base.delete(sessionId: sessionId)
  }
}
