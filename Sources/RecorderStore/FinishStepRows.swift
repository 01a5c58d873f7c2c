/// A finish step the journal keeps for one recording (one generation of a session id): owed
/// from the moment a sync asked for it, done once it succeeded. Steps of one recording run in
/// ``position`` order.
public struct FinishStepRow: Sendable, Equatable {
  public var serial: String
  public var sessionId: UInt32
  public var generation: Int
  /// The step's name, as its type spells it ("exec", "webhook", "sidecar").
  public var step: String
  /// Where the step stands among the recording's steps (from 0).
  public var position: Int
  /// True once an attempt succeeded and that was committed.
  public var done: Bool
  /// Attempts that failed (or were cut by a kill and found unfinished), over every run.
  public var attempts: Int
  /// Why the last attempt failed, for display.
  public var lastError: String?

  public init(
    serial: String, sessionId: UInt32, generation: Int, step: String, position: Int,
    done: Bool = false, attempts: Int = 0, lastError: String? = nil
  ) {
    self.serial = serial
    self.sessionId = sessionId
    self.generation = generation
    self.step = step
    self.position = position
    self.done = done
    self.attempts = attempts
    self.lastError = lastError
  }
}

extension JournalTransaction {
  // MARK: Finish steps

  /// Records `steps` (in order) as owed to one recording. A step already owed or done stays
  /// as it is: owing is idempotent, so a sync that finishes a recording again owes nothing
  /// twice.
  public func oweFinishSteps(
    serial: String, sessionId: UInt32, generation: Int, steps: [String]
  ) throws {
    for (position, step) in steps.enumerated() {
      try connection.query(
        """
        INSERT INTO finish_steps (serial, session_id, generation, step, position)
        VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
        """,
        [
          .text(serial), .integer(Int64(sessionId)), .integer(Int64(generation)), .text(step),
          .integer(Int64(position)),
        ])
    }
  }

  /// Every step owed and not done, by recording (oldest session id first), then in order.
  public func owedFinishSteps() throws -> [FinishStepRow] {
    try connection.query(
      "SELECT * FROM finish_steps WHERE done = 0 ORDER BY serial, session_id, generation, position"
    ).map(Self.finishStep)
  }

  /// Every step the journal keeps for one recording (owed or done), in order.
  public func finishSteps(serial: String, sessionId: UInt32, generation: Int) throws
    -> [FinishStepRow]
  {
    try connection.query(
      """
      SELECT * FROM finish_steps WHERE serial = ? AND session_id = ? AND generation = ?
      ORDER BY position
      """,
      [.text(serial), .integer(Int64(sessionId)), .integer(Int64(generation))]
    ).map(Self.finishStep)
  }

  /// Marks one step done. The one journal operation that completes a finish step.
  public func completeFinishStep(
    serial: String, sessionId: UInt32, generation: Int, step: String
  ) throws {
    try connection.query(
      """
      UPDATE finish_steps SET done = 1, last_error = NULL
      WHERE serial = ? AND session_id = ? AND generation = ? AND step = ?
      """,
      [.text(serial), .integer(Int64(sessionId)), .integer(Int64(generation)), .text(step)])
  }

  /// Counts a failed attempt of one step, with its reason.
  public func failFinishStep(
    serial: String, sessionId: UInt32, generation: Int, step: String, reason: String
  ) throws {
    try connection.query(
      """
      UPDATE finish_steps SET attempts = attempts + 1, last_error = ?
      WHERE serial = ? AND session_id = ? AND generation = ? AND step = ?
      """,
      [
        .text(reason), .text(serial), .integer(Int64(sessionId)), .integer(Int64(generation)),
        .text(step),
      ])
  }

  private static func finishStep(_ row: SQLRow) -> FinishStepRow {
    FinishStepRow(
      serial: row["serial"].text ?? "",
      sessionId: UInt32(clamping: row["session_id"].integer ?? 0),
      generation: Int(row["generation"].integer ?? 0), step: row["step"].text ?? "",
      position: Int(row["position"].integer ?? 0), done: (row["done"].integer ?? 0) != 0,
      attempts: Int(row["attempts"].integer ?? 0), lastError: row["last_error"].text)
  }
}

extension JournalTransaction {
  /// Forgets every step of one recording and generation (its bytes changed or are gone:
  /// what is owed is owed anew once it is stored again).
  public func forgetFinishSteps(serial: String, sessionId: UInt32, generation: Int) throws {
    try connection.query(
      "DELETE FROM finish_steps WHERE serial = ? AND session_id = ? AND generation = ?",
      [.text(serial), .integer(Int64(sessionId)), .integer(Int64(generation))])
  }
}
