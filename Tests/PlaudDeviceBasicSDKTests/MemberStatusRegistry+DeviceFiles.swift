import Foundation
import PlaudDeviceBasicSDK
import RecorderEmulator
import TestSupport
import Testing

@testable import PlaudDeviceBasicSDK

/// The device bench's file checks: list, download, export, delete, the downloaded copy.
extension MemberStatusRegistry {
  /// The device's recordings, by session id.
  static func onDevice(_ c: MemberContext) async throws -> [Int: RecordingInfo] {
    Dictionary(
      try await c.device.recordings().map { (Int($0.sessionId.rawValue), $0) },
      uniquingKeysWith: { first, _ in first })
  }

  /// The file list over BLE, listed afresh.
  static func listed(_ c: MemberContext) async throws -> [MemberStatusLog.File] {
    try await c.call({ c.agent.getFileList(startSessionId: 0) }, heard: "bleFileList ")
    return c.log.bleFiles.current
  }

  static let deviceFiles: [MemberCheck] = [
    on(.device, agent, #"`func getFileList(startSessionId: Int)`"#) { c in
      let files = try await listed(c)
      let held = try await onDevice(c)
      try require(
        Set(files.map(\.sessionId)) == Set(held.keys), "listed \(files), held \(held.keys)")
      return .answered("the device's \(files.count) recordings")
    },
    on(.device, callbacks, #"`optional func bleFileList(bleFiles: [BleFile])`"#) { c in
      let files = try await listed(c)
      try require(!files.isEmpty, "an empty list")
      return .answered("\(files.count) files")
    },
    on(
      .device, "BleFile",
      #"`var sessionId: Int  (TA*: Set<Int> of sessionIds, RecordingFile(sessionId: Int))`"#
    ) { c in
      let files = try await listed(c)
      try require(Set(c.recordings).isSubset(of: files.map(\.sessionId)), "\(files)")
      return .answered("the device's session ids")
    },
    on(.device, "BleFile", #"`var size: Int  (TA*: `currentFileSize: Int = next.size`)`"#) { c in
      let files = try await listed(c)
      let held = try await onDevice(c)
      for file in files {
        try require(file.size == held[file.sessionId]?.size, "\(file) vs the device's")
      }
      return .answered("the device's sizes")
    },
    on(
      .device, "BleFile",
      #"`var sn: String  (TA*: RecordingFile(deviceSN: bf.sn) with deviceSN: String)`"#
    ) { c in
      let files = try await listed(c)
      try require(files.allSatisfy { $0.sn == c.serial }, "\(files.map(\.sn))")
      return .answered("the device's serial")
    },
    on(
      .device, "BleFile",
      #"`func duration() -> (integer milliseconds)  (TA*: `TimeInterval(bf.duration()) / 1000.0`)`"#
    ) { c in
      let files = try await listed(c)
      let held = try await onDevice(c)
      for file in files {
        let expected = try #require(held[file.sessionId]).durationMs
        try require(abs(file.duration - expected) <= 1000, "\(file.duration) ms vs \(expected)")
      }
      return .answered("within 1 s of the device's durations")
    },
    on(.device, agent, #"`func getFile(sessionId: Int)`"#) { c in
      let id = c.recordings[0]
      try await c.call({ c.agent.getFile(sessionId: id) }, heard: "bleFileList ")
      let files = c.log.bleFiles.current
      try require(files.map(\.sessionId) == [id], "\(files.map(\.sessionId)) for \(id)")
      return .answered("just recording \(id)")
    },
    on(
      .device, agent,
      #"`func downloadFile(sessionId: Int, desiredOutputPath: String, format: PlaudDownloadFormat = .wav)`"#
    ) { c in
      let id = c.recordings[0]
      let path = c.scratch + "/download.wav"
      c.agent.downloadFile(sessionId: id, desiredOutputPath: path, format: .wav)
      try await eventually("downloaded") {
        c.log.has("bleDownloadFile \(id) 0 100") || c.log.count("bleDownloadFile \(id) -1") > 0
      }
      try require(c.log.has("bleDownloadFile \(id) 0 100"), "\(c.lastFailure)")
      let head = try #require(FileManager.default.contents(atPath: path)).prefix(4)
      try require(head == Data("RIFF".utf8), "not a WAV file")
      return .answered("a WAV file at the path asked")
    },
    on(
      .device, callbacks,
      #"`optional func bleDownloadFile(sessionId: Int, desiredOutputPath: String, status: Int, progress: Int, tips: String)`"#
    ) { c in
      let id = c.recordings[0]
      try require(c.log.has("bleDownloadFile \(id) 0 100"), "no 100%")
      return .answered("0 … 100")
    },
    on(.device, agent, #"`var currentDownloadSpeedKBps: Double { get }`"#) { c in
      try require(c.agent.currentDownloadSpeedKBps > 0, "0 after a download")
      return .answered("\(c.agent.currentDownloadSpeedKBps) KB/s")
    },
    on(.device, agent, #"`func getFormattedDownloadSpeed() -> String`"#) { c in
      let text = c.agent.getFormattedDownloadSpeed()
      try require(text != "0 KB/s" && text.hasSuffix("B/s"), text)
      return .answered(text)
    },
    on(
      .device, agent,
      #"`func exportAudio(sessionId: Int, outputDir: String, format: AudioExportFormat, channels: Int = 1, callback: any AudioExportCallback)`"#
    ) { c in
      let id = c.recordings[1]
      let entry = try await c.call(
        { c.agent.exportAudio(sessionId: id, outputDir: c.scratch, format: .wav, callback: c.log) },
        heard: "onComplete ")
      let path = String(entry.dropFirst("onComplete ".count))
      try require(path.hasPrefix(c.scratch), "\(path) is not in the output directory")
      let head = try #require(FileManager.default.contents(atPath: path)).prefix(4)
      try require(head == Data("RIFF".utf8), "not a WAV file")
      return .answered("a WAV file in outputDir")
    },
    on(
      .device, "AudioExportCallback",
      #"`a class implementing onProgress/onComplete/onError conforms (and can be passed to exportAudio)`"#
    ) { c in
      try require(c.log.count("onComplete ") == 1, "the export's callback heard no onComplete")
      return .answered("passed to exportAudio, it heard the export")
    },
    on(.device, "AudioExportCallback", #"`func onProgress(_ progress: Int, message: String)`"#) {
      c in
      try require(c.log.count("onProgress ") > 0, "no onProgress")
      return .answered("\(c.log.count("onProgress ")) progress reports")
    },
    on(.device, "AudioExportCallback", #"`func onComplete(outputPath: String)`"#) { c in
      try require(c.log.count("onComplete ") == 1, "no onComplete")
      return .answered("the output path")
    },
    on(.device, "AudioExportCallback", #"`func onError(_ error: String)`"#) { c in
      let entry = try await c.call(
        {
          c.agent.exportAudio(
            sessionId: 12_345, outputDir: c.scratch, format: .wav, callback: c.log)
        }, heard: "onError ")
      return .answered(String(entry.prefix(80)))
    },
    on(.device, "PlaudFileUploader", #"`func checkRecordingExist(sessionId: Int) -> Bool`"#) { c in
      let uploader = PlaudFileUploader(agent: c.agent)
      try require(uploader.checkRecordingExist(sessionId: c.recordings[1]), "exported, not held")
      try require(!uploader.checkRecordingExist(sessionId: 12_345), "a recording never made")
      return .answered("true for the exported recording only")
    },
    on(
      .device, "PlaudFileUploader",
      #"`func getDownloadedRecordingPath(sessionId: Int, desiredPath: String) -> String`"#
    ) { c in
      let uploader = PlaudFileUploader(agent: c.agent)
      let id = c.recordings[1]
      let copy = c.scratch + "/copy.raw"
      try require(uploader.getDownloadedRecordingPath(sessionId: id, desiredPath: copy) == copy, "")
      let held = try #require(try await onDevice(c)[id])
      let bytes = try Data(contentsOf: URL(fileURLWithPath: copy))
      try require(bytes == (try Data(contentsOf: URL(fileURLWithPath: held.path))), "not its bytes")
      return .answered("the device's bytes copied to the path")
    },
    on(.device, agent, #"`func deleteFile(sessionId: Int)`"#) { c in
      let id = c.recordings[1]
      let entry = try await c.call({ c.agent.deleteFile(sessionId: id) }, heard: "bleDeleteFile ")
      try require(entry == "bleDeleteFile \(id) 0", "\(entry) \(c.lastFailure)")
      try require(try await onDevice(c)[id] == nil, "still on the device")
      return .answered(entry)
    },
    on(.device, callbacks, #"`optional func bleDeleteFile(sessionId: Int, status: Int)`"#) { c in
      try require(c.log.has("bleDeleteFile \(c.recordings[1]) 0"), "no bleDeleteFile 0")
      return .answered("bleDeleteFile id 0")
    },
  ]
}

extension MemberContext {
  /// `lastError`, for a check's failure message.
  var lastFailure: String { agent.lastError.map { "lastError: \($0)" } ?? "no lastError" }
}
