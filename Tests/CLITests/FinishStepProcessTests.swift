import Foundation
import RecorderConcurrency
import TestSupport
import Testing

/// `recorder sync --exec CMD --webhook URL --sidecar` against `recorder emulate`, SIGKILLed at
/// seeded moments: each recording's steps complete, the webhook hears each idempotency key
/// until it answers 2xx and never after, and the steps never hold a DELETE up.
@Suite("recorder sync: finish steps (--exec, --webhook, --sidecar)", .serialized, .blockingWaits)
struct FinishStepProcessTests {
  /// One request the webhook endpoint logged.
  struct Hook {
    var key: String
    var answer: String
    var n: Int
    var body: [String: Any]
  }

  /// The loopback endpoint (Tests/Interop/passive_endpoint.py) answering each key's
  /// requests by `pattern`, and what it logged.
  struct Endpoint {
    let process: EndpointProcess
    var url: String { process.url }

    init(in directory: TemporaryDirectory, pattern: String) throws {
      process = try EndpointProcess(
        in: directory, holdFirst: false, options: ["--pattern", pattern, "--path", "/hook"])
    }

    func stop() { process.stop() }

    /// Every request so far, in arrival order.
    var requests: [Hook] {
      let text = (try? String(contentsOfFile: process.log, encoding: .utf8)) ?? ""
      return text.split(separator: "\n").compactMap { line in
        guard
          let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
          let key = object["key"] as? String, let answer = object["answer"] as? String,
          let n = (object["n"] as? NSNumber)?.intValue, let body = object["body"] as? String,
          let description = try? JSONSerialization.jsonObject(with: Data(body.utf8))
            as? [String: Any]
        else { return nil }
        return Hook(key: key, answer: answer, n: n, body: description)
      }
    }
  }

  /// A command that logs its start, keeps its stdin as `<dir>/<session id>.json`, takes a
  /// moment (so kills land inside it too), then logs its end with its export.
  static func command(log: String, stdinDirectory: String) -> String {
    """
    echo "start $RECORDER_IDEMPOTENCY_KEY $RECORDER_ATTEMPT" >> \(log); \
    cat > \(stdinDirectory)/$RECORDER_SESSION_ID.json; \
    sleep 0.3; \
    echo "done $RECORDER_IDEMPOTENCY_KEY $RECORDER_EXPORT token=${RECORDER_TOKEN:-none}" >> \(log)
    """
  }

  @Test(
    "--exec, --webhook (fails, stalls, then 2xx) and --sidecar under seeded SIGKILLs: every step once, each key until 2xx"
  )
  func stepsSurviveKills() throws {
    let seed = ModelEndToEndProcessTests.seed("finish steps")
    var random = SplitMix64(seed: seed)
    let directory = try TemporaryDirectory("finish-steps")
    let emulator = try EmulatorProcess(
      in: directory, minutes: [1.2, 0.8, 1.0, 0.6], seed: seed % 1000 + 1)
    defer { emulator.stop() }
    let expected = try emulator.manifest()
    let endpoint = try Endpoint(in: directory, pattern: "fail,stall,ok")
    defer { endpoint.stop() }
    let out = directory.file("out")
    let commandLog = directory.file("exec.log")
    let stdins = directory.file("stdin")
    try FileManager.default.createDirectory(atPath: stdins, withIntermediateDirectories: true)
    let sync =
      [
        "sync", "--out", out, "--format", "mp3", "--exec",
        Self.command(log: commandLog, stdinDirectory: stdins), "--webhook", endpoint.url,
        "--webhook-timeout", "1", "--sidecar", "--step-backoff", "0.05",
      ] + emulator.device
    let loop = KillLoop(
      sync: sync, emulator: emulator, expected: expected, out: out, directory: directory,
      seed: seed, maxSteps: 6, maxDelay: 0.4)
    let outcome = try loop.run(kills: 6, label: "finish-steps", random: &random)
    let last = try RecorderProcess.run(sync, in: directory, label: "final", timeout: .seconds(180))
    #expect(last.status == 0, "seed \(seed): \(last.stderr)")

    // Every recording synced once (its raw copy byte-exact, one export, one sidecar) and
    // deleted once.
    for recording in expected.recordings {
      let raw = out + "/\(expected.serial)/\(recording.sessionId).opus-raw"
      #expect(try sha256(ofFile: raw) == recording.sha256, "seed \(seed)")
    }
    let exports = try FileManager.default.contentsOfDirectory(atPath: out + "/exports").sorted()
    let names = expected.recordings.map { "\(expected.serial)-\($0.sessionId).mp3" }
    #expect(exports == (names + names.map { $0 + ".json" }).sorted(), "seed \(seed)")
    let deletes = try emulator.manifest().deletes.map(\.sessionId)
    #expect(deletes.sorted() == expected.recordings.map(\.sessionId).sorted(), "seed \(seed)")

    // The journal: every step of every recording done.
    let steps = try sqlite(
      out + "/journal.sqlite", "SELECT session_id, step, done FROM finish_steps ORDER BY 1, 2",
      options: ["-readonly", "-separator", "|"]
    ).split(separator: "\n").map(String.init)
    let wanted = expected.recordings.flatMap { recording in
      ["exec", "sidecar", "webhook"].map { "\(recording.sessionId)|\($0)|1" }
    }
    #expect(steps == wanted.sorted(), "seed \(seed): \(steps)")

    let commandLines = ((try? String(contentsOfFile: commandLog, encoding: .utf8)) ?? "")
      .split(separator: "\n").map(String.init)
    let requests = endpoint.requests
    for recording in expected.recordings {
      let id = recording.sessionId
      let prefix = "\(expected.serial)-\(id)-0-"
      // The command completed at least once, with the export, never seeing the token.
      let done = commandLines.filter { $0.hasPrefix("done \(prefix)exec-") }
      #expect(!done.isEmpty, "seed \(seed): \(id)'s command never completed: \(commandLines)")
      #expect(
        done.allSatisfy {
          $0.hasSuffix("\(expected.serial)-\(id).mp3 token=none")
        }, "seed \(seed): \(done)")
      // Its stdin: the recording's description.
      let stdin = try jsonObject(
        String(contentsOfFile: stdins + "/\(id).json", encoding: .utf8))
      #expect(int64(stdin["sessionId"]) == id)
      #expect(stdin["serial"] as? String == expected.serial)
      #expect(stdin["sha256"] as? String == recording.sha256, "seed \(seed): \(stdin)")
      #expect((stdin["exports"] as? [String: String])?["mp3"]?.hasSuffix(".mp3") == true)
      #expect((stdin["startedAtUTC"] as? String)?.hasSuffix("Z") == true)
      // The webhook: the key's requests follow the endpoint's answers (503, no answer,
      // 201) and stop at the first 2xx, but for a kill between the 2xx and its commit.
      let hooks = requests.filter { $0.key.hasPrefix(prefix + "webhook-") }
      #expect(Set(hooks.map(\.key)).count == 1, "seed \(seed): one key per recording")
      let firstOK = try #require(
        hooks.firstIndex { $0.answer == "ok" }, "seed \(seed): \(id) never got a 2xx")
      #expect(hooks[..<firstOK].map(\.answer) == ["fail", "stall"], "seed \(seed)")
      #expect(
        hooks.count - firstOK - 1 <= outcome.kills,
        "seed \(seed): \(id)'s key was sent \(hooks.count - firstOK - 1) times after its 2xx")
      #expect(int64(hooks[firstOK].body["sessionId"]) == id)
      // The sidecar beside the export.
      let sidecar = try jsonObject(
        String(
          contentsOfFile: out + "/exports/\(expected.serial)-\(id).mp3.json", encoding: .utf8))
      #expect(sidecar["sha256"] as? String == recording.sha256)
    }

    // Done is done: another run sends nothing and runs nothing.
    let (commandsBefore, hooksBefore) = (commandLines.count, requests.count)
    let again = try RecorderProcess.run(sync, in: directory, label: "again")
    #expect(again.status == 0, "\(again.stderr)")
    let commandsAfter =
      ((try? String(contentsOfFile: commandLog, encoding: .utf8)) ?? "")
      .split(separator: "\n").count
    #expect(commandsAfter == commandsBefore, "seed \(seed): a command ran again")
    #expect(endpoint.requests.count == hooksBefore, "seed \(seed): the webhook was called again")
    print(
      "finish steps seed \(seed): \(outcome.kills) kills in \(outcome.runs) runs; "
        + "\(commandLines.filter { $0.hasPrefix("start") }.count) command starts, "
        + "\(requests.count) webhook requests for \(expected.recordings.count) recordings")
  }

  @Test("a step that keeps failing is owed to the next run (exit 4); the recordings are deleted")
  func owedStepsExitFour() throws {
    let directory = try TemporaryDirectory("finish-steps-owed")
    let emulator = try EmulatorProcess(in: directory, minutes: [0.1, 0.1], seed: 5)
    defer { emulator.stop() }
    let expected = try emulator.manifest()
    let endpoint = try Endpoint(in: directory, pattern: "fail")
    defer { endpoint.stop() }
    let out = directory.file("out")
    let sync =
      [
        "sync", "--out", out, "--format", "wav", "--webhook", endpoint.url, "--step-attempts",
        "2", "--step-backoff", "0.01",
      ] + emulator.device
    let first = try RecorderProcess.run(sync, in: directory, label: "owed")
    #expect(first.status == 4, "\(first.stderr)")
    #expect(first.stderr.contains("webhook still owed after 2 attempt(s) (webhook: HTTP 503)"))
    // Never held up by the step: both recordings are deleted.
    let deletes = try emulator.manifest().deletes.map(\.sessionId)
    #expect(deletes.sorted() == expected.recordings.map(\.sessionId).sorted())
    #expect(endpoint.requests.count == 4, "two attempts for each of two recordings")
    // The next run (the device now empty) tries the owed steps again.
    let second = try RecorderProcess.run(sync, in: directory, label: "owed-again")
    #expect(second.status == 4, "\(second.stderr)")
    #expect(endpoint.requests.count == 8)
    #expect(second.stderr.contains("after 4 attempt(s)"), "\(second.stderr)")
  }

  @Test("the command runs with the token in RECORDER_TOKEN withheld from its environment")
  func commandNeverSeesTheToken() throws {
    let directory = try TemporaryDirectory("finish-steps-token")
    let emulator = try EmulatorProcess(in: directory, minutes: [0.1], seed: 7)
    defer { emulator.stop() }
    let out = directory.file("out")
    let log = directory.file("exec.log")
    let stdins = directory.file("stdin")
    try FileManager.default.createDirectory(atPath: stdins, withIntermediateDirectories: true)
    let result = try RecorderProcess.run(
      [
        "sync", "--out", out, "--format", "wav", "--device", emulator.url, "--exec",
        Self.command(log: log, stdinDirectory: stdins),
      ], in: directory, label: "token", environment: ["RECORDER_TOKEN": emulator.token])
    #expect(result.status == 0, "\(result.stderr)")
    let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
    #expect(lines.count == 2, "\(lines)")
    #expect(lines.last?.hasSuffix("token=none") == true, "\(lines)")
  }

  @Test("--webhook over plain http to another host is refused before anything runs (exit 64)")
  func plainHTTPRefused() throws {
    let refused = try RecorderTool.run([
      "sync", "--out", "/nonexistent", "--device", "tcp://127.0.0.1:9", "--token", "00",
      "--webhook", "http://127.attacker.example/hook",
    ])
    #expect(refused.status == 64)
    #expect(refused.stderr.contains("https://, or http:// to this machine"), "\(refused.stderr)")
  }
}
