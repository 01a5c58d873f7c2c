import Foundation
import RecorderConcurrency
import RecorderKit
import TestSupport
import Testing

@testable import PlaudDeviceBasicSDK

/// `PlaudFileUploader.checkRecordingExist` and `getDownloadedRecordingPath`, answered by the
/// sync journal of the agent's storage root.
@Suite("The facade's downloaded recordings (the journal)", .timeLimit(.minutes(3)))
struct FacadeDownloadedRecordingTests {
  @Test(
    "a recording exported through the facade exists; its raw copy is the device's bytes, copied whole"
  )
  func downloadedRecording() async throws {
    let bench = try FacadeBench(seed: 41)
    defer { bench.cleanUp() }
    let made = try await bench.device.addRecording(duration: .seconds(4))
    let device = try #require(
      try await bench.device.recordings(includingDigests: true).first {
        $0.sessionId == made.sessionId
      })
    let log = CallbackLog()
    bench.connect(log)
    try await eventually("bind") { log.count("bleBind") == 1 }
    let id = Int(made.sessionId.rawValue)
    let uploader = PlaudFileUploader(agent: bench.agent)
    #expect(uploader.checkRecordingExist(sessionId: id) == false, "nothing downloaded yet")
    #expect(uploader.getDownloadedRecordingPath(sessionId: id, desiredPath: "") == "")

    bench.agent.exportAudio(sessionId: id, outputDir: bench.exports, format: .wav, callback: log)
    try await eventually("exported") { log.count("onComplete") == 1 }
    #expect(uploader.checkRecordingExist(sessionId: id))
    #expect(uploader.checkRecordingExist(sessionId: id + 1) == false)
    #expect(uploader.checkRecordingExist(sessionId: -1) == false)
    let held = uploader.getDownloadedRecordingPath(sessionId: id, desiredPath: "")
    #expect(held.hasSuffix("/\(bench.device.serial)/\(id).opus-raw"), "\(held)")
    let copy = bench.directory + "/copy.opus"
    #expect(uploader.getDownloadedRecordingPath(sessionId: id, desiredPath: copy) == copy)
    let bytes = try Data(contentsOf: URL(fileURLWithPath: copy))
    #expect(bytes == (try Data(contentsOf: URL(fileURLWithPath: device.path))))
    #expect(!FileManager.default.fileExists(atPath: copy + ".partial"))

    // A raw copy that is no longer the journal's bytes is not a downloaded recording.
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: held))
    try handle.seekToEnd()
    try handle.write(contentsOf: [0])
    try handle.close()
    #expect(uploader.checkRecordingExist(sessionId: id) == false)
    #expect(uploader.getDownloadedRecordingPath(sessionId: id, desiredPath: copy + "2") == "")
  }
}
