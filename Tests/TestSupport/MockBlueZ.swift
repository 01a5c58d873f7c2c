import Foundation
import RecorderConcurrency

#if canImport(Glibc)
  import Glibc
#endif

/// A bluetoothd for tests: a private `dbus-daemon` and, on it, python3-dbusmock's BlueZ
/// template extended by Tests/BlueZMock/recorder_bluez.py, whose recorders are relayed to an
/// emulator over the TCP link (docs/tcp-link.md). Point a `BlueZCentral` (or a `recorder`
/// process) at ``busAddress`` through `DBUS_SYSTEM_BUS_ADDRESS`, ``environment``.
///
/// Both processes are killed by ``stop()`` and on release; the directory is removed.
/// The two waits here (the daemon's address, the mock's name on the bus) poll an external
/// process with a bound, never a fixed sleep.
public final class MockBlueZ {
  /// How the mock hands out notifications.
  public enum NotificationPath: String, Sendable {
    /// AcquireNotify's socket.
    case descriptor
    /// AcquireNotify refused: StartNotify and `Value` PropertiesChanged.
    case properties
  }

  /// How the mock's bluetoothd exposes the recorder's Battery Service (0x180F).
  public enum BatteryExposure: String, Sendable {
    /// As GATT objects (GattService1 180F, GattCharacteristic1 2A19): BlueZ 5.80 and later.
    case gatt
    /// Claimed by bluetoothd's battery plugin, as BlueZ before 5.80 does (Debian 12 ships
    /// 5.66): no GATT objects for 180F; the level is `org.bluez.Battery1`'s `Percentage`
    /// (a byte) on the device object once connected.
    case plugin
  }

  /// What runs on the private bus.
  public enum Daemon: Sendable {
    /// The mock bluetoothd relaying to the emulator at `HOST:PORT`.
    case bluez(
      emulator: String, notify: NotificationPath = .descriptor, powered: Bool = true,
      battery: BatteryExposure = .gatt)
    /// No bluetoothd at all (nobody owns org.bluez).
    case absent
    /// The mock runs, but the bus's policy refuses to deliver anything to org.bluez.
    case denied(emulator: String)
  }

  public let directory: String
  public let busAddress: String
  private let daemon: Process
  private var mock: Process?

  public static let mockScript: String = {
    // Tests/TestSupport/MockBlueZ.swift → Tests/BlueZMock/recorder_bluez.py
    let here = URL(fileURLWithPath: #filePath)
    return here.deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("BlueZMock/recorder_bluez.py").path
  }()

  /// The environment that points a child process (or libdbus in this one) at the bus.
  public var environment: [String: String] { ["DBUS_SYSTEM_BUS_ADDRESS": busAddress] }

  public init(_ what: Daemon) throws {
    let directory =
      NSTemporaryDirectory() + "recorder-bluez-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    self.directory = directory
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    var deny = ""
    if case .denied = what { deny = #"<deny send_destination="org.bluez"/>"# }
    let config = """
      <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
       "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
      <busconfig>
        <listen>unix:path=\(directory)/bus</listen>
        <auth>EXTERNAL</auth>
        <policy context="default">
          <allow user="*"/>
          <allow own="*"/>
          <allow send_type="method_call"/>
          <allow send_type="signal"/>
          <allow send_type="method_return"/>
          <allow send_type="error"/>
          <allow receive_type="method_call"/>
          <allow receive_type="signal"/>
          <allow receive_type="method_return"/>
          <allow receive_type="error"/>
          \(deny)
        </policy>
      </busconfig>
      """
    try config.write(toFile: directory + "/bus.conf", atomically: true, encoding: .utf8)
    daemon = try Self.spawn(
      "/usr/bin/dbus-daemon",
      ["--config-file=\(directory)/bus.conf", "--nofork", "--print-address=1"],
      output: directory + "/daemon", environment: [:])
    var address: String?
    let daemon = daemon
    pollProcessCondition(timeout: .seconds(15)) {
      let text = (try? String(contentsOfFile: directory + "/daemon.stdout", encoding: .utf8)) ?? ""
      if let line = text.split(separator: "\n").first { address = String(line) }
      return address != nil || !daemon.isRunning
    }
    guard let address else {
      daemon.terminate()
      throw MockBlueZError(
        "dbus-daemon printed no address: \(Self.read(directory + "/daemon.stderr"))")
    }
    busAddress = address
    switch what {
    case .absent: break
    case .bluez(let emulator, let notify, let powered, let battery):
      try startMock([
        "emulator": emulator, "notify": notify.rawValue, "powered": powered,
        "battery": battery.rawValue,
      ])
    case .denied(let emulator):
      try startMock(["emulator": emulator, "notify": "descriptor", "powered": true])
    }
  }

  deinit { stop() }

  /// Kills the mock (bluetoothd goes away: NameOwnerChanged), leaving the bus up.
  public func stopBluetoothd() {
    if let mock, mock.isRunning {
      kill(mock.processIdentifier, SIGKILL)
      mock.waitUntilExit()
    }
  }

  /// Starts the mock (again), as a restarted bluetoothd.
  public func startMock(_ parameters: [String: any Sendable]) throws {
    let json = try JSONSerialization.data(withJSONObject: parameters)
    let process = try Self.spawn(
      "/usr/bin/python3",
      [
        "-m", "dbusmock", "--system", "--template", Self.mockScript, "-p",
        String(decoding: json, as: UTF8.self),
      ], output: directory + "/mock", environment: environment, keepStdout: false)
    mock = process
    let owned = pollProcessCondition(timeout: .seconds(30)) {
      !process.isRunning || ((try? self.nameHasOwner()) ?? false)
    }
    guard owned, process.isRunning else {
      stop()
      throw MockBlueZError("the BlueZ mock did not start: \(mockLog)")
    }
  }

  /// CPU seconds (user + system) the bus daemon and the mock have used so far, from
  /// /proc/PID/stat: which side limits a throughput figure.
  public func cpuSeconds() -> (daemon: Double, mock: Double) {
    func seconds(_ process: Process?) -> Double {
      guard let process, process.isRunning else { return 0 }
      return Self.cpuSeconds(pid: process.processIdentifier)
    }
    return (seconds(daemon), seconds(mock))
  }

  /// CPU seconds (user + system) process `pid` has used, from /proc/PID/stat; 0 if unknown.
  public static func cpuSeconds(pid: Int32) -> Double {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let close = stat.lastIndex(of: ")")
    else { return 0 }
    // Fields after "(comm)": state is field 3; utime and stime are fields 14 and 15.
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12])
    else { return 0 }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
  }

  /// The mock's stderr so far (for failure messages).
  public var mockLog: String { Self.read(directory + "/mock.stderr") }

  /// Calls one of the mock's controls on org.bluez.Mock (`SetPowered`, `DropLinks`,
  /// `DropAfter`, `ForgetDevices`, `Stats`), with dbus-send typed arguments
  /// (`boolean:false`, `uint32:100`); its printed reply.
  ///
  /// The wait for dbus-send runs on a dispatch thread, never on the cooperative pool: the
  /// mock answers some controls only after the emulator (in this process, on that pool)
  /// answered it, and with every pool thread blocked in a wait like this one (2 cores: 2
  /// threads) nobody would.
  @discardableResult
  public func control(_ method: String, _ arguments: [String] = []) async throws -> String {
    let call = ["--dest=org.bluez", "/", "org.bluez.Mock.\(method)"] + arguments
    let box = Locked<Result<String, any Error>?>(nil)
    let environment = self.environment
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      DispatchQueue.global().async {
        let result = Result { try TestSupport.dbusSend(call, environment: environment) }
        box.withLock { $0 = result }
        continuation.resume()
      }
    }
    return try box.withLock { $0 }!.get()
  }

  /// ``control(_:_:)`` waiting on the calling thread: only for callers outside the
  /// cooperative pool whose emulator runs in another process (the CLI's process tests).
  @discardableResult
  public func blockingControl(_ method: String, _ arguments: [String] = []) throws -> String {
    try dbusSend(["--dest=org.bluez", "/", "org.bluez.Mock.\(method)"] + arguments)
  }

  /// The mock's counters (`notifications`, `notification_bytes`, `writes`, …).
  public func stats() async throws -> [String: UInt64] {
    Self.parseStats(try await control("Stats"))
  }

  /// ``stats()`` waiting on the calling thread (see ``blockingControl(_:_:)``).
  public func blockingStats() throws -> [String: UInt64] {
    Self.parseStats(try blockingControl("Stats"))
  }

  private static func parseStats(_ text: String) -> [String: UInt64] {
    var result: [String: UInt64] = [:]
    var name: String?
    for line in text.split(separator: "\n") {
      let words = line.split(separator: " ")
      if words.first == "string", words.count >= 2 {
        name = words[1].replacingOccurrences(of: "\"", with: "")
      }
      if words.first == "uint64", words.count >= 2, let name { result[name] = UInt64(words[1]) }
    }
    return result
  }

  public func stop() {
    for process in [mock, daemon].compactMap({ $0 }) where process.isRunning {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
    mock = nil
    try? FileManager.default.removeItem(atPath: directory)
  }

  private func nameHasOwner() throws -> Bool {
    try dbusSend([
      "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.NameHasOwner",
      "string:org.bluez",
    ]).contains("boolean true")
  }

  private func dbusSend(_ arguments: [String]) throws -> String {
    try TestSupport.dbusSend(arguments, environment: environment)
  }

  /// Runs `path` with stdout and stderr in `output`.stdout / .stderr. `keepStdout: false`
  /// discards stdout: dbusmock logs every method call there with its arguments, and a
  /// WriteValue's arguments may carry the device token.
  private static func spawn(
    _ path: String, _ arguments: [String], output: String, environment: [String: String],
    keepStdout: Bool = true
  ) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    _ = FileManager.default.createFile(atPath: output + ".stdout", contents: nil)
    _ = FileManager.default.createFile(atPath: output + ".stderr", contents: nil)
    process.standardOutput =
      keepStdout
      ? try FileHandle(forWritingTo: URL(fileURLWithPath: output + ".stdout"))
      : FileHandle.nullDevice
    process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: output + ".stderr"))
    process.standardInput = FileHandle.nullDevice
    try process.run()
    return process
  }

  private static func read(_ path: String) -> String {
    (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
  }
}

/// `dbus-send --system --print-reply[=literal] ARGUMENTS` on the mock's bus (`environment`
/// names it): its reply, or ``MockBlueZError`` with what dbus-send said.
package func dbusSend(
  _ arguments: [String], environment: [String: String], literal: Bool = false
) throws -> String {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-send")
  process.arguments =
    ["--system", literal ? "--print-reply=literal" : "--print-reply", "--reply-timeout=20000"]
    + arguments
  process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
  let out = Pipe()
  let err = Pipe()
  process.standardOutput = out
  process.standardError = err
  try process.run()
  let stdout = out.fileHandleForReading.readDataToEndOfFile()
  let stderr = err.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  guard process.terminationStatus == 0 else {
    throw MockBlueZError(
      "dbus-send \(arguments.joined(separator: " ")): \(String(decoding: stderr, as: UTF8.self))")
  }
  return String(decoding: stdout, as: UTF8.self)
}

/// Polls `condition` every 20 ms up to `timeout` (an external process coming up).
@discardableResult
package func pollProcessCondition(timeout: Duration, _ condition: () -> Bool) -> Bool {
  let deadline = ContinuousClock.now + timeout
  while ContinuousClock.now < deadline {
    if condition() { return true }
    usleep(20_000)
  }
  return condition()
}

public struct MockBlueZError: Error, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }
}
