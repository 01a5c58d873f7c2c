import Foundation
import PlaudDeviceBasicSDK
import RecorderConcurrency
import RecorderKit
import RecorderTesting
import TestSupport
import Testing

/// The vendor's background flows through the facade with the OS's background time scripted
/// (`ScriptedBackgroundTasks` playing `UIApplication`): the facade's own
/// `BackgroundTaskRunner` and `BackgroundBudget` decide, not a test double of them.
@Suite("The facade spends the OS's background time", .timeLimit(.minutes(3)))
struct FacadeBackgroundTimeTests {
  @Test(
    "auto-sync after a stop on the device: every command runs in a background task, each ended once"
  )
  func autoSyncInsideBackgroundTasks() async throws {
    let tasks = ScriptedBackgroundTasks()
    let bench = try FacadeBench(seed: 31, backgroundTasks: tasks)
    defer { bench.cleanUp() }
    let app = SyncApp(agent: bench.agent, outputDir: bench.exports, clock: bench.anyClock)
    bench.connect(app)
    try await eventually("bind") { app.log.has("bleBind 0") }
    let sessionId = try await bench.recordOnDevice(for: .seconds(8))
    try await eventually("synced") {
      app.runs == 1 && app.idle && app.log.count("bleDeleteFile 0") == 1
    }
    let state = try await Self.everyTaskEndedOnce(tasks)
    // connectBySN, getFileList, exportAudio, deleteFile: one task each.
    #expect(state.begun.count == 4, "\(state.begun)")
    #expect(state.begun.allSatisfy { $0 == "PlaudDeviceBasicSDK.device" })
    let files = try FileManager.default.contentsOfDirectory(atPath: bench.exports)
    #expect(files == ["\(bench.device.serial)-\(sessionId).mp3"])
    #expect(try await bench.device.recordings().isEmpty)
  }

  @Test(
    "the OS ending background time mid-export stops it with its bytes kept; the next export resumes"
  )
  func expiryMidExport() async throws {
    let tasks = ScriptedBackgroundTasks()
    let bench = try FacadeBench(seed: 32, backgroundTasks: tasks)
    defer { bench.cleanUp() }
    let made = try await bench.device.addRecording(duration: .seconds(120))
    let digest = try #require(
      try await bench.device.recordings(includingDigests: true).first?.sha256)
    let log = CallbackLog()
    bench.connect(log)
    try await eventually("bind") { log.count("bleBind") == 1 }
    let id = Int(made.sessionId.rawValue)
    // iOS's time runs out at the 100th data callback, mid-transfer; what was running then,
    // and right after the expiration handler returned.
    let seen = Locked<(before: Int, after: Int)?>(nil)
    log.reaction.withLock {
      $0 = { entry in
        guard entry == "bleData", log.count("bleData") == 100 else { return }
        let before = tasks.state.withLock { $0.running.count }
        tasks.expireAll()
        seen.withLock { $0 = (before, tasks.state.withLock { $0.running.count }) }
      }
    }
    bench.agent.exportAudio(sessionId: id, outputDir: bench.exports, format: .opus, callback: log)
    try await eventually("stopped") { log.count("onError") + log.count("onComplete") == 1 }
    log.reaction.withLock { $0 = nil }
    // The export ran inside the one task running, ended at once from the handler.
    #expect(seen.withLock { $0 }.map { [$0.before, $0.after] } == [1, 0])
    let error = try #require(log.all.first { $0.hasPrefix("onError") })
    #expect(error.contains("background time"), "\(error)")
    #expect(bench.agent.lastError == .backgroundTimeEnded(sessionId: id))
    #expect(log.count("onComplete") == 0)
    #expect(try await bench.device.recordings().count == 1, "nothing deleted")

    // The bytes are kept: the list says where the next export resumes.
    bench.agent.getFileList(startSessionId: 0)
    try await eventually("list") { log.count("bleFileList") == 1 }
    let listed = try #require(log.all.first { $0.hasPrefix("bleFileList") })
    let offset = try #require(
      Int(listed.split(separator: ":")[2].trimmingCharacters(in: .punctuationCharacters)))
    #expect(offset > 0, "\(listed)")
    let sentBefore = await bench.device.counters.dataBytesSent

    bench.agent.exportAudio(sessionId: id, outputDir: bench.exports, format: .opus, callback: log)
    try await eventually("exported") { log.count("onComplete") == 1 }
    let resent = await bench.device.counters.dataBytesSent - sentBefore
    #expect(
      resent < made.size - offset / 2,
      "resumed from \(offset) of \(made.size), sent \(resent) again, before \(sentBefore)")
    let raw = bench.directory + "/store/\(bench.device.serial)/\(made.sessionId).opus-raw"
    #expect(try FileDigest.sha256Hex(ofFile: raw) == digest)
    bench.agent.deleteFile(sessionId: id)
    try await eventually("deleted") { log.has("bleDeleteFile status=0") }
    #expect(try await bench.device.recordings().isEmpty)
    _ = try await Self.everyTaskEndedOnce(tasks)
  }

  @Test("over Wi-Fi too: the OS ending background time stops the export, the session stays up")
  func expiryMidWiFiExport() async throws {
    let tasks = ScriptedBackgroundTasks()
    let bench = try FacadeBench(seed: 34, wifi: true, backgroundTasks: tasks)
    defer { bench.cleanUp() }
    let made = try await bench.device.addRecording(duration: .seconds(600))
    let id = Int(made.sessionId.rawValue)
    let log = CallbackLog()
    _ = try await WiFiAgentTests.openWiFi(bench, log)
    let wifi = bench.agent.wifiAgent
    try await eventually("commands ended") { tasks.state.withLock { $0.running.isEmpty } }
    // iOS's time runs out at the first data: the export's task is the one running.
    let running = Locked<[String]>([])
    log.reaction.withLock {
      $0 = { entry in
        guard entry == "wifiSyncFileData", running.withLock({ $0.isEmpty }) else { return }
        running.withLock { list in
          list = tasks.state.withLock { state in state.running.map { state.begun[$0 - 1] } }
        }
        tasks.expireAll()
      }
    }
    wifi.exportAudioViaWiFi(
      sessionId: id, outputDir: bench.exports, format: .opus, channels: 1, callback: log)
    try await eventually("stopped") { log.count("onError") + log.count("onComplete") == 1 }
    #expect(running.withLock { $0 } == ["PlaudDeviceBasicSDK.wifi"])
    let error = try #require(log.all.first { $0.hasPrefix("onError") })
    #expect(error.contains("background time"), "\(error)")
    #expect(bench.agent.lastError == .backgroundTimeEnded(sessionId: id))
    #expect(wifi.isConnected && !log.has("wifiClose"))

    log.reaction.withLock { $0 = nil }
    wifi.exportAudioViaWiFi(
      sessionId: id, outputDir: bench.exports, format: .opus, channels: 1, callback: log)
    try await eventually("exported", timeout: .seconds(120)) { log.count("onComplete") == 1 }
    bench.agent.endWiFiTransfer()
    try await eventually("ended") { log.has("wifiClose 0") }
    _ = try await Self.everyTaskEndedOnce(tasks)
  }

  /// Waits until no task runs; expects each one begun to have been ended exactly once.
  static func everyTaskEndedOnce(_ tasks: ScriptedBackgroundTasks) async throws
    -> ScriptedBackgroundTasks.State
  {
    try await eventually("every task ended") { tasks.state.withLock { $0.running.isEmpty } }
    let state = tasks.state.withLock { $0 }
    #expect(state.misused.isEmpty, "ended twice or never begun: \(state.misused)")
    #expect(state.ended.sorted() == Array(state.begun.indices.map { $0 + 1 }))
    return state
  }

  @Test("a background task the OS refuses does not keep a command from running")
  func refusedTaskStillRuns() async throws {
    let tasks = ScriptedBackgroundTasks()
    tasks.state.withLock { $0.refuse = true }
    let bench = try FacadeBench(seed: 33, backgroundTasks: tasks)
    defer { bench.cleanUp() }
    let made = try await bench.device.addRecording(duration: .seconds(10))
    let log = CallbackLog()
    bench.connect(log)
    bench.agent.exportAudio(
      sessionId: Int(made.sessionId.rawValue), outputDir: bench.exports, format: .wav,
      callback: log)
    try await eventually("exported") { log.count("onComplete") + log.count("onError") == 1 }
    #expect(log.count("onComplete") == 1, "\(log.all.filter { !$0.hasPrefix("bleData") })")
    #expect(tasks.state.withLock { $0.begun.isEmpty && $0.ended.isEmpty })
  }
}
