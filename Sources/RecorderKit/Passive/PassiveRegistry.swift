import RecorderStore

/// The registered peripherals, kept in the journal (migration
/// `2026-12-02-passive-peripherals-and-outbox`) so a relaunch, like an OS relaunch after
/// state restoration, starts reading the same set again without the app asking.
///
/// Thread-safe: every call is one journal transaction, and the journal serialises them.
public struct PassiveRegistry: Sendable {
  public let journal: Journal

  public init(journal: Journal) { self.journal = journal }

  /// Every registered peripheral, oldest registration first. Rows with a kind this version
  /// does not know are skipped.
  public func peripherals() throws(PassiveError) -> [PassivePeripheral] {
    try access {
      try journal.read { try $0.passivePeripherals() }.compactMap { row in
        PassivePeripheral.Kind(name: row.kind).map {
          PassivePeripheral(
            identifier: row.identifier, kind: $0, name: row.name, isPaired: row.paired)
        }
      }
    }
  }

  /// The registered peripheral with `identifier`.
  public func peripheral(_ identifier: String) throws(PassiveError) -> PassivePeripheral? {
    try peripherals().first { $0.identifier == identifier }
  }

  /// Registers (or updates) `peripheral`.
  public func register(_ peripheral: PassivePeripheral) throws(PassiveError) {
    try access {
      try journal.write {
        try $0.savePassivePeripheral(
          PassivePeripheralRow(
            identifier: peripheral.identifier, kind: peripheral.kind.description,
            name: peripheral.name, paired: peripheral.isPaired))
      }
    }
  }

  /// Forgets `identifier`.
  /// - Throws: ``PassiveError/notRegistered(_:)`` when it was not registered.
  public func unregister(_ identifier: String) throws(PassiveError) {
    let removed = try access {
      try journal.write { try $0.removePassivePeripheral(identifier: identifier) }
    }
    guard removed else { throw .notRegistered(identifier) }
  }

  /// Records that `identifier` is paired.
  func markPaired(_ identifier: String) throws(PassiveError) {
    guard var peripheral = try peripheral(identifier) else { throw .notRegistered(identifier) }
    peripheral.isPaired = true
    try register(peripheral)
  }

  /// Puts `record` in the outbox under its idempotency key (once).
  func enqueue(_ record: HealthRecord) throws(PassiveError) {
    _ = try access {
      try journal.write {
        try $0.enqueueOutbox(idempotencyKey: record.idempotencyKey, body: record.jsonBody())
      }
    }
  }

  private func access<T>(_ body: () throws -> T) throws(PassiveError) -> T {
    do { return try body() } catch { throw .journal("\(error)") }
  }
}
