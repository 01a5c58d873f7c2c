import Foundation
import Testing

extension Array where Element == UInt8 {
  /// Space-separated hex, as a capture tool prints it.
  var hexLine: String {
    map { String($0, radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined(separator: " ")
  }
}

/// `recorder decode` end to end, as someone staring at a Bluetooth capture runs it.
@Suite("recorder decode", .blockingWaits)
struct DecodeCommandTests {
  /// PROTOCOL.md §11 vector 11 (P→D SYNC_START).
  static let syncStart = "01 1c 00 58 66 d2 69 80 4c 01 00 c0 57 01 00"
  /// Vector 12: a data frame of 80 × ab.
  static let dataFrame =
    "025866d2690000000050" + String(repeating: "ab", count: 80)
  /// Vector 13: the terminal frame.
  static let terminal = "02 78 56 34 12 ff ff ff ff 00"

  static func lines(_ text: String) -> [String] {
    text.split(separator: "\n").map(String.init)
  }

  static func json(_ text: String) throws -> [String: Any] {
    let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
    return try #require(object as? [String: Any], "not a JSON object: \(text)")
  }

  @Test("decode 01 09 00 64 prints level: 100")
  func battery() throws {
    let result = try RecorderTool.run(["decode", "01", "09", "00", "64"])
    #expect(result.status == 0, "\(result.stderr)")
    let lines = Self.lines(result.stdout)
    #expect(lines.contains("level: 100"))
    #expect(lines.contains("kind: control"))
    #expect(lines.contains("name: BATTERY"))
    #expect(result.stderr.isEmpty)
  }

  @Test("--json prints one object with kind, opcode, name and level")
  func batteryJSON() throws {
    let result = try RecorderTool.run(["decode", "--json", "01090064"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(Self.lines(result.stdout).count == 1)
    let object = try Self.json(result.stdout)
    #expect(object["kind"] as? String == "control")
    #expect((object["opcode"] as? NSNumber)?.intValue == 9)
    #expect(object["name"] as? String == "BATTERY")
    #expect((object["level"] as? NSNumber)?.intValue == 100)
  }

  @Test("--from phone on vector 11 shows sessionId, start and end")
  func syncStartFromPhone() throws {
    let result = try RecorderTool.run(["decode", "--from", "phone", Self.syncStart])
    #expect(result.status == 0, "\(result.stderr)")
    let lines = Self.lines(result.stdout)
    #expect(lines.contains("name: SYNC_START"))
    #expect(lines.contains("sessionId: \(0x69D2_6658)"))
    #expect(lines.contains("start: 85120"))
    #expect(lines.contains("end: 88000"))

    let json = try Self.json(
      try RecorderTool.run(["decode", "--from=phone", "--json", Self.syncStart]).stdout)
    #expect((json["sessionId"] as? NSNumber)?.int64Value == 0x69D2_6658)
    #expect((json["start"] as? NSNumber)?.intValue == 85120)
    #expect((json["end"] as? NSNumber)?.intValue == 88000)
  }

  @Test("the same bytes from the device are the sync head, not SYNC_START's request")
  func directionMatters() throws {
    let result = try RecorderTool.run(["decode", "--from", "device", "01 1c 00 58 66 d2 69 00"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(Self.lines(result.stdout).contains("status: 0"))
  }

  @Test("vector 12 shows sessionId, offset, length and final 0")
  func dataFrame() throws {
    let result = try RecorderTool.run(["decode", "--json", Self.dataFrame])
    #expect(result.status == 0, "\(result.stderr)")
    let object = try Self.json(result.stdout)
    #expect(object["kind"] as? String == "bulk")
    #expect((object["sessionId"] as? NSNumber)?.int64Value == 0x69D2_6658)
    #expect((object["offset"] as? NSNumber)?.intValue == 0)
    #expect((object["length"] as? NSNumber)?.intValue == 80)
    #expect((object["final"] as? NSNumber)?.intValue == 0)
    #expect(object["code"] == nil)

    let text = Self.lines(try RecorderTool.run(["decode", Self.dataFrame]).stdout)
    #expect(text.contains("sessionId: \(0x69D2_6658)"))
    #expect(text.contains("length: 80"))
    #expect(text.contains("final: 0"))
  }

  @Test("vector 13 shows the terminal frame: final 1, code 0")
  func terminalFrame() throws {
    let result = try RecorderTool.run(["decode", Self.terminal])
    #expect(result.status == 0, "\(result.stderr)")
    let lines = Self.lines(result.stdout)
    for expected in [
      "kind: bulk", "sessionId: \(0x1234_5678)", "offset: \(UInt32.max)", "length: 0", "final: 1",
      "code: 0",
    ] {
      #expect(lines.contains(expected), "missing '\(expected)' in \(lines)")
    }
    let object = try Self.json(try RecorderTool.run(["decode", "--json", Self.terminal]).stdout)
    #expect((object["final"] as? NSNumber)?.intValue == 1)
    #expect((object["code"] as? NSNumber)?.intValue == 0)
    #expect((object["sessionId"] as? NSNumber)?.int64Value == 0x1234_5678)
  }

  @Test("vector 14 (GET_NAME): the message name and the device's name are both shown")
  func deviceName() throws {
    let hex = "01 6c 00 50 4c 41 55 44 5f 4e 4f 54 45 00 00 00 00"
    let json = try RecorderTool.run(["decode", "--json", hex])
    #expect(json.status == 0, "\(json.stderr)")
    #expect(json.stdout.components(separatedBy: "\"name\":").count == 2, "\(json.stdout)")
    let object = try Self.json(json.stdout)
    #expect(object["name"] as? String == "GET_NAME")
    #expect(object["deviceName"] as? String == "PLAUD_NOTE")
    let text = Self.lines(try RecorderTool.run(["decode", hex]).stdout)
    #expect(text.contains("name: GET_NAME"))
    #expect(text.contains("deviceName: PLAUD_NOTE"))
  }

  @Test("text from the device cannot break the one-field-per-line output")
  func controlCharactersEscaped() throws {
    // GET_NAME "A\nkind: forged"
    let hex = "01 6c 00 41 0a" + Array("kind: forged".utf8).hexLine
    let result = try RecorderTool.run(["decode", hex])
    #expect(result.status == 0, "\(result.stderr)")
    let lines = Self.lines(result.stdout)
    #expect(lines.filter { $0.hasPrefix("kind:") } == ["kind: control"], "\(lines)")
    #expect(lines.contains("deviceName: A\\nkind: forged"), "\(lines)")
  }

  @Test(
    "a malformed frame exits 65 with one line on stderr and nothing on stdout",
    arguments: ["01 09 00", "02 78 56 34 12 ff ff ff ff 05 01", "06 00", "01 01 00 00 0a 00"])
  func malformed(_ hex: String) throws {
    let result = try RecorderTool.run(["decode", hex])
    #expect(result.status == 65)
    #expect(result.stdout.isEmpty)
    let lines = Self.lines(result.stderr)
    #expect(lines.count == 1, "\(result.stderr)")
    #expect(result.stderr.contains("malformed"))
  }

  @Test(
    "bad arguments exit 64",
    arguments: [
      ["decode"], ["decode", "zz"], ["decode", "019"], ["decode", "--from", "radio", "01090064"],
      ["decode", "--port-version", "-1", "01090064"], ["decode", "--bogus", "01090064"],
      ["decode", "01090064", "--from"], ["frobnicate"], [],
      // Issue 12, finding 1: never every interface (69 without the check: nothing listens).
      [
        "sync", "--out", "/nonexistent/x", "--device", "tcp://127.0.0.1:1", "--token",
        "0123456789abcdef0123456789abcdef", "--attempts", "1", "--wifi", "--hotspot",
        "tcp://127.0.0.1:1", "--wifi-listen", "0.0.0.0",
      ],
    ])
  func badArguments(_ arguments: [String]) throws {
    let result = try RecorderTool.run(arguments)
    #expect(result.status == 64, "\(arguments): \(result.stdout) \(result.stderr)")
  }

  @Test("--help exits 0 and prints USAGE", arguments: [["--help"], ["-h"], ["decode", "--help"]])
  func help(_ arguments: [String]) throws {
    let result = try RecorderTool.run(arguments)
    #expect(result.status == 0)
    #expect(result.stdout.contains("USAGE"))
  }

  /// PROTOCOL.md §8: devices below portVersion 9 take a 16-character token. Without
  /// --port-version the width comes from the frame itself.
  @Test("a HANDSHAKE with a 16-character token decodes without --port-version")
  func handshakeWithShortToken() throws {
    let token = Array("0123456789abcdef".utf8).map { String(format: "%02x", $0) }.joined()
    let result = try RecorderTool.run(["decode", "--from", "phone", "010100020000" + token])
    #expect(result.status == 0, "\(result.stderr)")
    let lines = Self.lines(result.stdout)
    #expect(lines.contains("name: HANDSHAKE"))
    #expect(lines.contains("tokenLength: 16"))
    let long = try RecorderTool.run(["decode", "--from", "phone", "010100020000" + token + token])
    #expect(long.status == 0, "\(long.stderr)")
    #expect(Self.lines(long.stdout).contains("tokenLength: 32"))
    // An explicit --port-version is obeyed: 10 wants 32 characters.
    let strict = try RecorderTool.run(
      ["decode", "--from", "phone", "--port-version", "10", "010100020000" + token])
    #expect(strict.status == 65, "\(strict.stdout)")
  }

  @Test("--port-version changes the layout: a bulk frame at 6 has no session id")
  func portVersion() throws {
    let result = try RecorderTool.run(["decode", "--port-version", "6", "02 10 00 00 00 01 99"])
    #expect(result.status == 0, "\(result.stderr)")
    let lines = Self.lines(result.stdout)
    #expect(lines.contains("offset: 16"))
    #expect(!lines.contains { $0.hasPrefix("sessionId") })
  }
}
