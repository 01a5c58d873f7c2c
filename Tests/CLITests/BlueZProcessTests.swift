#if os(Linux)
  import Foundation
  import Testing
  import TestSupport

  /// `recorder … --device ble[:SERIAL]` through a mock bluetoothd (python3-dbusmock on a
  /// private dbus-daemon, TestSupport's ``MockBlueZ``) whose recorder is relayed to
  /// `recorder emulate` in another process: the real BlueZ adapter code end to end, with the
  /// emulator behind D-Bus instead of a radio. Serialized: each test runs four processes.
  @Suite("recorder through a mock BlueZ", .serialized, .blockingWaits)
  struct BlueZProcessTests {
    static let token = ProcessTests.token

    /// An emulator and a mock bluetoothd in front of it.
    struct Rig {
      let directory: TemporaryDirectory
      let emulator: EmulatorProcess
      let bluez: MockBlueZ

      init(
        _ label: String, minutes: [Double] = [1, 0.5],
        notify: MockBlueZ.NotificationPath = .descriptor,
        powered: Bool = true, denied: Bool = false, timeScale: Double = 50,
        battery: MockBlueZ.BatteryExposure = .gatt
      ) throws {
        directory = try TemporaryDirectory(label)
        emulator = try EmulatorProcess(
          in: directory, token: BlueZProcessTests.token, minutes: minutes, timeScale: timeScale)
        let address = String(emulator.url.dropFirst("tcp://".count))
        bluez = try MockBlueZ(
          denied
            ? .denied(emulator: address)
            : .bluez(emulator: address, notify: notify, powered: powered, battery: battery))
      }

      func stop() {
        bluez.stop()
        emulator.stop()
      }

      var serial: String { (try? emulator.manifest().serial) ?? "" }
      var device: [String] { ["--device", "ble:\(serial)", "--token", BlueZProcessTests.token] }

      func run(_ arguments: [String], label: String, timeout: Duration = .seconds(120)) throws
        -> (status: Int32?, stdout: String, stderr: String)
      {
        try RecorderProcess.run(
          arguments, in: directory, label: label, timeout: timeout, environment: bluez.environment)
      }
    }

    @Test("scan, ls and info through BlueZ see the emulator's recorder")
    func scanListInfo() throws {
      let rig = try Rig("bluez-ls")
      defer { rig.stop() }
      let manifest = try rig.emulator.manifest()

      let scan = try rig.run(["scan", "--timeout", "1", "--json"], label: "scan")
      #expect(scan.status == 0, "\(scan.stderr)")
      let heard = try jsonArray(scan.stdout)
      #expect(heard.count == 1)
      #expect(heard.first?["serial"] as? String == manifest.serial)
      #expect(heard.first?["model"] as? String == "Plaud Note")
      #expect((heard.first?["address"] as? String)?.hasPrefix("C0:") == true)
      #expect(int64(heard.first?["rssi"]) ?? 0 < 0)

      let list = try rig.run(["ls", "--json"] + rig.device, label: "ls")
      #expect(list.status == 0, "\(list.stderr)")
      #expect(
        try jsonArray(list.stdout).map { int64($0["sessionId"]) }
          == manifest.recordings.map(\.sessionId))

      // `ble` alone: the first recorder heard.
      let info = try rig.run(
        ["info", "--json", "--device", "ble", "--token", Self.token], label: "info")
      #expect(info.status == 0, "\(info.stderr)")
      #expect(try jsonObject(info.stdout)["serial"] as? String == manifest.serial)
      #expect(try jsonObject(info.stdout)["firmware"] as? String == "V0095")
    }

    @Test(
      "BlueZ before 5.80 claims the Battery Service: ls, info and a full sync still work"
    )
    func batteryClaimedByBlueZ() throws {
      // As Debian 12's bluetoothd 5.66: its battery plugin takes 180F, so no GATT objects
      // for it; the level is org.bluez.Battery1 on the device object.
      let rig = try Rig("bluez-battery1", minutes: [2, 0.5], battery: .plugin)
      defer { rig.stop() }
      let manifest = try rig.emulator.manifest()

      let list = try rig.run(["ls", "--json"] + rig.device, label: "ls")
      #expect(list.status == 0, "\(list.stderr)\n\(rig.bluez.mockLog)")
      #expect(
        try jsonArray(list.stdout).map { int64($0["sessionId"]) }
          == manifest.recordings.map(\.sessionId))

      // The battery comes from the vendor BATTERY command.
      let info = try rig.run(["info", "--json"] + rig.device, label: "info")
      #expect(info.status == 0, "\(info.stderr)")
      #expect(int64(try jsonObject(info.stdout)["batteryLevel"]) == 100)

      let out = rig.directory.file("out")
      let result = try rig.run(
        ["sync", "--out", out, "--format", "wav", "--json"] + rig.device, label: "sync")
      #expect(result.status == 0, "\(result.stderr)\n\(rig.bluez.mockLog)")
      try ProcessTests().expectSynced(manifest, out: out, format: "wav")
      let deleted = try rig.emulator.manifest().deletes.map(\.sessionId)
      #expect(deleted.sorted() == manifest.recordings.map(\.sessionId).sorted())
    }

    @Test(
      "sync through BlueZ moves a 10-minute recording byte-exact on each notification path",
      arguments: [MockBlueZ.NotificationPath.descriptor, .properties])
    func sync(path: MockBlueZ.NotificationPath) throws {
      let rig = try Rig("bluez-sync-\(path.rawValue)", minutes: [10, 0.25], notify: path)
      defer { rig.stop() }
      let manifest = try rig.emulator.manifest()
      let out = rig.directory.file("out")
      let started = ContinuousClock.now
      let result = try rig.run(
        ["sync", "--out", out, "--format", "wav", "--json"] + rig.device, label: "sync")
      let elapsed = ContinuousClock.now - started
      #expect(result.status == 0, "\(result.stderr)\n\(rig.bluez.mockLog)")
      try ProcessTests().expectSynced(manifest, out: out, format: "wav")
      let deleted = try rig.emulator.manifest().deletes.map(\.sessionId)
      #expect(deleted.sorted() == manifest.recordings.map(\.sessionId).sorted())
      let stats = try rig.bluez.blockingStats()
      let bytes = manifest.recordings.map(\.size).reduce(0, +)
      print(
        "bluez sync (\(path.rawValue)): \(bytes) bytes in \(elapsed), "
          + "\(stats["notifications"] ?? 0) notifications relayed")
    }

    @Test("sync --wifi through BlueZ: the commands over D-Bus, the backlog over the hotspot")
    func syncOverWiFi() throws {
      let rig = try Rig("bluez-wifi", minutes: [3, 0.5])
      defer { rig.stop() }
      let manifest = try rig.emulator.manifest()
      let out = rig.directory.file("out")
      let result = try rig.run(
        [
          "sync", "--out", out, "--format", "opus", "--json", "--wifi", "--hotspot",
          try rig.emulator.hotspot(), "--wifi-min-backlog", "0",
        ] + rig.device, label: "sync-wifi")
      #expect(result.status == 0, "\(result.stderr)")
      let files = try jsonArray(result.stdout)
      #expect(files.count == manifest.recordings.count, "\(result.stdout)")
      #expect(files.allSatisfy { $0["transport"] as? String == "wifi" }, "\(result.stdout)")
      try ProcessTests().expectSynced(manifest, out: out, format: "opus")
      #expect(try rig.emulator.manifest().deletes.count == manifest.recordings.count)
    }

    @Test("record start/stop and settings set/get through BlueZ")
    func recordAndSettings() throws {
      let rig = try Rig("bluez-control", minutes: [0.25])
      defer { rig.stop() }
      let before = try rig.emulator.manifest().recordings.map(\.sessionId)
      let start = try rig.run(["record", "start"] + rig.device, label: "record-start")
      #expect(start.status == 0, "\(start.stderr)")
      let sessionId = try #require(
        start.stdout.split(separator: " ").last.flatMap {
          Int64($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }, "\(start.stdout)")
      #expect(!before.contains(sessionId))
      let stop = try rig.run(["record", "stop"] + rig.device, label: "record-stop")
      #expect(stop.status == 0, "\(stop.stderr)")
      #expect(stop.stdout.hasPrefix("stopped \(sessionId) "), "\(stop.stdout)")

      let set = try rig.run(
        ["settings", "set", "auto-power-off", "3"] + rig.device, label: "settings-set")
      #expect(set.status == 0, "\(set.stderr)")
      let get = try rig.run(
        ["settings", "get", "auto-power-off"] + rig.device, label: "settings-get")
      #expect(get.status == 0, "\(get.stderr)")
      #expect(get.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "auto-power-off 3")
    }

    @Test("a link lost mid-transfer resumes from the durable offset: exactly once, not restarted")
    func linkDropResumes() throws {
      let rig = try Rig("bluez-drop", minutes: [3])
      defer { rig.stop() }
      let manifest = try rig.emulator.manifest()
      let size = try #require(manifest.recordings.first).size
      // About 60 % of the way: the checkpoint (every 256 KiB) before it is durable.
      let notifications = UInt32(Double(size) * 0.6 / 90)
      try rig.bluez.blockingControl("DropAfter", ["uint32:\(notifications)"])
      let out = rig.directory.file("out")
      let result = try rig.run(
        ["sync", "--out", out, "--format", "wav", "--json"] + rig.device, label: "sync")
      #expect(result.status == 0, "\(result.stderr)")
      try ProcessTests().expectSynced(manifest, out: out, format: "wav")
      let stats = try rig.bluez.blockingStats()
      #expect((stats["connects"] ?? 0) >= 2, "the link was never dropped: \(stats)")
      // Resumed, not restarted: well under twice the recording crossed the link.
      #expect(
        Int64(stats["notification_bytes"] ?? 0) < size * 3 / 2,
        "\(stats["notification_bytes"] ?? 0) bytes notified for \(size)")
      #expect(try rig.emulator.manifest().deletes.count == 1)
    }

    @Test(
      "sync --watch: the adapter powered off mid-sync ends that run, nothing is lost, and the watch resumes when it is back"
    )
    func watchSurvivesAdapterOff() throws {
      let rig = try Rig("bluez-watch", minutes: [10], timeScale: 10)
      defer { rig.stop() }
      let manifest = try rig.emulator.manifest()
      let recording = try #require(manifest.recordings.first)
      let out = rig.directory.file("out")
      let part = out + "/\(manifest.serial)/\(recording.sessionId).part"
      let child = try RecorderProcess(
        [
          "sync", "--out", out, "--format", "wav", "--json", "--watch", "--watch-pause", "0.2",
          "--watch-runs", "1", "--attempts", "2",
        ] + rig.device, in: rig.directory, label: "watch", environment: rig.bluez.environment)
      defer { child.kill() }
      // Mid-transfer: a part file of 300 kB (of 2.4 MB), then the adapter goes off.
      let grown = waitUntil(timeout: .seconds(60)) {
        let size =
          (try? FileManager.default.attributesOfItem(atPath: part)[.size] as? NSNumber)?.intValue
          ?? 0
        return size >= 300_000 || !child.process.isRunning
      }
      try #require(grown && child.process.isRunning, "no transfer under way: \(child.stderr)")
      try rig.bluez.blockingControl("SetPowered", ["boolean:false"])
      let waiting = waitUntil(timeout: .seconds(60)) {
        child.stderr.contains("waiting for the Bluetooth adapter") || !child.process.isRunning
      }
      #expect(waiting && child.process.isRunning, "\(child.stderr)")
      #expect(try rig.emulator.manifest().deletes.isEmpty)
      try rig.bluez.blockingControl("SetPowered", ["boolean:true"])
      let status = child.wait(timeout: .seconds(120))
      #expect(status == 0, "\(child.stderr)")
      try ProcessTests().expectSynced(manifest, out: out, format: "wav")
      #expect(try rig.emulator.manifest().deletes.count == 1)
      #expect(child.stderr.contains("powered off"), "\(child.stderr)")
    }

    @Test("sync --watch survives a bluetoothd restart between two syncs")
    func watchSurvivesBluetoothdRestart() throws {
      let rig = try Rig("bluez-restart", minutes: [0.25])
      defer { rig.stop() }
      let manifest = try rig.emulator.manifest()
      let out = rig.directory.file("out")
      let child = try RecorderProcess(
        [
          "sync", "--out", out, "--format", "wav", "--json", "--watch", "--watch-pause", "0.2",
          "--watch-runs", "2",
        ] + rig.device, in: rig.directory, label: "watch", environment: rig.bluez.environment)
      defer { child.kill() }
      let first = waitUntil(timeout: .seconds(60)) {
        child.stderr.contains("sync 1 complete") || !child.process.isRunning
      }
      try #require(first && child.process.isRunning, "\(child.stderr)")
      rig.bluez.stopBluetoothd()
      let noticed = waitUntil(timeout: .seconds(30)) {
        child.stderr.contains("bluetoothd") || !child.process.isRunning
      }
      #expect(noticed && child.process.isRunning, "\(child.stderr)")
      try rig.bluez.startMock([
        "emulator": String(rig.emulator.url.dropFirst("tcp://".count)), "notify": "descriptor",
      ])
      let status = child.wait(timeout: .seconds(90))
      #expect(status == 0, "\(child.stderr)")
      #expect(child.stderr.contains("sync 2 complete"), "\(child.stderr)")
      try ProcessTests().expectSynced(manifest, out: out, format: "wav")
    }

    @Test("6 seeded SIGKILLs of sync --device ble:SERIAL, then exactly once, never deleted early")
    func killTest() throws {
      let seed =
        ProcessInfo.processInfo.environment["KILL_TEST_SEED"].flatMap { UInt64($0) }
        ?? UInt64(Date().timeIntervalSince1970)
      print("bluez kill test seed: \(seed) (rerun with KILL_TEST_SEED=\(seed))")
      var random = SplitMix64(seed: seed)
      let rig = try Rig("bluez-kill", minutes: [1] + Array(repeating: 0.25, count: 5))
      defer { rig.stop() }
      let manifest = try rig.emulator.manifest()
      let out = rig.directory.file("out")
      let sync =
        ["sync", "--out", out, "--format", "mp3", "--json", "--timeout", "30"] + rig.device
      var kills = 0
      var run = 0
      while kills < 6 {
        run += 1
        // As ProcessTests.killTest: timed by the sync's own progress lines after LIST, so the
        // kills spread over transfers, stores, exports and deletes on any machine.
        let steps = Int.random(in: 0...6, using: &random)
        let delay = Double.random(in: 0...0.1, using: &random)
        let child = try RecorderProcess(
          sync, in: rig.directory, label: "kill-\(run)", environment: rig.bluez.environment)
        waitUntil(timeout: .seconds(60)) {
          let text = child.stderr
          guard let list = text.range(of: "device lists") else { return !child.process.isRunning }
          return text[list.upperBound...].filter { $0 == "\n" }.count - 1 >= steps
            || !child.process.isRunning
        }
        let exited = waitUntil(timeout: .milliseconds(Int64(delay * 1000))) {
          !child.process.isRunning
        }
        if exited {
          let status = child.wait(timeout: .seconds(10))
          #expect(status == 0, "seed \(seed), run \(run): \(child.stderr)")
          break
        }
        child.kill()
        kills += 1
        try ProcessTests().expectNothingDeletedEarly(
          manifest: rig.emulator.manifest(), expected: manifest, out: out, seed: seed, run: run)
      }
      let final = try rig.run(sync, label: "final")
      #expect(final.status == 0, "seed \(seed): \(final.stderr)")
      try ProcessTests().expectSynced(manifest, out: out, format: "mp3")
      let deletes = try rig.emulator.manifest().deletes.map(\.sessionId)
      #expect(
        deletes.sorted() == manifest.recordings.map(\.sessionId).sorted(),
        "seed \(seed): one DELETE per recording")
      print("bluez kill test: \(kills) kills in \(run) runs, seed \(seed)")
    }

    @Test("--adapter picks the adapter; an unknown one is exit 69 naming those there are")
    func adapterChoice() throws {
      let rig = try Rig("bluez-adapter", minutes: [0.25])
      defer { rig.stop() }
      let chosen = try rig.run(
        ["scan", "--timeout", "1", "--json", "--adapter", "hci0"], label: "hci0")
      #expect(chosen.status == 0, "\(chosen.stderr)")
      #expect(try jsonArray(chosen.stdout).count == 1)
      let unknown = try rig.run(["info", "--adapter", "hci7"] + rig.device, label: "hci7")
      #expect(unknown.status == 69, "\(unknown.stderr)")
      #expect(
        unknown.stderr.contains("no Bluetooth adapter hci7 (BlueZ has: hci0)"), "\(unknown.stderr)")
      let usage = try rig.run(
        ["ls", "--device", "tcp://127.0.0.1:1", "--adapter", "hci0", "--token", Self.token],
        label: "usage")
      #expect(usage.status == 64, "\(usage.stderr)")
    }

    @Test("no bluetoothd on the bus: exit 69 and 'bluetoothd is not running'")
    func bluetoothdAbsent() throws {
      let directory = try TemporaryDirectory("bluez-absent")
      let bus = try MockBlueZ(.absent)
      defer { bus.stop() }
      for arguments in [
        ["ls", "--device", "ble", "--token", Self.token], ["scan", "--timeout", "1"],
      ] {
        let result = try RecorderProcess.run(
          arguments, in: directory, label: arguments[0], timeout: .seconds(30),
          environment: bus.environment)
        #expect(result.status == 69, "\(arguments[0]): \(result.stderr)")
        #expect(result.stderr.contains("bluetoothd is not running"), "\(result.stderr)")
      }
    }

    @Test("the bus refuses org.bluez: exit 77 naming the bluetooth group and the D-Bus policy")
    func permissionDenied() throws {
      let rig = try Rig("bluez-denied", denied: true)
      defer { rig.stop() }
      let result = try rig.run(["ls"] + rig.device, label: "ls", timeout: .seconds(30))
      #expect(result.status == 77, "\(result.stderr)")
      #expect(result.stderr.contains("`bluetooth` group"), "\(result.stderr)")
      #expect(result.stderr.contains("AccessDenied"), "\(result.stderr)")
    }

    @Test("the adapter is powered off: exit 69 saying so")
    func adapterOff() throws {
      let rig = try Rig("bluez-off", powered: false)
      defer { rig.stop() }
      let result = try rig.run(["info"] + rig.device, label: "info", timeout: .seconds(30))
      #expect(result.status == 69, "\(result.stderr)")
      #expect(result.stderr.contains("hci0 is powered off"), "\(result.stderr)")
    }

    @Test("a recorder that vanishes during connect ends in a timeout, not a hang")
    func vanishesDuringConnect() throws {
      let rig = try Rig("bluez-vanish")
      defer { rig.stop() }
      // Heard once (bluetoothd keeps the device), then gone: Connect never completes.
      let scan = try rig.run(["scan", "--timeout", "1", "--json"], label: "scan")
      #expect(try jsonArray(scan.stdout).count == 1, "\(scan.stderr)")
      try rig.bluez.blockingControl("Vanish")
      let started = ContinuousClock.now
      let result = try rig.run(
        ["info", "--timeout", "3"] + rig.device, label: "info", timeout: .seconds(60))
      let elapsed = ContinuousClock.now - started
      #expect(result.status == 69, "\(result.stderr)")
      #expect(result.stderr.contains("timed out"), "\(result.stderr)")
      #expect(elapsed < .seconds(45), "took \(elapsed)")
    }
  }
#endif
