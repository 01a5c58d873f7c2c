/// Why a simulated clock must stand still for a moment: the name of a hold on a
/// ``ManualClock``.
///
/// A manual clock that advances on its own jumps to the next sleeper's deadline as soon as
/// nothing seems to happen. The simulation's side of a boundary (an emulated link, a test
/// double of a platform) may be busy in real time while no simulated time should pass (a
/// central reading what it was sent, a queue of callbacks); a jump then would fire a timeout
/// that real hardware never would. Such a place takes a named hold on the manual clock
/// (``ManualClock/beginWork(_:)`` or ``ManualClock/addBusyProbe(_:_:)``), and a test can ask
/// it which holds are in force (``ManualClock/activeHolds``). The SDK takes none: it sees only
/// an `AnyClock`.
public struct ClockHold: Sendable, Hashable, CustomStringConvertible {
  /// The hold's name, as the simulated clock reports it.
  public let name: String

  /// A hold named `name`.
  public init(_ name: String) { self.name = name }

  public var description: String { name }
}
