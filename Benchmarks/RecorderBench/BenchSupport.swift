import Foundation
import RecorderAudio
import RecorderBluetooth
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import RecorderStore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// CPU time (user + system) of this process, or of the calling thread, in seconds. Real CPU,
/// not wall time: the figure to compare on a machine shared with other jobs.
enum CPUTime {
  static func process() -> Double { seconds(RUSAGE_SELF) }

  /// The calling thread only (Linux RUSAGE_THREAD): for synchronous work that cannot hop
  /// threads (an fsync, a hash, an export), measured while other tasks run beside it.
  static func thread() -> Double {
    #if os(Linux)
      // RUSAGE_THREAD (1) is behind _GNU_SOURCE in Glibc's header, so Swift does not see it.
      seconds(__rusage_who(rawValue: 1))
    #else
      seconds(RUSAGE_SELF)
    #endif
  }

  #if os(Linux)
    private static func seconds(_ who: __rusage_who) -> Double {
      var usage = rusage()
      getrusage(who.rawValue, &usage)
      return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
  #else
    private static func seconds(_ who: Int32) -> Double {
      var usage = rusage()
      getrusage(who, &usage)
      return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
  #endif

  /// Process CPU seconds and wall seconds of `body`.
  static func measure<T>(_ body: () throws -> T) rethrows -> (value: T, cpu: Double, wall: Double) {
    let cpu = process()
    let wall = ContinuousClock.now
    let value = try body()
    return (value, process() - cpu, (ContinuousClock.now - wall).seconds)
  }
}

/// A scratch folder under /tmp, removed by `cleanUp()`.
struct Scratch {
  let path: String
  init(_ name: String) throws {
    path =
      "/tmp/recorder-bench-\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }
  func cleanUp() { try? FileManager.default.removeItem(atPath: path) }
}

/// An emulated device on a manual clock, reached through the in-process central, and a sync
/// engine with its own journal: the set-up every sync figure shares (virtual-time link).
final class EmulatorRig: Sendable {
  let scratch: Scratch
  let manual = ManualClock()
  let device: EmulatedDevice
  let central: CountingCentral
  let fileSystem: CountingFileSystem
  let journal: Journal

  var clock: AnyClock { AnyClock(manual) }
  var root: String { scratch.path + "/state" }

  /// - Parameter recordings: lengths of the recordings the device holds, oldest first.
  init(recordings: [Duration]) async throws {
    scratch = try Scratch("rig")
    device = try EmulatedDevice(flashDirectory: scratch.path + "/flash", time: .manual(manual))
    var id: UInt32 = 1_700_000_000
    for length in recordings {
      try await device.addRecording(duration: length, sessionId: SessionID(id))
      id += UInt32(length.components.seconds) + 60
    }
    central = CountingCentral(base: EmulatorCentral(devices: [device]))
    fileSystem = CountingFileSystem()
    try fileSystem.createDirectory(scratch.path + "/state")
    journal = try Journal(path: scratch.path + "/state/journal.sqlite")
  }

  func makeEngine(format: ExportFormat? = .mp3) -> SyncEngine {
    var options = SyncEngine.Options()
    options.format = format
    return SyncEngine(
      journal: journal, fileSystem: fileSystem, root: root, options: options, clock: clock)
  }

  /// Scans, connects and authenticates; the manual clock must be advancing.
  func connect() async throws -> DeviceSession {
    var configuration = DeviceSession.Configuration(token: DeviceConfiguration.exampleToken)
    configuration.clock = clock
    let found = try await RecorderScanner(central: central, clock: clock).find(
      serial: device.serial, timeout: .seconds(10))
    return try await DeviceSession.connect(to: found, using: central, configuration: configuration)
  }

  func cleanUp() { scratch.cleanUp() }
}

/// A central that counts the phone's requests over its links: every write, read, MTU
/// exchange and notification switch waits for the device's answer (one request at a time,
/// PROTOCOL.md §4), so the count is the round trips the phone paid for.
final class CountingCentral: Central {
  let base: any Central
  private let counted = Locked(0)

  init(base: any Central) { self.base = base }

  var requests: Int { counted.withLock { $0 } }
  func resetRequests() { counted.withLock { $0 = 0 } }

  var state: CentralState { get async { await base.state } }
  func stateUpdates() -> AsyncStream<CentralState> { base.stateUpdates() }
  func scan(services: [BluetoothUUID]?) -> AsyncStream<Advertisement> {
    base.scan(services: services)
  }
  func connect(_ peripheral: PeripheralID, services: [BluetoothUUID], timeout: Duration)
    async throws(LinkError) -> any PeripheralLink
  {
    CountingLink(
      base: try await base.connect(peripheral, services: services, timeout: timeout),
      counted: counted)
  }
  func restoredPeripherals() async -> [PeripheralID] { await base.restoredPeripherals() }
}

struct CountingLink: PeripheralLink {
  let base: any PeripheralLink
  let counted: Locked<Int>

  var peripheral: PeripheralID { base.peripheral }
  var events: BackpressureStream<LinkEvent> { base.events }
  var bondState: BondState { get async { await base.bondState } }

  func requestMTU(_ mtu: Int) async throws(LinkError) -> Int {
    counted.withLock { $0 += 1 }
    return try await base.requestMTU(mtu)
  }
  func maximumWriteLength(for type: WriteType) async -> Int {
    await base.maximumWriteLength(for: type)
  }
  func read(_ characteristic: BluetoothUUID) async throws(LinkError) -> [UInt8] {
    counted.withLock { $0 += 1 }
    return try await base.read(characteristic)
  }
  func write(_ value: [UInt8], to characteristic: BluetoothUUID, type: WriteType)
    async throws(LinkError)
  {
    counted.withLock { $0 += 1 }
    try await base.write(value, to: characteristic, type: type)
  }
  func setNotifications(_ enabled: Bool, for characteristic: BluetoothUUID)
    async throws(LinkError)
  {
    counted.withLock { $0 += 1 }
    try await base.setNotifications(enabled, for: characteristic)
  }
  func disconnect() async { await base.disconnect() }
}

/// The real file system, counting fsyncs (of files and of directories) and the CPU the
/// calling thread spent in them (each is one synchronous call: it cannot hop threads).
final class CountingFileSystem: DurableFileSystem {
  struct Counts {
    var fileSyncs = 0
    var directorySyncs = 0
    var cpuSeconds = 0.0
    var writes = 0
  }
  private let base = PosixFileSystem()
  let counts = Locked(Counts())

  func timed<T>(_ directory: Bool, _ body: () throws(StorageError) -> T) throws(StorageError) -> T {
    let start = CPUTime.thread()
    defer {
      let spent = CPUTime.thread() - start
      counts.withLock {
        if directory { $0.directorySyncs += 1 } else { $0.fileSyncs += 1 }
        $0.cpuSeconds += spent
      }
    }
    return try body()
  }

  func createDirectory(_ path: String) throws(StorageError) { try base.createDirectory(path) }
  func openForAppend(_ path: String, truncatingTo length: Int64) throws(StorageError)
    -> any DurableFile
  {
    CountingFile(base: try base.openForAppend(path, truncatingTo: length), system: self)
  }
  func syncFile(_ path: String) throws(StorageError) {
    try timed(false) { () throws(StorageError) in try base.syncFile(path) }
  }
  func rename(_ source: String, to destination: String) throws(StorageError) {
    try base.rename(source, to: destination)
  }
  func syncDirectory(_ path: String) throws(StorageError) {
    try timed(true) { () throws(StorageError) in try base.syncDirectory(path) }
  }
  func remove(_ path: String) throws(StorageError) { try base.remove(path) }
  func size(of path: String) -> Int64? { base.size(of: path) }
  func contents(of directory: String) -> [String] { base.contents(of: directory) }
}

/// One partial file of the engine, counting its writes and fsyncs into its file system.
final class CountingFile: DurableFile {
  let base: any DurableFile
  let system: CountingFileSystem
  init(base: any DurableFile, system: CountingFileSystem) {
    self.base = base
    self.system = system
  }
  func write(_ bytes: [UInt8]) throws(StorageError) {
    system.counts.withLock { $0.writes += 1 }
    try base.write(bytes)
  }
  func sync() throws(StorageError) {
    try system.timed(false) { () throws(StorageError) in try base.sync() }
  }
  func close() { base.close() }
}

/// A transport that serves recordings from memory at once (no radio, no emulator): what is
/// left of a sync is the engine's own per-file work (journal, files, fsyncs, hashes).
struct MemoryTransport: RecordingTransport {
  let recordings: [Recording]
  /// Device frames of 80-byte Opus packets (TOC 0xB8), enough for the longest recording.
  let content: [UInt8]
  let serial: String
  let stopAtFirstStream: Bool
  private let firstStream = Locked<ContinuousClock.Instant?>(nil)

  /// - Parameter frames: each recording's length in 80-byte packets.
  init(serial: String, first sessionId: SessionID, count: Int, frames: Int, stopAtFirstStream: Bool)
  {
    self.serial = serial
    self.stopAtFirstStream = stopAtFirstStream
    recordings = (0..<count).map {
      Recording(
        sessionId: SessionID(sessionId.rawValue + UInt32($0) * 60), size: UInt32(frames * 80),
        scene: 1, attribute: 0,
        channels: 1)
    }
    var packet = [UInt8](repeating: 0x5A, count: 80)
    packet[0] = 0xB8
    content = Array((0..<frames).map { _ in packet }.joined())
  }

  /// When the engine first asked for bytes (its plan was made).
  var firstStreamAt: ContinuousClock.Instant? { firstStream.withLock { $0 } }

  var name: String { "ble" }
  var audioChannels: Int { 1 }
  func listRecordings() async throws(DeviceError) -> [Recording] { recordings }
  func recordingInProgress() async throws(DeviceError) -> SessionID? { nil }
  func stream(
    sessionId: SessionID, start: UInt32, end: UInt32,
    receive: @Sendable (BulkFrame) async -> StreamDecision
  ) async throws(DeviceError) -> SyncTail? {
    let now = ContinuousClock.now
    firstStream.withLock { $0 = $0 ?? now }
    if stopAtFirstStream { throw .cancelled }
    var crc = CRC16()
    var offset = Int(start)
    while offset < Int(end) {
      let count = min(BulkFrame.maximumDataLength, Int(end) - offset)
      let data = Array(content[offset..<offset + count])
      crc.update(data)
      guard
        await receive(BulkFrame(sessionId: sessionId, offset: UInt32(offset), data: data))
          == .continue
      else { return nil }
      offset += count
    }
    return SyncTail(sessionId: sessionId, crc: crc.value)
  }
  func delete(sessionId: SessionID) async throws(DeviceError) {}
}

/// Median of a few measurements.
func median(_ values: [Double]) -> Double {
  let sorted = values.sorted()
  return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}

func milliseconds(_ seconds: Double) -> String { String(format: "%.3f", seconds * 1000) }

/// Prints and flushes at once, so a long section shows its figures as they come.
func say(_ text: String) {
  print(text)
  fflush(nil)
}
