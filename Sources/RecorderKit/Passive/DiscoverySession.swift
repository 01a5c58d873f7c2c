/// One discovery session's memory of what it reported: each peripheral once, and once more
/// each time it comes back after being silent for at least ``absence`` (it stopped
/// advertising, or went out of range, and returned).
///
/// How often a peripheral that keeps advertising is heard depends on the platform: a radio
/// that reports duplicates hears it every advertising interval; iOS reports it once per scan,
/// so discovery restarts its scan every ``PassiveReader/Options/discoveryRescanInterval``,
/// which must stay below ``absence``. Pure value type: times are the caller's clock readings.
struct DiscoverySession: Sendable {
  /// Silence after which a peripheral heard again counts as having come back.
  let absence: Duration
  /// When each peripheral of this session was last heard.
  private var lastHeard: [String: Duration] = [:]

  init(absence: Duration) { self.absence = absence }

  /// Notes that `identifier` was heard at `now`; true when the session reports it (first
  /// time, or back after a silence of at least ``absence``).
  mutating func heard(_ identifier: String, at now: Duration) -> Bool {
    let previous = lastHeard.updateValue(now, forKey: identifier)
    if lastHeard.count > Self.capacity { forgetSilent(at: now) }
    guard let previous else { return true }
    return now - previous >= absence
  }

  /// The most peripherals remembered at once: a crowd of advertisers (or one faking many
  /// addresses) cannot grow the session without bound.
  static let capacity = 1024

  /// Drops those silent for ``absence`` (they would be reported again anyway), then, while
  /// still over ``capacity``, the one heard longest ago.
  private mutating func forgetSilent(at now: Duration) {
    lastHeard = lastHeard.filter { now - $0.value < absence }
    while lastHeard.count > Self.capacity,
      let oldest = lastHeard.min(by: { $0.value < $1.value })?.key
    {
      lastHeard[oldest] = nil
    }
  }
}
