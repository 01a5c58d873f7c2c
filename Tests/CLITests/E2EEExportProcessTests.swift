import Foundation
import TestSupport
import Testing

/// `recorder export FILE --private-key PEM` on an end-to-end encrypted recording (PROTOCOL.md
/// §9), through the real binary, with the independent fixture.
@Suite("recorder export: E2EE files", .blockingWaits)
struct E2EEExportProcessTests {
  static func folder() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "recorder-e2ee-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  /// The fixture file and its key (0600) in `folder`.
  static func fixture(in folder: URL) throws -> (file: String, key: String) {
    let digits = Array(E2EEFixture.fileHex.utf8)
    let bytes = stride(from: 0, to: digits.count, by: 2).compactMap {
      UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)
    }
    let file = folder.appendingPathComponent("1775395218.e2ee").path
    let key = folder.appendingPathComponent("user.pem").path
    _ = FileManager.default.createFile(atPath: file, contents: Data(bytes))
    _ = FileManager.default.createFile(
      atPath: key, contents: Data(E2EEFixture.userKeyPEM.utf8),
      attributes: [.posixPermissions: 0o600])
    return (file, key)
  }

  /// Lines of the key's base64 body: none may appear in any output.
  static var keyLines: [String] {
    E2EEFixture.userKeyPEM.split(separator: "\n").dropFirst().dropLast().map(String.init)
  }

  @Test("export FILE --private-key PEM decrypts and exports; nothing secret or temporary is left")
  func decryptsAndExports() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let (file, key) = try Self.fixture(in: folder)
    let out = folder.appendingPathComponent("out.wav").path
    let result = try RecorderTool.run(
      ["export", file, "--format", "wav", "--private-key", key, "--out", out, "--json"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains(#""frames":25"#), "\(result.stdout)")
    let size = try FileManager.default.attributesOfItem(atPath: out)[.size] as? Int
    #expect(size == 44 + 25 * 320 * 2)
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    #expect(names == ["1775395218.e2ee", "out.wav", "user.pem"])
    let leaked = Self.keyLines.filter { result.stdout.contains($0) || result.stderr.contains($0) }
    #expect(leaked.isEmpty, "\(leaked.count) key lines in the output")
  }

  @Test("no key exits 77; another user's key exits 77; a cut header exits 65: no output file")
  func refusals() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let (file, key) = try Self.fixture(in: folder)
    let out = folder.appendingPathComponent("out.wav").path
    let noKey = try RecorderTool.run(["export", file, "--format", "wav", "--out", out])
    #expect(noKey.status == 77, "\(noKey.stderr)")
    #expect(noKey.stderr.contains("encrypted"))

    let other = folder.appendingPathComponent("other.pem").path
    let openssl = Process()
    openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
    openssl.arguments = ["genpkey", "-algorithm", "RSA", "-out", other]
    openssl.standardError = FileHandle.nullDevice
    try openssl.run()
    openssl.waitUntilExit()
    try #require(openssl.terminationStatus == 0, "openssl genpkey failed")
    chmod(other, 0o600)
    let wrong = try RecorderTool.run(
      ["export", file, "--format", "wav", "--out", out, "--private-key", other])
    #expect(wrong.status == 77, "\(wrong.stderr)")
    #expect(wrong.stderr.contains("another user"))

    let cut = folder.appendingPathComponent("cut.e2ee").path
    let bytes = try #require(FileManager.default.contents(atPath: file))
    _ = FileManager.default.createFile(atPath: cut, contents: bytes.prefix(200))
    let truncated = try RecorderTool.run(
      ["export", cut, "--format", "wav", "--out", out, "--private-key", key])
    #expect(truncated.status == 65, "\(truncated.stderr)")
    #expect(truncated.stderr.contains("truncated E2EE header"))
    #expect(!FileManager.default.fileExists(atPath: out))
    for text in [noKey.stderr, wrong.stderr, truncated.stderr] {
      #expect(!Self.keyLines.contains { text.contains($0) })
    }
  }
}
