import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

#if os(Linux)
  /// `make install` into a scratch root (DESTDIR), then the installed files checked by the tools
  /// that read them on a real system: `systemd-analyze verify` for the unit, `systemd-sysusers`
  /// and `systemd-tmpfiles` (with `--root`) for the user and the token's place and their modes,
  /// `dbus-daemon` for the D-Bus policy, and the polkit rule run in node against the
  /// NetworkManager actions. The binary installed is the tests' own debug build
  /// (`RECORDER_BIN`): `make test` builds no release binary.
  @Suite("make install into a scratch root", .serialized, .blockingWaits)
  struct ServiceInstallTests {
    /// The package root (this file is Tests/CLITests/ServiceInstallTests.swift).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent().path

    /// Where each file lands under the root (PREFIX /usr/local, SYSCONFDIR /etc), its mode.
    static let installed: [(path: String, mode: mode_t)] = [
      ("usr/local/bin/recorder", 0o755),
      ("usr/local/lib/systemd/system/recorder-gateway.service", 0o644),
      ("usr/local/lib/sysusers.d/recorder.conf", 0o644),
      ("usr/local/lib/tmpfiles.d/recorder.conf", 0o644),
      ("etc/dbus-1/system.d/recorder.conf", 0o644),
      ("etc/polkit-1/rules.d/50-recorder.rules", 0o644),
      ("etc/recorder/gateway.env", 0o644),
    ]

    /// Runs `make install DESTDIR=root RECORDER_BIN=<the debug recorder>` with the default
    /// PREFIX and SYSCONFDIR, whatever variables an enclosing `make test` was given (they reach
    /// a nested make through MAKEFLAGS, which is dropped).
    static func makeInstall(into root: String, in directory: TemporaryDirectory, label: String)
      throws
    {
      let binary = try #require(RecorderTool.executable).path
      let result = try Self.tool(
        "/usr/bin/env",
        [
          "-u", "MAKEFLAGS", "-u", "MFLAGS", "-u", "MAKELEVEL", "make", "-s", "-C", packageRoot,
          "install", "DESTDIR=\(root)", "RECORDER_BIN=\(binary)", "PREFIX=/usr/local",
          "SYSCONFDIR=/etc",
        ],
        in: directory, label: label)
      #expect(result.status == 0, "make install: \(result.stderr)")
    }

    /// Runs the tool `executable` with `arguments` to its end (stopped after 120 s).
    static func tool(
      _ executable: String, _ arguments: [String], in directory: TemporaryDirectory, label: String
    ) throws -> (status: Int32?, stdout: String, stderr: String) {
      try RecorderProcess.run(arguments, in: directory, label: label, executable: executable)
    }

    @Test("make install DESTDIR: every file in place with its mode; a second run changes nothing")
    func installsEveryFile() throws {
      let directory = try TemporaryDirectory("install-files")
      let root = directory.file("root")
      try Self.makeInstall(into: root, in: directory, label: "install-1")
      var first: [String: String] = [:]
      for (path, mode) in Self.installed {
        let full = root + "/" + path
        #expect(try Self.mode(of: full) == mode, "\(path)")
        first[path] = try sha256(ofFile: full)
      }
      let unit = try String(
        contentsOfFile: root + "/usr/local/lib/systemd/system/recorder-gateway.service",
        encoding: .utf8)
      #expect(!unit.contains("@BINDIR@") && !unit.contains("@SYSCONFDIR@"), "a placeholder left")
      #expect(unit.contains("ExecStart=/usr/local/bin/recorder sync --watch"))
      #expect(unit.contains("--token-file /etc/recorder/token"))
      #expect(
        try sha256(ofFile: root + "/usr/local/bin/recorder")
          == sha256(ofFile: try #require(RecorderTool.executable).path))

      // An administrator's settings survive a second install; everything else is rewritten
      // the same.
      let settings = root + "/etc/recorder/gateway.env"
      try Data("RECORDER_DEVICE=ble:8881234567890123\n".utf8).write(
        to: URL(fileURLWithPath: settings))
      try Self.makeInstall(into: root, in: directory, label: "install-2")
      #expect(
        try String(contentsOfFile: settings, encoding: .utf8)
          == "RECORDER_DEVICE=ble:8881234567890123\n")
      for (path, mode) in Self.installed where path != "etc/recorder/gateway.env" {
        #expect(try Self.mode(of: root + "/" + path) == mode, "\(path)")
        #expect(try sha256(ofFile: root + "/" + path) == first[path], "\(path)")
      }
    }

    /// `systemd-analyze verify --root` resolves ExecStart= inside the scratch root, where the
    /// binary is; the units the gateway's depends on (sysinit.target, bluetooth.service, …)
    /// come from this machine's /usr/lib/systemd/system, copied in. Verify exits 0 on an
    /// unknown or misspelt setting (it only warns): any output at all fails the test.
    @Test("systemd-analyze verify: the installed unit is clean (no error, no warning)")
    func unitVerifies() throws {
      let directory = try TemporaryDirectory("install-verify")
      let root = directory.file("root")
      try Self.makeInstall(into: root, in: directory, label: "install")
      try FileManager.default.createDirectory(
        atPath: root + "/usr/lib/systemd", withIntermediateDirectories: true)
      try FileManager.default.copyItem(
        atPath: "/usr/lib/systemd/system", toPath: root + "/usr/lib/systemd/system")
      let verify = try Self.tool(
        "/usr/bin/env",
        ["systemd-analyze", "verify", "--root=\(root)", "recorder-gateway.service"],
        in: directory, label: "verify")
      #expect(verify.status == 0, "\(verify.stderr)")
      #expect(verify.stderr.isEmpty && verify.stdout.isEmpty, "\(verify.stderr)\(verify.stdout)")

      // The exposure systemd computes from the hardening settings (lower is better; ≤ 2 "OK").
      let security = try Self.tool(
        "/usr/bin/env",
        [
          "systemd-analyze", "security", "--offline=true", "--root=\(root)",
          "recorder-gateway.service",
        ], in: directory, label: "security")
      let line = security.stdout.split(separator: "\n").first { $0.contains("Overall exposure") }
      print("systemd-analyze security: \(line.map(String.init) ?? security.stderr)")
      let exposure = line.flatMap { $0.split(separator: " ").compactMap { Double($0) }.first }
      #expect(try #require(exposure) <= 2.0)
    }

    /// What systemd would run, with the unit's defaults (`Environment=`), run from the scratch
    /// root against `recorder emulate`: every option the unit passes is one `recorder sync`
    /// takes (a misspelt one would pass verify and stop the service with exit 64).
    @Test("the unit's ExecStart, its paths inside the scratch root, syncs an emulated recorder")
    func execStartRuns() throws {
      let directory = try TemporaryDirectory("install-execstart")
      let root = directory.file("root")
      try Self.makeInstall(into: root, in: directory, label: "install")
      let unit = try String(
        contentsOfFile: root + "/usr/local/lib/systemd/system/recorder-gateway.service",
        encoding: .utf8)
      let command = try #require(
        unit.replacingOccurrences(of: "\\\n", with: " ").split(separator: "\n")
          .first { $0.hasPrefix("ExecStart=") }
      ).dropFirst("ExecStart=".count).split(separator: " ").map(String.init)
      let defaults = try #require(
        unit.split(separator: "\n").first { $0.hasPrefix("Environment=") }
      ).dropFirst("Environment=".count).split(separator: " ").reduce(into: [String: String]()) {
        let pair = $1.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        $0[String(pair[0])] = String(pair[1])
      }
      #expect(defaults["RECORDER_DEVICE"] == "ble" && defaults["RECORDER_FORMAT"] == "mp3")

      let emulator = try EmulatorProcess(
        in: directory, token: "0123456789abcdef0123456789abcdef", minutes: [0.1])
      defer { emulator.stop() }
      let manifest = try emulator.manifest()
      try FileManager.default.createDirectory(
        atPath: root + "/etc/recorder", withIntermediateDirectories: true)
      let tokenFile = root + "/etc/recorder/token"
      try Data("0123456789abcdef0123456789abcdef\n".utf8).write(to: URL(fileURLWithPath: tokenFile))
      chmod(tokenFile, 0o600)
      // The radio is the emulator's; each path is taken inside the scratch root; one run.
      var arguments: [String] = []
      for word in command.dropFirst() {
        switch word {
        case "${RECORDER_DEVICE}": arguments.append(emulator.url)
        case "${RECORDER_FORMAT}": arguments.append(try #require(defaults["RECORDER_FORMAT"]))
        case "$RECORDER_OPTIONS": arguments += ["--watch-runs", "1", "--watch-pause", "0"]
        case _ where word.hasPrefix("/"): arguments.append(root + word)
        default: arguments.append(word)
        }
      }
      let run = try Self.tool(root + command[0], arguments, in: directory, label: "service")
      #expect(run.status == 0, "\(arguments): \(run.stderr)")
      let exports = try FileManager.default.contentsOfDirectory(
        atPath: root + "/var/lib/recorder/sync/exports")
      #expect(
        exports == ["\(manifest.serial)-\(manifest.recordings[0].sessionId).mp3"], "\(exports)")
    }

    /// The live install (no DESTDIR) makes the user and the token's place itself. Run in a
    /// mount namespace of its own, /etc and /usr/local overlaid with scratch folders and
    /// /run/systemd hidden (no systemctl call reaches this machine's systemd): nothing of the
    /// machine changes, and the namespace ends with the process, however it ends.
    @Test("scripts/install.sh on a live system (overlaid): user, 0700 folder, 0600 token; twice")
    func liveInstall() throws {
      let directory = try TemporaryDirectory("install-live")
      for folder in ["etc-upper", "etc-work", "local-upper", "local-work"] {
        try FileManager.default.createDirectory(
          atPath: directory.file(folder), withIntermediateDirectories: true)
      }
      let binary = try #require(RecorderTool.executable).path
      let script = """
        set -eu
        mount --make-rprivate /
        mount -t overlay overlay -o lowerdir=/etc,upperdir=\(directory.file("etc-upper")),workdir=\(directory.file("etc-work")) /etc
        mount -t overlay overlay -o lowerdir=/usr/local,upperdir=\(directory.file("local-upper")),workdir=\(directory.file("local-work")) /usr/local
        mkdir -p /run/systemd && mount -t tmpfs tmpfs /run/systemd
        env -u DESTDIR -u PREFIX -u SYSCONFDIR \(Self.packageRoot)/scripts/install.sh \(binary)
        env -u DESTDIR -u PREFIX -u SYSCONFDIR \(Self.packageRoot)/scripts/install.sh \(binary)
        getent passwd recorder | cut -d: -f3,6
        stat -c '%a %u %n' /etc/recorder /etc/recorder/token
        """
      let result = try Self.tool(
        "/usr/bin/env", ["unshare", "-m", "bash", "-c", script], in: directory, label: "live")
      #expect(result.status == 0, "\(result.stderr)")
      let lines = result.stdout.split(separator: "\n").map(String.init)
      let user = try #require(lines.first, "no recorder user: \(result.stderr)")
      let uid = try #require(user.split(separator: ":").first.map(String.init))
      #expect(user == "\(uid):/var/lib/recorder")
      #expect(
        Array(lines.dropFirst()) == ["700 \(uid) /etc/recorder", "600 \(uid) /etc/recorder/token"])
      // The machine's own /etc is untouched.
      #expect(!FileManager.default.fileExists(atPath: "/etc/recorder/token"))
    }

    @Test("sysusers.d and tmpfiles.d on the root: user recorder, token folder 0700, token 0600")
    func userAndTokenPlace() throws {
      let directory = try TemporaryDirectory("install-tmpfiles")
      let root = directory.file("root")
      try Self.makeInstall(into: root, in: directory, label: "install")
      // Twice each: both are idempotent, and a second run must not fail or change a mode.
      for pass in 1...2 {
        let users = try Self.tool(
          "/usr/bin/env",
          ["systemd-sysusers", "--root=\(root)", root + "/usr/local/lib/sysusers.d/recorder.conf"],
          in: directory, label: "sysusers-\(pass)")
        #expect(users.status == 0, "\(users.stderr)")
        let files = try Self.tool(
          "/usr/bin/env",
          [
            "systemd-tmpfiles", "--root=\(root)", "--create",
            root + "/usr/local/lib/tmpfiles.d/recorder.conf",
          ], in: directory, label: "tmpfiles-\(pass)")
        #expect(files.status == 0, "\(files.stderr)")
      }
      let passwd = try String(contentsOfFile: root + "/etc/passwd", encoding: .utf8)
      let entry = try #require(
        passwd.split(separator: "\n").first { $0.hasPrefix("recorder:") }, "no recorder user")
      let fields = entry.split(separator: ":", omittingEmptySubsequences: false)
      let uid = try #require(UInt32(fields[2]))
      #expect(uid < 1000, "a system user")
      #expect(fields[5] == "/var/lib/recorder")

      let folder = try Self.status(of: root + "/etc/recorder")
      #expect(folder.st_mode & 0o7777 == 0o700)
      #expect(folder.st_uid == uid)
      let token = try Self.status(of: root + "/etc/recorder/token")
      #expect(token.st_mode & 0o7777 == 0o600)
      #expect(token.st_uid == uid)
      #expect(token.st_mode & S_IFMT == S_IFREG)
    }

    @Test("the D-Bus policy parses in dbus-daemon and lets recorder call BlueZ and NetworkManager")
    func dbusPolicyLoads() throws {
      let directory = try TemporaryDirectory("install-dbus")
      let root = directory.file("root")
      try Self.makeInstall(into: root, in: directory, label: "install")
      let policy = root + "/etc/dbus-1/system.d/recorder.conf"
      let text = try String(contentsOfFile: policy, encoding: .utf8)
      #expect(text.contains(#"<policy user="recorder">"#))
      #expect(text.contains(#"<allow send_destination="org.bluez"/>"#))
      #expect(text.contains(#"<allow send_destination="org.freedesktop.NetworkManager"/>"#))

      // A private bus whose configuration includes the policy: dbus-daemon refuses to start on
      // a malformed one ("Failed to start message bus: … mismatched tag").
      let configuration = directory.file("bus.conf")
      try Data(
        """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <listen>unix:path=\(directory.file("bus"))</listen>
          <auth>EXTERNAL</auth>
          <policy context="default"><allow user="*"/><allow own="*"/></policy>
          <include>\(policy)</include>
        </busconfig>
        """.utf8
      ).write(to: URL(fileURLWithPath: configuration))
      let bus = try RecorderProcess(
        ["dbus-daemon", "--config-file=\(configuration)", "--nofork", "--print-address=1"],
        in: directory, label: "dbus", executable: "/usr/bin/env")
      defer { bus.kill() }
      let started = waitUntil(timeout: .seconds(20)) {
        bus.stdout.hasPrefix("unix:") || !bus.process.isRunning
      }
      #expect(started && bus.stdout.hasPrefix("unix:"), "dbus-daemon: \(bus.stderr)")
    }

    /// The rule runs in node with a `polkit` object shaped like polkitd's (addRule, Result);
    /// each case is asked of every rule added, as polkitd does.
    @Test("the polkit rule grants recorder (only) the NetworkManager actions a hotspot join needs")
    func polkitRuleGrants() throws {
      let directory = try TemporaryDirectory("install-polkit")
      let root = directory.file("root")
      try Self.makeInstall(into: root, in: directory, label: "install")
      let harness = directory.file("polkit.js")
      try Data(
        """
        const fs = require("fs");
        const rules = [];
        const polkit = {
          Result: { YES: "yes", NO: "no", AUTH_ADMIN: "auth_admin", NOT_HANDLED: null },
          addRule: (rule) => rules.push(rule),
        };
        new Function("polkit", fs.readFileSync(process.argv[2], "utf8"))(polkit);
        const answers = JSON.parse(process.argv[3]).map(([user, id]) => {
          for (const rule of rules) {
            const result = rule({ id }, { user });
            if (result !== null && result !== undefined) return result;
          }
          return "none";
        });
        console.log(JSON.stringify(answers));
        """.utf8
      ).write(to: URL(fileURLWithPath: harness))
      let networkManager = "org.freedesktop.NetworkManager."
      let granted = [
        "settings.modify.system", "settings.modify.own", "network-control", "wifi.scan",
      ].map { networkManager + $0 }
      let refused = [
        networkManager + "enable-disable-network", networkManager + "settings.modify.hostname",
        "org.freedesktop.login1.reboot",
      ]
      let cases =
        granted.map { ["recorder", $0] } + refused.map { ["recorder", $0] }
        + granted.map { ["alice", $0] }
      let json = String(decoding: try JSONSerialization.data(withJSONObject: cases), as: UTF8.self)
      let result = try Self.tool(
        "/usr/bin/env", ["node", harness, root + "/etc/polkit-1/rules.d/50-recorder.rules", json],
        in: directory, label: "polkit")
      #expect(result.status == 0, "\(result.stderr)")
      let answers = try #require(
        try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String])
      #expect(
        answers
          == Array(repeating: "yes", count: granted.count)
          + Array(repeating: "none", count: refused.count + granted.count))
    }

    static func status(of path: String) throws -> stat {
      var info = stat()
      guard lstat(path, &info) == 0 else { throw HarnessError("cannot stat \(path)") }
      return info
    }

    static func mode(of path: String) throws -> mode_t { try status(of: path).st_mode & 0o7777 }
  }
#endif
