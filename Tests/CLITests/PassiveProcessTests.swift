import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Issue 17 at process level: `recorder passive decode`, and `recorder passive run` against
/// `recorder emulate --health` killed with SIGKILL between the endpoint's receipt of an
/// upload and the outbox's commit.
@Suite("CLI: passive", .blockingWaits)
struct PassiveProcessTests {
  // MARK: decode

  @Test func decodeAGoodVectorPrintsValuesUnitsTimeAndFlags() throws {
    let result = try RecorderTool.run([
      "passive", "decode", "--characteristic", "2A1C", "06 6C 01 00 FF E8 07 03 05 0E 07 09 02",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(
      result.stdout == """
        characteristic: Temperature Measurement (0x2A1C)
        flags: 0x06
        temperature: 36.4 °C
        timestamp: 2024-03-05T14:07:09
        temperatureType: body (general)

        """)
  }

  @Test func decodeJSON() throws {
    // Blood pressure, mmHg, with a pulse rate: 120/80 (93), pulse 72.
    let result = try RecorderTool.run([
      "passive", "decode", "--characteristic", "0x2a35", "--json", "04 78 00 50 00 5D 00 48 00",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    #expect(object["characteristic"] as? String == "2A35")
    let fields = try #require(object["fields"] as? [[String: String]])
    #expect(
      fields.first { $0["name"] == "systolic" } == [
        "name": "systolic", "value": "120", "unit": "mmHg",
      ])
    #expect(fields.first { $0["name"] == "pulseRate" }?["value"] == "72")
    #expect(fields.first { $0["name"] == "flags" }?["value"] == "0x04")
  }

  @Test func decodeMalformedBytesExitsNonZeroWithTheReason() throws {
    let truncated = try RecorderTool.run([
      "passive", "decode", "--characteristic", "2A1C", "06 6C 01",
    ])
    #expect(truncated.status == 65)
    #expect(truncated.stdout.isEmpty)
    #expect(
      truncated.stderr.contains("truncated: the flags need 13 bytes, got 3"), "\(truncated.stderr)")
    let reserved = try RecorderTool.run([
      "passive", "decode", "--characteristic", "2A1C", "--reject-reserved", "08 6C 01 00 FF",
    ])
    #expect(reserved.status == 65)
    #expect(reserved.stderr.contains("reserved flag bits 0x08"), "\(reserved.stderr)")
    let unknown = try RecorderTool.run(["passive", "decode", "--characteristic", "2A37", "00"])
    #expect(unknown.status == 64)
    #expect(unknown.stderr.contains("unknown characteristic '2A37'"), "\(unknown.stderr)")
    let notHex = try RecorderTool.run(["passive", "decode", "--characteristic", "2A1C", "0G"])
    #expect(notHex.status == 64)
  }

  // MARK: run, killed and restarted

  /// Needs python3 for the endpoint.
  @Test(.enabled(if: endpointPython != nil))
  func killedAfterTheEndpointReceivedTheUploadAndRestartedItIsCountedOnce() throws {
    let directory = try TemporaryDirectory("passive-restart")
    let root = directory.file("root")
    let emulator = try EmulatorProcess(
      in: directory, recordings: 0, manifest: false,
      extra: ["--no-wifi", "--health", "thermometer"])
    defer { emulator.stop() }
    var address: String?
    waitUntil(timeout: .seconds(30)) {
      address = emulator.child.stdout.split(separator: "\n")
        .first { $0.hasPrefix("health thermometer ") }.map { String($0.split(separator: " ")[2]) }
      return address != nil
    }
    let thermometer = try #require(address, "no health line: \(emulator.child.stdout)")
    let endpoint = try EndpointProcess(in: directory, holdFirst: true)
    defer { endpoint.stop() }

    let registered = try RecorderProcess.run(
      ["passive", "register", "--root", root, "--kind", "thermometer", "--id", thermometer],
      in: directory, label: "register", timeout: .seconds(60))
    #expect(registered.status == 0, "\(registered.stderr)")
    let arguments = [
      "passive", "run", "--root", root, "--device", emulator.url, "--endpoint", endpoint.url,
    ]

    // First life: read, upload; the endpoint keeps the request and never answers; SIGKILL.
    let first = try RecorderProcess(arguments, in: directory, label: "run-1")
    let received = waitUntil(timeout: .seconds(60)) { endpoint.requests.count == 1 }
    #expect(received, "the endpoint got nothing; stderr: \(first.stderr)")
    first.kill()
    #expect(first.stdout.contains("read \(thermometer) thermometer "), "\(first.stdout)")
    #expect(!first.stdout.contains("uploaded"), "\(first.stdout)")
    let key = try #require(endpoint.requests.first?.key)
    let pending = try RecorderProcess.run(
      ["passive", "outbox", "--root", root], in: directory, label: "outbox-1")
    #expect(pending.stdout == "\(key) pending attempts 0\n", "the commit never happened")

    // Second life: the registered set is restored and the same key is sent again.
    let second = try RecorderProcess(arguments, in: directory, label: "run-2")
    defer { second.kill() }
    let uploaded = waitUntil(timeout: .seconds(60)) {
      second.stdout.contains("uploaded \(key)")
    }
    #expect(uploaded, "stdout: \(second.stdout); stderr: \(second.stderr)")
    #expect(second.stderr.contains("restored 1 registered peripheral(s): \(thermometer)"))
    second.kill()
    #expect(!second.stdout.contains("read "), "one measurement, one read: \(second.stdout)")
    let requests = endpoint.requests
    #expect(requests.map(\.key) == [key, key], "both attempts carry the same key")
    #expect(requests.filter(\.new).count == 1, "the endpoint counts the record once")
    let delivered = try RecorderProcess.run(
      ["passive", "outbox", "--root", root], in: directory, label: "outbox-2")
    #expect(delivered.stdout == "\(key) delivered attempts 1\n")
  }

  // MARK: run, a long time

  /// Issue 39, item 7: four emulated peripherals power-cycling 100 times faster than real
  /// time, read a few hundred times; every `stats` line reports the same bounded holdings
  /// (one scan and one worker task, a cooldown entry per peripheral), however many readings.
  @Test func whatALongRunHoldsStaysBounded() throws {
    let directory = try TemporaryDirectory("passive-long-run")
    let root = directory.file("root")
    let emulator = try EmulatorProcess(
      in: directory, recordings: 0, timeScale: 100, manifest: false,
      extra: [
        "--no-wifi", "--health", "thermometer,scale,bp,oximeter", "--health-linger", "0.5",
        "--health-cycle", "10",
      ])
    defer { emulator.stop() }
    var addresses: [(kind: String, address: String)] = []
    waitUntil(timeout: .seconds(30)) {
      addresses = emulator.child.stdout.split(separator: "\n")
        .filter { $0.hasPrefix("health ") }
        .map { line in
          let words = line.split(separator: " ")
          return (String(words[1]), String(words[2]))
        }
      return addresses.count == 4
    }
    try #require(addresses.count == 4, "health lines: \(emulator.child.stdout)")
    for (kind, address) in addresses {
      let registered = try RecorderProcess.run(
        ["passive", "register", "--root", root, "--kind", kind, "--id", address],
        in: directory, label: "register-\(kind)", timeout: .seconds(60))
      #expect(registered.status == 0, "\(registered.stderr)")
    }

    let run = try RecorderProcess(
      [
        "passive", "run", "--root", root, "--device", emulator.url, "--quiet-seconds", "0.05",
        "--stats-every", "50",
      ], in: directory, label: "run")
    defer { run.kill() }
    let target = 200
    let reached = waitUntil(timeout: .seconds(180)) {
      Self.stats(run.stdout).contains { $0.readings >= target } || !run.process.isRunning
    }
    run.kill()
    #expect(reached, "stdout: \(run.stdout.suffix(2000)); stderr: \(run.stderr.suffix(2000))")
    let lines = Self.stats(run.stdout)
    #expect(lines.count >= target / 50, "\(run.stdout.suffix(2000))")
    for line in lines {
      #expect(line.runTasks <= 2, "after \(line.readings) readings: \(line.text)")
      #expect(line.cooldown <= 4 && line.retries <= 4, "\(line.text)")
    }
  }

  /// The `stats` lines of `stdout`.
  static func stats(_ stdout: String) -> [(
    readings: Int, runTasks: Int, cooldown: Int, retries: Int, text: String
  )] {
    stdout.split(separator: "\n").compactMap { line in
      let words = line.split(separator: " ").map(String.init)
      guard words.first == "stats", words.count >= 8, let readings = Int(words[1]),
        let runTasks = Int(words[3]), let cooldown = Int(words[5]), let retries = Int(words[7])
      else { return nil }
      return (readings, runTasks, cooldown, retries, String(line))
    }
  }
}

/// The python3 that runs the endpoint, if there is one.
let endpointPython = ["/usr/bin/python3", "/usr/local/bin/python3"].first {
  FileManager.default.isExecutableFile(atPath: $0)
}

/// Tests/Interop/passive_endpoint.py in its own process: a loopback HTTP endpoint that keeps
/// one record per Idempotency-Key and logs every request before answering.
///
/// `@unchecked Sendable`: only `let`s set in `init`; `Process` is asked only for its pid and
/// terminated through it.
final class EndpointProcess: @unchecked Sendable {
  let process: Process
  let url: String
  let log: String

  struct Request {
    var key: String
    var new: Bool
  }

  /// - Parameter options: more of the script's options (`--pattern`, `--path`).
  init(in directory: TemporaryDirectory, holdFirst: Bool, options: [String] = []) throws {
    let python = try #require(endpointPython)
    let process = Process()
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Interop/passive_endpoint.py")
    log = directory.file("endpoint.log")
    let output = directory.file("endpoint.stdout")
    _ = FileManager.default.createFile(atPath: output, contents: nil)
    process.executableURL = URL(fileURLWithPath: python)
    process.arguments = [script.path, log] + (holdFirst ? ["--hold-first"] : []) + options
    process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
    process.standardError = FileHandle.nullDevice
    try process.run()
    var line: String?
    waitUntil(timeout: .seconds(30)) {
      let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
      line = text.split(separator: "\n").first.map(String.init)
      return line != nil || !process.isRunning
    }
    guard let line, line.hasPrefix("http://127.0.0.1:") else {
      if process.isRunning { sendSignal(process.processIdentifier, SIGKILL) }
      throw HarnessError("the endpoint printed no address")
    }
    self.process = process
    url = line
  }

  deinit { stop() }

  func stop() {
    if process.isRunning { sendSignal(process.processIdentifier, SIGKILL) }
  }

  /// Every request so far, in arrival order.
  var requests: [Request] {
    let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").compactMap { line in
      guard
        let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
        let key = object["key"] as? String, let new = object["new"] as? Bool
      else { return nil }
      return Request(key: key, new: new)
    }
  }
}
