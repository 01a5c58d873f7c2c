import Foundation
import RecorderConcurrency
import Testing

/// Issue 43's end-to-end run for the recorders on sale: a `recorder emulate --model note-pro`
/// and a `--model notepin-s` (each as the evidence describes it by default: Mode B, its
/// serial, name, advertising layout, dotted firmware; the NotePin S's recordings end-to-end
/// encrypted to its owner's key by the preset's own rule, PROTOCOL.md §5, §9) go through `ls`, a `sync` SIGKILLed at seeded
/// moments, `ota` and a `sync --wifi` SIGKILLed at seeded moments: every recording arrives
/// byte-exact (the raw copy is the device's file, header included), is exported and deleted
/// exactly once, and nothing is deleted early.
@Suite("Note Pro and NotePin S end to end", .serialized, .blockingWaits)
struct ModelEndToEndProcessTests {
  static let token = "43end0to0end0pro0pin0123456789ab"

  /// One product as the test drives it.
  struct Product: Sendable, CustomTestStringConvertible {
    let preset: String
    let serial: String
    let firmware: String
    let newFirmware: String
    /// Whether its recordings are end-to-end encrypted (then the commands get the user's
    /// private key, which is also its Mode B user key).
    let encrypts: Bool
    var testDescription: String { preset }
  }

  static let products = [
    Product(
      preset: "note-pro", serial: "881234567890123456", firmware: "V1.7.0",
      newFirmware: "V1.7.1", encrypts: false),
    Product(
      preset: "notepin-s", serial: "882234567890123456", firmware: "V1.2.7",
      newFirmware: "V1.2.8", encrypts: true),
  ]

  /// The seed of this run's kills (KILL_TEST_SEED to repeat one).
  static func seed(_ label: String) -> UInt64 {
    let seed =
      ProcessInfo.processInfo.environment["KILL_TEST_SEED"].flatMap { UInt64($0) }
      ?? UInt64(Date().timeIntervalSince1970)
    print("\(label) seed: \(seed) (rerun with KILL_TEST_SEED=\(seed))")
    return seed
  }

  /// An emulator of `product` with recordings of `minutes`, and the device options that
  /// reach it (its key store, or the owner's private key for an encrypting product). The
  /// raw copies are compared with the device's files, so an encrypting product's are E2EE:
  /// each is checked to start with the `PLAUD.AI` header.
  static func emulator(
    _ product: Product, in directory: TemporaryDirectory, minutes: [Double], seed: UInt64,
    extra: [String] = []
  ) throws -> (emulator: EmulatorProcess, device: [String]) {
    var options = ["--model", product.preset] + extra
    var userKey: String?
    if product.encrypts {
      // The device already holds its owner's key (bound before); the preset encrypts what
      // it records to that key, as a NotePin S does.
      let user = try ModeBProcessTests.keyPair(in: directory, name: "user")
      options += ["--user-public-key", user.publicKey]
      userKey = user.privateKey
    }
    let emulator = try EmulatorProcess(
      in: directory, token: token, minutes: minutes, seed: seed, portVersion: 20, extra: options)
    let device =
      userKey.map { ["--device", emulator.url, "--token", token, "--private-key", $0] }
      ?? emulator.device
    return (emulator, device)
  }

  /// `info --json`: the fields the device reports.
  static func information(_ device: [String], in directory: TemporaryDirectory, label: String)
    throws -> [String: Any]
  {
    let info = try RecorderProcess.run(["info", "--json"] + device, in: directory, label: label)
    #expect(info.status == 0, "\(label): \(info.stderr)")
    return try jsonObject(info.stdout)
  }

  /// The run's end: each recording exactly once, byte-exact, each deleted once, the device
  /// empty, and nothing ever sent the token in clear.
  static func expectExactlyOnce(
    _ emulator: EmulatorProcess, _ manifest: Manifest, device: [String], out: String,
    in directory: TemporaryDirectory, seed: UInt64, runs: Int, encrypted: Bool
  ) throws {
    try ProcessTests().expectSynced(manifest, out: out, format: "mp3")
    if encrypted {
      for recording in manifest.recordings {
        let raw = out + "/\(manifest.serial)/\(recording.sessionId).opus-raw"
        let head = FileManager.default.contents(atPath: raw)?.prefix(8)
        #expect(head == Data("PLAUD.AI".utf8), "\(recording.sessionId) is not E2EE")
      }
    }
    try ProcessTests().expectNothingDeletedEarly(
      manifest: emulator.manifest(), expected: manifest, out: out, seed: seed, run: runs + 1)
    let deletes = try emulator.manifest().deletes.map(\.sessionId)
    #expect(
      deletes.sorted() == manifest.recordings.map(\.sessionId).sorted(),
      "seed \(seed): one DELETE per recording")
    let after = try RecorderProcess.run(
      ["ls", "--json"] + device, in: directory, label: "ls-after")
    #expect(after.status == 0, "\(after.stderr)")
    #expect((try? jsonArray(after.stdout))?.isEmpty == true, "seed \(seed): \(after.stdout)")
    #expect(try emulator.manifest().clearHandshakes == 0, "a token went in clear")
  }

  @Test(
    "ls, sync SIGKILLed at seeded moments, then ota: byte-exact, exactly once, new version",
    arguments: products)
  func bluetoothSyncAndUpdate(_ product: Product) throws {
    let seed = Self.seed("\(product.preset) BLE kill test")
    var random = SplitMix64(seed: seed)
    let directory = try TemporaryDirectory("model-ble-\(product.preset)")
    let image = directory.file("fw.bin")
    let (emulator, device) = try Self.emulator(
      product, in: directory, minutes: [1.5, 0.5, 0.5, 0.25, 0.25, 0.1], seed: seed % 1000 + 1,
      extra: [
        "--new-firmware", product.newFirmware, "--firmware-image", image, "--firmware-size",
        "8192",
      ])
    defer { emulator.stop() }
    let manifest = try emulator.manifest()

    let info = try Self.information(device, in: directory, label: "info")
    #expect(info["serial"] as? String == product.serial, "\(info)")
    #expect(info["firmware"] as? String == product.firmware, "\(info)")
    #expect(int64(info["portVersion"]) == 20, "\(info)")

    let listed = try RecorderProcess.run(["ls", "--json"] + device, in: directory, label: "ls")
    #expect(listed.status == 0, "\(listed.stderr)")
    let entries = try jsonArray(listed.stdout)
    #expect(entries.map { int64($0["sessionId"]) } == manifest.recordings.map(\.sessionId))
    #expect(entries.map { int64($0["size"]) } == manifest.recordings.map(\.size))

    let out = directory.file("out")
    let sync = ["sync", "--out", out, "--format", "mp3", "--json", "--timeout", "30"] + device
    let loop = KillLoop(
      sync: sync, emulator: emulator, expected: manifest, out: out, directory: directory,
      seed: seed, earlyChance: 0.2)
    let outcome = try loop.run(kills: 8, label: "\(product.preset)-kill", random: &random)
    print("\(product.preset): \(outcome.kills) kills in \(outcome.runs) runs, seed \(seed)")
    let final = try RecorderProcess.run(sync, in: directory, label: "final")
    #expect(final.status == 0, "seed \(seed): \(final.stderr)")
    try Self.expectExactlyOnce(
      emulator, manifest, device: device, out: out, in: directory, seed: seed,
      runs: outcome.runs, encrypted: product.encrypts)

    let ota = try RecorderProcess.run(
      ["ota"] + device + [
        "--file", image, "--version", product.newFirmware, "--md5", try md5(ofFile: image),
        "--json",
      ], in: directory, label: "ota")
    #expect(ota.status == 0, "\(ota.stderr)")
    let update = try jsonObject(ota.stdout)
    #expect(update["previousVersion"] as? String == product.firmware, "\(ota.stdout)")
    #expect(update["version"] as? String == product.newFirmware, "\(ota.stdout)")
    let updated = try Self.information(device, in: directory, label: "info-after")
    #expect(updated["firmware"] as? String == product.newFirmware, "\(updated)")
  }

  @Test(
    "sync --wifi SIGKILLed at seeded moments: byte-exact over Wi-Fi, exactly once",
    arguments: products)
  func wifiSync(_ product: Product) throws {
    let seed = Self.seed("\(product.preset) Wi-Fi kill test")
    var random = SplitMix64(seed: seed)
    let directory = try TemporaryDirectory("model-wifi-\(product.preset)")
    let (emulator, device) = try Self.emulator(
      product, in: directory, minutes: [2, 1, 0.5, 0.5, 0.25], seed: seed % 1000 + 1)
    defer { emulator.stop() }
    let manifest = try emulator.manifest()
    let out = directory.file("out")
    let sync =
      [
        "sync", "--out", out, "--format", "mp3", "--json", "--timeout", "30", "--wifi",
        "--hotspot", try emulator.hotspot(), "--wifi-min-backlog", "0",
      ] + device
    let loop = KillLoop(
      sync: sync, emulator: emulator, expected: manifest, out: out, directory: directory,
      seed: seed, maxSteps: 6, maxDelay: 0.1)
    let outcome = try loop.run(kills: 5, label: "\(product.preset)-wifi-kill", random: &random)
    print("\(product.preset) Wi-Fi: \(outcome.kills) kills in \(outcome.runs) runs, seed \(seed)")
    let final = try RecorderProcess.run(sync, in: directory, label: "wifi-final")
    #expect(final.status == 0, "seed \(seed): \(final.stderr)")
    try Self.expectExactlyOnce(
      emulator, manifest, device: device, out: out, in: directory, seed: seed,
      runs: outcome.runs, encrypted: product.encrypts)
    // Whatever the kills interrupted, the data moved over Wi-Fi: the device's Wi-Fi server
    // sent at least every recording's bytes once.
    let wifiBytes = try emulator.manifest().wifiDataBytes
    let total = manifest.recordings.map(\.size).reduce(0, +)
    #expect(wifiBytes >= total, "\(wifiBytes) bytes over Wi-Fi for \(total) recorded")
  }
}
