import Foundation
import RecorderConcurrency
import RecorderWebSocket
import Testing

/// Issue 29 items 5 and 10: `recorder ota --cloud` ends, with its documented exit code and
/// one clear line, on every path the cloud can take: nothing newer, a failed check, a failed
/// download, an MD5 mismatch, an older release. Each run has a bounded wait: a child still
/// running after it is killed and the test fails (status nil).
extension ProcessTests {
  /// What the loopback test cloud answers.
  enum CloudAnswer: Sendable {
    case checkStatus(Int)
    case checkMalformed
    /// `version_code` as a string.
    case checkBadCode
    case release(version: String, code: Int, md5: String, imageStatus: Int)
  }

  /// A loopback stand-in for the cloud: the check endpoint answers as `answer` says, the
  /// image path serves `image` (or the status the answer names).
  final class TestCloud: Sendable {
    let server: HTTPServer
    let answer = Locked(CloudAnswer.checkStatus(500))

    init(image: [UInt8]) throws {
      let answer = self.answer
      server = try HTTPServer { request in
        let current = answer.withLock { $0 }
        if request.path == "/firmware/fw.bin" {
          guard case .release(_, _, _, let status) = current, status == 200 else {
            return .json(404, #"{"code":404,"msg":"no such file"}"#)
          }
          return HTTPResponse(status: 200, fields: [], body: image)
        }
        // The firmware check is signed with the serial signature sn-sign gives (§8).
        if request.path.hasSuffix("/open/partner/sdk/sn-sign") {
          return .json(200, #"{"code":0,"data":{"signature":"AAECAw=="}}"#)
        }
        switch current {
        case .checkStatus(let status): return .json(status, #"{"code":\#(status)}"#)
        case .checkMalformed: return .json(200, #"{"code":0,"data":{"version_number":"V00"#)
        case .checkBadCode:
          return .json(
            200, #"{"code":0,"data":{"version_code":"96","download_url":"/firmware/fw.bin"}}"#)
        case .release(let version, let code, let md5, _):
          return .json(
            200,
            #"{"code":0,"data":{"version_number":"\#(version)","version_code":\#(code),"#
              + #""file_md5":"\#(md5)","download_url":"/firmware/fw.bin"}}"#)
        }
      }
    }

    var url: String { "http://127.0.0.1:\(server.port)" }
  }

  @Test("recorder ota --cloud ends with its exit code on every cloud path (never hangs)")
  func otaCloudEndsOnEveryPath() throws {
    let directory = try TemporaryDirectory("ota-cloud-ends")
    let tokenFile = directory.file("user-token")
    let emulator = try EmulatorProcess(
      in: directory, token: "partneruser1", minutes: [0.1], timeScale: 5,
      extra: ["--cloud", "--cloud-token-file", tokenFile])
    defer { emulator.stop() }
    let emulatedCloud = try emulator.cloud()
    let image = (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 13) }
    let cloud = try TestCloud(image: image)
    defer { cloud.server.stop() }
    let jwt = try String(contentsOfFile: tokenFile, encoding: .utf8)
      .trimmingCharacters(in: .whitespacesAndNewlines)

    func ota(_ label: String, cloud url: String, _ extra: [String] = []) throws -> (
      status: Int32?, stdout: String, stderr: String
    ) {
      let result = try RecorderProcess.run(
        [
          "ota", "--device", emulator.url, "--cloud", url, "--user-token-file", tokenFile,
          "--download-dir", directory.path,
        ] + extra, in: directory, label: label, timeout: .seconds(45))
      #expect(!result.stdout.contains(jwt) && !result.stderr.contains(jwt))
      return result
    }

    // Nothing newer (the emulator's cloud publishes nothing): exit 0, "up to date".
    let upToDate = try ota("up-to-date", cloud: emulatedCloud)
    #expect(upToDate.status == 0, "\(upToDate.stderr)")
    #expect(
      upToDate.stdout.contains("up to date: 8881234567890123 runs V0095"), "\(upToDate.stdout)")
    let upToDateJSON = try ota("up-to-date-json", cloud: emulatedCloud, ["--json"])
    #expect(upToDateJSON.status == 0, "\(upToDateJSON.stderr)")
    #expect((try? jsonObject(upToDateJSON.stdout))?["result"] as? String == "up to date")

    let md5 = try md5(
      ofFile: { () throws -> String in
        let path = directory.file("served.bin")
        try Data(image).write(to: URL(fileURLWithPath: path))
        return path
      }())
    let failures: [(String, CloudAnswer, Int32, String)] = [
      ("check-400", .checkStatus(400), 69, "HTTP 400"),
      ("check-malformed", .checkMalformed, 65, "malformed"),
      (
        "download-404", .release(version: "V0096", code: 96, md5: md5, imageStatus: 404), 69,
        "HTTP 404"
      ),
      (
        "md5-mismatch",
        .release(
          version: "V0096", code: 96, md5: String(repeating: "ab", count: 16), imageStatus: 200),
        65, "MD5"
      ),
      ("older", .release(version: "V0001", code: 1, md5: md5, imageStatus: 200), 65, "not newer"),
      ("bad-code", .checkBadCode, 65, "version_code"),
    ]
    for (label, answer, status, message) in failures {
      cloud.answer.withLock { $0 = answer }
      let result = try ota(label, cloud: cloud.url)
      #expect(result.status == status, "\(label): \(result.stderr)")
      let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("error: ") }
      #expect(errors.count == 1 && errors[0].contains(message), "\(label): \(result.stderr)")
    }

    // The device kept its firmware through all of it.
    let info = try RecorderProcess.run(
      ["info", "--json", "--device", emulator.url, "--token", "partneruser1"], in: directory,
      label: "info", timeout: .seconds(45))
    #expect((try? jsonObject(info.stdout))?["firmware"] as? String == "V0095", "\(info.stderr)")
  }

  @Test("recorder ota --cloud --allow-downgrade installs an older release; without it, exit 65")
  func otaCloudDowngrade() throws {
    let directory = try TemporaryDirectory("ota-cloud-downgrade")
    let tokenFile = directory.file("user-token")
    let emulator = try EmulatorProcess(
      in: directory, token: "partneruser1", minutes: [0.1], timeScale: 5,
      extra: [
        "--cloud", "--cloud-token-file", tokenFile, "--new-firmware", "V0001", "--firmware-size",
        "16384",
      ])
    defer { emulator.stop() }
    let url = try emulator.cloud()
    let options = [
      "ota", "--device", emulator.url, "--cloud", url, "--user-token-file", tokenFile,
      "--download-dir", directory.path, "--json",
    ]
    let refused = try RecorderProcess.run(
      options, in: directory, label: "ota-refused", timeout: .seconds(45))
    #expect(refused.status == 65, "\(refused.stderr)")
    #expect(
      refused.stderr.contains("V0001 is not newer than the device's V0095"), "\(refused.stderr)")

    let allowed = try RecorderProcess.run(
      options + ["--allow-downgrade"], in: directory, label: "ota-downgrade",
      timeout: .seconds(90))
    #expect(allowed.status == 0, "\(allowed.stderr)")
    #expect((try? jsonObject(allowed.stdout))?["version"] as? String == "V0001")
  }

  @Test("recorder ota --version takes only the strict grammar; the text is never echoed")
  func otaVersionGrammar() throws {
    let directory = try TemporaryDirectory("ota-version")
    let image = directory.file("fw.bin")
    try Data(repeating: 1, count: 64).write(to: URL(fileURLWithPath: image))
    for text in ["V+96", "V-0", "/0096", " 0096", "V00\u{1B}[2J96", "V1.2.256"] {
      let result = try RecorderProcess.run(
        [
          "ota", "--device", "tcp://127.0.0.1:1", "--token", "t", "--file", image, "--version",
          text,
        ],
        in: directory, label: "version", timeout: .seconds(30))
      #expect(result.status == 64, "\(text.debugDescription): \(result.stderr)")
      #expect(result.stderr.contains("--version: "), "\(result.stderr)")
      #expect(!result.stderr.contains("\u{1B}"), "\(text.debugDescription)")
    }
  }
}
