import Foundation
import Testing

@testable import RecorderKit

/// The sweep of export temporaries a crash left: it takes only what no running export
/// writes.
@Suite struct ExportTemporariesTests {
  @Test("live temporaries stay, in this process and in another running one; the rest go")
  func sweepTakesOnlyTheStale() throws {
    let folder = NSTemporaryDirectory() + "export-temporaries-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let ended = Process()
    ended.executableURL = URL(fileURLWithPath: "/bin/true")
    try ended.run()
    ended.waitUntilExit()
    let live = ExportTemporaries.claim("8881-1.mp3", in: folder)
    let released = ExportTemporaries.claim("8881-2.mp3", in: folder)
    ExportTemporaries.release(released)
    let names = [
      live, live + ".plain", released, released + ".plain",
      folder + "/.partial-1-7-8881-3.mp3",  // pid 1 (init) runs: another process's, live
      folder + "/.partial-\(ended.processIdentifier)-7-8881-4.mp3",  // its process ended
      folder + "/.partial-8881-5.mp3",  // the old form
      folder + "/.partial-x-y-8881-6.mp3",  // not ours to read: stale
      folder + "/8881-7.mp3",  // a final export
    ]
    for name in names { FileManager.default.createFile(atPath: name, contents: Data([1])) }
    try ExportTemporaries.removeStale(in: folder, fileSystem: PosixFileSystem())
    let left = Set(try FileManager.default.contentsOfDirectory(atPath: folder))
    let kept = [live, live + ".plain", folder + "/.partial-1-7-8881-3.mp3", folder + "/8881-7.mp3"]
    #expect(left == Set(kept.map { ($0 as NSString).lastPathComponent }))
    ExportTemporaries.release(live)
    try ExportTemporaries.removeStale(in: folder, fileSystem: PosixFileSystem())
    #expect(
      Set(try FileManager.default.contentsOfDirectory(atPath: folder))
        == [".partial-1-7-8881-3.mp3", "8881-7.mp3"])
  }

  @Test("the writer is read from the name; any other name has none")
  func owners() {
    #expect(ExportTemporaries.owner(of: ".partial-42-7-8881-1.mp3")! == (42, 7))
    #expect(ExportTemporaries.owner(of: ".partial-42-7-8881-1.mp3.plain")! == (42, 7))
    for name in [
      ".partial-8881-1.mp3", ".partial--7-x", ".partial-0-1-x", "42-7-x", ".partial-42-7",
    ] {
      #expect(ExportTemporaries.owner(of: name) == nil, "\(name)")
    }
  }
}
