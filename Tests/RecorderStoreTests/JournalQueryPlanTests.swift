import Foundation
import RecorderStore
import Testing

/// The journal grows for as long as the app is installed: every statement it runs must find
/// its rows through an index, so a sync costs the same at a hundred rows as at a hundred
/// thousand. SQLite's own plan (EXPLAIN QUERY PLAN) of every listed statement is the proof.
@Suite("Journal query plans")
struct JournalQueryPlanTests {
  /// A journal with a few devices' rows at every stage, so the planner sees a real table.
  static func populatedJournal() throws -> Journal {
    let journal = try Journal(path: JournalTests.temporaryPath())
    try journal.write { tx in
      for serial in ["A", "B", "C"] {
        for id in UInt32(1)...40 {
          var record = RecordingRecord(serial: serial, sessionId: id, size: 800, channels: 1)
          record.stage =
            RecordingStage.allCases[Int(id) % RecordingStage.allCases.count]
          try tx.save(record)
        }
      }
    }
    return journal
  }

  @Test("no statement but the full listing scans the recordings table; none sorts on its own")
  func everyStatementUsesAnIndex() throws {
    let journal = try Self.populatedJournal()
    for statement in JournalStatement.allCases {
      let plan = try journal.queryPlan(of: statement)
      let shown = "\(statement): \(plan)"
      #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(shown)")
      if statement.readsEveryRow {
        // A listing of everything may visit every row, but in key order, through the index.
        #expect(plan.allSatisfy { !$0.hasPrefix("SCAN") || $0.contains("USING") }, "\(shown)")
      } else {
        #expect(!plan.contains { $0.hasPrefix("SCAN") }, "\(shown)")
      }
    }
  }

  @Test("the per-stage read searches the (serial, stage) index, not every row of the device")
  func stageReadUsesTheStageIndex() throws {
    let plan = try Self.populatedJournal().queryPlan(of: .recordingsOfDeviceAtStage)
    #expect(
      plan.contains { $0.contains("recordings_by_stage") && $0.contains("stage=?") }, "\(plan)")
  }

  @Test("recordings at some stages: only those, of that device, oldest first")
  func recordingsAtStages() throws {
    let journal = try Self.populatedJournal()
    let found = try journal.read { try $0.recordings(serial: "B", at: [.stored, .exported]) }
    #expect(found.allSatisfy { $0.serial == "B" && ($0.stage == .stored || $0.stage == .exported) })
    #expect(found.map(\.sessionId) == (UInt32(1)...40).filter { [2, 3].contains($0 % 5) })
  }
}
