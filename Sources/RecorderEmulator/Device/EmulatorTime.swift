import RecorderConcurrency

/// The clock an emulated device and its radio run on.
///
/// - ``manual(_:)``: virtual time (tests, benchmarks). While the link has traffic queued, the
///   link model itself moves the `ManualClock` forward connection event by connection
///   event (holding a work token so `ManualClock/startAutoAdvance(pollInterval:quietChecks:)` does not
///   jump past it), waiting for the central's consumer before each event, so a one-hour
///   transfer costs seconds of real time and exactly the radio's time in virtual time. When
///   the link is idle, the test or the clock's auto-advance driver moves time.
/// - ``real(_:)``: a continuous or scaled clock (`recorder emulate --time-scale X`); the
///   link model sleeps between connection events instead.
public enum EmulatorTime: Sendable {
  case manual(ManualClock)
  case real(AnyClock)

  /// Virtual time that moves by itself (`recorder demo`): a new ``ManualClock`` whose
  /// auto-advance runs until ``stop()``, so the emulated radio's hours cost seconds.
  public static func simulated() -> EmulatorTime {
    let clock = ManualClock()
    clock.startAutoAdvance()
    return .manual(clock)
  }

  /// The clock for the code the emulated device talks to (the SDK's sessions and engine):
  /// the same time the device runs on.
  public var clock: AnyClock {
    switch self {
    case .manual(let clock): AnyClock(clock)
    case .real(let clock): clock
    }
  }

  /// Time since the clock's origin (the manual clock's origin, or when the `AnyClock` was
  /// made).
  public var elapsed: Duration { now }

  /// Stops a manual clock's auto-advance (``simulated()``); nothing for a real clock.
  public func stop() {
    if case .manual(let clock) = self { clock.stopAutoAdvance() }
  }

  /// Time since the clock's origin (the manual clock's origin, or when the `AnyClock` was
  /// made).
  var now: Duration {
    switch self {
    case .manual(let clock): clock.elapsed
    case .real(let clock): clock.elapsed
    }
  }

  /// Suspends until `instant` (a time since the origin), resuming in the caller's
  /// isolation (see ``ManualClock/sleep(until:isolation:)``). Throws on cancellation.
  func sleep(until instant: Duration, isolation: isolated (any Actor)? = #isolation)
    async throws
  {
    switch self {
    case .manual(let clock):
      try await clock.sleep(until: ManualClock.Instant(offset: instant), isolation: isolation)
    case .real(let clock):
      let left = instant - clock.elapsed
      if left > .zero { try await clock.sleep(for: left) }
    }
  }

  /// Suspends for `duration` of this clock's time (`recorder emulate`'s power cycles).
  /// Throws on cancellation.
  public func sleep(for duration: Duration, isolation: isolated (any Actor)? = #isolation)
    async throws
  {
    try await sleep(until: now + duration, isolation: isolation)
  }

  /// Brings time to `instant` on behalf of the radio: a manual clock is advanced (firing
  /// every timeout that falls due on the way), a real one is slept on.
  func reach(_ instant: Duration) async {
    switch self {
    case .manual(let clock):
      clock.advance(to: ManualClock.Instant(offset: instant))
    case .real:
      try? await sleep(until: instant)
    }
  }

  /// A hold on a manual clock while the radio has work in flight; nil for a real clock.
  func beginWork(_ hold: ClockHold) -> ManualClock.WorkToken? {
    switch self {
    case .manual(let clock): clock.beginWork(hold)
    case .real: nil
    }
  }

  /// A hold on a manual clock that lets time reach `horizon` (a time since the origin) and
  /// no further; nil for a real clock.
  func beginWork(_ hold: ClockHold, upTo horizon: Duration) -> ManualClock.WorkToken? {
    switch self {
    case .manual(let clock): clock.beginWork(hold, upTo: ManualClock.Instant(offset: horizon))
    case .real: nil
    }
  }

  /// A manual clock holds still, named `hold`, while `unread` counts events waiting at a
  /// central (nil for a real clock): the central takes real time and no simulated time to
  /// read and handle them, and a timeout must not be jumped to meanwhile. A central that
  /// stopped reading for ``UnreadHold/patience`` checks of the clock releases it. Ends when
  /// the returned hold is released.
  func holdWhileUnread(_ hold: ClockHold, _ unread: @escaping @Sendable () -> Int)
    -> UnreadHold?
  {
    guard case .manual(let clock) = self else { return nil }
    return UnreadHold(clock: clock, hold: hold, unread: unread)
  }

  /// A manual clock holds still, named `hold`, while a conversation with a peer over real
  /// sockets goes on (nil for a real clock): the peer takes real time and no simulated time
  /// to answer, and its timeout must not be jumped to meanwhile. Each
  /// ``ProgressHold/note()`` (a message either way) renews it; after
  /// ``UnreadHold/patience`` checks of the clock without one, the peer is taken to be
  /// waiting on a timer of its own and the clock moves on. Ends when the returned hold is
  /// released.
  package func holdWhileProgressing(_ hold: ClockHold) -> ProgressHold? {
    guard case .manual(let clock) = self else { return nil }
    return ProgressHold(clock: clock, hold: hold)
  }

  /// Whether `stream` yields before `deadline` (a time since the origin); false at the
  /// deadline, when the stream ends, or when the waiting task is cancelled.
  func first<Element: Sendable>(of stream: AsyncStream<Element>, before deadline: Duration)
    async -> Bool
  {
    await withTaskGroup(of: Bool.self) { group in
      group.addTask {
        for await _ in stream { return true }
        return false
      }
      group.addTask {
        try? await sleep(until: deadline)
        return false
      }
      let first = await group.next() ?? false
      group.cancelAll()
      return first
    }
  }

  var isManual: Bool {
    if case .manual = self { return true }
    return false
  }
}

/// Whole nanoseconds of a duration (virtual time never needs finer).
func nanoseconds(_ duration: Duration) -> Int64 {
  let parts = duration.components
  return parts.seconds * 1_000_000_000 + parts.attoseconds / 1_000_000_000
}

extension ClockHold {
  /// The emulated device's grace between accepting a connection and its first event.
  static let emulatorSetUpGrace = ClockHold("emulator set-up grace")
  /// The emulated link has writes, notifications or writers still to serve.
  static let emulatorLinkBusy = ClockHold("emulator link busy")
  /// Notifications wait at the central, unread or in hand: the central has not come back
  /// for the next event yet.
  static let emulatorUnread = ClockHold("emulator unread events")
  /// Advertisements of a scan wait unread at the scanner (``AdvertisementRelay``).
  static let emulatorScanUnread = ClockHold("emulator scan unread")
  /// A firmware push's range is not all here: the central's next frames are due.
  static let emulatorFirmwarePush = ClockHold("emulator firmware push")
  /// The sync stream waits for the phone's next write (``FaultPlan/pauseDataAfterBytes``):
  /// the pause is the phone's to end, and its reaction takes real time, no simulated time.
  static let emulatorDataPaused = ClockHold("emulator data paused")
  /// A Mode B key exchange message went to the central; its answer (after RSA work) is due.
  static let emulatorKeyExchange = ClockHold("emulator key exchange")
  /// A health peripheral's indication is queued for a subscribed central that has not read
  /// it yet: its measurement timeout must not be the next thing a simulation jumps to.
  static let emulatorIndication = ClockHold("emulator indication unread")
  /// A Wi-Fi session's phone has been sent to or heard from within the patience: its next
  /// message (or its reading of ours) takes real TCP time.
  package static let emulatorWiFiSession = ClockHold("emulator Wi-Fi session")
  /// A Wi-Fi SYNC's content is paused for the phone (``FaultPlan/pauseWiFiContentAfterBytes``):
  /// the pause is the phone's to end, and its reaction takes real time, no simulated time.
  static let emulatorWiFiContentPaused = ClockHold("emulator Wi-Fi content paused")
}

/// The hold of ``EmulatorTime/holdWhileUnread(_:)``: a busy probe on a manual clock, removed
/// when this is released.
///
/// Its patience is counted in the auto-advance driver's checks, not in real time: on a
/// machine so busy that the central waits seconds for a thread, the driver waits too, and a
/// hold measured in real time would lapse exactly then.
package final class UnreadHold: Sendable {
  /// Checks of the clock (about 2 s of an idle machine's auto-advance polls) a central may
  /// leave events unread, with none read, before the clock moves on without it (a test's
  /// central that reads nothing, say).
  package static let patience = 4_000

  private struct Progress {
    var unread = 0
    var checksWithout = 0
  }

  private let clock: ManualClock
  private let key: Int

  package init(clock: ManualClock, hold: ClockHold, unread: @escaping @Sendable () -> Int) {
    self.clock = clock
    let progress = Locked(Progress())
    key = clock.addBusyProbe(hold) {
      let count = unread()
      return progress.withLock { state in
        defer { state.unread = count }
        guard count > 0 else { return false }
        // Progress: events arrived into an empty backlog, or the central read some.
        if state.unread == 0 || count < state.unread {
          state.checksWithout = 0
        } else {
          state.checksWithout += 1
        }
        return state.checksWithout < Self.patience
      }
    }
  }

  deinit { clock.removeBusyProbe(key) }
}

/// The hold of ``EmulatorTime/holdWhileProgressing(_:)``: a busy probe on a manual clock that
/// answers true until ``UnreadHold/patience`` checks pass without a ``note()``, removed when
/// this is released.
package final class ProgressHold: Sendable {
  private struct Progress {
    var notes: UInt64 = 0
    var seen: UInt64 = 0
    var checksWithout = 0
  }

  private let clock: ManualClock
  private let key: Int
  private let progress = Locked(Progress())

  package init(clock: ManualClock, hold: ClockHold) {
    self.clock = clock
    let progress = self.progress
    key = clock.addBusyProbe(hold) {
      progress.withLock { state in
        if state.notes != state.seen {
          state.seen = state.notes
          state.checksWithout = 0
        } else {
          state.checksWithout += 1
        }
        return state.checksWithout < UnreadHold.patience
      }
    }
  }

  /// Something moved: the patience starts again.
  package func note() { progress.withLock { $0.notes &+= 1 } }

  deinit { clock.removeBusyProbe(key) }
}
