import Foundation
import Testing

/// Issue 43 at the process level: new firmware's version numbers (PROTOCOL.md §1), the OTA
/// frame size per model (§7), GET_STATE's recording reading and setting 17 (§3.1), and the
/// version a device advertises after an update, with `recorder` against `recorder emulate`.
extension ProcessTests {
  /// `scan --json` of the emulator's link: its one recorder's fields.
  private func scanned(_ emulator: EmulatorProcess, in directory: TemporaryDirectory) throws
    -> [String: Any]
  {
    let scan = try RecorderProcess.run(
      ["scan", "--device", emulator.url, "--timeout", "1", "--json"], in: directory,
      label: "scan")
    #expect(scan.status == 0, "\(scan.stderr)")
    return try #require(try jsonArray(scan.stdout).first, "\(scan.stdout)")
  }

  /// `info --json` of the emulated device.
  private func information(_ emulator: EmulatorProcess, in directory: TemporaryDirectory) throws
    -> [String: Any]
  {
    let info = try RecorderProcess.run(
      ["info", "--json"] + emulator.device, in: directory, label: "info")
    #expect(info.status == 0, "\(info.stderr)")
    return try jsonObject(info.stdout)
  }

  /// The largest OTA data frame the emulator took (its manifest, written at each connection).
  private func largestFirmwareFrame(_ emulator: EmulatorProcess) throws -> Int? {
    let path = try #require(emulator.manifestPath)
    let object = try jsonObject(try String(contentsOfFile: path, encoding: .utf8))
    return (object["largestFirmwareFrame"] as? NSNumber)?.intValue
  }

  @Test(
    "a NotePin S on V1.2.7 (code 66055) shows V1.2.7; ota --version V1.2.8 sends 80-byte frames; a scan then hears V1.2.8",
    arguments: [("882", "8821234567890123", 80), ("881", "8811234567890123", 160)])
  func dottedFirmwareUpdate(model: String, serial: String, frame: Int) throws {
    let directory = try TemporaryDirectory("ota-dotted-\(model)")
    let image = directory.file("fw.bin")
    let emulator = try EmulatorProcess(
      in: directory, minutes: [0.1], timeScale: 5, portVersion: 20,
      extra: [
        "--model", model, "--serial", serial, "--firmware", "V1.2.7", "--new-firmware", "V1.2.8",
        "--firmware-image", image, "--firmware-size", "8192",
      ])
    defer { emulator.stop() }
    #expect(try scanned(emulator, in: directory)["firmware"] as? String == "V1.2.7")
    #expect(try information(emulator, in: directory)["firmware"] as? String == "V1.2.7")

    let ota = try RecorderProcess.run(
      ["ota"] + emulator.device + [
        "--file", image, "--version", "V1.2.8", "--md5", try md5(ofFile: image), "--json",
      ], in: directory, label: "ota")
    #expect(ota.status == 0, "\(ota.stderr)")
    #expect((try? jsonObject(ota.stdout))?["version"] as? String == "V1.2.8", "\(ota.stdout)")
    #expect((try? jsonObject(ota.stdout))?["previousVersion"] as? String == "V1.2.7")
    // §7: 80 data bytes per `03` frame on every model but the Note Pro (881: 160).
    #expect(try largestFirmwareFrame(emulator) == frame)
    // After the update the device advertises the version it now runs.
    #expect(try scanned(emulator, in: directory)["firmware"] as? String == "V1.2.8")
    #expect(try information(emulator, in: directory)["firmware"] as? String == "V1.2.8")
  }

  @Test(
    "a recording device reads as recording by GET_STATE 4099 (the default) and by the earlier 2",
    arguments: [[], ["--recording-state", "2"]])
  func recordingState(extra: [String]) throws {
    let directory = try TemporaryDirectory("get-state")
    let emulator = try EmulatorProcess(in: directory, minutes: [0.25], extra: extra)
    defer { emulator.stop() }
    let idle = try information(emulator, in: directory)
    #expect(idle["recording"] as? Bool == false, "\(idle)")
    // The captured V0095 sent keyState 4 while idle (§11 vector 5).
    #expect(idle["keyState"] as? String == "switch-off", "\(idle)")

    let start = try RecorderProcess.run(
      ["record", "start"] + emulator.device, in: directory, label: "record-start")
    #expect(start.status == 0, "\(start.stderr)")
    let recording = try information(emulator, in: directory)
    #expect(recording["recording"] as? Bool == true, "\(recording)")
    #expect(recording["keyState"] as? String == "record", "\(recording)")
  }

  @Test("setting 17: 2 is noise cancelling on, any other value off")
  func noiseCancellingSetting() throws {
    let directory = try TemporaryDirectory("setting-17")
    let emulator = try EmulatorProcess(in: directory, minutes: [0.25])
    defer { emulator.stop() }
    for (value, meaning) in [("2", "noise-cancelling-on"), ("1", "noise-cancelling-off")] {
      let set = try RecorderProcess.run(
        ["settings", "set", "mode", value] + emulator.device, in: directory, label: "set-\(value)")
      #expect(set.status == 0, "\(set.stderr)")
      #expect(
        set.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "mode \(value) \(meaning)")
    }
  }

  @Test(
    "ota from the cloud: the check is signed (X-Device-Signature), V1.2.8 installs with or without a published MD5",
    arguments: [[], ["--cloud-firmware-md5", "published"]])
  func signedCloudCheck(extra: [String]) throws {
    let directory = try TemporaryDirectory("ota-signed")
    let tokenFile = directory.file("user-token")
    let emulator = try EmulatorProcess(
      in: directory, token: "partneruser1", minutes: [0.1], timeScale: 5, portVersion: 20,
      extra: [
        "--model", "882", "--serial", "8821234567890123", "--firmware", "V1.2.7", "--cloud",
        "--cloud-token-file", tokenFile, "--new-firmware", "V1.2.8", "--firmware-size", "8192",
      ] + extra)
    defer { emulator.stop() }
    let url = try emulator.cloud()
    let ota = try RecorderProcess.run(
      ["ota"] + emulator.device + [
        "--cloud", url, "--user-token-file", tokenFile, "--download-dir", directory.path, "--json",
      ], in: directory, label: "ota-cloud")
    #expect(ota.status == 0, "\(ota.stderr)")
    #expect((try? jsonObject(ota.stdout))?["version"] as? String == "V1.2.8", "\(ota.stdout)")
    #expect(try information(emulator, in: directory)["firmware"] as? String == "V1.2.8")
  }
}
