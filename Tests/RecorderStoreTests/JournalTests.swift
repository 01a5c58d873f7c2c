import Foundation
import RecorderStore
import Testing

@Suite("Journal")
struct JournalTests {
  static func temporaryPath() -> String {
    let directory = NSTemporaryDirectory() + "journal-tests-\(UUID().uuidString)"
    try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    return directory + "/journal.sqlite"
  }

  @Test("migrations apply once, in order, and survive reopening")
  func migrations() throws {
    let path = Self.temporaryPath()
    let journal = try Journal(path: path)
    let first = try journal.appliedMigrations()
    #expect(
      first == [
        "2026-11-30-recordings", "2026-12-01-paths-relative-to-root",
        "2026-12-01-exports-per-format", "2026-12-01-checked-ranges",
        "2026-12-02-passive-peripherals-and-outbox", "2026-12-01-recordings-by-stage",
        "2026-12-02-pending-conversions", "2026-12-04-generations-and-give-ups",
        "2026-12-05-finish-steps",
      ])
    let reopened = try Journal(path: path)
    #expect(try reopened.appliedMigrations() == first)
  }

  @Test("a record saved in a transaction reads back field for field")
  func roundTrip() throws {
    let journal = try Journal(path: Self.temporaryPath())
    var record = RecordingRecord(
      serial: "888", sessionId: 1_775_395_281, size: 69_280, channels: 1, scene: 7)
    record.stage = .exported
    record.durableBytes = 69_280
    record.verification = .verified
    record.deviceCRC = 0x29B1
    record.sha256 = String(repeating: "ab", count: 32)
    record.rawPath = "/r/888/1775395281.opus-raw"
    record.exportPath = "/r/exports/888-1775395281.mp3"
    record.exportFormat = "mp3"
    record.transport = "ble"
    let saved = record
    try journal.write { tx in try tx.save(saved) }
    let loaded = try journal.read { tx in try tx.recording(serial: "888", sessionId: 1_775_395_281)
    }
    #expect(loaded == record)
    #expect(loaded?.isSafeLocally == true)
  }

  @Test("a transaction that throws leaves nothing behind")
  func rollback() throws {
    struct Boom: Error {}
    let journal = try Journal(path: Self.temporaryPath())
    #expect(throws: Boom.self) {
      try journal.write { tx in
        try tx.save(RecordingRecord(serial: "888", sessionId: 1, size: 80, channels: 1))
        throw Boom()
      }
    }
    #expect(try journal.read { try $0.allRecordings() }.isEmpty)
  }

  @Test("committed writes are visible to a second connection (WAL, durable commit)")
  func visibleAcrossConnections() throws {
    let path = Self.temporaryPath()
    let writer = try Journal(path: path)
    try writer.write { tx in
      try tx.save(RecordingRecord(serial: "888", sessionId: 2, size: 160, channels: 1))
      try tx.update(serial: "888", sessionId: 2) { $0.durableBytes = 80 }
    }
    let reader = try Journal(path: path)
    let record = try reader.read { try $0.recording(serial: "888", sessionId: 2) }
    #expect(record?.durableBytes == 80)
  }

  @Test("update of an unknown recording is a typed error")
  func updateUnknown() throws {
    let journal = try Journal(path: Self.temporaryPath())
    #expect(throws: JournalError.self) {
      try journal.write { tx in try tx.update(serial: "x", sessionId: 9) { $0.durableBytes = 1 } }
    }
  }

  @Test("recordings are listed per device, oldest first")
  func ordering() throws {
    let journal = try Journal(path: Self.temporaryPath())
    try journal.write { tx in
      for id: UInt32 in [30, 10, 20] {
        try tx.save(RecordingRecord(serial: "A", sessionId: id, size: 80, channels: 1))
      }
      try tx.save(RecordingRecord(serial: "B", sessionId: 5, size: 80, channels: 1))
    }
    #expect(try journal.read { try $0.recordings(serial: "A") }.map(\.sessionId) == [10, 20, 30])
    #expect(try journal.read { try $0.allRecordings() }.count == 4)
  }

  @Test("an unopenable path is a typed error, not a crash")
  func badPath() {
    #expect(throws: JournalError.self) {
      _ = try Journal(path: "/nonexistent-dir/x/journal.sqlite")
    }
  }

  @Test("stages are ordered as a recording moves through them")
  func stageOrder() {
    #expect(RecordingStage.seen < .transferring)
    #expect(RecordingStage.transferring < .stored)
    #expect(RecordingStage.stored < .exported)
    #expect(RecordingStage.exported < .deletedFromDevice)
  }
}
