import Foundation
import PlaudDeviceBasicSDK
import RecorderAudio
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import RecorderTesting
import TestSupport
import Testing

/// Live audio while recording through the vendor's calls (docs/live-audio.md):
/// `syncFile(sessionId:start:end:)` on the recording in progress streams it,
/// `blePcmData` delivers 640-byte 16 kHz mono chunks as they arrive, `stopRecord()` ends the
/// stream with `bleDataComplete()`; `stopSyncFile()` stops it; a finished recording
/// transfers its range the same way.
@Suite("Facade: live audio")
struct FacadeLiveAudioTests {
  /// The state `blePenState` reports for a device that records: the facade passes GET_STATE's
  /// `state` through, which the emulator sets to 2 while recording [project]; the vendor's
  /// header names 4099 (0x1003) for it (shared/VENDOR-API.md).
  static let recordingPenState = 2

  /// Every live-audio callback, in arrival order.
  final class LiveLog: PlaudDeviceAgentProtocol, Sendable {
    struct PCM: Sendable {
      var sessionId: Int
      var millsec: Int
      var data: Data
      var isMusic: Bool
    }
    let pcm = Locked<[PCM]>([])
    let data = Locked<[(start: Int, data: Data)]>([])
    let order = Locked<[String]>([])
    let penStates = Locked<[Int]>([])
    /// Called from `bleRecordStart` (status 0) with its session and start, on the callback
    /// queue, as an app would.
    let onRecordStart = Locked<(@Sendable (Int, Int) -> Void)?>(nil)

    func blePenState(
      state: Int, privacy: Int, keyState: Int, uDisk: Int, findMyToken: Int, hasSndpKey: Int,
      deviceAccessToken: Int
    ) {
      penStates.withLock { $0.append(state) }
      order.withLock { $0.append("blePenState") }
    }
    func bleStorage(total: Int, free: Int, duration: Int) {
      order.withLock { $0.append("bleStorage") }
    }
    func blePcmData(sessionId: Int, millsec: Int, pcmData: Data, isMusic: Bool) {
      pcm.withLock {
        $0.append(PCM(sessionId: sessionId, millsec: millsec, data: pcmData, isMusic: isMusic))
      }
      order.withLock { $0.append("blePcmData") }
    }
    func bleData(sessionId: Int, start: Int, data: Data) {
      self.data.withLock { $0.append((start, data)) }
      order.withLock { $0.append("bleData") }
    }
    func bleDataComplete() { order.withLock { $0.append("bleDataComplete") } }
    func bleSyncFileHead(sessionId: Int, status: Int) {
      order.withLock { $0.append("bleSyncFileHead \(status)") }
    }
    func bleSyncFileTail(sessionId: Int, crc: Int) {
      order.withLock { $0.append("bleSyncFileTail") }
    }
    func bleDecodeFail(start: Int) { order.withLock { $0.append("bleDecodeFail \(start)") } }
    func bleSyncFileStop() { order.withLock { $0.append("bleSyncFileStop") } }
    func bleRecordStart(
      sessionId: Int, start: Int, status: Int, scene: Int, startTime: Int, reason: Int
    ) {
      order.withLock { $0.append("bleRecordStart") }
      if status == 0 { onRecordStart.withLock { $0 }?(sessionId, start) }
    }
    func bleRecordStop(sessionId: Int, reason: Int, fileExist: Bool, fileSize: Int) {
      order.withLock { $0.append("bleRecordStop") }
    }
    func bleFileList(bleFiles: [BleFile]) { order.withLock { $0.append("bleFileList") } }

    func count(_ name: String) -> Int { order.withLock { $0.filter { $0 == name }.count } }
    var bytes: [UInt8] {
      data.withLock { chunks in
        var bytes: [UInt8] = []
        for chunk in chunks where chunk.start == (chunks.first?.start ?? 0) + bytes.count {
          bytes += chunk.data
        }
        return bytes
      }
    }
  }

  /// A FacadeBench-like set-up whose device serves live syncs as `behaviour` says.
  struct Bench {
    let clock = ManualClock()
    let device: EmulatedDevice
    let agent: PlaudDeviceAgent
    let directory: String
    /// Steps the clock 20 ms at a time: auto-advance alone would jump an idle moment straight
    /// to the recording's five-hour limit.
    let metronome: Task<Void, Never>

    init(_ behaviour: LiveSyncBehaviour = .follows, recordingState: UInt32 = 2) throws {
      directory = NSTemporaryDirectory() + "plaud-live-\(UUID().uuidString)"
      var deviceConfiguration = DeviceConfiguration(seed: 26)
      deviceConfiguration.liveSync = behaviour
      deviceConfiguration.recordingStateCode = recordingState
      device = try EmulatedDevice(
        configuration: deviceConfiguration, flashDirectory: directory + "/flash",
        time: .manual(clock))
      var configuration = PlaudSDKConfiguration(
        central: EmulatorCentral(device: device), storageRoot: directory + "/store",
        clock: AnyClock(clock))
      // Its own domain manager: `.shared` is one per process, and tests run in parallel.
      configuration.domainManager = PlaudDomainManager()
      configuration.unixTime = { 1_775_395_281 }
      configuration.timeZoneSeconds = { 3 * 3600 }
      configuration.scanTimeout = .seconds(5)
      agent = PlaudDeviceAgent(configuration: configuration)
      let clock = self.clock
      metronome = Task {
        while !Task.isCancelled {
          do { try await clock.sleep(for: .milliseconds(20)) } catch { return }
        }
      }
      clock.startAutoAdvance()
    }

    func connect(_ log: LiveLog) async throws {
      agent.delegate = log
      agent.initSDK(userAccessToken: FacadeBench.userToken, customDomain: FacadeBench.offlineDomain)
      agent.connectBySN(device.serial)
      try await eventually("connected") { log.count("bleStorage") == 1 }
    }

    func cleanUp() {
      metronome.cancel()
      clock.stopAutoAdvance()
      try? FileManager.default.removeItem(atPath: directory)
    }
  }

  /// The vendor's `pcmData` of decoding `bytes` frame by frame with a fresh decoder.
  static func pcmData(of bytes: [UInt8]) throws -> [Data] {
    let decoder = try DeviceOpusDecoder(channels: 1)
    return try stride(from: 0, to: bytes.count - bytes.count % 80, by: 80).map { offset in
      let samples = try decoder.decode(Array(bytes[offset..<offset + 80]), offset: offset)
      return Data(samples.flatMap { [UInt8](withUnsafeBytes(of: $0.littleEndian, Array.init)) })
    }
  }

  static func file(_ device: EmulatedDevice, _ sessionId: SessionID) async throws -> [UInt8] {
    let recording = try #require(try await device.recordings().first { $0.sessionId == sessionId })
    return try [UInt8](Data(contentsOf: URL(fileURLWithPath: recording.path)))
  }

  /// The template starts the stream on `state == 4099` (the vendor header's recording
  /// state); a device answering that value is followed as one answering 2.
  @Test("a device whose recording state is the vendor's 4099: blePenState says so, the stream runs")
  func vendorRecordingState() async throws {
    let bench = try Bench(recordingState: DeviceState.vendorRecordingState)
    defer { bench.cleanUp() }
    let sessionId = try #require(await bench.device.startRecordingOnDevice())
    let log = LiveLog()
    try await bench.connect(log)
    #expect(log.penStates.current == [4099])
    try await AnyClock(bench.clock).sleep(for: .seconds(2))
    bench.agent.syncFile(sessionId: Int(sessionId.rawValue), start: 0, end: 0)
    try await eventually("PCM") { log.count("blePcmData") >= 50 }
    bench.agent.stopRecord()
    try await eventually("bleDataComplete") { log.count("bleDataComplete") == 1 }
    let file = try await Self.file(bench.device, sessionId)
    #expect(log.bytes == file)
  }

  @Test(
    "recording → blePenState → syncFile(start 0, end 0) → blePcmData as it grows → stopRecord → bleDataComplete",
    arguments: LiveSyncBehaviour.allCases)
  func liveWhileRecording(_ behaviour: LiveSyncBehaviour) async throws {
    let bench = try Bench(behaviour)
    defer { bench.cleanUp() }
    let sessionId = try #require(await bench.device.startRecordingOnDevice())
    let log = LiveLog()
    try await bench.connect(log)
    #expect(log.penStates.current == [Self.recordingPenState])

    // The template's answer to a recording device.
    bench.agent.syncFile(sessionId: Int(sessionId.rawValue), start: 0, end: 0)
    try await AnyClock(bench.clock).sleep(for: .seconds(3))
    try await eventually("live PCM") { log.count("blePcmData") >= 100 }
    #expect(log.count("bleDataComplete") == 0)
    bench.agent.stopRecord()
    try await eventually("bleDataComplete") { log.count("bleDataComplete") == 1 }

    let file = try await Self.file(bench.device, sessionId)
    let pcm = log.pcm.current
    #expect(file.count >= 3 * 50 * 80)
    // stopRecord reached the device while the stream held the link: well under a minute
    // (virtual time runs as fast as frames are consumed).
    #expect(file.count < 60 * 50 * 80)
    #expect(pcm.count == file.count / 80)
    #expect(pcm.allSatisfy { $0.data.count == 640 && $0.sessionId == Int(sessionId.rawValue) })
    #expect(pcm.map(\.millsec) == (0..<pcm.count).map { $0 * 20 })
    #expect((pcm.last?.millsec ?? 0) + 20 == file.count / 80 * 20)
    #expect(pcm.map(\.data) == (try Self.pcmData(of: file)))
    #expect(pcm.allSatisfy { !$0.isMusic })
    #expect(log.bytes == file)
    let order = log.order.current
    #expect(order.last == "bleDataComplete")
    #expect(order.contains("bleRecordStop"))
    // The vendor's framing callbacks: one head first, one tail just before the end.
    let framing = order.filter { $0.hasPrefix("bleSyncFile") || $0 == "bleDataComplete" }
    #expect(framing == ["bleSyncFileHead 0", "bleSyncFileTail", "bleDataComplete"], "\(framing)")
    #expect(order.firstIndex(of: "bleSyncFileHead 0")! < order.firstIndex(of: "blePcmData")!)
    #expect(await bench.device.recordingSessionId == nil)
  }

  @Test("the template's path: startRecord → bleRecordStart → syncFile(start, end 0) in it")
  func syncFromRecordStart() async throws {
    let bench = try Bench()
    defer { bench.cleanUp() }
    let log = LiveLog()
    try await bench.connect(log)
    #expect(log.penStates.current == [1])
    // As the vendor's template does in its bleRecordStart.
    let agent = bench.agent
    log.onRecordStart.withLock {
      $0 = { sessionId, start in agent.syncFile(sessionId: sessionId, start: start, end: 0) }
    }
    bench.agent.startRecord()
    try await AnyClock(bench.clock).sleep(for: .seconds(2))
    try await eventually("live PCM") { log.count("blePcmData") >= 50 }
    bench.agent.stopRecord()
    try await eventually("bleDataComplete") { log.count("bleDataComplete") == 1 }
    let sessionId = try #require(log.pcm.current.first?.sessionId)
    let file = try await Self.file(bench.device, SessionID(UInt32(sessionId)))
    #expect(file.count < 60 * 50 * 80)
    #expect(log.pcm.current.count == file.count / 80)
    #expect(log.pcm.current.map(\.data) == (try Self.pcmData(of: file)))
    #expect(log.bytes == file)
  }

  @Test("stopSyncFile stops the live stream; the device keeps recording")
  func stopSyncFile() async throws {
    let bench = try Bench()
    defer { bench.cleanUp() }
    let sessionId = try #require(await bench.device.startRecordingOnDevice())
    let log = LiveLog()
    try await bench.connect(log)
    bench.agent.syncFile(sessionId: Int(sessionId.rawValue), start: 0, end: 0)
    try await eventually("live PCM") { log.count("blePcmData") >= 25 }
    bench.agent.stopSyncFile()
    // Commands run in call order: the list answers once the stop is done.
    bench.agent.getFileList(startSessionId: 0)
    try await eventually("bleFileList") { log.count("bleFileList") == 1 }
    let delivered = log.count("blePcmData")
    try await AnyClock(bench.clock).sleep(for: .seconds(2))
    bench.agent.getFileList(startSessionId: 0)
    try await eventually("bleFileList") { log.count("bleFileList") == 2 }
    #expect(log.count("blePcmData") == delivered)
    #expect(log.count("bleDataComplete") == 0)
    #expect(log.count("bleSyncFileStop") == 1)
    #expect(await bench.device.recordingSessionId == sessionId)
    bench.agent.stopRecord()
    try await eventually("bleRecordStop") { log.count("bleRecordStop") == 1 }
  }

  @Test("a finished recording: syncFile transfers [start, end) with bleData and blePcmData")
  func finishedRecording() async throws {
    let bench = try Bench()
    defer { bench.cleanUp() }
    let made = try await bench.device.addRecording(duration: .seconds(2))
    let log = LiveLog()
    try await bench.connect(log)
    bench.agent.syncFile(sessionId: Int(made.sessionId.rawValue), start: 800, end: 0)
    try await eventually("bleDataComplete") { log.count("bleDataComplete") == 1 }
    let file = try await Self.file(bench.device, made.sessionId)
    #expect(log.data.current.first?.start == 800)
    #expect(log.bytes == Array(file[800...]))
    let pcm = log.pcm.current
    #expect(pcm.count == (file.count - 800) / 80)
    #expect(pcm.first?.millsec == 200)
    // Decoding starts at the request's first frame (CELT state starts there, as it would
    // for the app).
    #expect(pcm.map(\.data) == (try Self.pcmData(of: Array(file[800...]))))
  }

  @Test("malformed and undecodable frames from the device: no crash, the rest delivered")
  func malformedFrames() async throws {
    let id = SessionID(0x69D2_6658)
    let encoder = try DeviceOpusEncoder(channels: 1)
    var signal = SpeechLikeSignal(seed: 3)
    let good = try encoder.encode(signal.nextFrame())
    let central = ScriptedCentral { message in
      guard case .syncStart = message else { return V0095Replies.standard(message) }
      return [
        DeviceMessage.syncHead(SessionStatus(sessionId: id, status: 0)).encoded(),
        Frame.bulk(BulkFrame(sessionId: id, offset: 0, data: good)).encoded(),
        [0x02, 0x58, 0x66, 0xD2, 0x69, 0x50, 0x00, 0x00, 0x00, 0x50, 1, 2, 3],
        Frame.bulk(BulkFrame(sessionId: id, offset: 80, data: [UInt8](repeating: 0, count: 80)))
          .encoded(),
        Frame.bulk(BulkFrame(sessionId: id, offset: 160, data: Array(good.prefix(30)))).encoded(),
        Frame.bulk(.terminal(sessionId: id)).encoded(),
        DeviceMessage.syncTail(SyncTail(sessionId: id, crc: 0)).encoded(),
      ]
    }
    let clock = ManualClock()
    var configuration = PlaudSDKConfiguration(
      central: central, storageRoot: NSTemporaryDirectory() + "plaud-live-\(UUID().uuidString)",
      clock: AnyClock(clock))
    // Its own domain manager: `.shared` is one per process, and tests run in parallel.
    configuration.domainManager = PlaudDomainManager()
    configuration.scanTimeout = .seconds(5)
    clock.startAutoAdvance()
    defer { clock.stopAutoAdvance() }
    let agent = PlaudDeviceAgent(configuration: configuration)
    let log = LiveLog()
    agent.delegate = log
    agent.initSDK(userAccessToken: FacadeBench.userToken, customDomain: FacadeBench.offlineDomain)
    agent.connectBySN("8881234567890123")
    try await eventually("connected") { log.count("bleStorage") == 1 }
    agent.syncFile(sessionId: Int(id.rawValue), start: 0, end: 0)
    try await eventually("bleDataComplete") { log.count("bleDataComplete") == 1 }
    #expect(log.bytes == good + [UInt8](repeating: 0, count: 80) + good.prefix(30))
    #expect(log.pcm.current.map(\.millsec) == [0])
    #expect(log.order.current.contains { $0.hasPrefix("bleDecodeFail ") }, "\(log.order.current)")
    #expect(log.pcm.current.first?.data.count == 640)
  }
}
