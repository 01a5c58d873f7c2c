import Foundation
import RecorderCrypto
import Testing

/// The one file hasher: streamed SHA-256, and a typed error naming the call that failed.
struct FileDigestTests {
  @Test("SHA-256 of a file across chunk boundaries, and of an empty file")
  func digests() throws {
    let directory = NSTemporaryDirectory() + "file-digest-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let abc = directory + "/abc"
    try Data("abc".utf8).write(to: URL(fileURLWithPath: abc))
    #expect(
      try FileDigest.sha256Hex(ofFile: abc)
        == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    let empty = directory + "/empty"
    try Data().write(to: URL(fileURLWithPath: empty))
    #expect(
      try FileDigest.sha256Hex(ofFile: empty)
        == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    // Three 1 MiB chunks and a bit: the streamed digest equals the one-shot digest.
    let big = directory + "/big"
    let bytes = (0..<(3 << 20) + 17).map { UInt8(truncatingIfNeeded: $0 &* 31) }
    try Data(bytes).write(to: URL(fileURLWithPath: big))
    let hasher = SHA256Hasher()
    hasher.update(bytes)
    #expect(try FileDigest.sha256Hex(ofFile: big) == hasher.finalizeHex())
  }

  @Test("a missing file is a ReadError of open with ENOENT, naming the path")
  func missingFile() {
    do {
      _ = try FileDigest.sha256Hex(ofFile: "/nonexistent/x")
      Issue.record("a missing file was hashed")
    } catch {
      #expect(error.path == "/nonexistent/x")
      #expect(error.operation == "open")
      #expect(error.code == ENOENT)
    }
  }
}
