import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A NetworkManager for tests: python3-dbusmock's networkmanager template extended by
/// Tests/BlueZMock/recorder_nm.py (a radio with the access points a test raises, activation
/// outcomes by NetworkManager's rules), on a private `dbus-daemon` (``MockBlueZ``'s, with no
/// bluetoothd). Point a `NetworkManagerClient` (or a `recorder` process, through
/// ``environment``) at ``busAddress``.
///
/// The mock's stdout is discarded: dbusmock logs every call with its arguments there, the
/// PSK among them. Waits poll an external process with a bound, never a fixed sleep.
public final class MockNetworkManager {
  /// What the mock holds, from its `Snapshot` control (no secrets).
  public struct Snapshot: Decodable, Sendable {
    public struct Connection: Decodable, Sendable, Equatable {
      public var path: String
      public var id: String
      public var uuid: String
      public var autoconnect: Bool
      public var unsaved: Bool
      public var volatile: Bool
    }
    public struct Active: Decodable, Sendable, Equatable {
      public var path: String
      public var id: String
      public var uuid: String
      public var state: Int
    }
    public var connections: [Connection]
    public var active: [Active]
    public var calls: [String: Int]
  }

  /// The pre-existing user connection the mock starts with (see recorder_nm.py).
  public static let userConnectionUUID = "5a0b5f3e-0d6c-4d51-9a1c-6f1f0c2e7a11"

  public static let script: String = {
    let here = URL(fileURLWithPath: #filePath)
    return here.deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("BlueZMock/recorder_nm.py").path
  }()

  private let bus: MockBlueZ
  private var mock: Process?
  private var started = 0
  public var busAddress: String { bus.busAddress }
  public var directory: String { bus.directory }
  /// Points a child process's libdbus at the private bus as its system bus.
  public var environment: [String: String] { bus.environment }

  /// A private bus and, on it, the mock started with `parameters` (recorder_nm.py's keys);
  /// nil: no NetworkManager on the bus at all.
  public init(_ parameters: [String: any Sendable]?) throws {
    bus = try MockBlueZ(.absent)
    if let parameters { try start(parameters) }
  }

  deinit { stop() }

  /// Starts the mock (again, as a restarted NetworkManager) and waits for its name.
  public func start(_ parameters: [String: any Sendable]) throws {
    started += 1
    let json = try JSONSerialization.data(withJSONObject: parameters)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    process.arguments = [
      "-m", "dbusmock", "--system", "--template", Self.script, "-p",
      String(decoding: json, as: UTF8.self),
    ]
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let log = logPath(started)
    _ = FileManager.default.createFile(atPath: log, contents: nil)
    process.standardOutput = FileHandle.nullDevice
    process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
    process.standardInput = FileHandle.nullDevice
    try process.run()
    mock = process
    let owned = pollProcessCondition(timeout: .seconds(30)) {
      !process.isRunning || ((try? self.nameHasOwner()) ?? false)
    }
    guard owned, process.isRunning else {
      throw MockBlueZError("the NetworkManager mock did not start: \(self.log)")
    }
  }

  /// SIGKILLs the mock: NetworkManager vanishes from the bus (NameOwnerChanged).
  public func kill() {
    if let mock, mock.isRunning {
      Glibc.kill(mock.processIdentifier, SIGKILL)
      mock.waitUntilExit()
    }
    mock = nil
  }

  public func stop() {
    kill()
    bus.stop()
  }

  /// The stderr of every run of the mock so far.
  public var log: String {
    (1...max(1, started)).map {
      (try? String(contentsOfFile: logPath($0), encoding: .utf8)) ?? ""
    }.joined()
  }

  /// Polls the log for `text` every 20 ms, up to `timeout`.
  @discardableResult
  public func waitForLog(_ text: String, timeout: Duration) -> Bool {
    pollProcessCondition(timeout: timeout) { self.log.contains(text) }
  }

  /// Calls a control on org.freedesktop.DBus.Mock (`RaiseHotspot`, `RaiseEmulatedHotspot`,
  /// `Snapshot`) with dbus-send typed arguments; the printed reply. Blocks the thread: for
  /// `.blockingWaits` suites.
  @discardableResult
  public func control(_ method: String, _ arguments: [String] = []) throws -> String {
    try dbusSend(
      [
        "--dest=org.freedesktop.NetworkManager", "/org/freedesktop",
        "org.freedesktop.DBus.Mock.\(method)",
      ]
        + arguments, literal: true)
  }

  /// The mock's connections, active connections and call counts.
  public func snapshot() throws -> Snapshot {
    let text = try control("Snapshot").trimmingCharacters(in: .whitespacesAndNewlines)
    return try JSONDecoder().decode(Snapshot.self, from: Data(text.utf8))
  }

  private func logPath(_ run: Int) -> String { directory + "/nm-\(run).stderr" }

  private func nameHasOwner() throws -> Bool {
    try dbusSend(
      [
        "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
        "org.freedesktop.DBus.NameHasOwner", "string:org.freedesktop.NetworkManager",
      ], literal: false
    ).contains("boolean true")
  }

  private func dbusSend(_ arguments: [String], literal: Bool) throws -> String {
    try TestSupport.dbusSend(arguments, environment: environment, literal: literal)
  }
}
