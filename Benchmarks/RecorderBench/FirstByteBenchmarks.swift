import Foundation
import RecorderAudio
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import TestSupport

/// Issue 18, "time to first byte": from the phone's connect to the first bulk frame of the
/// first recording reaching the sync engine, the requests the phone wrote (each waits for
/// the device's answer: a round trip) and the virtual time it took on the emulator's link
/// model, for a device holding 1, 100 and 1,000 recordings of 10 s.
///
/// The phone's local work between the device's last answer before SYNC_START and SYNC_START
/// itself (journal commits, fsyncs: `RecorderBench journal` gives it in real milliseconds)
/// holds the simulated clock, as the engine's own hashing and renaming do, so the virtual
/// figure is the radio's alone and the same on every run.
enum FirstByteBenchmarks {
  static func run() throws {
    say("== first-byte: connect → first bulk frame of the first recording (virtual time)")
    for count in [1, 100, 1_000] {
      var figures: [Figure] = []
      for _ in 0..<5 { figures.append(try blocking { try await firstByte(count: count) }) }
      let times = figures.map(\.virtual.seconds)
      let first = figures[0]
      say(
        "\(String(count).padding(toLength: 5, withPad: " ", startingAt: 0)) recordings: "
          + "\(first.requests) round trips (connect + authenticate \(first.connectRequests), "
          + "\(milliseconds(first.connected.seconds)) ms), "
          + "\(milliseconds(times.min() ?? 0)) ms virtual (fewest of 5; most \(milliseconds(times.max() ?? 0)))"
      )
      if Set(figures.map(\.requests)).count > 1 {
        say("  round trips differ between runs: \(figures.map(\.requests))")
      }
    }
    say(
      "  (the simulated clock jumps whenever the process looks idle for 2 ms of real time: on a "
        + "loaded machine a waiting task looks idle, so some runs count time no radio spent)")
  }

  struct Figure {
    var requests: Int
    var virtual: Duration
    var connectRequests: Int
    var connected: Duration
  }

  static func firstByte(count: Int) async throws -> Figure {
    let rig = try await EmulatorRig(
      recordings: Array(repeating: .seconds(10), count: count))
    defer { rig.cleanUp() }
    rig.manual.startAutoAdvance()
    defer { rig.manual.stopAutoAdvance() }
    let engine = rig.makeEngine(format: ExportFormat?.none)
    let draining = Task { for await _ in engine.events {} }
    defer { draining.cancel() }

    rig.central.resetRequests()
    let start = rig.manual.elapsed
    let session = try await rig.connect()
    let connected = (rig.central.requests, rig.manual.elapsed - start)
    let first = Locked<(Int, Duration)?>(nil)
    let transport = FirstFrameTransport(base: BLETransport(session: session), clock: rig.manual) {
      let now = (rig.central.requests, rig.manual.elapsed - start)
      first.withLock { $0 = $0 ?? now }
    }
    let sync = Task { try await engine.sync(using: transport) }
    // Stops the sync at its first frame: nothing else is measured here.
    transport.onCancel = { sync.cancel() }
    _ = try? await sync.value
    await session.close()
    guard let (requests, virtual) = first.withLock({ $0 }) else {
      throw BenchError("no bulk frame arrived")
    }
    return Figure(
      requests: requests, virtual: virtual, connectRequests: connected.0,
      connected: connected.1)
  }
}

/// A BLE transport that reports each stream's first bulk frame and then stops the sync (a
/// stream that begins before `onCancel` is set is stopped and re-issued, then cancelled).
final class FirstFrameTransport: RecordingTransport {
  let base: BLETransport
  let clock: ManualClock
  let onFirstFrame: @Sendable () -> Void
  private let cancel = Locked<(@Sendable () -> Void)?>(nil)
  /// Ends the hold on the simulated clock taken after the device's last answer.
  private let release = Locked<(@Sendable () -> Void)?>(nil)

  init(base: BLETransport, clock: ManualClock, onFirstFrame: @escaping @Sendable () -> Void) {
    self.base = base
    self.clock = clock
    self.onFirstFrame = onFirstFrame
  }

  var onCancel: (@Sendable () -> Void)? {
    get { cancel.withLock { $0 } }
    set { cancel.withLock { $0 = newValue } }
  }

  var name: String { base.name }
  var serial: String { get async { await base.serial } }
  var audioChannels: Int { get async { await base.audioChannels } }
  func listRecordings() async throws(DeviceError) -> [Recording] { try await base.listRecordings() }
  func recordingInProgress() async throws(DeviceError) -> SessionID? {
    let answer = try await base.recordingInProgress()
    let hold = clock.beginWork(ClockHold("first-byte bench"))
    release.withLock { $0 = { hold.end() } }
    return answer
  }
  func stream(
    sessionId: SessionID, start: UInt32, end: UInt32,
    receive: @Sendable (BulkFrame) async -> StreamDecision
  ) async throws(DeviceError) -> SyncTail? {
    release.withLock {
      $0?()
      $0 = nil
    }
    let report = onFirstFrame
    let cancel = onCancel
    return try await base.stream(sessionId: sessionId, start: start, end: end) { frame in
      report()
      cancel?()
      return .stop
    }
  }
  func delete(sessionId: SessionID) async throws(DeviceError) {
    try await base.delete(sessionId: sessionId)
  }
}
