import Foundation
import Testing

/// Issue 6's device-control commands at the process level: `recorder record start|stop` and
/// `recorder settings get|set` against `recorder emulate` in another process.
extension ProcessTests {
  @Test("record start then stop: a new recording the device then lists, with its size")
  func recordStartStop() throws {
    let directory = try TemporaryDirectory("record")
    let emulator = try EmulatorProcess(in: directory, token: Self.token, minutes: [0.5])
    defer { emulator.stop() }
    let before = try emulator.manifest().recordings.map(\.sessionId)

    let start = try RecorderProcess.run(
      ["record", "start"] + emulator.device, in: directory, label: "record-start")
    #expect(start.status == 0, "\(start.stderr)")
    let words = start.stdout.split(separator: " ")
    #expect(words.first == "recording", "\(start.stdout)")
    let sessionId = try #require(
      words.last.flatMap { Int64($0.trimmingCharacters(in: .whitespacesAndNewlines)) },
      "\(start.stdout)")
    #expect(!before.contains(sessionId))

    let stop = try RecorderProcess.run(
      ["record", "stop"] + emulator.device, in: directory, label: "record-stop")
    #expect(stop.status == 0, "\(stop.stderr)")
    #expect(stop.stdout.hasPrefix("stopped \(sessionId) "), "\(stop.stdout)")

    let listed = try RecorderProcess.run(
      ["ls", "--json"] + emulator.device, in: directory, label: "ls-after-record")
    #expect(listed.status == 0, "\(listed.stderr)")
    let ids = try jsonArray(listed.stdout).compactMap { int64($0["sessionId"]) }
    #expect(ids.contains(sessionId), "\(listed.stdout)")
    #expect(ids.count == before.count + 1)
  }

  @Test("settings set then get: the device keeps the value; bad names and values are usage errors")
  func settingsSetGet() throws {
    let directory = try TemporaryDirectory("settings")
    let emulator = try EmulatorProcess(in: directory, token: Self.token, minutes: [0.25])
    defer { emulator.stop() }

    let set = try RecorderProcess.run(
      ["settings", "set", "auto-power-off", "3"] + emulator.device, in: directory,
      label: "settings-set")
    #expect(set.status == 0, "\(set.stderr)")
    #expect(set.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "auto-power-off 3")

    let get = try RecorderProcess.run(
      ["settings", "get", "auto-power-off"] + emulator.device, in: directory,
      label: "settings-get")
    #expect(get.status == 0, "\(get.stderr)")
    #expect(get.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "auto-power-off 3")

    let unknown = try RecorderProcess.run(
      ["settings", "get", "warp-drive"] + emulator.device, in: directory,
      label: "settings-unknown")
    #expect(unknown.status == 64, "\(unknown.stderr)")
    let noValue = try RecorderProcess.run(
      ["settings", "set", "auto-power-off"] + emulator.device, in: directory,
      label: "settings-no-value")
    #expect(noValue.status == 64, "\(noValue.stderr)")
  }
}
