import Dispatch
import Foundation
import RecorderAudio
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import RecorderStore
import TestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Issue 5's figures: link utilization of a sync (one 1-hour recording; 100 recordings of
/// 30 s), measured in virtual time on the in-process emulator, with the real time it took;
/// and peak RSS of a 30-minute and a 5-hour sync, each in its own child process
/// (`RecorderBench sync --rss-child MINUTES`, which prints its own peak RSS).
///
/// Utilization = file bytes ÷ (capacity × virtual time from the first SYNC_START to the last
/// DELETE reply), capacity = packets per event × 80 data bytes ÷ connection interval at the
/// default link parameters (5 × 80 B / 15 ms = 26 666.7 B/s).
enum SyncBenchmarks {
  static func run() throws {
    let arguments = Array(CommandLine.arguments.dropFirst())
    if arguments.count == 3, arguments[0] == "sync", arguments[1] == "--rss-child",
      let minutes = Double(arguments[2])
    {
      try rssChild(minutes: minutes)
      exit(0)
    }
    let link = LinkParameters()
    let capacity = Double(link.packetsPerConnectionEvent) * 80 / link.connectionInterval.seconds
    print(
      "== sync: in-process emulator, virtual-time link (\(link.packetsPerConnectionEvent) packets/event, "
        + "\(format(link.connectionInterval.seconds * 1000)) ms interval), capacity \(format(capacity)) B/s, mp3 exports"
    )
    for (label, minutes) in [
      ("1 × 60 min", [60.0]), ("100 × 30 s", Array(repeating: 0.5, count: 100)),
    ] {
      let figures = try blocking { try await sync(minutes: minutes) }
      let utilization = Double(figures.bytes) / (capacity * figures.window.seconds)
      print(
        "\(label.padding(toLength: 11, withPad: " ", startingAt: 0))  utilization \(format(utilization, 3))  "
          + "\(figures.bytes) bytes in \(format(figures.window.seconds)) s virtual "
          + "(first SYNC_START → last DELETE reply)  real \(format(figures.real.seconds)) s  "
          + "files \(figures.files)  reissues \(figures.reissues)")
    }
    // Issue 19.4: a link that loses one frame every 256 KiB; the whole hour still comes
    // over, re-issued from the last good byte, on one connection.
    let lossy = try blocking {
      try await sync(minutes: [60], faults: FaultPlan(loseDataFrameEveryBytes: 256 * 1024))
    }
    print(
      "1 × 60 min, a frame lost every 256 KiB: moved \(lossy.moved) B for \(lossy.bytes) B = "
        + "\(format(Double(lossy.moved) / Double(max(lossy.bytes, 1)), 4))× (target ≤ 1.05)  "
        + "reissues \(lossy.reissues)  connections \(lossy.connections)  "
        + "utilization \(format(Double(lossy.bytes) / (capacity * lossy.window.seconds), 3))  "
        + "real \(format(lossy.real.seconds)) s")
    var peaks: [Double: Int] = [:]
    for minutes in [30.0, 300.0] {
      let started = ContinuousClock.now
      let peak = try rssOfChild(minutes: minutes)
      peaks[minutes] = peak
      print(
        "peak RSS, sync of one \(minutes == 30 ? "30-minute" : "5-hour") recording (child process): "
          + "\(format(Double(peak) / 1024)) MB  (real \(format((ContinuousClock.now - started).seconds)) s)"
      )
    }
    if let short = peaks[30], let long = peaks[300] {
      print("peak RSS 5 h − 30 min: \(format(Double(long - short) / 1024)) MB")
    }
  }

  struct Figures {
    var bytes: Int64
    var window: Duration
    var real: Duration
    var files: Int
    var reissues: Int
    /// Every data byte the device sent, those thrown away after a gap included.
    var moved: Int64
    var connections: Int
  }

  /// One sync of an emulated device holding recordings of `minutes`, on a manual clock.
  static func sync(minutes: [Double], faults: FaultPlan = .none) async throws -> Figures {
    let work = "/tmp/recorder-bench-sync-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    defer { try? FileManager.default.removeItem(atPath: work) }
    let manual = ManualClock()
    let clock = AnyClock(manual)
    let device = try EmulatedDevice(flashDirectory: work + "/flash", time: .manual(manual))
    for length in minutes { try await device.addRecording(duration: .seconds(length * 60)) }
    await device.setFaults(faults)
    manual.startAutoAdvance()
    defer { manual.stopAutoAdvance() }

    let central = EmulatorCentral(devices: [device])
    let fileSystem = PosixFileSystem()
    try fileSystem.createDirectory(work + "/state")
    let journal = try Journal(path: work + "/state/journal.sqlite")
    let engine = SyncEngine(
      journal: journal, fileSystem: fileSystem, root: work + "/state", clock: clock)
    // Progress events are buffered until read: drain them.
    let draining = Task { for await _ in engine.events {} }
    defer { draining.cancel() }

    var configuration = DeviceSession.Configuration(token: DeviceConfiguration.exampleToken)
    configuration.clock = clock
    let found = try await RecorderScanner(central: central, clock: clock).find(
      serial: device.serial, timeout: .seconds(10))
    let session = try await DeviceSession.connect(
      to: found, using: central, configuration: configuration)
    let transport = TimedTransport(base: BLETransport(session: session), clock: manual)
    let started = ContinuousClock.now
    let report = try await engine.sync(using: transport)
    let real = ContinuousClock.now - started
    await session.close()
    let (first, last) = transport.window
    let counters = await device.counters
    return Figures(
      bytes: report.files.reduce(0) { $0 + $1.size }, window: (last ?? .zero) - (first ?? .zero),
      real: real,
      files: report.files.count, reissues: report.reissues, moved: Int64(counters.dataBytesSent),
      connections: counters.connections)
  }

  /// The child: one sync, then its own peak RSS (KiB) on stdout.
  static func rssChild(minutes: Double) throws {
    let figures = try blocking { try await sync(minutes: [minutes]) }
    guard figures.files == 1 else { throw BenchError("the child synced \(figures.files) files") }
    print("peakKB \(peakRSSKilobytes())")
  }

  static func rssOfChild(minutes: Double) throws -> Int {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = ["sync", "--rss-child", "\(minutes)"]
    let out = Pipe()
    process.standardOutput = out
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let text = String(decoding: data, as: UTF8.self)
    guard process.terminationStatus == 0,
      let line = text.split(separator: "\n").first(where: { $0.hasPrefix("peakKB ") }),
      let kilobytes = Int(line.dropFirst("peakKB ".count))
    else { throw BenchError("the RSS child failed: \(text)") }
    return kilobytes
  }

  /// This process's peak resident set size in KiB.
  static func peakRSSKilobytes() -> Int {
    var usage = rusage()
    #if canImport(Darwin)
      getrusage(RUSAGE_SELF, &usage)
      return Int(usage.ru_maxrss) / 1024
    #else
      getrusage(RUSAGE_SELF.rawValue, &usage)
      return Int(usage.ru_maxrss)
    #endif
  }

  static func format(_ value: Double, _ digits: Int = 1) -> String {
    String(format: "%.\(digits)f", value)
  }
}

/// A transport that notes, in virtual time, when the first SYNC_START went out and when the
/// last DELETE reply came back.
struct TimedTransport: RecordingTransport {
  let base: BLETransport
  let clock: ManualClock
  private let times = Locked<(first: Duration?, last: Duration?)>((nil, nil))

  init(base: BLETransport, clock: ManualClock) {
    self.base = base
    self.clock = clock
  }

  var window: (first: Duration?, last: Duration?) { times.withLock { $0 } }
  var name: String { base.name }
  var serial: String { get async { await base.serial } }
  var audioChannels: Int { get async { await base.audioChannels } }

  func listRecordings() async throws(DeviceError) -> [Recording] { try await base.listRecordings() }
  func recordingInProgress() async throws(DeviceError) -> SessionID? {
    try await base.recordingInProgress()
  }

  func stream(
    sessionId: SessionID, start: UInt32, end: UInt32,
    receive: @Sendable (BulkFrame) async -> StreamDecision
  ) async throws(DeviceError) -> SyncTail? {
    let now = clock.elapsed
    times.withLock { if $0.first == nil { $0.first = now } }
    return try await base.stream(sessionId: sessionId, start: start, end: end, receive: receive)
  }

  func delete(sessionId: SessionID) async throws(DeviceError) {
    try await base.delete(sessionId: sessionId)
    let now = clock.elapsed
    times.withLock { $0.last = now }
  }
}

struct BenchError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

/// Runs async work from the synchronous benchmark driver (the main thread is not one of the
/// concurrency pool's threads, so blocking it is safe).
func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
  let box = Locked<Result<T, any Error>?>(nil)
  let done = DispatchSemaphore(value: 0)
  Task {
    do {
      let value = try await body()
      box.withLock { $0 = .success(value) }
    } catch {
      box.withLock { $0 = .failure(error) }
    }
    done.signal()
  }
  done.wait()
  guard let result = box.withLock({ $0 }) else { throw BenchError("no result") }
  return try result.get()
}
