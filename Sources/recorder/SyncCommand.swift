import Foundation
import RecorderAudio
import RecorderConcurrency
import RecorderKit
import RecorderRemoteLink
import RecorderStore

#if os(Linux)
  import RecorderBlueZ
#endif

/// `recorder sync`: every recording from a device into a folder, exactly once, verified,
/// then deleted from the device (unless `--keep-on-device`).
struct SyncCommand: RecorderCommand {
  static let name = "sync"
  static let abstract = "Sync a device's recordings to a folder, exactly once, verified."
  static let help = """
    OVERVIEW: Transfer every recording from the device to DIR, verify it, export it, and
    only then delete it from the device. Safe to interrupt at any moment: run it again and
    it resumes from its journal (DIR/journal.sqlite), with each recording exactly once in
    DIR/exports. Progress goes to stderr; the summary to stdout. One sync at a time per DIR:
    it holds DIR/sync.lock while it runs; a second one exits 75 at once, or waits with --wait.

    USAGE: recorder sync --device URL --token-file PATH --out DIR [--format F]
                         [--wifi --hotspot URL] [options]
           (or the token in RECORDER_TOKEN, or --token T)

    OPTIONS:
    \(DeviceOptions.help)
    \(USBDeviceChoice.help)
    \(DeviceOptions.cloudHelp)
      --out DIR             Where the journal, raw copies and exports go.
      --format F            mp3 (default), wav, opus, pcm, or raw (keep device bytes only).
                            Exports are per format: another format later exports again.
      --channels 1|2        Export channels (default: as recorded).
      --keep-on-device      Do not delete device copies.
      --strict-verify       Before deleting, read again every byte range that only the
                            framing checks covered, with its own tail CRC; delete only
                            files the device's CRC covered throughout.
      --trust-agreement     Also delete files "verified by agreement" (two identical reads
                            that the device's CRC matched under no known coverage).
      --attempts N          Reconnect up to N times after a link loss (default 20). A rejected
                            token, a full disk or a hostile device ends the run at once.
      --wait                If another sync holds DIR/sync.lock, wait for it to finish.
      --wifi                Move a large backlog over the device's Wi-Fi (PROTOCOL.md §6),
                            BLE for the rest and whenever Wi-Fi fails.
      --hotspot URL         Join the device's hotspot through tcp://HOST:PORT, the join
                            port `recorder emulate` prints. Without it, on Linux, through
                            NetworkManager (a connection of our own, deleted afterwards).
      --wifi-min-backlog B  Use Wi-Fi only when at least B bytes are left (default 4194304).
      --wifi-listen HOST    Address our WebSocket server binds (default 127.0.0.1 with
                            --hotspot; through NetworkManager, this host's address on the
                            joined hotspot). Never every interface (0.0.0.0 is refused);
                            only the device's address is admitted.
      --wifi-port P         Port our WebSocket server binds (default: any with --hotspot,
                            8081 through NetworkManager, the port the device connects to).
      --wifi-join-timeout S Keep retrying to join the hotspot for S seconds, starting ~3 s
                            after WIFI_OPEN, before falling back to BLE (default 60).
      --json                The summary as JSON.
      --usb-source asr|wav  With --device usb: export from the device's Opus (.ASR, the
                            default) or from the WAV (lossless stereo: --format wav is the
                            device's WAV itself; mp3 and pcm are made from its samples).
                            The WAV is always copied beside the raw copy.
      --scrub-serial        With --device usb: zero the SN:<serial> watermark in the pad chunk
                            of every WAV copied off the volume (nothing else changes).
    \(SyncWatch.help)
    \(SyncSteps.help)
      -h, --help            Show this help.
    """

  var device: DeviceOptions?
  /// `--device usb[:PATH]`, with `--usb-source` and `--scrub-serial`.
  var usb: (choice: USBDeviceChoice, options: USBTransport.Options)?
  var out: String
  var format: ExportFormat?
  var channels: Int?
  var keepOnDevice: Bool
  var strictVerify: Bool
  var trustAgreement: Bool
  var attempts: Int
  var json: Bool
  var waitForLock: Bool
  var wifi: WiFiSyncPlan?
  /// `--watch`: stay running as a gateway.
  var watch: SyncWatch?
  /// `--exec`, `--webhook`, `--sidecar`.
  var steps: SyncSteps

  init(arguments: inout Arguments) throws {
    if let choice = try USBDeviceChoice.parse(&arguments) {
      var options = USBTransport.Options()
      // The format and channels are set below, once --format and --channels are read.
      let fromWAV = try arguments.choice("usb-source", ["asr", "wav"]) == "wav"
      options.wavExport = fromWAV ? ExportOptions(format: .wav) : nil
      options.scrubSerial = arguments.flag("scrub-serial")
      usb = (choice, options)
    } else {
      device = try DeviceOptions.parseWithCloud(&arguments)
      if try arguments.option("usb-source") != nil || arguments.flag("scrub-serial") {
        throw UsageError("--usb-source and --scrub-serial go with --device usb")
      }
    }
    out = try arguments.required("out")
    let formatName = try arguments.choice("format", ["mp3", "wav", "opus", "pcm", "raw"]) ?? "mp3"
    format = formatName == "raw" ? nil : ExportFormat(rawValue: formatName)
    channels = try arguments.option("channels", as: Int.self)
    if let channels, channels != 1, channels != 2 { throw UsageError("--channels must be 1 or 2") }
    if usb?.options.wavExport != nil {
      guard let format, format != .opus else {
        throw UsageError(
          "--usb-source wav exports wav, mp3 or pcm (opus comes from the device's own Opus)")
      }
      usb?.options.wavExport = ExportOptions(format: format, channels: channels)
    }
    keepOnDevice = arguments.flag("keep-on-device")
    strictVerify = arguments.flag("strict-verify")
    trustAgreement = arguments.flag("trust-agreement")
    attempts = try arguments.option("attempts", as: Int.self) ?? 20
    guard attempts >= 1 else { throw UsageError("--attempts must be at least 1") }
    json = arguments.flag("json")
    waitForLock = arguments.flag("wait")
    watch = try SyncWatch(arguments: &arguments)
    steps = try SyncSteps(arguments: &arguments)
    let useWiFi = arguments.flag("wifi")
    let hotspot = try arguments.option("hotspot")
    let minimumBacklog = try arguments.option("wifi-min-backlog", as: Int64.self)
    let listen = try arguments.option("wifi-listen")
    let listenPort = try arguments.option("wifi-port", as: UInt16.self)
    if let listen, WiFiLink.Configuration.isEveryInterface(listen) {
      throw UsageError(
        "--wifi-listen must name one address (the hotspot interface's), not every interface")
    }
    let joinTimeout = try arguments.option("wifi-join-timeout", as: Double.self)
    if usb != nil, useWiFi || watch != nil {
      throw UsageError("--device usb syncs a mounted volume: no --wifi, no --watch")
    }
    if useWiFi {
      var plan: WiFiSyncPlan
      if let hotspot {
        // The same tcp://HOST:PORT syntax as --device.
        guard let address = try? TCPCentral(url: hotspot) else {
          throw UsageError("--hotspot must be tcp://HOST:PORT")
        }
        plan = WiFiSyncPlan(
          joiner: JoinPortJoiner(joinPort: HotspotJoinPort(host: address.host, port: address.port)),
          link: WiFiLink.Configuration(host: listen ?? "127.0.0.1", port: listenPort ?? 0))
      } else {
        plan = try Self.networkManagerPlan(
          listen: listen, port: listenPort, joinTimeout: joinTimeout)
      }
      if let minimumBacklog {
        guard minimumBacklog >= 0 else { throw UsageError("--wifi-min-backlog must be ≥ 0") }
        plan.minimumBacklogBytes = minimumBacklog
      }
      if let joinTimeout {
        guard joinTimeout >= 0, joinTimeout <= 3600 else {
          throw UsageError("--wifi-join-timeout must be 0-3600 seconds")
        }
        plan.join.timeout = .seconds(joinTimeout)
      }
      wifi = plan
    } else if hotspot != nil || minimumBacklog != nil || joinTimeout != nil || listenPort != nil {
      throw UsageError(
        "--hotspot, --wifi-min-backlog, --wifi-join-timeout and --wifi-port need --wifi")
    }
    try arguments.finish()
  }

  /// `--wifi` without `--hotspot`: NetworkManager's joiner on Linux (its presence is checked
  /// when the sync runs); elsewhere a usage error.
  private static func networkManagerPlan(listen: String?, port: UInt16?, joinTimeout: Double?)
    throws -> WiFiSyncPlan
  {
    #if os(Linux)
      // The SSID must show up within the join window (at most 30 s a join attempt).
      let window = Duration.seconds(min(max(joinTimeout ?? 60, 1), 30))
      let client = NetworkManagerClient(options: .init(scanTimeout: window))
      // Without --wifi-listen: on the joined network's address, port 8081 (PROTOCOL.md §6).
      return WiFiSyncPlan(
        joiner: NetworkManagerJoiner(client: client),
        link: WiFiLink.Configuration(host: listen, port: port ?? 8081))
    #else
      throw UsageError("--wifi needs --hotspot tcp://HOST:PORT")
    #endif
  }

  func run() async throws {
    #if os(Linux)
      if let joiner = wifi?.joiner as? NetworkManagerJoiner, !(await joiner.client.isRunning()) {
        throw CommandFailure(
          .unavailable,
          "--wifi needs NetworkManager on the system bus to join the device's hotspot "
            + "(or --hotspot tcp://HOST:PORT for `recorder emulate`)")
      }
    #endif
    let powerLoss = try SimulatedPowerLoss.fromEnvironment()
    defer { powerLoss?.finish() }
    try await run(fileSystem: powerLoss?.fileSystem ?? PosixFileSystem())
  }

  private func run(fileSystem: any DurableFileSystem) async throws {
    do { try fileSystem.createDirectory(out) } catch {
      throw CommandFailure(.ioError, "\(error)")
    }
    // Held until the process ends (the kernel drops it then, however it ends).
    let lock = try await lockFolder()
    defer { withExtendedLifetime(lock) {} }
    let journal: Journal
    do { journal = try Journal(path: StorageLayout(root: out).journal) } catch {
      throw CommandFailure(.ioError, "\(error)")
    }
    var options = SyncEngine.Options()
    // Checked before every DELETE: a folder whose lock no longer holds deletes nothing.
    options.folderLock = lock
    options.format = format
    options.channels = channels
    options.deleteFromDevice = !keepOnDevice
    options.strictVerify = strictVerify
    options.trustAgreement = trustAgreement
    options.finishSteps = steps.steps
    options.finishStepPolicy = steps.policy
    guard let device else {
      let engine = SyncEngine(journal: journal, fileSystem: fileSystem, root: out, options: options)
      let report = try await syncUSB(engine)
      return try await finish(report, steps: engine)
    }
    // Recordings stored end-to-end encrypted export with the same user key as Mode B.
    options.userKey = device.modeB
    let engine = SyncEngine(journal: journal, fileSystem: fileSystem, root: out, options: options)
    let recorders = device.recorders()
    let runOptions = SyncRunOptions(maximumAttempts: attempts, wifi: wifi)
    if let watch {
      // A watch logs the engine's events itself (a gateway's log, not progress bars).
      try await watch.run(
        recorders, serial: device.serial, into: engine, options: runOptions, json: json)
      try await SyncSteps.finish(engine)
      return
    }
    let renderer = ProgressRenderer()
    let report = try await runSync(
      recorders, serial: device.serial, into: engine, options: runOptions,
      pipeline: { await renderer.render($0) })
    await renderer.end()
    try await finish(report, steps: engine)
  }

  /// Every volume of `--device usb` through the front door's volume door into `engine`; a
  /// volume that cannot be read exits 69, a run that stops with its exit code.
  private func syncUSB(_ engine: SyncEngine) async throws -> SyncReport {
    guard let usb else { throw UsageError("--device usb is needed") }
    let renderer = ProgressRenderer()
    let (events, continuation) = AsyncStream.makeStream(of: SyncEvent.self)
    let rendering = Task { await renderer.run(events) }
    defer { rendering.cancel() }
    do {
      let report = try await Recorders.syncVolumes(
        usb.choice.roots, options: usb.options, into: engine,
        report: { if case .pipeline(let event) = $0 { continuation.yield(event) } })
      continuation.finish()
      await rendering.value
      return report
    } catch let error as USBVolumeError {
      throw CommandFailure(.unavailable, "\(error)")
    } catch {
      throw syncFailure(error)
    }
  }

  /// Waits for the finish steps `engine` owes, then prints `report`; some recordings given
  /// up exits 3, some unverified 1, else a step still owed 4.
  private func finish(_ report: SyncReport, steps engine: SyncEngine) async throws {
    var owed: (any Error)?
    do { try await SyncSteps.finish(engine) } catch { owed = error }
    try finish(report)
    if let owed { throw owed }
  }

  /// Prints `report`; some recordings given up exits 3, some unverified 1.
  private func finish(_ report: SyncReport) throws {
    print(json ? renderSummaryJSON(report) : renderSummary(report))
    for line in renderGivenUp(report) { printError(line) }
    if !report.givenUp.isEmpty {
      throw CommandFailure(
        .givenUp,
        "\(report.givenUp.count) recording(s) given up for this run; the rest were synced")
    }
    if report.files.contains(where: { !$0.verified }) {
      throw CommandFailure(
        .failure, "some recordings could not be verified; they were kept on the device")
    }
  }

  /// Takes `out`'s lock, waiting for it with `--wait`; without, a held lock exits 75 at once.
  private func lockFolder() async throws -> FolderLock {
    do throws(FolderLockError) {
      return try FolderLock.acquire(root: out)
    } catch .held(let path) where waitForLock {
      printError("waiting for another sync to release \(path) …")
      do { return try await FolderLock.acquireWaiting(root: out) } catch {
        throw CommandFailure(.ioError, "\(error)")
      }
    } catch .held(let path) {
      throw CommandFailure(
        .busy, "another sync is using \(out): its lock \(path) is held (pass --wait to wait for it)"
      )
    } catch {
      throw CommandFailure(.ioError, "\(error)")
    }
  }
}
