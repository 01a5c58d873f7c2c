import Foundation
import Testing

/// Issue 15: `recorder ota`, `bind` and `unbind` against `recorder emulate` in another process.
extension ProcessTests {
  @Test(
    "recorder ota moves the version recorder info reports; a wrong --md5 exits 65 and changes nothing"
  )
  func otaFromFile() throws {
    let directory = try TemporaryDirectory("ota-file")
    let image = directory.file("fw.bin")
    let emulator = try EmulatorProcess(
      in: directory, minutes: [0.1], timeScale: 5,
      extra: ["--new-firmware", "V0096", "--firmware-image", image, "--firmware-size", "32768"])
    defer { emulator.stop() }
    func firmware() throws -> String? {
      let info = try RecorderProcess.run(
        ["info", "--json"] + emulator.device, in: directory, label: "info")
      #expect(info.status == 0, "\(info.stderr)")
      return try jsonObject(info.stdout)["firmware"] as? String
    }
    #expect(try firmware() == "V0095")

    let wrong = try RecorderProcess.run(
      ["ota"] + emulator.device + [
        "--file", image, "--version", "V0096", "--md5", String(repeating: "0", count: 32),
      ], in: directory, label: "ota-wrong-md5")
    #expect(wrong.status == 65, "\(wrong.stderr)")
    #expect(wrong.stderr.contains("MD5"), "\(wrong.stderr)")
    #expect(try firmware() == "V0095")

    let right = try RecorderProcess.run(
      ["ota"] + emulator.device + [
        "--file", image, "--version", "V0096", "--md5", try md5(ofFile: image), "--json",
      ], in: directory, label: "ota")
    #expect(right.status == 0, "\(right.stderr)")
    #expect(try jsonObject(right.stdout)["version"] as? String == "V0096")
    #expect(right.stderr.contains("installing: 100 %"), "\(right.stderr)")
    #expect(right.stderr.contains("complete: 100 %"), "\(right.stderr)")
    #expect(try firmware() == "V0096")
  }

  @Test("recorder emulate --cloud: bind, ota from the cloud, unbind; the user token never printed")
  func otaFromCloud() throws {
    let directory = try TemporaryDirectory("ota-cloud")
    let tokenFile = directory.file("user-token")
    let emulator = try EmulatorProcess(
      in: directory, token: "partneruser1", minutes: [0.1], timeScale: 5,
      extra: ["--cloud", "--cloud-token-file", tokenFile, "--new-firmware", "V0097"])
    defer { emulator.stop() }
    let url = try emulator.cloud()
    #expect(emulator.child.stdout.split(separator: "\n").first.map(String.init) == emulator.url)
    let jwt = try String(contentsOfFile: tokenFile, encoding: .utf8)
      .trimmingCharacters(in: .whitespacesAndNewlines)
    let options = ["--cloud", url, "--user-token-file", tokenFile]

    let bind = try RecorderProcess.run(
      ["bind", "--device", emulator.url] + options, in: directory, label: "bind")
    #expect(bind.status == 0, "\(bind.stderr)")
    #expect(bind.stdout.contains("bound 8881234567890123"))
    let again = try RecorderProcess.run(
      ["bind", "--serial", "8881234567890123"] + options, in: directory, label: "bind-again")
    #expect(again.status == 0, "\(again.stderr)")

    let ota = try RecorderProcess.run(
      ["ota", "--device", emulator.url, "--download-dir", directory.path, "--json"] + options,
      in: directory, label: "ota-cloud")
    #expect(ota.status == 0, "\(ota.stderr)")
    #expect(try jsonObject(ota.stdout)["version"] as? String == "V0097")
    #expect(ota.stderr.contains("downloading"), "\(ota.stderr)")

    let unbind = try RecorderProcess.run(
      ["unbind", "--serial", "8881234567890123"] + options, in: directory, label: "unbind")
    #expect(unbind.status == 0, "\(unbind.stderr)")
    for result in [bind, again, ota, unbind] {
      #expect(!result.stdout.contains(jwt) && !result.stderr.contains(jwt))
    }
  }
}

/// Lower-case hex MD5 of a file (with the system's md5sum).
func md5(ofFile path: String) throws -> String {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  process.arguments = ["md5sum", path]
  let pipe = Pipe()
  process.standardOutput = pipe
  try process.run()
  let data = pipe.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  return String(decoding: data, as: UTF8.self).split(separator: " ").first.map(String.init) ?? ""
}
