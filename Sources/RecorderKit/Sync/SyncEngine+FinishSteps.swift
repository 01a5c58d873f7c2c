import Foundation
import RecorderProtocol
import RecorderStore

extension SyncEngine {
  /// The runner of this engine's finish steps, made at first use.
  func steps() -> FinishStepRunner {
    if let stepRunner { return stepRunner }
    let continuation = eventSink
    let runner = FinishStepRunner(
      journal: journal, steps: options.finishSteps, policy: options.finishStepPolicy,
      clock: clock,
      describe: { [weak self] row in await self?.describe(row) },
      events: { continuation.yield($0) })
    stepRunner = runner
    return runner
  }

  /// Runs the finish steps the journal owes (this run's and those earlier runs left) until
  /// each is done or has had ``FinishStepPolicy/attemptsPerRun`` attempts in this run, and
  /// reports them. Steps still owed stay journaled: the next run tries them again. A step
  /// the journal owes that this engine's ``Options/finishSteps`` lacks is reported owed.
  public func finishOwedSteps() async -> FinishStepsReport {
    await steps().drain()
  }

  /// What a finish step is told about the recording `row` names; nil when its bytes are no
  /// longer held (it started over, or its raw copy is gone).
  func describe(_ row: FinishStepRow) -> FinishedRecording? {
    guard
      let found = try? journal.read({
        tx -> (RecordingRecord?, [String: String], [EarlierGeneration]) in
        let record = try tx.recording(serial: row.serial, sessionId: row.sessionId)
        let exports = try tx.exports(serial: row.serial, sessionId: row.sessionId)
        let earlier =
          record?.generation == row.generation ? [] : try tx.earlierGenerations(serial: row.serial)
        return (record, exports, earlier)
      })
    else { return nil }
    var held: RecordingRecord
    var exports: [String: String]
    if let record = found.0, record.generation == row.generation {
      guard record.stage >= .stored else { return nil }
      held = record
      exports = found.1
    } else if let earlier = found.2.first(where: {
      $0.sessionId == row.sessionId && $0.generation == row.generation
    }) {
      held = RecordingRecord(
        serial: row.serial, sessionId: row.sessionId, size: earlier.size,
        channels: earlier.channels)
      held.generation = earlier.generation
      held.rawPath = earlier.rawPath
      held.sha256 = earlier.sha256
      held.verification = .verified
      exports = earlier.exports
    } else {
      return nil
    }
    guard let sha256 = held.sha256, let rawPath = held.rawPath else { return nil }
    let pending =
      (try? journal.read { try $0.pendingConversions() })?
      .filter { $0.serial == row.serial && $0.sessionId == row.sessionId }.map(\.format) ?? []
    let zone = TimeZone.current
    return FinishedRecording(
      serial: row.serial, model: RecorderModel.of(serial: row.serial)?.description,
      firmware: firmwareBySerial[row.serial], sessionId: row.sessionId, generation: row.generation,
      startedAtUTC: FinishedRecording.utc(row.sessionId),
      deviceUTCOffsetSeconds: zone.secondsFromGMT(), deviceZone: zone.identifier,
      durationMs: durationMs(of: held), sha256: sha256, checked: held.verification.rawValue,
      transport: held.transport, rawPath: paths.resolved(rawPath),
      exports: exports.filter { ExportFormat(rawValue: $0.key) != nil }.mapValues(paths.resolved),
      conversionsPending: pending.sorted())
  }
}
