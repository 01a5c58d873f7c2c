/// Why a simulated clock must stand still for a moment: the one clock-hold API.
///
/// A simulated clock that advances on its own jumps to the next sleeper's deadline as soon
/// as nothing seems to happen. The simulation's side of a boundary (an emulated link, a test
/// double of a platform) may be busy in real time while no simulated time should pass (a
/// central reading what it was sent, a queue of callbacks); a jump then would fire a timeout
/// that real hardware never would. Such a place takes a named hold (``AnyClock/holdTime(_:)``
/// or ``AnyClock/holdTime(_:while:)``), and a test can ask the simulated clock which holds
/// are in force. The SDK takes none: it sees only the clock. On a real clock a hold costs
/// nothing and does nothing.
public struct ClockHold: Sendable, Hashable, CustomStringConvertible {
  /// The hold's name, as the simulated clock reports it.
  public let name: String

  /// A hold named `name`.
  public init(_ name: String) { self.name = name }

  public var description: String { name }
}
