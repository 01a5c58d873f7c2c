/// Why a simulated clock must stand still for a moment: the one clock-hold API.
///
/// A ``ManualClock`` with auto-advance jumps to the next sleeper's deadline as soon as
/// nothing seems to happen. Some work takes real time but no simulated time (hashing a file,
/// a task hop before a reply is handled); while it runs, a jump would fire a timeout that
/// real hardware never would. Each such place takes a named hold
/// (``AnyClock/holdTime(_:)`` or ``AnyClock/holdTime(_:while:)``), so every hold in the
/// code is one of the cases below, and a test can ask ``ManualClock/activeHolds`` which are
/// still held. On a real clock a hold costs nothing and does nothing.
public struct ClockHold: Sendable, Hashable, CustomStringConvertible {
  /// The hold's name, as ``ManualClock/activeHolds`` reports it.
  public let name: String

  /// A hold of a caller's own (tests, benchmarks).
  public init(_ name: String) { self.name = name }

  public var description: String { name }

  /// From a request being written until the write is with the link: nothing is in flight
  /// yet that the simulation could see, so the request's watchdog must not be the next
  /// deadline.
  public static let requestWrite = ClockHold("request write")
  /// While received frames wait on either side of a session's receive loop.
  public static let receiveBacklog = ClockHold("receive backlog")
  /// Disk and CPU work of the sync engine (hashing, renaming, fsync, journal writes).
  public static let storageWork = ClockHold("storage work")
  /// While a passive read's link has events not yet handled.
  public static let passiveEvents = ClockHold("passive events")
}
