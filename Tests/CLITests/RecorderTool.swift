import Foundation
import Testing

/// Runs the built `recorder` executable as a subprocess.
///
/// Finding it: SwiftPM builds every product of a package into one directory, and this test
/// target depends on `recorder`, so the binary sits next to the test bundle. On Linux the
/// test runner *is* the bundle's executable (`arguments[0]`); on macOS the runner is Xcode's
/// `xctest`, so the `.xctest` bundle among `Bundle.allBundles` gives the directory. Both
/// are checked, plus `RECORDER_BIN` to override. We do not shell out to
/// `swift build --show-bin-path`: it would take the package lock and could pick another
/// scratch path than the one these tests were built in.
enum RecorderTool {
  struct Result {
    var status: Int32
    var stdout: String
    var stderr: String
  }

  static let executable: URL? = {
    let fileManager = FileManager.default
    var candidates: [URL] = []
    if let path = ProcessInfo.processInfo.environment["RECORDER_BIN"] {
      candidates.append(URL(fileURLWithPath: path))
    }
    let runner = URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0])
    candidates.append(runner.deletingLastPathComponent().appendingPathComponent("recorder"))
    for bundle in Bundle.allBundles + [Bundle.main] {
      var directory = bundle.bundleURL
      if directory.pathExtension == "xctest" { directory.deleteLastPathComponent() }
      candidates.append(directory.appendingPathComponent("recorder"))
    }
    return candidates.first { fileManager.isExecutableFile(atPath: $0.path) }
  }()

  static func run(_ arguments: [String]) throws -> Result {
    let url = try #require(executable, "the recorder binary was not found next to the tests")
    let process = Process()
    process.executableURL = url
    process.arguments = arguments
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    // Outputs are a few lines: reading one pipe to its end cannot block the other.
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Result(
      status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
      stderr: String(decoding: stderr, as: UTF8.self))
  }
}
