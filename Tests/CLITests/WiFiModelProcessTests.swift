import Foundation
import TestSupport
import Testing

/// Issue 28 items 3 and 4 at the process level: `recorder sync --wifi` against `recorder
/// emulate` devices that name their hotspot by model or in their WIFI_OPEN reply, and
/// devices that keep BLE up or drop it while the hotspot serves the phone.
extension ProcessTests {
  /// One emulated device's hotspot naming: its options and what the sync should do.
  struct HotspotNaming: Sendable, CustomTestStringConvertible {
    var label: String
    var serial: String
    var portVersion: UInt16
    var options: [String]
    /// false: the phone cannot know the SSID, so BLE carries the sync.
    var joinable = true

    var testDescription: String { label }
  }

  static let hotspotNamings: [HotspotNaming] = [
    HotspotNaming(
      label: "Note: PLAUD + last 4", serial: "8881234567890123", portVersion: 10, options: []),
    HotspotNaming(
      label: "Note Pro portVersion 10: PLAUD + last 4", serial: "8811234567890123",
      portVersion: 10, options: ["--model", "881"]),
    HotspotNaming(
      label: "Note Pro portVersion 20: Plaud + last 4", serial: "8811234567890123",
      portVersion: 20, options: ["--model", "881"]),
    HotspotNaming(
      label: "NotePin S: Plaud + last 4", serial: "8821234567890123", portVersion: 10,
      options: ["--model", "882"]),
    HotspotNaming(
      label: "own SSID, reported as text", serial: "8881234567890123", portVersion: 10,
      options: ["--wifi-ssid", "Recorder-AP-7", "--wifi-open-reply", "text"]),
    HotspotNaming(
      label: "own SSID, reported length-prefixed", serial: "8821234567890123", portVersion: 10,
      options: ["--model", "882", "--wifi-ssid", "Recorder-AP-7", "--wifi-open-reply", "length"]),
    HotspotNaming(
      label: "model SSID also reported", serial: "8821234567890123", portVersion: 10,
      options: ["--model", "882", "--wifi-open-reply", "text"]),
    HotspotNaming(
      label: "own SSID not reported: cannot be joined", serial: "8881234567890123",
      portVersion: 10, options: ["--wifi-ssid", "Recorder-AP-7"], joinable: false),
  ]

  @Test(
    "sync --wifi joins the hotspot the device reports, else the one its model names",
    arguments: hotspotNamings)
  func syncJoinsTheModelsHotspot(_ naming: HotspotNaming) throws {
    let directory = try TemporaryDirectory("wifi-ssid")
    let emulator = try EmulatorProcess(
      in: directory, token: Self.token, minutes: [1, 0.5], timeScale: 50,
      portVersion: naming.portVersion,
      extra: ["--serial", naming.serial, "--hotspot-startup", "0.2"] + naming.options)
    defer { emulator.stop() }
    let manifest = try emulator.manifest()
    let out = directory.file("out")
    // The unjoinable one gives up joining after 5 s rather than the default minute.
    let result = try RecorderProcess.run(
      [
        "sync", "--out", out, "--format", "opus", "--json", "--wifi", "--hotspot",
        try emulator.hotspot(), "--wifi-min-backlog", "0", "--wifi-join-timeout",
        naming.joinable ? "60" : "5",
      ] + emulator.device, in: directory, label: "sync")
    #expect(result.status == 0, "\(result.stderr)")
    let files = try jsonArray(result.stdout)
    #expect(files.count == manifest.recordings.count, "\(result.stdout)\n\(result.stderr)")
    let transport = naming.joinable ? "wifi" : "ble"
    #expect(
      files.allSatisfy { $0["transport"] as? String == transport },
      "\(result.stdout)\n\(result.stderr)")
    if !naming.joinable {
      #expect(result.stderr.contains("over BLE:"), "\(result.stderr)")
    }
    try expectSynced(manifest, out: out, format: "opus")
  }

  @Test("sync --wifi with BLE kept up: WIFI_CLOSE on the same connection, nothing owed")
  func wifiSyncWithBLEKeptUp() throws {
    let directory = try TemporaryDirectory("wifi-ble-up")
    let emulator = try EmulatorProcess(
      in: directory, token: Self.token, minutes: [1, 0.5, 0.25], timeScale: 50,
      extra: ["--hotspot-startup", "0.2"])
    defer { emulator.stop() }
    let manifest = try emulator.manifest()
    let out = directory.file("out")
    let result = try syncWiFiToTheEnd(emulator, out: out, in: directory, label: "sync")
    #expect(result.status == 0, "\(result.stderr)")
    let files = try jsonArray(result.stdout)
    #expect(files.count == manifest.recordings.count)
    #expect(files.allSatisfy { $0["transport"] as? String == "wifi" }, "\(result.stdout)")
    try expectSynced(manifest, out: out, format: "opus")
    #expect(!result.stderr.contains("Wi-Fi closed over a new BLE connection"))
    let events = try wifiEvents(emulator, until: { $0.contains { $0.event == "close" } })
    #expect(
      events == [
        WiFiEvent(event: "open", connection: 1, hotspotWasUp: true),
        WiFiEvent(event: "close", connection: 1, hotspotWasUp: true),
      ], "\(events)")
    #expect(!owedMarkerExists(out: out, serial: manifest.serial))
  }

  @Test("sync --wifi with BLE dropped on WIFI_OPEN: all over Wi-Fi, then WIFI_CLOSE on reconnect")
  func wifiSyncWithBLEDropped() throws {
    let directory = try TemporaryDirectory("wifi-ble-dropped")
    let emulator = try EmulatorProcess(
      in: directory, token: Self.token, minutes: [1, 0.5, 0.25], timeScale: 50,
      extra: ["--hotspot-startup", "0.2", "--wifi-drops-ble"])
    defer { emulator.stop() }
    let manifest = try emulator.manifest()
    let out = directory.file("out")
    let result = try syncWiFiToTheEnd(emulator, out: out, in: directory, label: "sync")
    let files = try expectSyncedOverWiFi(result, manifest, out: out)
    #expect(files.allSatisfy { $0["deletedFromDevice"] as? Bool == true }, "\(result.stdout)")
    #expect(result.stderr.contains("Wi-Fi closed over a new BLE connection"), "\(result.stderr)")
    // BLE down throughout: connection 1 raised the hotspot and went down, the transfer and
    // every DELETE went over Wi-Fi, connection 2 came only for the owed WIFI_CLOSE.
    let events = try wifiEvents(emulator, until: { $0.contains { $0.event == "close" } })
    #expect(
      events == [
        WiFiEvent(event: "open", connection: 1, hotspotWasUp: true),
        WiFiEvent(event: "bleDropped", connection: 1, hotspotWasUp: true),
        WiFiEvent(event: "close", connection: 2, hotspotWasUp: true),
      ], "\(events)")
    let final = try emulator.manifest()
    #expect(final.connections == 2, "no BLE connection during the Wi-Fi transfer")
    #expect(final.deletes.count == manifest.recordings.count)
    #expect(!owedMarkerExists(out: out, serial: manifest.serial))
  }

  /// The power goes (the process-level power-loss hook: the disk rolled back to its fsyncs,
  /// the process gone at once) while the Wi-Fi transfer runs with BLE down; the next sync, a
  /// BLE-only one in a new process, sends the WIFI_CLOSE the first still owed.
  @Test("sync --wifi cut while BLE is down for Wi-Fi: the next sync sends the owed WIFI_CLOSE")
  func owedWiFiCloseSurvivesARestart() throws {
    let directory = try TemporaryDirectory("wifi-owed-close")
    let emulator = try EmulatorProcess(
      in: directory, token: Self.token, minutes: [3, 2], timeScale: 50,
      extra: ["--hotspot-startup", "0.2", "--wifi-drops-ble"])
    defer { emulator.stop() }
    let manifest = try emulator.manifest()
    let out = directory.file("out")
    let first = try RecorderProcess.run(
      [
        "sync", "--out", out, "--format", "opus", "--json", "--wifi", "--hotspot",
        try emulator.hotspot(), "--wifi-min-backlog", "0",
      ] + emulator.device, in: directory, label: "cut",
      environment: ["RECORDER_TEST_POWER_LOSS_AFTER": "\(Self.wifiPowerCut)"])
    #expect(first.status == 98, "the power was cut mid-transfer: \(first.stderr)")
    let rawDirectory = out + "/" + manifest.serial
    let stored = (try? FileManager.default.contentsOfDirectory(atPath: rawDirectory)) ?? []
    #expect(
      stored.filter { $0.hasSuffix(".opus-raw") }.count < manifest.recordings.count,
      "cut before the transfer ended: \(stored)")
    #expect(owedMarkerExists(out: out, serial: manifest.serial), "the close is owed on disk")
    let before = try wifiEvents(emulator, until: { $0.contains { $0.event == "bleDropped" } })
    #expect(!before.contains { $0.event == "close" }, "\(before)")

    // A BLE-only sync: its first act on the device is the owed WIFI_CLOSE.
    let second = try RecorderProcess.run(
      ["sync", "--out", out, "--format", "opus", "--json"] + emulator.device, in: directory,
      label: "resumed")
    #expect(second.status == 0, "\(second.stderr)")
    #expect(second.stderr.contains("Wi-Fi closed over a new BLE connection"), "\(second.stderr)")
    try expectSynced(manifest, out: out, format: "opus")
    let events = try wifiEvents(emulator, until: { $0.contains { $0.event == "close" } })
    let close = events.first { $0.event == "close" }
    #expect(close?.connection == 2 && close?.hotspotWasUp == true, "\(events)")
    #expect(!events.contains { $0.event == "idleClose" }, "\(events)")
    #expect(!owedMarkerExists(out: out, serial: manifest.serial))
  }

  /// File operations before the power cut of ``owedWiFiCloseSurvivesARestart()``: past the
  /// owed-close marker (written when WIFI_OPEN is granted), inside the Wi-Fi transfer.
  static let wifiPowerCut = 30

  /// One entry of the emulator manifest's `wifi` log.
  struct WiFiEvent: Equatable, CustomStringConvertible {
    var event: String
    var connection: Int
    var hotspotWasUp: Bool
    var description: String { "\(event)@\(connection)\(hotspotWasUp ? "" : " (no hotspot)")" }
  }

  /// The emulator's `wifi` log, once `done` holds for it (it rewrites its manifest on its
  /// own schedule), or as it is after 20 s.
  func wifiEvents(_ emulator: EmulatorProcess, until done: ([WiFiEvent]) -> Bool) throws
    -> [WiFiEvent]
  {
    let path = try #require(emulator.manifestPath)
    var events: [WiFiEvent] = []
    waitUntil(timeout: .seconds(20)) {
      guard let data = FileManager.default.contents(atPath: path),
        let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
        let log = object["wifi"] as? [[String: Any]]
      else { return false }
      events = log.compactMap { entry in
        guard let event = entry["event"] as? String, let connection = int64(entry["connection"]),
          let up = entry["hotspotWasUp"] as? Bool
        else { return nil }
        return WiFiEvent(event: event, connection: Int(connection), hotspotWasUp: up)
      }
      return done(events)
    }
    return events
  }

  /// Whether `<out>/wifi-close-owed/<serial>` exists.
  func owedMarkerExists(out: String, serial: String) -> Bool {
    FileManager.default.fileExists(atPath: out + "/wifi-close-owed/" + serial)
  }
}
