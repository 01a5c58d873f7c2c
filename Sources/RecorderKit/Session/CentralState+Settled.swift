import RecorderBluetooth
import RecorderConcurrency

extension Central {
  /// The radio's state once it has reported one: a fresh CoreBluetooth manager is
  /// `CentralState/unknown` (and a resetting one `CentralState/resetting`) for a moment
  /// before the system says powered on, so callers wait for that, at most `bound` of
  /// `clock`, before they judge the radio unavailable.
  func settledState(within bound: Duration = .seconds(10), on clock: AnyClock) async
    -> CentralState
  {
    let now = await state
    guard now == .unknown || now == .resetting else { return now }
    let settled = await firstElement(
      of: stateUpdates(), within: bound, on: clock,
      where: { $0 != .unknown && $0 != .resetting })
    return settled ?? now
  }
}
