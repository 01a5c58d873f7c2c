import Foundation
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import TestSupport
import Testing

@Suite("Erasing is explicit and checks the journal; depair never erases")
struct EraseRecordingsTests {
  @Test("erasing refuses while recordings are unsynced, unless forced; depair never erases")
  func eraseChecksTheJournal() async throws {
    let bench = try SyncBench(seed: 53)
    defer { bench.cleanUp() }
    let first = try await bench.device.addRecording(duration: .seconds(4))
    let second = try await bench.device.addRecording(duration: .seconds(5))
    let ids = [first.sessionId, second.sessionId].sorted()
    let session = try await bench.connect()
    let workspace = try SyncWorkspace(root: bench.root)
    await #expect(throws: EraseError.unsyncedRecordings(ids)) {
      try await workspace.eraseRecordings(on: session)
    }
    #expect(try await bench.device.recordings().count == 2)
    // One synced: the other still blocks.
    _ = try await workspace.exportRecording(
      .init(sessionId: ids[0], format: .opus), over: BLETransport(session: session),
      clock: bench.sessionClock)
    await #expect(throws: EraseError.unsyncedRecordings([ids[1]])) {
      try await workspace.eraseRecordings(on: session)
    }
    #expect(try await session.depair() == 0)
    #expect(try await bench.device.recordings().count == 2)
    await session.close()

    let again = try await bench.connect()
    #expect(try await workspace.eraseRecordings(on: again, force: true) == ids)
    #expect(try await bench.device.recordings().isEmpty)
    let stages = try workspace.checkpoints(serial: bench.device.serial).map(\.stage)
    // The synced one is journalled as gone from the device; the other was never synced.
    #expect(stages == [.deletedFromDevice])
    await again.close()
  }
}
