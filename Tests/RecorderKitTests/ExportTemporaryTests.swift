import Foundation
import Testing

@testable import RecorderKit

/// Export temporaries are held by their writer; a sweep takes only what nobody holds, and
/// only names of their exact shape.
@Suite struct ExportTemporaryTests {
  @Test("held temporaries stay, the rest go; other files in the folder are never touched")
  func sweepTakesOnlyTheStale() throws {
    let folder = NSTemporaryDirectory() + "export-temporaries-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let held = try ExportTemporary("8881-1.mp3", in: folder)
    let released = try ExportTemporary("8881-2.wav", in: folder)
    released.release()
    #expect(!FileManager.default.fileExists(atPath: released.path), "a given-up export's file")
    let others = [
      held.path + ".plain",  // a live export's decrypted audio
      released.path,  // as a crash would leave it: not held
      released.path + ".plain",
      folder + "/.partial-00000000000000ab-8881-3.opus.plain",  // scratch without its file
      folder + "/.partial-8881-4.pcm",  // the older form
      folder + "/.partial-notes.txt",  // not ours: another tool's
      folder + "/.partial-8881-5.flac",  // not a format we write
      folder + "/.partial-zz-8881-6.mp3",  // a token that is not one
      folder + "/8881-7.mp3",  // a final export
    ]
    for name in others { _ = FileManager.default.createFile(atPath: name, contents: Data([1])) }
    ExportTemporary.removeStale(in: folder, fileSystem: PosixFileSystem())
    let kept = [
      held.path, held.path + ".plain", folder + "/.partial-notes.txt",
      folder + "/.partial-8881-5.flac", folder + "/.partial-zz-8881-6.mp3", folder + "/8881-7.mp3",
    ].map { ($0 as NSString).lastPathComponent }
    #expect(Set(try FileManager.default.contentsOfDirectory(atPath: folder)) == Set(kept))
    held.release()
    ExportTemporary.removeStale(in: folder, fileSystem: PosixFileSystem())
    #expect(
      Set(try FileManager.default.contentsOfDirectory(atPath: folder)) == Set(kept.dropFirst(2)))
  }

  @Test("two temporaries for one name never share a file")
  func freshEachTime() throws {
    let folder = NSTemporaryDirectory() + "export-temporaries-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let first = try ExportTemporary("8881-1.mp3", in: folder)
    let second = try ExportTemporary("8881-1.mp3", in: folder)
    #expect(first.path != second.path)
    #expect(ExportTemporary.isExportTemporary((first.path as NSString).lastPathComponent))
    #expect(throws: StorageError.self) { try ExportTemporary("8881-1.mp3", in: folder + "/none") }
    // Digits that only look like a token (fullwidth forms count as hex digits to Swift).
    let fullwidth = String(repeating: "\u{FF10}", count: 16)
    #expect(!ExportTemporary.isExportTemporary(".partial-\(fullwidth)-8881-1.mp3"))
    #expect(!ExportTemporary.isExportTemporary(".partial-8881-\u{FF11}.mp3"))
  }
}
