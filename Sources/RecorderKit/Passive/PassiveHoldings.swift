/// What a ``PassiveReader`` holds while it runs, for a gateway's diagnostics (`recorder
/// passive run --stats-every`) and the tests that keep each figure bounded however many
/// readings a run makes (issue 39: a gateway runs for months).
package struct PassiveHoldings: Sendable, Equatable {
  /// Child tasks the running ``PassiveReader/run()`` calls hold.
  package var runTasks: Int
  /// Peripherals the cooldown keeps a time for.
  package var cooldownEntries: Int
  /// Peripherals waiting out a retry delay after a failure.
  package var retryEntries: Int
  /// Discoveries listening.
  package var discoveries: Int

  package init(runTasks: Int, cooldownEntries: Int, retryEntries: Int, discoveries: Int) {
    self.runTasks = runTasks
    self.cooldownEntries = cooldownEntries
    self.retryEntries = retryEntries
    self.discoveries = discoveries
  }
}
