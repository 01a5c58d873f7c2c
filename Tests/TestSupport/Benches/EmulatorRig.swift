import Foundation
import RecorderBluetooth
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import RecorderStore

/// A scratch folder under /tmp, removed by `cleanUp()`.
package struct Scratch {
  package let path: String
  package init(_ name: String) throws {
    path =
      "/tmp/recorder-bench-\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }
  package func cleanUp() { try? FileManager.default.removeItem(atPath: path) }
}

/// An emulated device on a manual clock, reached through the in-process central, and a sync
/// engine with its own journal: the set-up every sync figure shares (virtual-time link).
package final class EmulatorRig: Sendable {
  package let scratch: Scratch
  package let manual = ManualClock()
  package let device: EmulatedDevice
  package let central: CountingCentral
  package let fileSystem: CountingFileSystem
  package let journal: Journal

  package var clock: AnyClock { AnyClock(manual) }
  package var root: String { scratch.path + "/state" }

  /// - Parameter recordings: lengths of the recordings the device holds, oldest first.
  package init(recordings: [Duration]) async throws {
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

  package func makeEngine(format: ExportFormat? = .mp3) -> SyncEngine {
    var options = SyncEngine.Options()
    options.format = format
    return SyncEngine(
      journal: journal, fileSystem: fileSystem, root: root, options: options, clock: clock)
  }

  /// Scans, connects and authenticates; the manual clock must be advancing.
  package func connect() async throws -> DeviceSession {
    var configuration = DeviceSession.Configuration(token: DeviceConfiguration.exampleToken)
    configuration.clock = clock
    let found = try await RecorderScanner(central: central, clock: clock).find(
      serial: device.serial, timeout: .seconds(10))
    return try await DeviceSession.connect(to: found, using: central, configuration: configuration)
  }

  package func cleanUp() { scratch.cleanUp() }
}

/// A central that counts the phone's requests over its links: every write, read, MTU
/// exchange and notification switch waits for the device's answer (one request at a time,
/// PROTOCOL.md §4), so the count is the round trips the phone paid for.
package final class CountingCentral: Central {
  package let base: any Central
  private let counted = Locked(0)

  package init(base: any Central) { self.base = base }

  package var requests: Int { counted.withLock { $0 } }
  package func resetRequests() { counted.withLock { $0 = 0 } }

  package var state: CentralState { get async { await base.state } }
  package func stateUpdates() -> AsyncStream<CentralState> { base.stateUpdates() }
  package func scan(services: [BluetoothUUID]?) -> AsyncStream<Advertisement> {
    base.scan(services: services)
  }
  package func connect(_ peripheral: PeripheralID, services: [BluetoothUUID], timeout: Duration)
    async throws(LinkError) -> any PeripheralLink
  {
    CountingLink(
      base: try await base.connect(peripheral, services: services, timeout: timeout),
      counted: counted)
  }
  package func restoredPeripherals() async -> [PeripheralID] { await base.restoredPeripherals() }
}

package struct CountingLink: PeripheralLink {
  package let base: any PeripheralLink
  package let counted: Locked<Int>

  package var peripheral: PeripheralID { base.peripheral }
  package var events: BackpressureStream<LinkEvent> { base.events }
  package var bondState: BondState { get async { await base.bondState } }

  package func requestMTU(_ mtu: Int) async throws(LinkError) -> Int {
    counted.withLock { $0 += 1 }
    return try await base.requestMTU(mtu)
  }
  package func maximumWriteLength(for type: WriteType) async -> Int {
    await base.maximumWriteLength(for: type)
  }
  package func read(_ characteristic: BluetoothUUID) async throws(LinkError) -> [UInt8] {
    counted.withLock { $0 += 1 }
    return try await base.read(characteristic)
  }
  package func write(_ value: [UInt8], to characteristic: BluetoothUUID, type: WriteType)
    async throws(LinkError)
  {
    counted.withLock { $0 += 1 }
    try await base.write(value, to: characteristic, type: type)
  }
  package func setNotifications(_ enabled: Bool, for characteristic: BluetoothUUID)
    async throws(LinkError)
  {
    counted.withLock { $0 += 1 }
    try await base.setNotifications(enabled, for: characteristic)
  }
  package func disconnect() async { await base.disconnect() }
}

/// The real file system, counting fsyncs (of files and of directories) and the CPU the
/// calling thread spent in them (each is one synchronous call: it cannot hop threads).
package final class CountingFileSystem: DurableFileSystem {
  package struct Counts {
    package var fileSyncs = 0
    package var directorySyncs = 0
    package var cpuSeconds = 0.0
    package var writes = 0
  }
  private let base = PosixFileSystem()
  package let counts = Locked(Counts())

  package init() {}

  package func timed<T>(_ directory: Bool, _ body: () throws(StorageError) -> T)
    throws(StorageError) -> T
  {
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

  package func createDirectory(_ path: String) throws(StorageError) {
    try base.createDirectory(path)
  }
  package func openForAppend(_ path: String, truncatingTo length: Int64) throws(StorageError)
    -> any DurableFile
  {
    CountingFile(base: try base.openForAppend(path, truncatingTo: length), system: self)
  }
  package func syncFile(_ path: String) throws(StorageError) {
    try timed(false) { () throws(StorageError) in try base.syncFile(path) }
  }
  package func rename(_ source: String, to destination: String) throws(StorageError) {
    try base.rename(source, to: destination)
  }
  package func syncDirectory(_ path: String) throws(StorageError) {
    try timed(true) { () throws(StorageError) in try base.syncDirectory(path) }
  }
  package func remove(_ path: String) throws(StorageError) { try base.remove(path) }
  package func size(of path: String) -> Int64? { base.size(of: path) }
  package func contents(of directory: String) -> [String] { base.contents(of: directory) }
}

/// One partial file of the engine, counting its writes and fsyncs into its file system.
package final class CountingFile: DurableFile {
  package let base: any DurableFile
  package let system: CountingFileSystem
  package init(base: any DurableFile, system: CountingFileSystem) {
    self.base = base
    self.system = system
  }
  package func write(_ bytes: [UInt8]) throws(StorageError) {
    system.counts.withLock { $0.writes += 1 }
    try base.write(bytes)
  }
  package func sync() throws(StorageError) {
    try system.timed(false) { () throws(StorageError) in try base.sync() }
  }
  package func close() { base.close() }
}

/// A transport that serves recordings from memory at once (no radio, no emulator): what is
/// left of a sync is the engine's own per-file work (journal, files, fsyncs, hashes).
package struct MemoryTransport: RecordingTransport {
  package let recordings: [Recording]
  /// Device frames of 80-byte Opus packets (TOC 0xB8), enough for the longest recording.
  package let content: [UInt8]
  package let serial: String
  package let stopAtFirstStream: Bool
  private let firstStream = Locked<ContinuousClock.Instant?>(nil)

  /// - Parameter frames: each recording's length in 80-byte packets.
  package init(
    serial: String, first sessionId: SessionID, count: Int, frames: Int, stopAtFirstStream: Bool
  ) {
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
  package var firstStreamAt: ContinuousClock.Instant? { firstStream.withLock { $0 } }

  package var name: String { "ble" }
  package var audioChannels: Int { 1 }
  package func listRecordings() async throws(DeviceError) -> [Recording] { recordings }
  package func recordingInProgress() async throws(DeviceError) -> SessionID? { nil }
  package func stream(
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
  package func delete(sessionId: SessionID) async throws(DeviceError) {}
}
