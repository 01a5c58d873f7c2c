/// The cooldown rule that keeps one measurement from being read twice: after a successful
/// read, a peripheral is ignored until it stops advertising and then stays silent for
/// ``quietPeriod`` (15 s by default; the seed's "wait until the device powers off, then 15
/// seconds"). In terms of what a scanner hears: after a read, an advertisement is ignored
/// when the previous one from that peripheral was heard less than ``quietPeriod`` before it;
/// the first advertisement after a silence of at least ``quietPeriod`` ends the cooldown.
///
/// It relies on a scanner that reports every advertisement (duplicates), as BlueZ does with
/// `DuplicateData` and the emulated health peripherals do, so that silence means the
/// peripheral stopped advertising. Pure value type: times are the caller's clock readings.
package struct Cooldown: Sendable {
  public var quietPeriod: Duration

  /// Per peripheral: when it was last heard, and whether it is cooling down.
  private var lastHeard: [String: Duration] = [:]
  private var coolingDown: Set<String> = []

  public init(quietPeriod: Duration = .seconds(15)) { self.quietPeriod = quietPeriod }

  /// Notes an advertisement of `identifier` heard at `now`; true when it may be read.
  public mutating func heard(_ identifier: String, at now: Duration) -> Bool {
    let previous = lastHeard[identifier]
    lastHeard[identifier] = now
    guard coolingDown.contains(identifier) else { return true }
    if let previous, now - previous < quietPeriod { return false }
    coolingDown.remove(identifier)
    return true
  }

  /// Starts the cooldown of `identifier`: it was read (its link ended) at `now`, which also
  /// counts as heard then.
  public mutating func didRead(_ identifier: String, at now: Duration) {
    coolingDown.insert(identifier)
    lastHeard[identifier] = now
  }

  /// Ends the cooldown of `identifier` (its read was not kept after all).
  public mutating func forget(_ identifier: String) { coolingDown.remove(identifier) }

  /// Forgets `identifier` altogether (it was unregistered).
  package mutating func remove(_ identifier: String) {
    lastHeard[identifier] = nil
    coolingDown.remove(identifier)
  }

  /// Peripherals it keeps a time for: one per peripheral it was told of (``heard(_:at:)``,
  /// ``didRead(_:at:)``) and not told to ``remove(_:)``.
  package var trackedCount: Int { lastHeard.count }

  /// Whether `identifier` is cooling down.
  public func isCoolingDown(_ identifier: String) -> Bool { coolingDown.contains(identifier) }
}
