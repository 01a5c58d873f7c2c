import Foundation
import RecorderAudio
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import RecorderRemoteLink
import RecorderStore

/// `recorder demo`: the main job end to end against an emulated device, in seconds.
struct DemoCommand: RecorderCommand {
  static let name = "demo"
  static let abstract = "Sync an emulated recorder (one recording an hour long) to ./recordings."
  static let help = """
    OVERVIEW: Start an emulated Plaud Note with four recordings (one an hour long), connect,
    authenticate, and sync them: the backlog (16 MB) goes over the device's Wi-Fi (the
    device raises its hotspot on request over BLE and connects to our WebSocket server, real
    TCP on loopback, its content paced at a modeled 1 MB/s of virtual time); BLE carries
    whatever Wi-Fi does not. Each file is verified, stored, exported, and deleted from the
    device after the batch. Progress bars on stderr when it is a terminal, plain lines
    otherwise; exports land in ./recordings; a summary table at the end (VIA names the
    transport), then the device's list, now empty. With --ble-only the simulated BLE link
    runs in virtual time, so the hour that takes the radio about nine minutes takes seconds
    here.

    USAGE: recorder demo [--ble-only] [--realtime] [--format F] [--out DIR] [--capture] [--json]

    OPTIONS:
      --ble-only     Everything over BLE (simulated radio, virtual time).
      --realtime     Run the BLE link at radio speed (the hour-long file takes ~9 minutes).
      --format F     opus (default: Ogg Opus, the device's packets as they are), mp3,
                     wav or pcm. An hour of MP3 costs ~35 s of encoding.
      --out DIR      Where exports go (default ./recordings).
      --capture      Instead, decode the captured V0095 session of PROTOCOL.md §11.
      --json         With --capture: one JSON object per frame.
      -h, --help     Show this help.
    """

  var realtime: Bool
  var bleOnly: Bool
  var format: ExportFormat
  var out: String
  var capture: Bool
  var json: Bool

  init(arguments: inout Arguments) throws {
    realtime = arguments.flag("realtime")
    bleOnly = arguments.flag("ble-only")
    // Ogg Opus by default: the device's packets are passed through, so the demo takes
    // seconds; an hour of MP3 is ~35 s of LAME on one core.
    let formatName = try arguments.choice("format", ["mp3", "wav", "opus", "pcm"]) ?? "opus"
    format = ExportFormat(rawValue: formatName) ?? .opus
    out = try arguments.option("out") ?? "recordings"
    capture = arguments.flag("capture")
    json = arguments.flag("json")
    try arguments.finish()
  }

  func run() async throws {
    if capture {
      try await CaptureDemo(json: json).run()
      return
    }
    let started = ContinuousClock.now
    let work = NSTemporaryDirectory() + "recorder-demo-\(getpid())"
    defer { try? FileManager.default.removeItem(atPath: work) }
    // The emulated device's time, which the SDK's side shares: virtual unless --realtime.
    let deviceTime: EmulatorTime = realtime ? .real(.continuous) : .simulated()
    let sessionClock = deviceTime.clock
    defer { deviceTime.stop() }

    printError(
      "Setting up an emulated Plaud Note (V0095) with 4 recordings: 60 min, 5 min, 2 min, 30 s …")
    let device: EmulatedDevice
    do {
      device = try EmulatedDevice(flashDirectory: work + "/flash", time: deviceTime)
      for minutes in [60.0, 5, 2, 0.5] {
        try await device.addRecording(duration: .seconds(minutes * 60))
      }
    } catch {
      throw CommandFailure(.ioError, "cannot set up the emulated device: \(error)")
    }
    let central = EmulatorCentral(devices: [device])
    let state = work + "/state"
    let fileSystem = PosixFileSystem()
    let journal: Journal
    do {
      try fileSystem.createDirectory(state)
      try fileSystem.createDirectory(out)
      journal = try Journal(path: StorageLayout(root: state).journal)
    } catch {
      throw CommandFailure(.ioError, "\(error)")
    }
    var options = SyncEngine.Options()
    options.format = format
    options.exportDirectory = out
    let engine = SyncEngine(
      journal: journal, fileSystem: fileSystem, root: state, options: options, clock: sessionClock)
    let renderer = ProgressRenderer()

    var configuration = DeviceSession.Configuration(token: DeviceConfiguration.exampleToken)
    configuration.clock = sessionClock
    let sessionConfiguration = configuration
    // The emulator host's hotspot join port: on a phone, joining is the platform's job.
    let join: HotspotJoinServer?
    do {
      join = bleOnly ? nil : try HotspotJoinServer { await device.joinHotspot($0) }
    } catch {
      throw CommandFailure(.unavailable, "cannot open the hotspot join port: \(error)")
    }
    defer { join?.stop() }
    let wifi = join.map {
      WiFiSyncPlan(
        joiner: JoinPortJoiner(joinPort: HotspotJoinPort(port: $0.port)),
        link: WiFiLink.Configuration(host: "127.0.0.1", port: 0))
    }
    let recorders = Recorders(
      radio: .shared(central), configuration: .init(session: sessionConfiguration))
    let syncStart = deviceTime.elapsed
    let report = try await runSync(
      recorders, serial: device.serial, into: engine,
      options: SyncRunOptions(maximumAttempts: 3, wifi: wifi),
      pipeline: { await renderer.render($0) })
    let virtual = deviceTime.elapsed - syncStart
    await renderer.end()
    print(renderSummary(report))

    let connection = try await recorders.connect(serial: device.serial)
    let left = try await connection.session.listRecordings()
    await connection.close()
    let real = ContinuousClock.now - started
    print("\nThe device now holds \(left.count) recording\(left.count == 1 ? "" : "s").")
    let bytes = report.files.reduce(Int64(0)) { $0 + $1.size }
    let overWiFi = report.files.filter { $0.transport?.contains("wifi") == true }
    if !overWiFi.isEmpty {
      let wifiBytes = overWiFi.reduce(Int64(0)) { $0 + $1.size }
      print(
        "Synced \(formatBytes(bytes)) in \(String(format: "%.1f", real.seconds)) s of real time; "
          + "Wi-Fi (WebSocket on loopback TCP) carried \(formatBytes(wifiBytes)) in "
          + "\(overWiFi.count) file\(overWiFi.count == 1 ? "" : "s")"
          + (overWiFi.count < report.files.count ? ", BLE the rest" : "")
          + (realtime ? "." : "; the simulated device took \(Int(virtual.seconds)) s."))
    } else if realtime {
      print("Synced \(formatBytes(bytes)) in \(Int(real.seconds)) s at radio speed.")
    } else {
      print(
        "Synced \(formatBytes(bytes)) in \(String(format: "%.1f", real.seconds)) s of real time; "
          + "the simulated radio took \(Int(virtual.seconds)) s "
          + "(2M PHY, 15 ms interval, 5 packets per event).")
    }
    print("Exports are in \(out)/.")
  }
}
