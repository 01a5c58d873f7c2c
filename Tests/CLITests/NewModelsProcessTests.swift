import Foundation
import TestSupport
import Testing

/// Issue 43 at the process level: `recorder` against `recorder emulate` playing a Note Pro
/// or a NotePin S (portVersion 20, Mode B) as the published evidence describes them
/// (PROTOCOL.md §1, §2, §3.1, §4, §9), and against each alternative the evidence leaves open.
/// The commands reach a Mode B device with a key store in the test's directory.
@Suite("Note Pro and NotePin S at process level", .serialized, .blockingWaits)
struct NewModelsProcessTests {
  static let token = "43note0pro0pin0s0123456789abcdef"

  /// A Mode B emulator and the device options that reach it.
  static func emulator(
    in directory: TemporaryDirectory, minutes: [Double] = [0.25, 0.1], extra: [String]
  ) throws -> EmulatorProcess {
    // portVersion 20 gives the commands a key store; each preset says 20 as well.
    try EmulatorProcess(
      in: directory, token: token, minutes: minutes, portVersion: 20, extra: extra)
  }

  /// `info --json` against the emulator: it must succeed, report `serial` and portVersion 20,
  /// and the device must never have been sent a plain HANDSHAKE (the token in clear).
  static func expectModeBInfo(
    _ emulator: EmulatorProcess, in directory: TemporaryDirectory, serial: String,
    label: String
  ) throws {
    let info = try RecorderProcess.run(
      ["info", "--json"] + emulator.device, in: directory, label: label)
    #expect(info.status == 0, "\(label): \(info.stderr)")
    let object = try jsonObject(info.stdout)
    #expect(object["serial"] as? String == serial, "\(label): \(info.stdout)")
    #expect(int64(object["portVersion"]) == 20, "\(label): \(info.stdout)")
    #expect(try emulator.manifest().clearHandshakes == 0, "\(label): a token went in clear")
  }

  /// One `sync --format wav` attempt against a Mode B emulator with `extra`: it ends 0 with
  /// every recording synced exactly once.
  static func expectSyncs(extra: [String], label: String) throws {
    let directory = try TemporaryDirectory(label)
    let emulator = try emulator(in: directory, extra: extra)
    defer { emulator.stop() }
    let manifest = try emulator.manifest()
    let out = directory.file("out")
    let synced = try RecorderProcess.run(
      ["sync", "--out", out, "--format", "wav", "--json", "--attempts", "1"] + emulator.device,
      in: directory, label: "sync")
    #expect(synced.status == 0, "\(extra): \(synced.stderr)")
    try ProcessTests().expectSynced(manifest, out: out, format: "wav")
  }

  // MARK: - Item 9 and 10: discovery

  /// The NotePin S's payload without the project-code field (portVersion at offset 15), a
  /// 883 serial, the Note Pro's payload with it (offset 18), and a recorder heard by name
  /// only (any case, `plaud` anywhere): each is found, spoken to in Mode B, and never sent
  /// the token in clear.
  @Test(
    "info finds a NotePin S / Note Pro by either payload layout or by name, in Mode B",
    arguments: [
      (["--model", "notepin-s"], "882234567890123456"),
      (["--model", "notepin-s", "--serial", "883234567890123456"], "883234567890123456"),
      (["--model", "note-pro"], "881234567890123456"),
      (["--model", "notepin-s", "--advertising", "name-only"], "882234567890123456"),
      (
        ["--model", "notepin-s", "--advertising", "name-only", "--name", "my plaud pin"],
        "882234567890123456"
      ),
    ])
  func discovery(_ extra: [String], serial: String) throws {
    let directory = try TemporaryDirectory("new-model-discovery")
    let emulator = try Self.emulator(in: directory, extra: extra)
    defer { emulator.stop() }
    try Self.expectModeBInfo(emulator, in: directory, serial: serial, label: "info")
  }

  // MARK: - Item 8: the phone's Mode B framing

  /// A device that reassembles by the vendor's convention takes only 0-based chunks (the
  /// emulator's default); a device that numbers its own chunks from 1 (the project's old
  /// guess, `--mode-b-index-base 1`) is still understood. A portVersion 20 device in the
  /// Note's payload layout, so that only the framing differs.
  @Test(
    "sync against a Mode B device numbering chunks from 0 (default) and from 1",
    arguments: [[], ["--mode-b-index-base", "0"], ["--mode-b-index-base", "1"]])
  func chunkIndexBases(_ extra: [String]) throws {
    try Self.expectSyncs(extra: extra, label: "new-model-index-base")
  }

  /// A device that wants the cloud's serial signature and is sent none (no cloud given)
  /// leaves `FE10` unanswered (§9: it checks the signature with Plaud's key): the command
  /// ends, 69, saying what that silence means.
  @Test("FE10 without a serial signature, unanswered: exit 69 naming the missing signature")
  func unsignedSerialSignatureRefused() throws {
    let directory = try TemporaryDirectory("new-model-unsigned")
    let emulator = try Self.emulator(
      in: directory, minutes: [0.1], extra: ["--cloud", "--mode-b-require-signature"])
    defer { emulator.stop() }
    let refused = try RecorderProcess.run(
      ["ls"] + emulator.device, in: directory, label: "ls-unsigned")
    #expect(refused.status == 69, "\(refused.stderr)")
    #expect(refused.stderr.contains("serial signature"), "\(refused.stderr)")
    #expect(refused.stderr.contains("no serial signature was sent"), "\(refused.stderr)")
    #expect(try emulator.manifest().clearHandshakes == 0)
  }

  // MARK: - Item 4: the answer to the first HANDSHAKE stage

  /// A Note Pro answers the first stage with `0001` status 0 (the emulator's Mode B
  /// default); a device that asks for the second stage with `0002` is still served.
  @Test(
    "sync against a Mode B device answering stage 1 with 0001 (default) or with 0002",
    arguments: [[], ["--two-stage-handshake"]])
  func firstStageAnswers(_ extra: [String]) throws {
    try Self.expectSyncs(extra: ["--model", "note-pro"] + extra, label: "new-model-stages")
  }

  // MARK: - Item 3: slow handshakes

  /// A NotePin S that takes 10.5 s of real time for each of `FE11`, `FE12` and `0001`: past
  /// the 10 s our handshake used to allow each, within the working client's 20 s / 15 s.
  @Test("ls against a NotePin S taking 10.5 s for each handshake reply")
  func slowModeBHandshake() throws {
    let directory = try TemporaryDirectory("new-model-slow")
    let emulator = try Self.emulator(
      in: directory, minutes: [0.1],
      extra: ["--model", "notepin-s", "--handshake-delay-ms", "10500"])
    defer { emulator.stop() }
    let listed = try RecorderProcess.run(
      ["ls", "--json"] + emulator.device, in: directory, label: "ls-slow",
      timeout: .seconds(150))
    #expect(listed.status == 0, "\(listed.stderr)")
    #expect((try? jsonArray(listed.stdout))?.count == 1, "\(listed.stdout)")
  }
}
