import Foundation
import Testing

/// `recorder` against `recorder emulate --port-version 20` (Mode B, PROTOCOL.md §9) in
/// another process: keys from a PEM file, recordings stored end-to-end encrypted, and the
/// sentinel check that no key or token is ever printed.
@Suite("Mode B at process level", .blockingWaits)
struct ModeBProcessTests {
  static let token = "5e471ne1f00d0123456789abcdef0000"

  /// A fresh RSA-2048 key pair from openssl: private (0600) and public PEM files.
  static func keyPair(in directory: TemporaryDirectory, name: String) throws -> (
    privateKey: String, publicKey: String
  ) {
    let privateKey = directory.file("\(name).pem")
    let publicKey = directory.file("\(name).pub.pem")
    for arguments in [
      ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", privateKey],
      ["pkey", "-in", privateKey, "-pubout", "-out", publicKey],
    ] {
      let openssl = Process()
      openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
      openssl.arguments = arguments
      openssl.standardError = FileHandle.nullDevice
      try openssl.run()
      openssl.waitUntilExit()
      try #require(openssl.terminationStatus == 0, "openssl \(arguments[0]) failed")
    }
    chmod(privateKey, 0o600)
    return (privateKey, publicKey)
  }

  /// The base64 lines of a PEM file.
  static func secretLines(_ path: String) -> [String] {
    let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").filter { !$0.hasPrefix("-----") }.map(String.init)
  }

  /// `sync --json` output of E2EE mono recordings exported as WAV: `count` files, each
  /// verified, its export one 640-byte WAV frame per 80-byte frame after the 512-byte header
  /// the device's size includes.
  static func expectDecryptedExports(_ output: String, count: Int) throws {
    let files = try jsonArray(output)
    #expect(files.count == count)
    for file in files {
      #expect(file["verified"] as? Bool == true)
      let export = try #require(file["exportPath"] as? String)
      let frames = (Int(int64(file["size"]) ?? 0) - 512) / 80
      #expect(frames > 0)
      let size = try FileManager.default.attributesOfItem(atPath: export)[.size] as? Int
      #expect(size == 44 + frames * 640, "\(export)")
    }
  }

  @Test("E2EE recordings: sync --private-key exports them decrypted; no key or token printed")
  func e2eeSyncAndSentinel() throws {
    let directory = try TemporaryDirectory("modeb-e2ee")
    let user = try Self.keyPair(in: directory, name: "user")
    let emulator = try EmulatorProcess(
      in: directory, token: Self.token, minutes: [0.5, 0.25], portVersion: 20,
      extra: ["--e2ee-public-key", user.publicKey])
    defer { emulator.stop() }
    let manifest = try emulator.manifest()
    let device = [
      "--device", emulator.url, "--token", Self.token, "--private-key", user.privateKey,
    ]
    let out = directory.file("out")

    let info = try RecorderProcess.run(["info", "--json"] + device, in: directory, label: "info")
    #expect(info.status == 0, "\(info.stderr)")
    let sync = try RecorderProcess.run(
      ["sync", "--out", out, "--format", "wav", "--json"] + device, in: directory, label: "sync")
    #expect(sync.status == 0, "\(sync.stderr)")
    try Self.expectDecryptedExports(sync.stdout, count: manifest.recordings.count)

    // Another user's key: refused at once (77), the reason named, nothing secret printed.
    let other = try Self.keyPair(in: directory, name: "other")
    let wrong = try RecorderProcess.run(
      [
        "ls", "--json", "--device", emulator.url, "--token", Self.token, "--private-key",
        other.privateKey,
      ], in: directory, label: "wrong")
    #expect(wrong.status == 77, "\(wrong.stderr)")
    #expect(wrong.stderr.contains("not for this user's key"))

    let secrets =
      [Self.token] + Self.secretLines(user.privateKey)
      + Self.secretLines(other.privateKey)
    let outputs = [info.stdout, info.stderr, sync.stdout, sync.stderr, wrong.stdout, wrong.stderr]
    let leaks = outputs.filter { text in secrets.contains { text.contains($0) } }.count
    #expect(leaks == 0, "\(leaks) outputs hold a key or the token")
  }

  /// An encrypted `--private-key` is refused with a reason at once; nothing asks for its pass
  /// phrase. libcrypto left to itself prompts on /dev/tty, or without a terminal reads stdin:
  /// stdin here is a pipe that stays open and never carries a byte, as a gateway service's
  /// may, so a prompt would hang until the bounded wait kills the child.
  @Test("an encrypted --private-key exits 64 naming why, never prompting for a pass phrase")
  func encryptedPrivateKeyIsRefused() throws {
    let directory = try TemporaryDirectory("modeb-encrypted-key")
    var keys: [String] = []
    for (name, arguments) in [
      (
        "pkcs8",
        [
          "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-aes256",
          "-pass", "pass:throwaway-test-pass-phrase",
        ]
      ),
      ("pkcs1", ["genrsa", "-aes256", "-traditional", "-passout", "pass:throwaway"]),
    ] {
      let path = directory.file("\(name).pem")
      let bits = arguments[0] == "genrsa" ? ["2048"] : []
      let result = runTool("/usr/bin/openssl", arguments + ["-out", path] + bits)
      try #require(result.status == 0, "openssl \(arguments[0]): \(result.output)")
      chmod(path, 0o600)
      keys.append(path)
    }
    #expect(Self.secretLines(keys[1]).contains { $0.hasPrefix("Proc-Type: 4,ENCRYPTED") })
    for (index, key) in keys.enumerated() {
      for command in [
        ["ls", "--device", "tcp://127.0.0.1:9", "--token", Self.token, "--private-key", key],
        ["sync", "--watch", "--out", directory.file("out"), "--device", "tcp://127.0.0.1:9"]
          + ["--token", Self.token, "--private-key", key],
      ] {
        // A stdin that stays open (its write end held here) and never carries a byte.
        let stdin = Pipe()
        let child = try RecorderProcess(
          command, in: directory, label: "\(command[0])-\(index)", standardInput: stdin)
        let status = child.wait(timeout: .seconds(20))
        try? stdin.fileHandleForWriting.close()
        #expect(status == 64, "\(command[0]) \(key): stderr \(child.stderr)")
        #expect(child.stderr.contains("is encrypted with a pass phrase"), "\(child.stderr)")
        #expect(!child.stderr.contains("Enter PEM pass phrase"), "\(child.stderr)")
        let secrets = Self.secretLines(key).filter { !$0.contains(":") && !$0.isEmpty }
        #expect(!secrets.contains { child.stderr.contains($0) || child.stdout.contains($0) })
      }
    }
  }

  /// One connection's `FE12` key material changed on the way (`--tamper-key-chunk`): the
  /// session key does not unwrap on that link, which one link cannot tell from a device that
  /// holds another user's key. A fresh link settles it: the sync, and a watch with a single
  /// attempt per run, succeed. A key the device rejects on two fresh links in a row is final:
  /// 77, at once, for `sync` and for a watch alike.
  @Test("a tampered Mode B key chunk on one link is retried; a genuinely wrong key still exits 77")
  func tamperedKeyChunkIsALinkFault() throws {
    let directory = try TemporaryDirectory("modeb-tampered-key")
    let emulator = try EmulatorProcess(
      in: directory, token: Self.token, minutes: [0.25], portVersion: 20,
      extra: ["--tamper-key-chunk", "1"])
    defer { emulator.stop() }
    let manifest = try emulator.manifest()
    let out = directory.file("out")
    let sync = try RecorderProcess.run(
      ["sync", "--out", out, "--format", "wav", "--json"] + emulator.device, in: directory,
      label: "sync-tampered", timeout: .seconds(90))
    #expect(sync.status == 0, "\(sync.stderr)")
    #expect((try? jsonArray(sync.stdout))?.count == manifest.recordings.count, "\(sync.stdout)")

    // A watch, one attempt per run, against a device whose next key material is tampered.
    let watchedDirectory = try TemporaryDirectory("modeb-tampered-watch")
    let watched = try EmulatorProcess(
      in: watchedDirectory, token: Self.token, minutes: [0.25],
      portVersion: 20, extra: ["--tamper-key-chunk", "0"])
    defer { watched.stop() }
    let watch = try RecorderProcess.run(
      [
        "sync", "--out", directory.file("watch-out"), "--format", "wav", "--watch",
        "--watch-pause", "0.2", "--watch-runs", "1", "--attempts", "1",
      ] + watched.device, in: directory, label: "watch-tampered", timeout: .seconds(90))
    #expect(watch.status == 0, "\(watch.stderr)")

    // Another user's key, on clean links: final, for a sync and for a watch.
    let other = try Self.keyPair(in: directory, name: "other")
    let wrongKey = [
      "--device", emulator.url, "--token", Self.token, "--private-key", other.privateKey,
    ]
    for (label, extra) in [
      ("sync-wrong", []), ("watch-wrong", ["--watch", "--watch-pause", "0.2"]),
    ] {
      let started = ContinuousClock.now
      let wrong = try RecorderProcess.run(
        ["sync", "--out", directory.file(label), "--format", "wav"] + extra + wrongKey,
        in: directory, label: label, timeout: .seconds(60))
      #expect(wrong.status == 77, "\(label): \(wrong.stderr)")
      #expect(wrong.stderr.contains("not for this user's key"), "\(wrong.stderr)")
      #expect(ContinuousClock.now - started < .seconds(30), "\(label) gave up at once")
    }
  }

  /// The device checks the cloud's serial signature and seals Wi-Fi with AES-256-GCM.
  @Test("sync --cloud --wifi against a signature-checking, Wi-Fi-sealing device; nothing leaked")
  func cloudSignedSyncOverSealedWiFi() throws {
    let directory = try TemporaryDirectory("modeb-cloud-wifi")
    let tokenFile = directory.file("user-token")
    // The device token the cloud's user token derives (PROTOCOL.md §8), as in `otaFromCloud`.
    let deviceToken = "partneruser1"
    let emulator = try EmulatorProcess(
      in: directory, token: deviceToken, minutes: [0.5, 0.25], portVersion: 20,
      extra: [
        "--cloud", "--cloud-token-file", tokenFile, "--mode-b-require-signature",
        "--mode-b-wifi-cipher", "aes-256-gcm",
      ])
    defer { emulator.stop() }
    let manifest = try emulator.manifest()
    let url = try emulator.cloud()
    let keys = ["--key-store", directory.file("keys")]
    let cloudOptions = ["--cloud", url, "--user-token-file", tokenFile]

    // Without the cloud the device never answers FE10: the session cannot open.
    let refused = try RecorderProcess.run(
      ["ls", "--json", "--device", emulator.url, "--token", deviceToken] + keys,
      in: directory, label: "no-cloud")
    #expect(refused.status == 69, "\(refused.stderr)")

    let out = directory.file("out")
    let sync = try RecorderProcess.run(
      [
        "sync", "--out", out, "--format", "opus", "--json", "--wifi", "--hotspot",
        try emulator.hotspot(), "--wifi-min-backlog", "0", "--device", emulator.url,
      ] + cloudOptions + keys, in: directory, label: "sync-cloud-wifi")
    #expect(sync.status == 0, "\(sync.stderr)")
    let files = try jsonArray(sync.stdout)
    #expect(files.count == manifest.recordings.count, "\(sync.stdout)")
    #expect(files.allSatisfy { $0["transport"] as? String == "wifi" }, "\(sync.stdout)")
    #expect(files.allSatisfy { $0["verified"] as? Bool == true })
    try ProcessTests().expectSynced(manifest, out: out, format: "opus")
    // The emulator rewrites its manifest on its own schedule.
    let deleted = waitUntil(timeout: .seconds(20)) {
      (try? emulator.manifest().deletes.count) == manifest.recordings.count
    }
    #expect(deleted, "every recording deleted from the device")

    let jwt = try String(contentsOfFile: tokenFile, encoding: .utf8)
      .trimmingCharacters(in: .whitespacesAndNewlines)
    let stored =
      (try? FileManager.default.contentsOfDirectory(atPath: directory.file("keys")))
      ?? []
    let secrets =
      [jwt] + stored.flatMap { Self.secretLines(directory.file("keys") + "/" + $0) }
    #expect(!secrets.isEmpty)
    let outputs = [refused.stdout, refused.stderr, sync.stdout, sync.stderr]
    let leaks = outputs.filter { text in secrets.contains { text.contains($0) } }.count
    #expect(leaks == 0, "\(leaks) outputs hold a key or the token")
  }
}
