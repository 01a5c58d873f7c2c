import Foundation

/// The Wi-Fi device played by Debian's python3-websockets (a WebSocket client we did not
/// write): Tests/Interop/wifi_device.py, used by the interop tests of RecorderLinkTests (the
/// WebSocket server) and RecorderKitTests (the §6 session).
public let interopDeviceScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .deletingLastPathComponent().appendingPathComponent("Interop/wifi_device.py")

/// A python3 with the websockets module: Debian's lives in /usr/bin, and a pyenv or venv
/// python3 earlier on PATH may not have it.
public func pythonWithWebSockets() -> String? {
  for candidate in ["/usr/bin/python3", "/usr/local/bin/python3"] {
    guard FileManager.default.isExecutableFile(atPath: candidate) else { continue }
    let probe = Process()
    probe.executableURL = URL(fileURLWithPath: candidate)
    probe.arguments = ["-c", "import websockets"]
    probe.standardOutput = FileHandle.nullDevice
    probe.standardError = FileHandle.nullDevice
    guard (try? probe.run()) != nil else { continue }
    probe.waitUntilExit()
    if probe.terminationStatus == 0 { return candidate }
  }
  return nil
}

/// The device process: started, awaited without polling, always killed if still running.
public final class DeviceProcess: Sendable {
  public let process = Process()
  let output = Pipe()
  let errors = Pipe()

  public init(python: String, port: UInt16, mode: String) throws {
    let script = interopDeviceScript
    process.executableURL = URL(fileURLWithPath: python)
    process.arguments = [script.path, "\(port)", "888317426911003", mode]
    process.standardOutput = output
    process.standardError = errors
  }

  /// Runs to the end; returns (status, stdout, stderr).
  public func run() async throws -> (Int32, String, String) {
    try await withCheckedThrowingContinuation {
      (continuation: CheckedContinuation<Void, any Error>) in
      process.terminationHandler = { _ in continuation.resume() }
      do { try process.run() } catch {
        process.terminationHandler = nil
        continuation.resume(throwing: error)
      }
    }
    let out = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let err = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    return (process.terminationStatus, out, err)
  }

  public func kill() { if process.isRunning { process.terminate() } }
}
