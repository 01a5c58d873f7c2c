import Foundation
import RecorderAudio
import RecorderConcurrency
import RecorderKit
import RecorderProtocol
import RecorderRemoteLink
import RecorderStore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `recorder passive run`: the Linux gateway. Restores the registered set from the journal,
/// scans through the device link, reads what appears (pairing first where needed), keeps
/// each record in the outbox and uploads it; syncs registered recorders when they appear.
struct PassiveRun {
  var root: String
  var device: String
  var endpoint: URL?
  var quietPeriod: Duration
  var token: DeviceToken?
  var format: ExportFormat?
  /// Print a `stats` line every this many readings (nil: never).
  var statsEvery: Int?

  init(arguments: inout Arguments) throws {
    root = try arguments.required("root")
    device = try arguments.required("device")
    if let text = try arguments.option("endpoint") {
      guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https" else {
        throw UsageError("--endpoint must be an http:// or https:// URL")
      }
      endpoint = url
    }
    let quiet = try arguments.option("quiet-seconds", as: Double.self) ?? 15
    guard quiet >= 0, quiet <= 3600 else { throw UsageError("--quiet-seconds must be 0-3600") }
    quietPeriod = .milliseconds(Int64(quiet * 1000))
    let option = try arguments.option("token")
    let file = try arguments.option("token-file")
    let environment = ProcessInfo.processInfo.environment[DeviceOptions.tokenVariable]
    if option != nil || file != nil || environment != nil {
      token = try DeviceOptions.token(option: option, file: file, environment: environment)
    }
    let formatName = try arguments.choice("format", ["mp3", "wav", "opus", "pcm"]) ?? "mp3"
    format = ExportFormat(rawValue: formatName)
    if let every = try arguments.option("stats-every", as: Int.self) {
      guard every > 0 else { throw UsageError("--stats-every must be at least 1") }
      statsEvery = every
    }
  }

  func run() async throws {
    let journal = try PassiveCommand.openJournal(root)
    let central: TCPCentral
    do {
      central = try TCPCentral(url: device)
      try await central.open()
    } catch {
      throw CommandFailure(.unavailable, "cannot reach \(device): \(error)")
    }
    defer { central.close() }

    var recorderSync: (any PassiveRecorderSync)?
    if let token {
      var options = SyncEngine.Options()
      options.format = format
      recorderSync = SessionRecorderSync(
        central: central, configuration: DeviceSession.Configuration(token: token),
        engine: SyncEngine(journal: journal, root: root, options: options))
    }
    let uploader = endpoint.map { RecordUploader(journal: journal, options: .init(endpoint: $0)) }
    var options = PassiveReader.Options()
    options.quietPeriod = quietPeriod
    let reader = try PassiveReader(
      journal: journal, central: central, options: options, recorderSync: recorderSync,
      onRecord: { _ in uploader?.poke() })
    if recorderSync == nil,
      await reader.registeredPeripherals.contains(where: { $0.kind == .recorder })
    {
      printError("warning: a recorder is registered but no token was given: it is not synced")
    }

    await withTaskGroup(of: Void.self) { group in
      group.addTask { [statsEvery] in await Self.report(reader, statsEvery: statsEvery) }
      group.addTask { await reader.run() }
      if let uploader {
        group.addTask { await Self.report(uploader.events) }
        group.addTask { await uploader.run() }
      }
      await group.waitForAll()
    }
  }

  /// One stdout line per reader event (flushed: another process may be watching), and every
  /// `statsEvery` readings a `stats` line.
  private static func report(_ reader: PassiveReader, statsEvery: Int?) async {
    var readings = 0
    for await event in reader.events {
      switch event {
      case .restored(let peripherals):
        printError(
          "restored \(peripherals.count) registered peripheral(s)"
            + (peripherals.isEmpty
              ? "" : ": " + peripherals.map(\.identifier).joined(separator: ", ")))
      case .pairingInstructions(let id, let text): emit("instructions \(id): \(text)")
      case .paired(let id): emit("paired \(id)")
      case .recorded(let record):
        emit("read \(record.peripheral) \(record.kind) \(record.idempotencyKey)")
        readings += 1
        if let statsEvery, readings % statsEvery == 0 {
          emit(stats(await reader.holdings, readings: readings))
        }
      case .recorderSynced(let serial, let files): emit("synced \(serial) \(files)")
      case .failed(let id, let error): printError("failed \(id): \(error)")
      }
    }
  }

  private static func report(_ events: AsyncStream<UploadEvent>) async {
    for await event in events {
      switch event {
      case .delivered(let key): emit("uploaded \(key)")
      case .failed(let key, let error): printError("upload of \(key) failed: \(error)")
      }
    }
  }

  /// `stats READINGS run-tasks T cooldown C retries R discoveries D [rss-kb K]`: what the
  /// reader holds after READINGS readings (each figure bounded however long it runs), and the
  /// process's resident set where the system tells it.
  static func stats(_ holdings: PassiveHoldings, readings: Int) -> String {
    var line =
      "stats \(readings) run-tasks \(holdings.runTasks) cooldown \(holdings.cooldownEntries)"
      + " retries \(holdings.retryEntries) discoveries \(holdings.discoveries)"
    if let kilobytes = residentKilobytes() { line += " rss-kb \(kilobytes)" }
    return line
  }

  /// VmRSS from /proc/self/status (Linux); nil elsewhere.
  static func residentKilobytes() -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
      let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
    else { return nil }
    let fields = line.split { $0 == " " || $0 == "\t" }
    return fields.dropFirst().first.flatMap { Int($0) }
  }

  private static func emit(_ line: String) {
    print(line)
    fflush(nil)  // every stream: stdout is a file or a pipe when another process watches
  }
}
