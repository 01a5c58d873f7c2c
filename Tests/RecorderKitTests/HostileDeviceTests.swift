import Foundation
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import RecorderStore
import TestSupport
import Testing

/// Issue 12's hostile-device suite: a scripted device, behind the BLE shape (tails carry a
/// CRC of the bytes sent) and the Wi-Fi shape (no CRC), that lies about sizes, repeats
/// itself, stalls, sends duplicates and out-of-range offsets, lies in its CRC, or names
/// itself like a path. Whatever it does, the run ends by itself (a typed ``SyncError``, or a
/// report in which the lie left files undeleted), and nothing is deleted from it unless the
/// local copy equals its content. Time is a manual clock that runs ahead whenever every
/// task waits, so "stalls for minutes" costs milliseconds.
@Suite("Hostile device")
struct HostileDeviceTests {
  enum Lie: String, CaseIterable, Sendable {
    /// The control: an honest device, every file synced, verified and deleted.
    case none
    /// LIST says 800 bytes more than the file holds; the stream ends at the true end.
    case listsLarger
    /// LIST says 800 bytes less; the stream goes on to the true end whatever was asked.
    case listsSmaller
    /// LIST says 0 bytes for every recording.
    case listsEmpty
    /// The first frame of every request, forever.
    case repeatsFirstFrame
    /// Every frame twice (harmless: the copy still equals the device's).
    case duplicatesEveryFrame
    /// Frames at offsets far outside the range asked.
    case outOfRangeOffsets
    /// Sends nothing for two minutes per request, then ends without a tail.
    case stalls
    /// Every tail's CRC is wrong.
    case lyingCRC
    /// A serial that is a path ("../../escape").
    case pathLikeSerial

    /// Whether an honest copy can come out of this device: it deletes every file.
    func harmless(overBLE: Bool) -> Bool {
      switch self {
      case .none, .duplicatesEveryFrame: true
      // Bounded by bytes per request, it still moves one new frame each time: slow, exact.
      case .repeatsFirstFrame: true
      // Wi-Fi tails carry no CRC: the lie says nothing.
      case .lyingCRC: !overBLE
      default: false
      }
    }
  }

  static let seed: UInt64 = 0x4057_11E0_0012

  @Test(
    "every lie ends the run by itself; nothing deleted that is not held byte-exact",
    arguments: Lie.allCases, [true, false])
  func lie(_ lie: Lie, overBLE: Bool) async throws {
    let directory = NSTemporaryDirectory() + "hostile-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let root = directory + "/root"
    let device = ScriptedDevice(seed: Self.seed, sizes: [4_000, 12_000, 800], lie: lie)
    let clock = ManualClock()
    let transport = HostileTransport(device: device, carriesCRC: overBLE, clock: AnyClock(clock))
    clock.startAutoAdvance()
    defer { clock.stopAutoAdvance() }
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    let journal = try Journal(path: root + "/journal.sqlite")
    var options = SyncEngine.Options.fast
    options.noProgressTimeout = .seconds(60)
    let engine = SyncEngine(
      journal: journal, root: root, options: options, clock: AnyClock(clock))
    let context = "seed \(Self.seed), \(lie) over \(overBLE ? "BLE" : "Wi-Fi")"

    let outcome: Result<SyncReport, SyncError> = try await withTimeout(60) {
      do throws(SyncError) {
        return .success(try await engine.sync(using: transport))
      } catch {
        return .failure(error)
      }
    }

    let deleted = await device.deleted
    for id in deleted {
      let local = FileManager.default.contents(
        atPath: root + "/\(ScriptedDevice.serial)/\(id).opus-raw")
      #expect(
        local.map(Array.init) == device.truth[id], "\(context): deleted \(id) not held exactly")
    }
    let harmless = lie.harmless(overBLE: overBLE)
    switch outcome {
    case .success(let report) where harmless:
      #expect(Set(deleted) == Set(device.truth.keys), "\(context): \(report)")
    case .success(let report):
      // Only a CRC that never matches (read twice, "verified by agreement": exported, kept
      // on the device without --trust-agreement), empty listings (skipped) and recordings
      // whose bytes cannot be taken (given up for the run, kept on the device) end in a
      // report.
      #expect(
        lie == .lyingCRC || lie == .listsEmpty || !report.givenUp.isEmpty,
        "\(context): the run went on: \(report)")
      if lie == .listsEmpty {
        #expect(Set(report.skippedEmpty) == Set(device.truth.keys), "\(context)")
      }
      #expect(deleted.isEmpty, "\(context): \(report)")
      #expect(report.files.allSatisfy { !$0.deletedFromDevice }, "\(context): \(report)")
    case .failure(let error):
      #expect(!harmless, "\(context): a device that can be read failed the run: \(error)")
    }
    if lie == .pathLikeSerial {
      #expect(!FileManager.default.fileExists(atPath: directory + "/escape"), "\(context)")
      guard case .failure = outcome else {
        Issue.record("\(context): a path-like serial was accepted")
        return
      }
    }
  }
}

/// The scripted device: its files (valid device Opus framing: a 0xB8 TOC every 80 bytes),
/// what it lies about, and what it deleted.
actor ScriptedDevice {
  static let serial = "8812345678901234"
  nonisolated let truth: [SessionID: [UInt8]]
  nonisolated let lie: HostileDeviceTests.Lie
  private(set) var deleted: [SessionID] = []

  init(seed: UInt64, sizes: [Int], lie: HostileDeviceTests.Lie) {
    var random = SplitMix64(seed: seed)
    var files: [SessionID: [UInt8]] = [:]
    for (index, size) in sizes.enumerated() {
      files[SessionID(1_775_000_000 + UInt32(index))] = (0..<size).map { offset in
        offset % 80 == 0 ? 0xB8 : UInt8(truncatingIfNeeded: random.next())
      }
    }
    truth = files
    self.lie = lie
  }

  var serial: String { lie == .pathLikeSerial ? "../../escape" : Self.serial }

  func list() -> [Recording] {
    truth.keys.sorted().filter { !deleted.contains($0) }.map { id in
      var size = truth[id]!.count
      if lie == .listsLarger { size += 800 }
      if lie == .listsSmaller { size -= 800 }
      if lie == .listsEmpty { size = 0 }
      return Recording(
        sessionId: id, size: UInt32(size), scene: 1, attribute: nil, channels: 1)
    }
  }

  func delete(_ id: SessionID) { deleted.append(id) }
}

/// The scripted device behind the ``RecordingTransport`` shape the engine drives: "ble" with
/// a tail CRC (CRC-16/CCITT-FALSE of the bytes sent for the request, PROTOCOL.md §10's
/// [project] coverage) or "wifi" without one.
struct HostileTransport: RecordingTransport {
  let device: ScriptedDevice
  let carriesCRC: Bool
  let clock: AnyClock

  var name: String { carriesCRC ? "ble" : "wifi" }
  var tailCarriesDeviceCRC: Bool { carriesCRC }
  var serial: String { get async { await device.serial } }
  var audioChannels: Int { get async { 1 } }
  func listRecordings() async throws(DeviceError) -> [Recording] { await device.list() }
  func recordingInProgress() async throws(DeviceError) -> SessionID? { nil }
  func delete(sessionId: SessionID) async throws(DeviceError) { await device.delete(sessionId) }

  func stream(
    sessionId: SessionID, start: UInt32, end: UInt32,
    receive: @Sendable (BulkFrame) async -> StreamDecision
  ) async throws(DeviceError) -> SyncTail? {
    guard let file = device.truth[sessionId] else {
      throw .rejected(operation: "SYNC_START", status: 1)
    }
    let lie = device.lie
    if lie == .stalls {
      // Quiet for two minutes, then the request ends without a byte or a tail.
      do { try await clock.sleep(for: .seconds(120)) } catch { throw .cancelled }
      return nil
    }
    let stop = lie == .listsSmaller ? file.count : min(Int(end), file.count)
    var crc = CRC16()
    var offset = Int(start)
    var sent = 0
    while offset < stop {
      let count = min(200, stop - offset)
      var frame = BulkFrame(
        sessionId: sessionId, offset: UInt32(offset), data: Array(file[offset..<offset + count]))
      switch lie {
      case .repeatsFirstFrame:
        frame.offset = start
        frame.data = Array(file[Int(start)..<min(Int(start) + 200, file.count)])
      case .outOfRangeOffsets: frame.offset = UInt32(offset) &+ 1_000_000
      default: break
      }
      crc.update(frame.data)
      if case .stop = await receive(frame) { return nil }
      if lie == .duplicatesEveryFrame, case .stop = await receive(frame) { return nil }
      sent += 1
      // A device that repeats itself never gets further; one frame per step keeps it bounded
      // by the receiver's byte budget, not by this loop.
      if lie != .repeatsFirstFrame { offset += count }
      guard sent < 1_000_000 else { break }
    }
    return SyncTail(sessionId: sessionId, crc: lie == .lyingCRC ? crc.value ^ 0x5A5A : crc.value)
  }
}
