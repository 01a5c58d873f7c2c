import RecorderKit
import RecorderProtocol
import TestSupport
import Testing

/// Every path under a storage root comes from `StorageLayout`, whatever the root's spelling.
struct StorageLayoutTests {
  @Test("the layout's paths, with and without a trailing slash on the root")
  func paths() {
    for root in ["/data/rec", "/data/rec/"] {
      let layout = StorageLayout(root: root)
      #expect(layout.journal == "/data/rec/journal.sqlite")
      #expect(layout.lock == "/data/rec/sync.lock")
      #expect(layout.exports == "/data/rec/exports")
      #expect(layout.keys == "/data/rec/keys")
      #expect(layout.deviceDirectory(serial: "888123") == "/data/rec/888123")
      #expect(layout.partial(serial: "888123", sessionId: 42) == "/data/rec/888123/42.part")
      #expect(layout.raw(serial: "888123", sessionId: 42) == "/data/rec/888123/42.opus-raw")
    }
  }

  @Test("a sync's folders are the layout's: the journal, the raw copy and the export")
  func syncUsesTheLayout() async throws {
    let bench = try SyncBench(seed: 45)
    defer { bench.cleanUp() }
    try await bench.device.addRecording(duration: .seconds(5))
    let id = try #require(try await bench.device.recordings().first?.sessionId)
    let layout = StorageLayout(root: bench.root)
    let report = try await bench.syncOnce(try bench.makeEngine())
    #expect(layout.journal == bench.journalPath)
    #expect(layout.raw(serial: bench.device.serial, sessionId: id) == bench.rawPath(id))
    let export = try #require(report.files.first?.exportPath)
    #expect(export.hasPrefix(layout.exports + "/"), "\(export)")
  }
}
